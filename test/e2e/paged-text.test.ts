/**
 * JSON text cut into pages, end to end through a real MCP client against the built CLI: get_record (re-indented),
 * get_value_at_path (compact), json_read (a value too big for a page) and sample_records (a record over the preview)
 * all cut through the kernel's one layout (ctx.json). The expected texts are computed here with JSON.stringify on a
 * record written so that it lays out exactly as JSON.stringify would (integers, JSON.stringify-style escapes, raw
 * emoji): a cut page is the prefix of the whole text, parts continue exactly, and no part ends inside a character or
 * an escape sequence.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { call, connect, type Connected } from '../helpers/mcp';

const E = '\u{1F600}';
/** ~300 KB: items whose strings put emoji and escapes (\" \\ \n \t) all along the text. */
const RECORD = {
  kind: 'big',
  items: Array.from({ length: 1500 }, (_, i) => ({
    id: i,
    name: `item ${i} ${E} "q" back\\slash\tnew\nline ${'é'.repeat(i % 5)}${E.repeat(i % 3)}`,
    tags: [`t${i % 7}`, E],
    meta: { ok: i % 2 === 0, note: null },
  })),
};
const PRETTY = JSON.stringify(RECORD, null, 2);
const COMPACT_ITEMS = JSON.stringify(RECORD.items);
const lone = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
/** True when `s` ends inside an escape sequence (an odd run of backslashes, possibly followed by an unfinished \u). */
const endsMidEscape = (s: string) => {
  const m = /(\\+)(u[0-9a-fA-F]{0,3})?$/.exec(s);
  return m !== null && m[1]!.length % 2 === 1;
};

let dir: string;
let c: Connected;
let handle: string;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-paged-'));
  fs.writeFileSync(path.join(dir, 'big.jsonl'), `{"small":1}\n${JSON.stringify(RECORD)}\n`);
  c = await connect(['--root', dir]);
  handle = (await call(c.client, 'open_file', { path: 'big.jsonl' })).data.handle;
});

