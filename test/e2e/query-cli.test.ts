/**
 * `mcpgw query` through the BUILT CLI (dist/cli/main.js, run for each command in one Node process:
 * test/helpers/cli-host.ts): real files, exit codes, stdout checked line by line, stderr.
 * Requires a build: `npm test` runs `tsc -b` before jest.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { startCliHost, type CliHost } from '../helpers/cli-host';

let dir: string;
let host: CliHost;
beforeAll(() => {
  host = startCliHost();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-qcli-'));
  fs.writeFileSync(path.join(dir, 'events.jsonl'), [
    '{"id":1,"status":"ok","latency_ms":12.5}',
    '{"id":12345678901234567891,"status":"failed","latency_ms":150.0}',
    '{"id":3,"status":"failed","latency_ms":99}',
    '{"broken":',
    '{"id":5,"status":"ok","latency_ms":101}',
  ].join('\n') + '\n');
});
afterAll(async () => {
  await host?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** `mcpgw query …args` in the data folder (`env`: more of its environment). */
async function run(...args: string[]) {
  return runWith({}, ...args);
}
async function runWith(env: Record<string, string>, ...args: string[]) {
  const r = await host.run(['query', ...args], dir, { PATH: process.env.PATH ?? '', XDG_CACHE_HOME: process.env.XDG_CACHE_HOME ?? '', ...env });
  return { code: r.status, out: r.stdout, err: r.stderr, lines: r.stdout.split('\n').filter(Boolean) };
}

