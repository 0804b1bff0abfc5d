/**
 * examples/plugins/jmespath as a third party meets it: `npm pack` mcpgw, install the tarball and
 * @jmespath-community/jmespath into a scratch project, compile the plugin's TypeScript there against the installed
 * `mcpgw/plugin-api` and `mcpgw/plugin-kit` typings, `npm pack` the plugin and install that tarball, then drive the
 * installed `mcpgw serve` through a real MCP client and run the installed CLI.
 *
 * The reference is the JMESPath library itself, installed in the same project, evaluating `[?condition]` over the
 * records as JSON.parse reads them: `search` (language jmespath), `aggregate` (where, language), `json_read` and
 * `mcpgw query` select exactly the records it selects, and every number past 2^53 comes back as the file writes it.
 * For a comparison of such numbers (which doubles cannot tell apart) the reference is the library over the same
 * records with those numbers as strings. A file over 32 MiB runs the language on the engine's worker threads.
 * Needs a build and the npm registry (or npm's cache): `npm run test:package`.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';
import { call, connect, NODE, REPO, type Connected } from '../helpers/mcp';
import { INSTALL, ok, pack as packInto, stage } from '../helpers/packages';

const PLUGIN = path.join(REPO, 'examples', 'plugins', 'jmespath');
const TSC = path.join(REPO, 'node_modules', 'typescript', 'bin', 'tsc');
const LIBRARY = JSON.parse(fs.readFileSync(path.join(PLUGIN, 'package.json'), 'utf8')).dependencies['@jmespath-community/jmespath'] as string;
const TYPES_NODE = JSON.parse(fs.readFileSync(path.join(REPO, 'node_modules', '@types', 'node', 'package.json'), 'utf8')).version as string;

let tmp: string;
let app: string;
let bin: string;
let jmespath: { search(data: unknown, expression: string): unknown };

function mcpgw(...args: string[]) {
  const r = spawnSync(NODE, [bin, ...args], { cwd: app, env: { PATH: process.env.PATH ?? '', HOME: app, XDG_CACHE_HOME: path.join(tmp, 'cache') }, encoding: 'utf8', timeout: 120_000 });
  if (r.error) throw r.error;
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/** Two ids a double cannot tell apart (both are 12345678901234567168 as doubles), and a long decimal. */
const BIG = ['12345678901234567890', '12345678901234567891'];
const LEVELS = ['info', 'error', 'warn', 'debug'];
const SVCS = ['api', 'db', 'web'];

/** Record i of a generated file, as text (big ids at 5 and 6 of every 1,000; ages 18..77; a decimal score). */
function line(i: number): string {
  const id = i % 1000 === 5 ? BIG[0] : i % 1000 === 6 ? BIG[1] : String(i);
  return `{"id":${id},"level":"${LEVELS[i % 4]}","svc":"${SVCS[i % 3]}","age":${18 + ((i * 7) % 60)},"score":${i % 10}.50,"tags":${i % 5 === 0 ? '[]' : `["t${i % 3}"]`}}`;
}

const SMALL = 600;
let lines: string[];
let parsed: unknown[];

/** The indexes of the records the library selects with `[?condition]` over `records` (by identity). */
function selected(records: unknown[], condition: string): number[] {
  const out = jmespath.search(records, `[?${condition}]`) as unknown[];
  return out.map((r) => records.indexOf(r));
}