afterAll(async () => {
  await c?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Bytes [from, to) of `text`'s UTF-8 as a string. */
const bytesOf = (text: string, from: number, to: number) => Buffer.from(text).subarray(from, to).toString('utf8');

test('get_record: the first page is the prefix of JSON.stringify(record, null, 2), marked, with the whole size', async () => {
  const r = await call(c.client, 'get_record', { handle, index: 1, record_format: 'pretty' });
  const total = Buffer.byteLength(PRETTY);
  expect(r.data).toMatchObject({ index: 1, truncated: true, record_bytes: total, offset: 0 });
  const end = r.data.next_offset as number;
  expect(r.data.record).toBe(`${bytesOf(PRETTY, 0, end)}\n… [cut: bytes 0–${end} of ${total}; call get_record (record_format pretty) with offset ${end} for the rest]`);
  expect(end).toBeLessThanOrEqual(16 * 1024);
  expect(end).toBeGreaterThan(16 * 1024 - 13);
});

test('get_record: pages read from next_offset continue exactly and rebuild the whole text; none ends mid-character or mid-escape', async () => {
  const parts: string[] = [];
  let offset = 0;
  for (let n = 0; n < 200; n++) {
    const r = await call(c.client, 'get_record', { handle, index: 1, record_format: 'pretty', offset, length: 7001 });
    expect(r.data.offset).toBe(offset);
    expect(r.data.record).toBe(bytesOf(PRETTY, offset, r.data.next_offset ?? Buffer.byteLength(PRETTY)));
    expect(lone.test(r.data.record)).toBe(false);
    expect(endsMidEscape(r.data.record)).toBe(false);
    parts.push(r.data.record);
    if (r.data.next_offset === undefined) break;
    offset = r.data.next_offset;
  }
  expect(parts.join('')).toBe(PRETTY);
});

test('get_value_at_path: a big member in compact pages that rebuild JSON.stringify of it', async () => {
  const first = await call(c.client, 'get_value_at_path', { handle, index: 1, path: 'items' });
  expect(first.data).toMatchObject({ path: 'items', value_type: 'array', truncated: true, value_bytes: Buffer.byteLength(COMPACT_ITEMS), offset: 0 });
  expect(first.data.value.startsWith(bytesOf(COMPACT_ITEMS, 0, first.data.next_offset))).toBe(true);
  const parts: string[] = [];
  let offset = 0;
  for (let n = 0; n < 200; n++) {
    const r = await call(c.client, 'get_value_at_path', { handle, index: 1, path: 'items', offset, length: 9999 });
    expect(endsMidEscape(r.data.value)).toBe(false);
    parts.push(r.data.value);
    if (r.data.next_offset === undefined) break;
    offset = r.data.next_offset;
  }
  expect(parts.join('')).toBe(COMPACT_ITEMS);
});

test('json_read: a value too big for a page comes in parts that rebuild its text, none ending inside an escape', async () => {
  let r = await call(c.client, 'json_read', { path: 'big.jsonl', language: 'jsonpath', query: '$[1].items', max_result_bytes: 20_000 });
  const parts: string[] = [];
  for (let n = 0; n < 500; n++) {
    const item = r.data.items[0];
    expect(item).toMatchObject({ path: '/1/items', value_truncated: true, value_bytes: Buffer.byteLength(COMPACT_ITEMS) });
    expect(item.value).toBe(bytesOf(COMPACT_ITEMS, item.offset, item.next_offset ?? Buffer.byteLength(COMPACT_ITEMS)));
    expect(endsMidEscape(item.value)).toBe(false);
    expect(lone.test(item.value)).toBe(false);
    parts.push(item.value);
    if (item.next_offset === undefined) break;
    r = await call(c.client, 'json_read', { cursor: r.data.next_cursor });
  }
  expect(parts.join('')).toBe(COMPACT_ITEMS);
});

test('sample_records: a record over the preview is the prefix of its compact text, cut outside escapes', async () => {
  const r = await call(c.client, 'sample_records', { handle, count: 2, strategy: 'first' });
  const big = r.data.records.find((x: any) => x.index === 1);
  const compact = JSON.stringify(RECORD);
  expect(big).toMatchObject({ index: 1, truncated: true, record_bytes: Buffer.byteLength(compact) });
  const m = /^([\s\S]*)… \[cut at (\d+) of (\d+) bytes: get_record 1 with record_format "compact" and offset (\d+) reads on\]$/.exec(big.record)!;
  expect(m).not.toBeNull();
  expect(m[1]).toBe(bytesOf(compact, 0, Number(m[2])));
  expect([Number(m[3]), Number(m[4])]).toEqual([Buffer.byteLength(compact), Number(m[2])]);
  expect(Number(m[2])).toBeGreaterThan(16 * 1024 - 13);
  expect(endsMidEscape(m[1]!)).toBe(false);
  // The call it names reads on where the cut stopped: get_record's compact text continues it exactly, and so does
  // get_value_at_path's whole-record text.
  const next = await call(c.client, 'get_record', { handle, index: 1, record_format: 'compact', offset: Number(m[4]), length: 5000 });
  expect(next.data.record).toBe(bytesOf(compact, Number(m[4]), next.data.next_offset));
  const value = await call(c.client, 'get_value_at_path', { handle, index: 1, path: '', offset: Number(m[4]), length: 5000 });
  expect(value.data.value).toBe(next.data.record);
});

test('sample_records with fields: the cut is the prefix of the fields\' compact object, saying it was cut', async () => {
  const r = await call(c.client, 'sample_records', { handle, count: 2, strategy: 'first', fields: ['items', 'kind'] });
  const expected = JSON.stringify({ items: RECORD.items, kind: RECORD.kind });
  expect(r.data.records[0]).toEqual({ index: 0, record: '{}' });
  const big = r.data.records[1];
  expect(big).toMatchObject({ index: 1, truncated: true, record_bytes: Buffer.byteLength(expected) });
  const m = /^([\s\S]*)… \[cut at (\d+) of (\d+) bytes: get_record 1 with the same fields, record_format "compact" and offset (\d+) reads on\]$/.exec(big.record)!;
  expect(m).not.toBeNull();
  expect(m[1]).toBe(bytesOf(expected, 0, Number(m[2])));
  expect(Number(m[3])).toBe(Buffer.byteLength(expected));
  // get_record with the same fields and layout continues the same text
  const next = await call(c.client, 'get_record', { handle, index: 1, fields: ['items', 'kind'], record_format: 'compact', offset: Number(m[4]), length: 5000 });
  expect(next.data.record).toBe(bytesOf(expected, Number(m[4]), next.data.next_offset));
});

test('sample_records cuts the record\'s text as in the file (lexemes and escapes kept, spaces dropped), not a re-serialized value', async () => {
  // Compact text written by hand: numbers and escapes JSON.stringify of the value would rewrite (1.50, 1e5, \u00e9, \/).
  const parts = Array.from({ length: 900 }, (_, i) => `{"n":1.50,"e":1e5,"s":"caf\\u00e9 \\/ ${i}","i":${i}}`);
  const compact = `{"rows":[${parts.join(',')}]}`;
  const spaced = compact.replace(/([,:[{])/g, '$1 '); // no string holds , : [ or {
  expect(JSON.parse(spaced)).toEqual(JSON.parse(compact));
  fs.writeFileSync(path.join(dir, 'asfile.jsonl'), `${spaced}\n`);
  const h = (await call(c.client, 'open_file', { path: 'asfile.jsonl' })).data.handle;
  const r = await call(c.client, 'sample_records', { handle: h, count: 1 });
  const m = /^([\s\S]*)… \[cut at (\d+) of (\d+) bytes: get_record 0 with record_format "compact" and offset (\d+) reads on\]$/.exec(r.data.records[0].record)!;
  expect(m).not.toBeNull();
  expect(r.data.records[0]).toMatchObject({ index: 0, truncated: true, record_bytes: Buffer.byteLength(compact) });
  expect(m[1]).toBe(bytesOf(compact, 0, Number(m[2])));
  expect(m[1]!.startsWith('{"rows":[{"n":1.50,"e":1e5,"s":"caf\\u00e9 \\/ 0","i":0}')).toBe(true);
  // The same text, whole, as get_value_at_path pages it: the sample is its prefix.
  let whole = '';
  for (let offset: number | undefined = 0, n = 0; offset !== undefined && n < 50; n++) {
    const p = await call(c.client, 'get_value_at_path', { handle: h, index: 0, path: '', offset, length: 16000 });
    whole += p.data.value;
    offset = p.data.next_offset;
  }
  expect(whole).toBe(compact);
  expect(whole.startsWith(m[1]!)).toBe(true);
});
