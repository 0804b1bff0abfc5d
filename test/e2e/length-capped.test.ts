/**
 * A `length` over what one part holds (maxRecordPreviewBytes) is lowered to it, and the answer says so: get_record and
 * get_value_at_path (a value read whole, one kept between pages inside a big record, and one too long to parse, read
 * as in the file) carry a RESOURCE_LIMIT_EXCEEDED warning with `limit: {name: "maxRecordPreviewBytes", limit, value:
 * <length asked>}`. The built CLI over stdio, a real MCP client. Expected texts are computed here from the lines
 * written (ASCII without escapes: the compact text is the line itself, and a part of N bytes is its first N bytes).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { call, connect, type Connected } from '../helpers/mcp';

const LONG = 'abcdefghij'.repeat(4000); // 40,000 bytes
const SMALL = `{"id":1,"text":"${LONG}"}`;
/** Over 1 MiB: read through lazy nodes; `huge` (1.5 MB) is over maxRecordBytes (1 MiB here): read as in the file. */
const HUGE = 'klmnopqrst'.repeat(150_000);
const BIG = `{"id":2,"text":"${LONG}","huge":"${HUGE}"}`;
const PART = 16 * 1024;
const WARNING = (asked: number, from: number, to: number) => ({
  code: 'RESOURCE_LIMIT_EXCEEDED',
  message: `length ${asked} is over the ${PART} bytes a part holds: this part holds bytes ${from}–${to}; call again with offset ${to} for the rest.`,
  limit: { name: 'maxRecordPreviewBytes', limit: PART, value: asked },
});

let dir: string;
let c: Connected;
let handle: string;
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-capped-'));
  fs.mkdirSync(path.join(dir, 'root'));
  fs.writeFileSync(path.join(dir, 'root', 'r.jsonl'), `${SMALL}\n${BIG}\n`);
  fs.writeFileSync(path.join(dir, '.mcpgwrc.yaml'), 'root: ./root\nlimits:\n  maxRecordBytes: 1048576\n');
  c = await connect(['--config', path.join(dir, '.mcpgwrc.yaml')]);
  handle = (await call(c.client, 'open_file', { path: 'r.jsonl' })).data.handle;
});
afterAll(async () => {
  await c?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('get_record', () => {
  test('length 100000: a part of 16 KiB, and a warning naming maxRecordPreviewBytes and the length asked', async () => {
    const r = await call(c.client, 'get_record', { handle, index: 0, record_format: 'compact', length: 100_000 });
    expect(r.isError).toBe(false);
    expect(r.data).toEqual({ index: 0, record: SMALL.slice(0, PART), truncated: true, record_bytes: SMALL.length, offset: 0, next_offset: PART, warnings: [WARNING(100_000, 0, PART)] });
    const next = await call(c.client, 'get_record', { handle, index: 0, record_format: 'compact', offset: PART, length: 100_000 });
    expect(next.data).toMatchObject({ record: SMALL.slice(PART, 2 * PART), next_offset: 2 * PART, warnings: [WARNING(100_000, PART, 2 * PART)] });
  });

  test('no warning when length fits a part, nor when the text ends before the part is full', async () => {
    const fits = await call(c.client, 'get_record', { handle, index: 0, record_format: 'compact', length: PART });
    expect(fits.data).toEqual({ index: 0, record: SMALL.slice(0, PART), truncated: true, record_bytes: SMALL.length, offset: 0, next_offset: PART });
    const last = await call(c.client, 'get_record', { handle, index: 0, record_format: 'compact', offset: SMALL.length - 100, length: 100_000 });
    expect(last.data).toEqual({ index: 0, record: SMALL.slice(-100), truncated: true, record_bytes: SMALL.length, offset: SMALL.length - 100 });
  });
});

describe('get_value_at_path', () => {
  test('a value read whole: the same warning', async () => {
    const quoted = JSON.stringify(LONG);
    const r = await call(c.client, 'get_value_at_path', { handle, index: 0, path: 'text', length: 20_000 });
    expect(r.data).toEqual({ value: quoted.slice(0, PART), path: 'text', value_type: 'string', truncated: true, value_bytes: quoted.length, offset: 0, next_offset: PART, warnings: [WARNING(20_000, 0, PART)] });
  });

  test('a value of a record read through lazy nodes, and one over maxRecordBytes read as in the file', async () => {
    const quoted = JSON.stringify(LONG);
    const lazy = await call(c.client, 'get_value_at_path', { handle, index: 1, path: 'text', offset: 1000, length: 50_000 });
    expect(lazy.data).toEqual({ value: quoted.slice(1000, 1000 + PART), path: 'text', value_type: 'string', truncated: true, value_bytes: quoted.length, offset: 1000, next_offset: 1000 + PART, warnings: [WARNING(50_000, 1000, 1000 + PART)] });
    const raw = await call(c.client, 'get_value_at_path', { handle, index: 1, path: 'huge', offset: 7, length: 1_000_000 });
    expect(raw.data).toEqual({ value: JSON.stringify(HUGE).slice(7, 7 + PART), path: 'huge', value_type: 'string', truncated: true, value_bytes: HUGE.length + 2, offset: 7, next_offset: 7 + PART, warnings: [WARNING(1_000_000, 7, 7 + PART)] });
    const fits = await call(c.client, 'get_value_at_path', { handle, index: 1, path: 'huge', offset: 7, length: 100 });
    expect(fits.data.warnings).toBeUndefined();
  });
});
