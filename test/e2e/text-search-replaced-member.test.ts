/**
 * Text search over a record that repeats a member name: the last value wins (RFC 8259 §4 as every tool reads it),
 * so a raw hit that touches the replaced member does not count, even when it starts at the surviving name.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { call, connect, type Connected } from '../helpers/mcp';

let tmp: string;
let c: Connected;
let handle: string;
beforeAll(async () => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-dup-')));
  fs.writeFileSync(path.join(tmp, 'dup.jsonl'), '{"id":1,"note":"secret-old","note":"new"}\n{"id":2,"note":"other"}\n{"id":3,"note":"secret-old"}\n');
  c = await connect(['--root', tmp]);
  handle = (await call(c.client, 'open_file', { path: 'dup.jsonl' })).data.handle;
});
afterAll(async () => {
  await c.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

test.each([
  ['the replaced value alone', 'secret-old', [2]],
  ['the surviving name with the replaced value', '"note":"secret-old"', [2]],
  ['the surviving name with the surviving value', '"note":"new"', [0]],
  ['a name and value that both hold', '"note":"other"', [1]],
])('%s', async (_name, query, records) => {
  const r = (await call(c.client, 'search', { handle, query })).data;
  expect(r.error).toBeUndefined();
  expect(r.matches.map((m: any) => m.record_index)).toEqual(records);
});
