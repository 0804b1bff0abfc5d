/**
 * match() and search() run on RE2 (linear time) through a real MCP client: patterns that make a backtracking engine
 * explode over a 50,001-character string answer, correctly and completely, on worker threads (JSON Lines records)
 * and on the server's own thread (json_read, a record predicate over a single-document .json file).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { call, connect, type Connected } from '../helpers/mcp';

const A_B = 'a'.repeat(50_000) + 'b'; // (a|a)* and (a+)+$ backtrack exponentially on it, and match neither
const X = 'x'.repeat(50_001); // (x+x+)+y backtracks exponentially on it, and does not match
const X_Y = 'x'.repeat(50_000) + 'y';

let base: string;
let c: Connected;
beforeAll(async () => {
  base = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-regex-linear-'));
  const root = path.join(base, 'data');
  fs.mkdirSync(root);
  fs.writeFileSync(path.join(root, 'recs.jsonl'), [A_B, 'aaa', X, X_Y].map((s) => JSON.stringify({ s }) + '\n').join(''));
  fs.writeFileSync(path.join(root, 'one.json'), JSON.stringify({ s: A_B, t: 'aaa', u: X, v: X_Y }) + '\n');
  fs.writeFileSync(path.join(base, '.mcpgwrc.json'), JSON.stringify({ root: './data', limits: { requestTimeoutMs: 4000 } }));
  c = await connect(['--config', path.join(base, '.mcpgwrc.json')]);
});
afterAll(async () => {
  await c?.close();
  fs.rmSync(base, { recursive: true, force: true });
});

/** No record was given up on (a stuck evaluation is reported as RESOURCE_LIMIT_EXCEEDED). */
function noneStuck(data: { warnings?: { code: string }[] }) {
  expect((data.warnings ?? []).filter((w) => w.code === 'RESOURCE_LIMIT_EXCEEDED')).toEqual([]);
}

// [predicate, the records of recs.jsonl it matches: s is A_B, 'aaa', X, X_Y]
const RECORD_CASES: [string, number[]][] = [
  ['match($.s, "(a|a)*")', [1]],
  ['search($.s, "(a+)+$")', [1]],
  ['search($.s, "(x+x+)+y")', [3]],
  ['match($.s, "(a|a)*b")', [0]],
];

test.each(RECORD_CASES)('search %s over JSON Lines records (worker threads)', async (query, expected) => {
  const h = await call(c.client, 'open_file', { path: 'recs.jsonl' });
  const r = await call(c.client, 'search', { handle: h.data.handle, query });
  expect(r.isError).toBe(false);
  expect(r.data.complete).toBe(true);
  expect(r.data.matches.map((m: { record_index: number }) => m.record_index)).toEqual(expected);
  noneStuck(r.data);
  await call(c.client, 'close_file', { handle: h.data.handle });
});

// [predicate over the one record of one.json, whether it matches]
test.each<[string, boolean]>([
  ['match($.s, "(a|a)*")', false],
  ['search($.s, "(a+)+$")', false],
  ['search($.u, "(x+x+)+y")', false],
  ['search($.v, "(x+x+)+y")', true],
  ['match($.s, "(a|a)*b")', true],
])('search %s over a single .json document (the server\'s own thread)', async (query, matches) => {
  const h = await call(c.client, 'open_file', { path: 'one.json' });
  const r = await call(c.client, 'search', { handle: h.data.handle, query });
  expect(r.isError).toBe(false);
  expect(r.data.complete).toBe(true);
  expect(r.data.total_matches).toBe(matches ? 1 : 0);
  noneStuck(r.data);
  await call(c.client, 'close_file', { handle: h.data.handle });
});

// [json_read query over one.json, the paths it selects]
test.each<[string, string[]]>([
  ['$[?match(@, "(a|a)*")]', ['/t']],
  ['$[?search(@, "(a+)+$")]', ['/t']],
  ['$[?search(@, "(x+x+)+y")]', ['/v']],
])('json_read %s', async (query, paths) => {
  const r = await call(c.client, 'json_read', { path: 'one.json', language: 'jsonpath', query, max_items: 1 });
  expect(r.isError).toBe(false);
  expect(r.data.complete).toBe(true);
  expect(r.data.items.map((i: { path: string }) => i.path)).toEqual(paths);
  noneStuck(r.data);
});