describe('mcpgw query', () => {
  test('prints the node list as JSON Lines with whole-file paths and exact numbers', async () => {
    const r = await run('events.jsonl', '$[?@.status=="failed"]');
    expect(r.code).toBe(0);
    expect(r.lines).toEqual([
      '{"path":"/1","value":{"id":12345678901234567891,"status":"failed","latency_ms":150.0}}',
      '{"path":"/2","value":{"id":3,"status":"failed","latency_ms":99}}',
    ]);
    // Records 0, 3 (malformed) and 4 lack "failed": ruled out unparsed; with no malformed record met, stderr stays empty.
    expect(r.err).toBe('');
  });

  test('a filter no literal narrows parses every record and reports the malformed one on stderr', async () => {
    const r = await run('events.jsonl', '$[?@.latency_ms > 100]');
    expect(r.code).toBe(0);
    expect(r.lines).toEqual([
      '{"path":"/1","value":{"id":12345678901234567891,"status":"failed","latency_ms":150.0}}',
      '{"path":"/4","value":{"id":5,"status":"ok","latency_ms":101}}',
    ]);
    expect(r.err).toMatch(/1 record\(s\) could not be read and were skipped \(first: record 3, line 4/);
    // No literal narrows it; the filter reads latency_ms alone and rules out records 0 (12.5) and 2 (99) on it, unparsed.
    expect(r.err).toContain(' Besides, the query ruled out 2 record(s) without parsing them (its byte prefilter, or its filter on the members it reads): malformed ones among them are not counted.\n');
  });

  test('--limit, --language pointer', async () => {
    expect((await run('events.jsonl', '$[*].id', '--limit', '2')).lines).toEqual(['{"path":"/0/id","value":1}', '{"path":"/1/id","value":12345678901234567891}']);
    expect((await run('events.jsonl', '/1/id', '--language', 'pointer')).lines).toEqual(['{"path":"/1/id","value":12345678901234567891}']);
    expect((await run('events.jsonl', '/9/id', '-l', 'pointer')).lines).toEqual([]);
  });

  test('errors go to stderr; faults of the arguments (a bad query, with its position) exit 2', async () => {
    const bad = await run('events.jsonl', '$[?@.status==');
    expect(bad.code).toBe(2);
    expect(bad.out).toBe('');
    expect(bad.err).toMatch(/JSONPath query is not well-formed at character \d+/);
    const ptr = await run('events.jsonl', 'a/b', '-l', 'pointer');
    expect(ptr.code).toBe(2);
    expect(ptr.err).toMatch(/must be "" or start with "\/"/);
    const usage = await run('events.jsonl');
    expect(usage.code).toBe(2);
    expect(usage.err).toMatch(/missing required argument 'query'/);
    expect((await run('events.jsonl', '$', '-l', 'nope')).code).toBe(2);
    expect((await run('missing.jsonl', '$')).code).toBe(2);
  });

  test('a query starting with / is a JSON Pointer unless --language says otherwise', async () => {
    expect((await run('events.jsonl', '/1/id')).lines).toEqual(['{"path":"/1/id","value":12345678901234567891}']);
    expect((await run('events.jsonl', '#/2/status')).lines).toEqual(['{"path":"/2/status","value":"failed"}']);
    const forced = await run('events.jsonl', '/1/id', '--language', 'jsonpath');
    expect(forced.code).toBe(2);
    expect(forced.err).toMatch(/JSONPath query is not well-formed at character 0/);
  });

  test('--root: FILE is a path under the root (relative to it; outside it is ACCESS_DENIED, exit 2)', async () => {
    const root = path.join(dir, 'root');
    fs.mkdirSync(path.join(root, 'logs'), { recursive: true });
    fs.writeFileSync(path.join(root, 'logs', 'a.jsonl'), '{"id":7}\n{"id":8}\n');
    const inRoot = await run('--root', 'root', 'logs/a.jsonl', '$[*].id');
    expect(inRoot).toMatchObject({ code: 0, lines: ['{"path":"/0/id","value":7}', '{"path":"/1/id","value":8}'] });
    expect((await run('--root', root, path.join(root, 'logs', 'a.jsonl'), '/1')).lines).toEqual(['{"path":"/1","value":{"id":8}}']);
    const outside = await run('--root', 'root', '../events.jsonl', '$');
    expect(outside.code).toBe(2);
    expect(outside.err).toContain('outside the root');
    expect((await run('--root', 'root', 'events.jsonl', '$')).code).toBe(2); // relative to the root, not to the current folder
    // A root from the environment (or a config file) is the server's: FILE stays relative to the current folder.
    const env = await runWith({ MCPGW_ROOT: root }, 'events.jsonl', '/0/id');
    expect(env.out).toBe('{"path":"/0/id","value":1}\n');
    // A file only under that root: not found from the current folder, and the hint says how to read it under the root.
    const under = await runWith({ MCPGW_ROOT: root }, 'logs/a.jsonl', '/0/id');
    expect(under.code).toBe(2);
    expect(under.err).toBe(`mcpgw: NOT_FOUND: No such file: logs/a.jsonl (looked for from the current folder, ${dir}).\nmcpgw: hint: FILE is a path from the current folder; to read it under the root MCPGW_ROOT or the config sets (${root}), pass --root ${root}.\n`);
    // No root set anywhere: the current folder is no root anybody chose, so no hint names it.
    const none = await run('logs/a.jsonl', '/0/id');
    expect(none.code).toBe(2);
    expect(none.err).toBe(`mcpgw: NOT_FOUND: No such file: logs/a.jsonl (looked for from the current folder, ${dir}).\n`);
  });

  test('a match()/search() pattern that is not I-Regexp: the (empty) answer, and a warning on stderr', async () => {
    const r = await run('events.jsonl', "$[?search(@.status, '\\\\w+ed')].id");
    expect(r.code).toBe(0);
    expect(r.lines).toEqual([]);
    expect(r.err).toContain('mcpgw: warning (NOT_I_REGEXP): The search() pattern');
    expect(r.err).toContain('\\w → [0-9A-Za-z_]');
    const ok = await run('events.jsonl', "$[?search(@.status, '[a-z]+ed')].id");
    expect(ok.lines).toEqual(['{"path":"/1/id","value":12345678901234567891}', '{"path":"/2/id","value":3}']);
    expect(ok.err).not.toContain('warning');
  });
});
