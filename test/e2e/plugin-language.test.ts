/**
 * A third-party query language is an equal of the built-ins in every tool that takes a query: the fixture plugin
 * test/fixtures/plugins/query-eq.cjs (language "eq": `path=value`, no engine hints, run on worker threads) through a
 * real MCP client against the built CLI — tools/list names it, `search` (language argument), `aggregate` (`where` with
 * `language`), `json_read`, and the CLI's `mcpgw query` and `mcpgw aggregate` find the records a hand count finds,
 * numbers past 2^53 compared exactly; an unknown language's error lists and describes the registered ones.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { call, CLI, connect, NODE, REPO, type Connected } from '../helpers/mcp';

const PLUGIN = path.join(REPO, 'test', 'fixtures', 'plugins', 'query-eq.cjs');
/** A format plugin that only names itself (tsv), for what the server says about the registered formats. */
const FORMAT = path.join(REPO, 'test', 'fixtures', 'plugins', 'format-named.cjs');
const N = 240;
/** Two ids a double cannot tell apart (both round to 12345678901234567168): only an exact comparison separates them. */
const BIG = ['12345678901234567890', '12345678901234567891'];
const LEVELS = ['info', 'error', 'warn'];
const SVCS = ['api', 'db', 'web', 'auth'];

/** The records as written (by hand: level cycles every 3, svc every 4; records 7 and 8 hold the big ids). */
const records = Array.from({ length: N }, (_, i) => ({ id: i === 7 ? BIG[0] : i === 8 ? BIG[1] : String(i), level: LEVELS[i % 3]!, svc: SVCS[i % 4]! }));
const line = (r: (typeof records)[number]) => `{"id":${r.id},"level":"${r.level}","svc":"${r.svc}"}`;
/** The hand count: records whose level is "error". */
const errors = records.flatMap((r, i) => (r.level === 'error' ? [i] : []));

