/**
 * Denial-of-service queries against the built server through a real MCP client: node lists that would grow as
 * depth³ stop at the node budget with RESOURCE_LIMIT_EXCEEDED, and a long scan keeps the server answering.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { call, connect, type Connected } from '../helpers/mcp';

/** Arrays nested `depth` deep around 1, as JSON text: 2·depth + 1 bytes. */
const nested = (depth: number) => '['.repeat(depth) + '1' + ']'.repeat(depth);

let base: string;
let c: Connected;
beforeAll(async () => {
  base = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-attack-q-'));
  const root = path.join(base, 'data');
  fs.mkdirSync(root);
  fs.writeFileSync(path.join(root, 'deep.json'), nested(300) + '\n'); // 602 bytes
  fs.writeFileSync(path.join(root, 'deep.jsonl'), (nested(300) + '\n').repeat(400));
  fs.writeFileSync(path.join(base, '.mcpgwrc.json'), JSON.stringify({ root: './data', limits: { requestTimeoutMs: 4000 } }));
  c = await connect(['--config', path.join(base, '.mcpgwrc.json')]);
});
afterAll(async () => {
  await c?.close();
  fs.rmSync(base, { recursive: true, force: true });
});

test('json_read $..*..*..* on a 602-byte file of arrays nested 300 deep: RESOURCE_LIMIT_EXCEEDED naming maxNodes', async () => {
  const r = await call(c.client, 'json_read', { path: 'deep.json', language: 'jsonpath', query: '$..*..*..*' });
  expect(r.isError).toBe(true);
  expect(r.data.error).toMatchObject({ code: 'RESOURCE_LIMIT_EXCEEDED', limit: { name: 'maxNodes', limit: 200_000 } });
  expect(r.data.error.hint).toMatch(/Narrow the query/);
});

test('json_read $..*..* on it: its 44,850 nodes, paged', async () => {
  const r = await call(c.client, 'json_read', { path: 'deep.json', language: 'jsonpath', query: '$..*..*', max_items: 2 });
  expect(r.isError).toBe(false);
  expect(r.data.items).toEqual([{ path: '/0/0', value: JSON.parse(nested(298)) }, { path: '/0/0/0', value: JSON.parse(nested(297)) }]);
  expect(r.data.complete).toBe(false);
  await call(c.client, 'json_close', { file_id: r.data.file_id });
});

test('search $..*..*..* over 400 such records runs to the deadline while the server keeps answering pings', async () => {
  const h = await call(c.client, 'open_file', { path: 'deep.jsonl' });
  let searchDone = false;
  const search = call(c.client, 'search', { handle: h.data.handle, query: '$..*..*..*' }).then((r) => { searchDone = true; return r; });
  // Pings sent after the search (messages are handled in order; the scan takes requestTimeoutMs, 4 s) are answered
  // while it still runs.
  await c.client.ping();
  const first = !searchDone;
  await c.client.ping();
  const second = !searchDone;
  const r = await search;
  expect([first, second]).toEqual([true, true]);
  expect(r.isError).toBe(false);
  expect(r.data.complete).toBe(false);
  // Every record is over the budget: each one evaluated is reported with its reason, none matches.
  expect(r.data.total_matches).toBe(0);
  expect(r.data.warnings[0]).toMatchObject({ code: 'RESOURCE_LIMIT_EXCEEDED', record_index: 0 });
  expect(r.data.warnings[0].message).toMatch(/maxNodes/);
  await call(c.client, 'close_file', { handle: h.data.handle });
});
