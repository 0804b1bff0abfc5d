/**
 * A JSON text sequence (RFC 7464: each text after RS, 0x1E) opened as JSON: both tool sets name the byte and the
 * format its content is. Expected values from the bytes written (RS at byte 0).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { call, connect, type Connected } from '../../../test/helpers/mcp';

let dir: string;
let c: Connected;
beforeAll(async () => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-seq-json-')));
  fs.writeFileSync(path.join(dir, 's.json'), '\x1e{"a":1}\n\x1e{"a":2}\n');
  c = await connect(['--root', dir]);
});
afterAll(async () => {
  await c.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('open_file with format json: SYNTAX_ERROR at byte 0 that names json-seq and how to open it', async () => {
  const r = await call(c.client, 'open_file', { path: 's.json', format: 'json' });
  expect(r.data.error.code).toBe('SYNTAX_ERROR');
  expect(r.data.error.location).toMatchObject({ byte_offset: 0 });
  expect(r.data.error.message).toMatch(/byte 0/);
  expect(r.data.error.message).toMatch(/Its content looks like json-seq \(confidence 1\), not json\./);
  expect(r.data.error.hint).toBe('Open it with format "json-seq" or "auto".');
});

test('json_open with format json: FORMAT_MISMATCH that names json-seq and the byte', async () => {
  const r = await call(c.client, 'json_open', { path: 's.json', format: 'json' });
  expect(r.data.error.code).toBe('FORMAT_MISMATCH');
  expect(r.data.error.message).toBe('s.json is not json: its content looks like json-seq (confidence 1; the first byte that is not whitespace is 0x1E, at byte 0).');
});