let dir: string;
let conn: Connected;
let threadsOnly: Connected;
beforeAll(async () => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-plugin-lang-')));
  fs.mkdirSync(path.join(dir, 'data'));
  fs.writeFileSync(path.join(dir, 'data', 'events.jsonl'), records.map(line).join('\n') + '\n');
  fs.writeFileSync(path.join(dir, 'data', 'blob.bin'), Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 0, 0, 1, 2, 0, 0, 0]));
  fs.writeFileSync(path.join(dir, '.mcpgwrc.yaml'), `root: ./data\nplugins:\n  - ${JSON.stringify(PLUGIN)}\n  - ${JSON.stringify(FORMAT)}\n`);
  // the same plugin refusing to evaluate on the main thread: what search and aggregate ask of it runs on worker threads
  fs.writeFileSync(path.join(dir, 'threads.yaml'), `root: ./data\nplugins:\n  - [${JSON.stringify(PLUGIN)}, { refuseMainThread: true }]\n`);
  conn = await connect(['--config', path.join(dir, '.mcpgwrc.yaml')]);
  threadsOnly = await connect(['--config', path.join(dir, 'threads.yaml')]);
});
afterAll(async () => {
  await conn?.close();
  await threadsOnly?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

function cli(...args: string[]) {
  const r = spawnSync(NODE, [CLI, ...args], { cwd: dir, encoding: 'utf8', env: { PATH: process.env.PATH ?? '', XDG_CACHE_HOME: path.join(dir, 'cache') } });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

test('tools/list names the plugin language where tools take a query, and the plugin format where tools open files', async () => {
  const { tools } = await conn.client.listTools();
  const desc = Object.fromEntries(tools.map((t) => [t.name, t.description ?? '']));
  for (const name of ['search', 'aggregate', 'json_read']) expect(desc[name]).toMatch(/\beq\b/);
  expect(desc.search).toContain('jsonpath, pointer, predicate, eq');
  for (const name of ['open_file', 'json_open']) expect(desc[name]).toContain('json, jsonl, json-seq, tsv');
  expect(tools.find((t) => t.name === 'search')!.inputSchema.properties).toHaveProperty('language');
  expect(tools.find((t) => t.name === 'aggregate')!.inputSchema.properties).toHaveProperty('language');
  // and the server's instructions name the formats it reads
  expect(conn.client.getInstructions()).toContain('formats: json, jsonl, json-seq, tsv');
  const unknown = await call(conn.client, 'open_file', { path: 'events.jsonl', format: 'csv' });
  expect(unknown.data.error.code).toBe('INVALID_ARGUMENT');
  expect(unknown.data.error.message).toContain('json, jsonl, json-seq, tsv');
  const binary = await call(conn.client, 'open_file', { path: 'blob.bin' });
  expect(binary.data.error.code).toBe('UNSUPPORTED_FORMAT');
  expect(binary.data.error.hint).toContain('json, jsonl, json-seq, tsv');
});

test('search with language "eq" finds the records the hand count finds, on worker threads', async () => {
  for (const c of [conn, threadsOnly]) {
    const { data: opened } = await call(c.client, 'open_file', { path: 'events.jsonl' });
    const r = await call(c.client, 'search', { handle: opened.handle, language: 'eq', query: 'level=error', max_results: 1000 });
    expect(r.isError).toBe(false);
    expect(r.data).toMatchObject({ total_matches: errors.length, counts: 'records', mode: 'jsonpath', language: 'eq', complete: true });
    expect(r.data.matches.map((m: { record_index: number }) => m.record_index)).toEqual(errors);
    expect(r.data.matches[0].match_path).toBe('/level');
    // exact numbers: of two ids one double holds, only the one asked for
    const big = await call(c.client, 'search', { handle: opened.handle, language: 'eq', query: `id=${BIG[1]}` });
    expect(big.data.matches.map((m: { record_index: number; preview: string }) => [m.record_index, m.preview])).toEqual([[8, `/id = «${BIG[1]}»`]]);
  }
});

test('a paged search with a language continues with its cursor, and the cursor belongs to that language', async () => {
  const { data: opened } = await call(conn.client, 'open_file', { path: 'events.jsonl' });
  const first = await call(conn.client, 'search', { handle: opened.handle, language: 'eq', query: 'level=error', max_results: 50 });
  expect(first.data.next_cursor).toEqual(expect.any(String));
  const other = await call(conn.client, 'search', { handle: opened.handle, query: 'level=error', max_results: 50, cursor: first.data.next_cursor });
  expect(other.data.error.code).toBe('INVALID_ARGUMENT');
  const again = await call(conn.client, 'search', { handle: opened.handle, language: 'eq', query: 'level=error', max_results: 50 });
  const second = await call(conn.client, 'search', { handle: opened.handle, language: 'eq', query: 'level=error', max_results: 50, cursor: again.data.next_cursor });
  expect([...again.data.matches, ...second.data.matches].map((m: { record_index: number }) => m.record_index)).toEqual(errors);
});

test('aggregate: where in language "eq" counts the hand count\'s records, on worker threads', async () => {
  const bySvc = new Map<string, number>();
  for (const i of errors) bySvc.set(records[i]!.svc, (bySvc.get(records[i]!.svc) ?? 0) + 1);
  const expected = [...bySvc].map(([key, count]) => ({ key, count })).sort((a, b) => b.count - a.count || (a.key < b.key ? -1 : 1));
  for (const c of [conn, threadsOnly]) {
    const { data: opened } = await call(c.client, 'open_file', { path: 'events.jsonl' });
    const r = await call(c.client, 'aggregate', { handle: opened.handle, where: 'level=error', language: 'eq', group_by: 'svc', order: 'count_desc' });
    expect(r.isError).toBe(false);
    expect(r.data.records_matched).toBe(errors.length);
    expect([...r.data.groups].sort((a: { key: string; count: number }, b: { key: string; count: number }) => b.count - a.count || (a.key < b.key ? -1 : 1))).toEqual(expected);
    const big = await call(c.client, 'aggregate', { handle: opened.handle, where: `id=${BIG[0]}`, language: 'eq' });
    expect(big.data.groups).toEqual([{ key: null, count: 1 }]);
  }
});

test('json_read with language "eq" reads the file as the sequence of its records (the plugin gives no split: the file is small)', async () => {
  const r = await call(conn.client, 'json_read', { path: 'events.jsonl', language: 'eq', query: 'level=error', max_items: 1000 });
  expect(r.isError).toBe(false);
  expect(r.data.items).toEqual(errors.map((i) => ({ path: `/${i}/level`, value: 'error' })));
  // evaluated on the main thread here (a small file read whole): the plugin configured to refuse it says so
  const refused = await call(threadsOnly.client, 'json_read', { path: 'events.jsonl', language: 'eq', query: 'level=error' });
  expect(JSON.stringify(refused.data)).toContain('eq evaluated on the main thread');
  const big = await call(conn.client, 'json_read', { path: 'events.jsonl', language: 'eq', query: `id=${BIG[1]}` });
  expect(big.text).toContain(`"value":${BIG[1]}`);
  expect(big.data.items.map((i: { path: string }) => i.path)).toEqual(['/8/id']);
});

test('the built-in record predicates are a registered language too: language "predicate" answers as the detected form', async () => {
  const { data: opened } = await call(conn.client, 'open_file', { path: 'events.jsonl' });
  const detected = await call(conn.client, 'search', { handle: opened.handle, query: '$.level = "ERROR"', max_results: 1000 });
  const named = await call(conn.client, 'search', { handle: opened.handle, language: 'predicate', query: '$.level = "ERROR"', max_results: 1000 });
  expect(detected.data.matches.map((m: { record_index: number }) => m.record_index)).toEqual(errors);
  expect(named.data.matches).toEqual(detected.data.matches);
  expect(named.data.filter).toBe(detected.data.filter);
  const read = await call(conn.client, 'json_read', { path: 'events.jsonl', language: 'predicate', query: '$.level = "error"', max_items: 1000 });
  expect(read.data.items.map((i: { path: string }) => i.path)).toEqual(errors.map((i) => `/${i}`));
});

test('an unknown language: INVALID_ARGUMENT listing the registered languages, the hint from their descriptions', async () => {
  const { data: opened } = await call(conn.client, 'open_file', { path: 'events.jsonl' });
  for (const [tool, args] of [['search', { handle: opened.handle, query: 'x' }], ['aggregate', { handle: opened.handle, where: 'x' }], ['json_read', { path: 'events.jsonl', query: 'x' }]] as const) {
    const r = await call(conn.client, tool, { ...args, language: 'jmespath' });
    expect(r.data.error.code).toBe('INVALID_ARGUMENT');
    expect(r.data.error.message).toContain('Unknown query language "jmespath". Registered: jsonpath, pointer, predicate, eq.');
    expect(r.data.error.hint).toContain('"eq" (path=value: the member at the dot path when it equals value)');
    expect(r.data.error.hint).not.toContain('Use "pointer" or "jsonpath"');
  }
});

test('mcpgw query and mcpgw aggregate take the plugin language', () => {
  const q = cli('query', 'data/events.jsonl', 'level=error', '--language', 'eq');
  expect(q.code).toBe(0);
  expect(q.out.split('\n').filter(Boolean)).toEqual(errors.map((i) => `{"path":"/${i}/level","value":"error"}`));
  const big = cli('query', 'data/events.jsonl', `id=${BIG[0]}`, '--language', 'eq');
  expect(big.out).toBe(`{"path":"/7/id","value":${BIG[0]}}\n`);
  const a = cli('aggregate', 'data/events.jsonl', '--where', 'level=error', '--language', 'eq', '--json');
  expect(a.code).toBe(0);
  expect(JSON.parse(a.out)).toMatchObject({ records_matched: errors.length, groups: [{ key: null, count: errors.length }] });
});