beforeAll(() => {
  if (!fs.existsSync(path.join(REPO, 'dist', 'cli', 'main.js'))) throw new Error('Build first: npx tsc -b (npm test does it).');
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-jmespath-')));
  app = path.join(tmp, 'app');
  fs.mkdirSync(app);
  fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'jmespath-deployment', version: '1.0.0', private: true }, null, 2));
  const pack = (dir: string) => packInto(dir, path.join(tmp, 'tarballs'));
  ok('npm', [...INSTALL, pack(REPO), `@jmespath-community/jmespath@${LIBRARY}`, `@types/node@${TYPES_NODE}`], app);

  // the plugin compiled against the installed mcpgw's typings (app/node_modules/mcpgw), then packed and installed
  const src = stage(PLUGIN, path.join(app, 'jmespath-src'));
  ok(NODE, [TSC, '-p', src], src);
  ok('npm', [...INSTALL, pack(src)], app);

  jmespath = createRequire(path.join(app, 'package.json'))('@jmespath-community/jmespath');
  fs.mkdirSync(path.join(app, 'data'));
  lines = Array.from({ length: SMALL }, (_, i) => line(i));
  parsed = lines.map((l) => JSON.parse(l));
  fs.writeFileSync(path.join(app, 'data', 'events.jsonl'), lines.join('\n') + '\n');
  // over 32 MiB: the engine scans it on worker threads, where the plugin is loaded again
  const big = fs.openSync(path.join(app, 'data', 'big.jsonl'), 'w');
  for (let from = 0; from < 450_000; from += 10_000) fs.writeSync(big, Array.from({ length: 10_000 }, (_, k) => line(from + k)).join('\n') + '\n');
  fs.closeSync(big);
  fs.writeFileSync(path.join(app, '.mcpgwrc.yaml'), 'root: ./data\nplugins:\n  - mcpgw-query-jmespath\n');
  bin = path.join(app, 'node_modules', 'mcpgw', 'bin', 'mcpgw.js');
}, 600_000);

afterAll(() => {
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

describe('the packed JMESPath plugin, installed', () => {
  test('it imports only mcpgw/plugin-api (types), mcpgw/plugin-kit and its npm dependency, pinned', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(app, 'node_modules', 'mcpgw-query-jmespath', 'package.json'), 'utf8'));
    expect(pkg.dependencies).toEqual({ '@jmespath-community/jmespath': LIBRARY });
    expect(LIBRARY).toMatch(/^\d+\.\d+\.\d+$/);
    const code = ['index.js', 'located.js'].map((f) => fs.readFileSync(path.join(app, 'node_modules', 'mcpgw-query-jmespath', 'dist', f), 'utf8')).join('\n');
    const imports = [...code.matchAll(/from '([^']+)'/g)].map((m) => m[1]);
    expect([...new Set(imports)].sort()).toEqual(['./located.js', '@jmespath-community/jmespath', 'mcpgw/plugin-kit']);
  });

  test('mcpgw plugins lists it with its language', () => {
    const r = mcpgw('plugins', '--json');
    expect(r.code).toBe(0);
    const mine = (JSON.parse(r.out) as { name: string; queryLanguages: string[] }[]).find((p) => p.name === 'mcpgw-query-jmespath');
    expect(mine?.queryLanguages).toEqual(['jmespath']);
  });
});

