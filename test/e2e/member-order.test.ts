/**
 * Member order on the wire: objects whose members are named like array indexes ("2") are written as the file has
 * them in every tool that returns values, not with those names first (src/engine/records/member-order.ts). Checked on
 * the raw JSON-RPC lines, since a JavaScript client's own parse reorders them again.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { initialize, rawServer, type RawServer } from '../helpers/raw';

let dir: string;
let s: RawServer;
const DOC = '{"b":1,"2":2,"a":{"10":1,"x":2,"1":3}}';
const ROWS = ['{"id":"r0","m":{"z":0,"0":1}}', '{"id":"r1","m":{"y":5,"3":4,"1":2}}'];
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-order-'));
  fs.writeFileSync(path.join(dir, 'doc.json'), DOC + '\n');
  fs.writeFileSync(path.join(dir, 'rows.jsonl'), ROWS.join('\n') + '\n');
  s = rawServer(['--root', dir]);
  await initialize(s);
});
afterAll(async () => {
  expect(await s.close()).toBe(0);
  fs.rmSync(dir, { recursive: true, force: true });
});

let next = 0;
async function callRaw(name: string, args: Record<string, unknown>): Promise<string> {
  const id = `o${next++}`;
  const answered = s.waitFor((m) => m && m.id === id);
  s.write(JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } }) + '\n');
  const reply = await answered;
  if (!reply.result) throw new Error(JSON.stringify(reply));
  expect(reply.result.isError ? reply.result.content[0].text : undefined).toBeUndefined();
  return s.lines().find((l) => l.includes(`"id":"${id}"`))!;
}
/** The structuredContent copy of a value on the wire, and the text block's copy (JSON text inside a JSON string). */
const both = (line: string, text: string) => {
  expect(line).toContain(text);
  expect(line).toContain(JSON.stringify(text).slice(1, -1));
};

test('json_read of a document, by path and by handle', async () => {
  both(await callRaw('json_read', { path: 'doc.json', language: 'jsonpath', query: '$' }), DOC);
  const opened = await callRaw('json_open', { path: 'doc.json' });
  const fileId = JSON.parse(opened).result.structuredContent.file_id;
  both(await callRaw('json_read', { file_id: fileId, language: 'pointer', query: '/a' }), '{"10":1,"x":2,"1":3}');
});

test('json_read over JSON Lines records (file addressing)', async () => {
  const line = await callRaw('json_read', { path: 'rows.jsonl', language: 'jsonpath', query: '$[*].m' });
  both(line, '{"z":0,"0":1}');
  both(line, '{"y":5,"3":4,"1":2}');
});

test('the explorer: get_value_at_path, sample_records and search', async () => {
  const handle = JSON.parse(await callRaw('open_file', { path: 'rows.jsonl' })).result.structuredContent.handle;
  // get_value_at_path and sample_records answer JSON text (a string): the text block escapes it once more.
  const value = JSON.parse(await callRaw('get_value_at_path', { handle, index: 1, path: '$.m' })).result.structuredContent.value;
  expect(value).toBe('{"y":5,"3":4,"1":2}');
  const sampled = await callRaw('sample_records', { handle, count: 2 });
  expect(sampled).toContain(JSON.stringify(ROWS[1]).slice(1, -1));
  const found = await callRaw('search', { handle, query: '$.m' });
  expect(found).toContain(JSON.stringify('/m = «{"y":5,"3":4,"1":2}»').slice(1, -1));
});
