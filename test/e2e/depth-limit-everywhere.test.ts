/**
 * A record nested deeper than maxDepth is RESOURCE_LIMIT_EXCEEDED (limit maxDepth) in every tool: open_file's
 * validation warning, get_record's error, and every search skips it with a warning (text search as JSONPath does).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { call, connect, type Connected } from '../helpers/mcp';

const DEPTH = 2500; // over the default maxDepth 2000
const RECORDS = [JSON.stringify({ id: 0 }), `{"id":1,"a":${'['.repeat(DEPTH)}${']'.repeat(DEPTH)}}`, JSON.stringify({ id: 2 })];
let tmp: string;
let c: Connected;
let handle: string;
let opened: any;
beforeAll(async () => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-depth-')));
  fs.writeFileSync(path.join(tmp, 'deep.jsonl'), RECORDS.join('\n') + '\n');
  c = await connect(['--root', tmp]);
  opened = (await call(c.client, 'open_file', { path: 'deep.jsonl' })).data;
  handle = opened.handle;
});
afterAll(async () => {
  await c.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

test('open_file reports the deep record as RESOURCE_LIMIT_EXCEEDED naming maxDepth', () => {
  const deep = opened.warnings.filter((w: any) => w.record_index === 1);
  expect(deep).toEqual([expect.objectContaining({ code: 'RESOURCE_LIMIT_EXCEEDED', message: expect.stringContaining('maxDepth 2000') })]);
});

test('get_record on it is RESOURCE_LIMIT_EXCEEDED with limit maxDepth', async () => {
  const r = await call(c.client, 'get_record', { handle, index: 1 });
  expect(r.data.error).toMatchObject({ code: 'RESOURCE_LIMIT_EXCEEDED', limit: { name: 'maxDepth', limit: 2000 } });
});

test.each([
  ['text', { query: 'id' }],
  ['jsonpath', { query: '$.id', mode: 'jsonpath' }],
])('%s search skips the deep record and reports it', async (_name, args) => {
  const r = (await call(c.client, 'search', { handle, ...args })).data;
  expect(r.error).toBeUndefined();
  expect(r.matches.map((m: any) => m.record_index)).toEqual([0, 2]);
  expect(r.warnings).toEqual(expect.arrayContaining([expect.objectContaining({ code: 'RESOURCE_LIMIT_EXCEEDED', message: expect.stringContaining('maxDepth') })]));
});