describe('through a real MCP client and the installed CLI, against the library', () => {
  let conn: Connected;
  let handle: string;
  beforeAll(async () => {
    conn = await connect([], { cwd: app, cli: bin });
    handle = (await call(conn.client, 'open_file', { path: 'events.jsonl' })).data.handle;
  }, 120_000);
  afterAll(async () => {
    await conn?.close();
  });

  test('tools/list names jmespath where a query is taken', async () => {
    const { tools } = await conn.client.listTools();
    for (const name of ['search', 'aggregate', 'json_read']) expect(tools.find((t) => t.name === name)!.description).toContain('jmespath');
  });

  const CONDITIONS = ["level == 'error'", 'age > `40` && !contains(tags, `"t1"`)', "svc == 'db' || length(tags) == `0`"];

  test.each(CONDITIONS)('%s: search, aggregate where, json_read and mcpgw query select the records the library selects', async (condition) => {
    const expected = selected(parsed, condition);
    expect(expected.length).toBeGreaterThan(10);

    const s = await call(conn.client, 'search', { handle, language: 'jmespath', query: condition, max_results: 1000 });
    expect(s.isError).toBe(false);
    expect(s.data).toMatchObject({ total_matches: expected.length, complete: true, language: 'jmespath' });
    expect(s.data.matches.map((m: { record_index: number }) => m.record_index)).toEqual(expected);

    const a = await call(conn.client, 'aggregate', { handle, where: condition, language: 'jmespath', group_by: 'svc', order: 'key_asc' });
    expect(a.isError).toBe(false);
    expect(a.data.records_matched).toBe(expected.length);
    const bySvc = new Map<string, number>();
    for (const svc of jmespath.search(parsed, `[?${condition}].svc`) as string[]) bySvc.set(svc, (bySvc.get(svc) ?? 0) + 1);
    expect(a.data.groups).toEqual([...bySvc].sort(([x], [y]) => (x < y ? -1 : 1)).map(([key, count]) => ({ key, count })));

    const r = await call(conn.client, 'json_read', { path: 'events.jsonl', language: 'jmespath', query: `[?${condition}]`, max_items: 1000 });
    expect(r.isError).toBe(false);
    expect(r.data.items.map((i: { path: string }) => i.path)).toEqual(expected.map((i) => `/${i}`));

    const q = mcpgw('query', 'data/events.jsonl', `[?${condition}]`, '--language', 'jmespath');
    expect(q.code).toBe(0);
    // each record exactly as the file writes it: big ids and 4.50 digit for digit
    expect(q.out.split('\n').filter(Boolean)).toEqual(expected.map((i) => `{"path":"/${i}","value":${lines[i]}}`));
  });

  test('numbers past 2^53 compare exactly: of two ids one double holds, only the one asked for (the library over the ids as strings)', async () => {
    const exactRecords = lines.map((l) => JSON.parse(l.replace(/"id":(\d+)/, '"id":"$1"')));
    const expected = selected(exactRecords, `id == '${BIG[1]}'`);
    expect(expected).toEqual([6]);
    // the library over doubles cannot tell them apart
    expect(selected(parsed, `id == \`${BIG[1]}\``)).toEqual([5, 6]);

    const s = await call(conn.client, 'search', { handle, language: 'jmespath', query: `id == \`${BIG[1]}\``, max_results: 1000 });
    expect(s.data.matches.map((m: { record_index: number }) => m.record_index)).toEqual(expected);
    const a = await call(conn.client, 'aggregate', { handle, where: `id == \`${BIG[1]}\``, language: 'jmespath' });
    expect(a.data.records_matched).toBe(1);
    const r = await call(conn.client, 'json_read', { path: 'events.jsonl', language: 'jmespath', query: `[?id == \`${BIG[1]}\`].id` });
    expect(r.data.items.map((i: { path: string }) => i.path)).toEqual(['/6/id']);
    expect(r.text).toContain(`"value":${BIG[1]}`);
    const q = mcpgw('query', 'data/events.jsonl', `[?id > \`${BIG[0]}\`].id`, '--language', 'jmespath');
    expect(q.out).toBe(`{"path":"/6/id","value":${BIG[1]}}\n`);
  });

  test('a bad expression is QUERY_SYNTAX_ERROR with its position; an unknown language names jmespath among the registered', async () => {
    const bad = await call(conn.client, 'search', { handle, language: 'jmespath', query: '[?age > ' });
    expect(bad.data.error).toMatchObject({ code: 'QUERY_SYNTAX_ERROR', location: { position: 8 } });
    const unknown = await call(conn.client, 'json_read', { path: 'events.jsonl', language: 'jq', query: '.' });
    expect(unknown.data.error.message).toContain('jmespath');
    expect(unknown.data.error.hint).toContain('"jmespath" (JMESPath:');
  });

  test('a file over 32 MiB: search and aggregate run the language on worker threads and count what the library counts', async () => {
    const condition = 'age > `70` && score > `4`';
    const text = fs.readFileSync(path.join(app, 'data', 'big.jsonl'), 'utf8');
    expect(text.length).toBeGreaterThan(32 * 1024 * 1024);
    const expected = (jmespath.search(text.split('\n').filter(Boolean).map((l) => JSON.parse(l)), `length([?${condition}])`) as number);
    expect(expected).toBeGreaterThan(100);
    const opened = await call(conn.client, 'open_file', { path: 'big.jsonl' });
    const a = await call(conn.client, 'aggregate', { handle: opened.data.handle, where: condition, language: 'jmespath' });
    expect(a.data).toMatchObject({ complete: true, records_matched: expected });
    const s = await call(conn.client, 'search', { handle: opened.data.handle, language: 'jmespath', query: condition, max_results: 0 });
    expect(s.data).toMatchObject({ complete: true, total_matches: expected });
  }, 240_000);
});
