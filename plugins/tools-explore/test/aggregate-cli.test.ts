/**
 * `mcpgw aggregate` through the BUILT CLI (dist/cli/main.js, run for each command in one Node process:
 * test/helpers/cli-host.ts): a table on stdout, `--json` with exact numbers, buckets, where, several group_by paths,
 * --top with the pages gathered, usage errors with exit 2; a progress bar on stderr only when it is a terminal (the
 * host marks stderr as one for a command); a distinct count past the exact memory bound estimated.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { startCliHost, type CliHost } from '../../../test/helpers/cli-host';

let dir: string;
let host: CliHost;
beforeAll(() => {
  host = startCliHost();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-acli-'));
  fs.writeFileSync(path.join(dir, 'events.jsonl'), [
    '{"id":1,"status":"ok","level":"info","bytes":9007199254740993,"ts":"2025-03-01T06:10:00Z"}',
    '{"id":2,"status":"failed","level":"error","bytes":2,"ts":"2025-03-01T08:20:00+02:00"}',
    '{"id":3,"status":"failed","level":"error","bytes":3,"ts":"2025-03-01T07:59:59Z"}',
    '{"broken":',
    '{"id":5,"level":"info","bytes":1.50,"ts":1740812400}',
    '{"id":6,"status":null,"level":"error","bytes":"n/a","ts":"later"}',
  ].join('\n') + '\n');
  const many = Array.from({ length: 2500 }, (_, i) => JSON.stringify({ k: `k${String(i % 1200).padStart(4, '0')}` }));
  fs.writeFileSync(path.join(dir, 'many.jsonl'), many.join('\n') + '\n');
  // ~330,000 distinct 8-character strings: their exact set (~76 bytes each, 25 MB) passes the 16 MiB bound.
  const users = Array.from({ length: 330_000 }, (_, i) => `{"u":"u${String(i).padStart(7, '0')}","g":${i % 2}}`);
  fs.writeFileSync(path.join(dir, 'users.jsonl'), users.join('\n') + '\n');
});
afterAll(async () => {
  await host?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

function run(...args: string[]) {
  return runWith({}, args);
}
/** `mcpgw aggregate …args` in the data folder; `tty`: stderr is a terminal. */
async function runWith(options: { tty?: boolean }, args: string[]) {
  const r = await host.run(['aggregate', ...args], dir, { PATH: process.env.PATH ?? '', XDG_CACHE_HOME: process.env.XDG_CACHE_HOME ?? '' }, options);
  return { code: r.status, out: r.stdout, err: r.stderr, lines: r.stdout.split('\n').filter(Boolean) };
}

test('prints a table: one column per path, count, metrics; missing apart from null; a summary line', async () => {
  const r = await run('events.jsonl', '--group-by', 'status', '--metric', 'sum(bytes)', '--order', 'key_asc');
  expect(r.code).toBe(0);
  expect(r.lines).toEqual([
    'status     count        sum(bytes)',
    '---------  -----  ----------------',
    '(missing)      1               1.5',
    'null           1              null',
    'failed         2                 5',
    'ok             1  9007199254740993',
    '4 of 4 groups; 5 of 6 records matched',
  ]);
  expect(r.err).toMatch(/warning \(SYNTAX_ERROR\): Record 3 was skipped/);
});

test('--json: the tool\'s answer with exact numbers; --bucket ts:1h with --where, in two time zones and epoch seconds', async () => {
  const r = await run('events.jsonl', '--where', '$.level == "error"', '--bucket', 'ts:1h', '--order', 'key_asc', '--json');
  expect(r.code).toBe(0);
  const a = JSON.parse(r.out);
  expect(a.groups).toEqual([
    { key: null, unbucketable: ['ts'], count: 1 },
    { key: '2025-03-01T06:00:00Z', count: 1 },
    { key: '2025-03-01T07:00:00Z', count: 1 },
  ]);
  expect(a).toMatchObject({ records_matched: 3, records_scanned: 6, complete: true, group_by: ['ts'] });
  const exact = await run('events.jsonl', '--metric', 'max(bytes)', '--metric', 'min(bytes)', '--json');
  expect(exact.out).toContain('"max(bytes)":9007199254740993');
  expect(exact.out).toContain('"min(bytes)":1.50');
  const epoch = await run('events.jsonl', '--where', '$.id == 5', '--bucket', 'ts:1d', '--json');
  expect(JSON.parse(epoch.out).groups).toEqual([{ key: '2025-03-01T00:00:00Z', count: 1 }]);
  // the unit form --help shows: 1740812400 read as epoch seconds (:s) and as milliseconds (:ms, 1970-01-21)
  const seconds = await run('events.jsonl', '--where', '$.id == 5', '-b', 'ts:1d:s', '--json');
  expect(seconds.code).toBe(0);
  expect(JSON.parse(seconds.out).groups).toEqual([{ key: '2025-03-01T00:00:00Z', count: 1 }]);
  const ms = await run('events.jsonl', '--where', '$.id == 5', '-b', 'ts:1h:ms', '--json');
  expect(ms.code).toBe(0);
  expect(JSON.parse(ms.out).groups).toEqual([{ key: new Date(Math.floor(1740812400 / 3_600_000) * 3_600_000).toISOString().replace('.000Z', 'Z'), count: 1 }]);
});

