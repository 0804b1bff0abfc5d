/**
 * A 36 MB JSON Lines file of 4.5 million tiny records (`{"a":1}`), read a page at a time through a real MCP client:
 * every query answers its page and the server lives on (it used to die: a worker batch's ~500k results were spread
 * into one push and the stack overflowed).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { call, connect, type Connected } from '../helpers/mcp';

const RECORDS = 4_500_000;
let dir: string;
let c: Connected;
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-stress-pages-'));
  const fd = fs.openSync(path.join(dir, 'tiny.jsonl'), 'w');
  const block = Buffer.from('{"a":1}\n'.repeat(100_000));
  for (let i = 0; i < RECORDS / 100_000; i++) fs.writeSync(fd, block);
  fs.closeSync(fd);
  c = await connect(['--root', dir]);
});
afterAll(async () => {
  await c?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

test.each([['$[*]', '', '{"a":1}'], ['$.*', '', '{"a":1}'], ['$[*].*', '/a', '1'], ['$[*]..*', '/a', '1']])('json_read %s, max_items 10: the first ten, a cursor', async (query, inner, value) => {
  const r = await call(c.client, 'json_read', { path: 'tiny.jsonl', language: 'jsonpath', query, max_items: 10 });
  expect(r.isError).toBe(false);
  expect(r.data.items.map((i: { path: string }) => i.path)).toEqual(Array.from({ length: 10 }, (_, i) => `/${i}${inner}`));
  expect(r.data.items.map((i: { value: unknown }) => JSON.stringify(i.value))).toEqual(Array(10).fill(value));
  expect(r.data.complete).toBe(false);
  const next = await call(c.client, 'json_read', { cursor: r.data.next_cursor });
  expect(next.data.items[0].path).toBe(`/10${inner}`);
  await call(c.client, 'json_close', { file_id: r.data.file_id });
});

test.each(['$.*', '$..*'])('search %s, max_results 10: every record counted, ten matches', async (query) => {
  const h = await call(c.client, 'open_file', { path: 'tiny.jsonl' });
  const r = await call(c.client, 'search', { handle: h.data.handle, query, max_results: 10 });
  expect(r.isError).toBe(false);
  expect(r.data.total_matches).toBe(RECORDS);
  expect(r.data.matches.map((m: { record_index: number; match_path: string }) => [m.record_index, m.match_path])).toEqual(Array.from({ length: 10 }, (_, i) => [i, '/a']));
  await call(c.client, 'close_file', { handle: h.data.handle });
});

test('the server still answers', async () => {
  await expect(c.client.ping()).resolves.toBeDefined();
});
