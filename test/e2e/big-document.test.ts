/**
 * A single document over maxRecordBytes (lowered to 64 KiB here, so the documents are built small): nothing about it
 * may be silently incomplete.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { call, CLI, connect, NODE, type Connected } from '../helpers/mcp';

const MAX_RECORD = 65536;
let dir: string;
let c: Connected;
/** The pad strings of big.json, as written. */
const pad = Array.from({ length: 2000 }, (_, i) => `p${String(i).padStart(5, '0')}`.padEnd(100, 'x'));

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-bigdoc-'));
  fs.mkdirSync(path.join(dir, 'root'));
  fs.writeFileSync(path.join(dir, '.mcpgwrc.yaml'), `root: ./root\nlimits:\n  maxRecordBytes: ${MAX_RECORD}\n`);
  fs.writeFileSync(path.join(dir, 'root', 'big.json'), JSON.stringify({ name: 'needle', pad }));
  c = await connect(['--config', path.join(dir, '.mcpgwrc.yaml')], { cwd: dir });
});
afterAll(async () => {
  await c.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('the document is over maxRecordBytes (the premise)', () => {
  expect(fs.statSync(path.join(dir, 'root', 'big.json')).size).toBeGreaterThan(MAX_RECORD);
});

test('open_file validates the document in parts: every byte of its values examined, complete', async () => {
  const r = await call(c.client, 'open_file', { path: 'big.json' });
  expect(r.isError).toBe(false);
  expect(r.data.file_type).toBe('json_object');
  // the parts parsed: the value of "name" and each element of "pad" (member names are decoded on the way)
  const examined = Buffer.byteLength('"needle"') + pad.reduce((n, s) => n + Buffer.byteLength(JSON.stringify(s)), 0);
  expect(r.data.validation).toEqual({ complete: true, records_examined: 1, bytes_examined: examined, malformed_records: 0 });
});

test('a whole-file query that cannot read the document is an error naming the limit, never an empty success', async () => {
  const opened = await call(c.client, 'open_file', { path: 'big.json' });
  for (const query of ['needle', '$.name']) {
    const r = await call(c.client, 'search', { handle: opened.data.handle, query });
    expect(r.isError).toBe(true);
    expect(r.data.error).toMatchObject({ code: 'RESOURCE_LIMIT_EXCEEDED', limit: { name: 'maxRecordBytes', limit: MAX_RECORD } });
  }
  const read = await call(c.client, 'json_read', { path: 'big.json', language: 'jsonpath', query: '$.name' });
  expect(read.isError).toBe(true);
  expect(read.data.error).toMatchObject({ code: 'RESOURCE_LIMIT_EXCEEDED', limit: { name: 'maxRecordBytes' } });
  const q = spawnSync(NODE, [CLI, 'query', path.join(dir, 'root', 'big.json'), '$.name'], { cwd: dir, encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } });
  expect(q.status).toBe(1);
  expect(q.stdout).toBe('');
  expect(q.stderr).toContain('maxRecordBytes');
});