test('several --group-by and --top gathers pages past one page of the tool', async () => {
  const r = await run('events.jsonl', '-g', 'level', '-g', 'status', '--top', '2');
  expect(r.lines.slice(0, 4)).toEqual([
    'level  status  count',
    '-----  ------  -----',
    'error  failed      2',
    'error  null        1',
  ]);
  expect(r.lines[4]).toBe('2 of 4 groups; 5 of 6 records matched');
  const big = await run('many.jsonl', '-g', 'k', '--top', '1100', '--order', 'key_asc', '--json');
  const a = JSON.parse(big.out);
  expect(a.groups).toHaveLength(1100);
  expect(a.groups[1099]).toEqual({ key: 'k1099', count: 2 });
  expect(a.groups_total).toBe(1200);
});

test('--root: FILE is a path under the root, as for mcpgw query (relative to it; outside it is ACCESS_DENIED, exit 2)', async () => {
  const root = path.join(dir, 'root');
  fs.mkdirSync(path.join(root, 'logs'), { recursive: true });
  fs.writeFileSync(path.join(root, 'logs', 'a.jsonl'), '{"k":"x"}\n{"k":"y"}\n{"k":"x"}\n');
  const inRoot = await run('logs/a.jsonl', '--root', root, '--group-by', 'k', '--json');
  expect(inRoot.code).toBe(0);
  expect(JSON.parse(inRoot.out).groups).toEqual([{ key: 'x', count: 2 }, { key: 'y', count: 1 }]);
  const outside = await run('../events.jsonl', '--root', root);
  expect(outside.code).toBe(2);
  expect(outside.err).toContain('outside the root');
});

test('usage errors exit 2 with the message on stderr', async () => {
  for (const args of [['events.jsonl', '--metric', 'median(x)'], ['events.jsonl', '--bucket', 'ts'], ['nope.jsonl'], ['events.jsonl', '--top', '0']]) {
    const r = await run(...args);
    expect([args, r.code]).toEqual([args, 2]);
    expect(r.out).toBe('');
    expect(r.err).toMatch(/^mcpgw: |error: /m);
  }
});

test('a progress bar on stderr only when it is a terminal, erased at the end; stdout the same either way', async () => {
  const args = ['users.jsonl', '-g', 'g', '--json'];
  const pipe = await run(...args);
  expect(pipe.code).toBe(0);
  expect(pipe.err).toBe('');
  const tty = await runWith({ tty: true }, args);
  expect(tty.code).toBe(0);
  expect(tty.out).toBe(pipe.out);
  expect(JSON.parse(tty.out).groups).toEqual([{ key: 0, count: 165_000 }, { key: 1, count: 165_000 }]);
  // Redrawn in place: [####....]  NN% …, the last draw at 100%, then the line erased.
  expect(tty.err).toMatch(/^\r\[[#.]{30}\] +\d+% /);
  const draws = tty.err.split('\r').filter((d) => d.startsWith('['));
  expect(draws[draws.length - 1]).toMatch(/^\[#{30}\] 100% /);
  expect(tty.err.endsWith('\r\x1b[K')).toBe(true);
  expect((await run(...args, '--no-progress')).err).toBe('');
  expect((await runWith({ tty: true }, [...args, '--no-progress'])).err).toBe('');
}, 60_000);

test('a distinct count past the exact memory bound is estimated, with its error bound, in JSON and in the table', async () => {
  const r = await run('users.jsonl', '--metric', 'count_distinct(u)', '--metric', 'count_distinct(g)', '--json');
  expect(r.code).toBe(0);
  const g = JSON.parse(r.out).groups[0];
  expect(g.count).toBe(330_000);
  expect(g['count_distinct(g)']).toBe(2); // small sets stay exact
  const est = g['count_distinct(u)'];
  expect(est).toMatchObject({ estimated: true });
  expect(est.error_bound).toBeGreaterThan(0);
  expect(Math.abs(est.value - 330_000)).toBeLessThanOrEqual(est.error_bound);
  const t = await run('users.jsonl', '--metric', 'count_distinct(u)');
  expect(t.lines[0]).toMatch(/^ *count +count_distinct\(u\)$/);
  expect(t.lines[2]).toMatch(new RegExp(`^330000 +≈${est.value} ±${est.error_bound}$`));
}, 60_000);

test('the command runs the tool with the context every tool call gets: an error the explorer raises is logged with its plugin', async () => {
  // One ToolContext factory (src/kernel/server/tool-context.ts) for the server, commands and tests: ctx.error tags the
  // plugin that raised an error, and the tool adapter's log line names it (raisedBy), as for a call over MCP.
  const r = await run('events.jsonl', '--metric', 'median(x)', '--log-level', 'debug');
  expect(r.code).toBe(2);
  const line = r.err.split('\n').find((l) => l.startsWith('mcpgw debug tool aggregate answered INVALID_ARGUMENT'));
  expect(line).toBeDefined();
  expect(JSON.parse(line!.slice(line!.indexOf('{')))).toMatchObject({ message: 'Unknown metric "median(x)".', raisedBy: '@mcpgw/tools-explore' });
});
