/**
 * The built server spoken to line by line: unparsable lines, invalid requests, batches, a request before the
 * handshake and a 20 MB line all get their JSON-RPC 2.0 answers, and the connection goes on serving.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { initialize, rawServer, type RawServer } from '../helpers/raw';

let dir: string;
let s: RawServer;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-attack-rpc-'));
  fs.writeFileSync(path.join(dir, 'a.jsonl'), '{"a":1}\n{"a":2}\n');
  s = rawServer(['--root', dir]);
});
afterAll(async () => {
  expect(await s.close()).toBe(0);
  fs.rmSync(dir, { recursive: true, force: true });
});

test('tools/call before initialize: -32002, not served', async () => {
  s.write(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'open_file', arguments: { path: 'a.jsonl' } } }) + '\n');
  const [reply, ...rest] = await s.sync();
  expect(reply).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32002, message: expect.stringMatching(/^Server not initialized/) } });
  expect(rest).toEqual([]);
  await initialize(s);
});

test('a line that is not JSON: -32700 with id null', async () => {
  s.write('{"jsonrpc": "2.0", "method"\n');
  expect(await s.sync()).toEqual([{ jsonrpc: '2.0', id: null, error: { code: -32700, message: expect.stringMatching(/^Parse error/) } }]);
});

test('an invalid request: -32600', async () => {
  s.write('{"jsonrpc":"2.0","method":1,"params":"bar"}\n');
  expect(await s.sync()).toEqual([{ jsonrpc: '2.0', id: null, error: { code: -32600, message: expect.stringMatching(/^Invalid Request/) } }]);
});

test('a batch: an array of responses, one per request', async () => {
  s.write('[{"jsonrpc":"2.0","id":"b1","method":"tools/list"},{"jsonrpc":"2.0","method":"notifications/x"},{"foo":"boo"}]\n');
  const [batch] = (await s.sync()) as any[];
  expect(batch.map((r: any) => [r.id, r.error.code])).toEqual([['b1', -32600], [null, -32600]]);
});

test('a 20 MB request line: answered -32600 with its id, and the connection goes on', async () => {
  const big = JSON.stringify({ jsonrpc: '2.0', id: 'big', method: 'tools/call', params: { name: 'search', arguments: { handle: 'file_1', query: 'x'.repeat(20 * 1024 * 1024) } } });
  s.write(big + '\n');
  const [reply] = (await s.sync()) as any[];
  expect(reply).toEqual({ jsonrpc: '2.0', id: 'big', error: { code: -32600, message: `Message too large: ${Buffer.byteLength(big)} bytes, over maxMessageBytes (16777216); it was dropped and the connection goes on.` } });
  const answered = s.waitFor((m) => m.id === 'after');
  s.write(JSON.stringify({ jsonrpc: '2.0', id: 'after', method: 'tools/call', params: { name: 'open_file', arguments: { path: 'a.jsonl' } } }) + '\n');
  const after = await answered;
  expect(after.result.structuredContent).toMatchObject({ record_count: 2 });
  expect(s.stderr()).toMatch(/dropped an oversized message/);
});
