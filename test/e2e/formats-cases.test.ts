import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { call, connect, REPO, type Connected } from '../helpers/mcp';

/**
 * Field cases C01, C07, C09, C11, C12 (inputs copied to test/fixtures/cases) over a real
 * MCP client against the built CLI, in every format they fit: the case's own file plus .json (pretty
 * array) and .json-seq variants made from it byte for byte (numerals, escapes and framing kept).
 */
const CASES = path.join(REPO, 'test', 'fixtures', 'cases');
const caseJson = (id: string) => JSON.parse(fs.readFileSync(path.join(CASES, id, 'case.json'), 'utf8'));
const RS = Buffer.from([0x1e]);

let root: string;
let c: Connected;

/** The non-blank lines of a JSON Lines file as raw byte slices (no decoding, no parsing). */
function rawLines(file: string): Buffer[] {
  const bytes = fs.readFileSync(file);
  const out: Buffer[] = [];
  let s = 0;
  for (let nl = bytes.indexOf(10); s < bytes.length; nl = bytes.indexOf(10, s)) {
    const e = nl === -1 ? bytes.length : nl;
    const line = bytes.subarray(s, e).toString('latin1').trim();
    if (line.length) out.push(Buffer.from(line, 'latin1'));
    s = e + 1;
  }
  return out;
}
const asSeq = (lines: Buffer[]) => Buffer.concat(lines.flatMap((l) => [RS, l, Buffer.from('\n')]));
const asArray = (lines: Buffer[]) => Buffer.concat([Buffer.from('[\n'), ...lines.flatMap((l, i) => [Buffer.from('  '), l, Buffer.from(i + 1 < lines.length ? ',\n' : '\n')]), Buffer.from(']\n')]);

beforeAll(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-fcases-'));
  for (const id of ['C01', 'C12']) {
    const input = path.join(CASES, id, caseJson(id).input);
    const lines = rawLines(input);
    fs.copyFileSync(input, path.join(root, `${id}.jsonl`));
    fs.writeFileSync(path.join(root, `${id}.json-seq`), asSeq(lines));
    fs.writeFileSync(path.join(root, `${id}.json`), asArray(lines));
  }
  // C07's framing noise (BOM aside: RFC 7464 has none) as a sequence: CRLF, blank and whitespace-only lines, extra RS
  fs.writeFileSync(path.join(root, 'C07.json-seq'), '\x1e{"t":"a","n":1}\r\n\r\n \t\r\n\x1e\x1e{"t":"b","n":2}\r\n\x1e{"t":"c","n":3}\r\n');
  fs.writeFileSync(path.join(root, 'C07.json'), '\ufeff[\r\n{"t":"a","n":1},\r\n\r\n \t\r\n{"t":"b","n":2},\r\n{"t":"c","n":3}\r\n]\r\n');
  fs.writeFileSync(path.join(root, 'C09.json-seq'), asSeq(rawLines(path.join(CASES, 'C09', 'session.jsonl'))));
  for (const f of ['deep_1000.json', 'deep_100000.json']) fs.copyFileSync(path.join(CASES, 'C11', f), path.join(root, f));
  c = await connect(['--root', root]);
});
afterAll(async () => {
  await c.close();
  fs.rmSync(root, { recursive: true, force: true });
});

async function open(file: string) {
  const r = await call(c.client, 'open_file', { path: file });
  expect(r.isError).toBe(false);
  return r.data;
}

describe.each(['jsonl', 'json', 'json-seq'])('C01 as .%s: integers beyond 2^53 come back digit for digit', (ext) => {
  test('record text, pointer values and search', async () => {
    const { expected, extra_checks } = caseJson('C01');
    const opened = await open(`C01.${ext}`);
    // chosen by the content: nothing notable, so open_file leaves detection out and get_file_info says it
    expect(opened).toMatchObject({ format: ext, record_count: 4 });
    expect(opened.detection).toBeUndefined();
    expect((await call(c.client, 'get_file_info', { handle: opened.handle })).data.detection).toMatchObject({ basis: 'content' });
    const r0 = await call(c.client, 'get_record', { handle: opened.handle, index: 0 });
    expect(r0.text).not.toContain(expected.must_not_contain);
    expect(r0.data.record.replace(/\s/g, '')).toBe(expected.record_text);
    const r1 = await call(c.client, 'get_record', { handle: opened.handle, index: 1 });
    expect(r1.data.record).toMatch(new RegExp(`"id":\\s*${extra_checks[0].expected_raw_number}\\b`));
    const r2 = await call(c.client, 'get_record', { handle: opened.handle, index: 2 });
    expect(r2.data.record).toMatch(new RegExp(`"id":\\s*${extra_checks[1].expected_raw_number}\\b`));
    const found = await call(c.client, 'search', { handle: opened.handle, query: '9007199254740993' });
    expect(found.data.matches.map((m: { record_index: number }) => m.record_index)).toEqual(extra_checks[2].expected.record_indexes);
    expect(found.data.total_matches).toBe(extra_checks[2].expected.match_count);
  });
});

describe.each(['json', 'json-seq'])('C07 framing noise as .%s', (ext) => {
  test('three records, no CR or BOM in values', async () => {
    const { expected } = caseJson('C07');
    const opened = await open(`C07.${ext}`);
    expect(opened).toMatchObject({ format: ext, record_count: expected.record_count });
    for (const k of [0, 1, 2]) {
      const r = await call(c.client, 'get_record', { handle: opened.handle, index: k });
      expect(JSON.parse(r.data.record)).toEqual(expected[`record_${k}`]);
      for (const bad of expected.no_value_contains as string[]) expect(r.data.record).not.toContain(bad);
    }
  });
});

test('C09 as .json-seq: the truncated element is one malformed record; the 1.25 MB element reads', async () => {
  const { expected } = caseJson('C09');
  const opened = await open('C09.json-seq');
  expect(opened).toMatchObject({ format: 'json-seq', record_count: 6, validation: { complete: true, malformed_records: 1 } });
  expect(opened.warnings.map((w: { record_index: number; line: number }) => w.line)).toEqual(expected.malformed_lines);
  const bad = await call(c.client, 'get_record', { handle: opened.handle, index: 3 });
  expect(bad.data.error).toMatchObject({ code: 'SYNTAX_ERROR', location: { record_index: 3, line: 4 } });
  const long = await call(c.client, 'get_record', { handle: opened.handle, index: 4 });
  expect(long.data.truncated).toBe(true);
  expect(long.data.record_bytes).toBeGreaterThan(expected.line_5_tool_result_length);
  const found = await call(c.client, 'search', { handle: opened.handle, query: 'u-0004' });
  expect(found.data.matches.map((m: { record_index: number }) => m.record_index)).toEqual([0, 5]);
});

test('C11: 1,000 levels read; 100,000 levels are a structured depth error; the server keeps answering', async () => {
  const shallow = await open('deep_1000.json');
  expect(shallow).toMatchObject({ format: 'json', file_type: 'json_object', record_count: 1 });
  const r = await call(c.client, 'get_record', { handle: shallow.handle, index: 0, record_format: 'pretty' });
  expect(r.isError).toBe(false);
  // re-indented, 1,000 levels exceed the preview: the innermost member is in the middle of the text
  expect(r.data.truncated).toBe(true);
  const mid = await call(c.client, 'get_record', { handle: shallow.handle, index: 0, record_format: 'pretty', offset: Math.floor(r.data.record_bytes / 2) - 6000, length: 12000 });
  expect(mid.data.record).toMatch(/"x": 1\s/);
  const deep = await call(c.client, 'open_file', { path: 'deep_100000.json' });
  expect(deep.data.record_count).toBe(1);
  const d = await call(c.client, 'get_record', { handle: deep.data.handle, index: 0 });
  expect(d.isError).toBe(true);
  expect(d.data.error).toMatchObject({ code: 'RESOURCE_LIMIT_EXCEEDED', limit: { name: 'maxDepth' } });
  await expect(c.client.ping()).resolves.toBeDefined();
});

describe.each(['jsonl', 'json', 'json-seq'])('C12 as .%s: lone surrogates and invalid UTF-8', (ext) => {
  test('records 0, 1, 3 served; record 2 reported as invalid UTF-8; every string on the wire is well-formed', async () => {
    const opened = await open(`C12.${ext}`);
    expect(opened).toMatchObject({ format: ext, record_count: 4 });
    const results = [];
    for (const index of [0, 1, 2, 3]) results.push(await call(c.client, 'get_record', { handle: opened.handle, index }));
    expect(results.map((r) => r.isError)).toEqual([false, false, true, false]);
    expect(results[2]!.data.error).toMatchObject({ code: 'SYNTAX_ERROR', message: expect.stringContaining('UTF-8') });
    expect(JSON.parse(results[1]!.data.record)).toEqual({ k: '😀', ok: 'pair' });
    expect(results[1]!.data.warnings).toBeUndefined();
    // the case's expected values: lines 1 and 4 with U+FFFD for the lone surrogate, and a warning saying so
    const { expected } = caseJson('C12');
    for (const [index, line] of [[0, expected.line_1], [3, expected.line_4]] as const) {
      const { warning, ...record } = line;
      expect(JSON.parse(results[index]!.data.record)).toEqual(record);
      expect(results[index]!.data.record).toContain('\\ufffd');
      expect(results[index]!.data.warnings).toEqual([{ code: 'LONE_SURROGATE_REPLACED', message: expect.stringContaining(warning.replace(' replaced', '')) }]);
    }
    // open_file says so up front; sample_records and get_value_at_path give the same text
    expect(opened.warnings).toContainEqual({ code: 'LONE_SURROGATE_REPLACED', message: expect.stringContaining('2 of the 4 records examined') });
    const sample = await call(c.client, 'sample_records', { handle: opened.handle, count: 4, strategy: 'first' });
    expect(sample.data.records.map((r: { record: string }) => JSON.parse(r.record).k)).toEqual(['a\ufffdb', '😀', '\ufffd']);
    expect(sample.data.warnings).toContainEqual({ code: 'LONE_SURROGATE_REPLACED', message: expect.stringMatching(/^2 lone surrogate escape/) });
    const value = await call(c.client, 'get_value_at_path', { handle: opened.handle, index: 3, path: 'k' });
    expect(value.data).toMatchObject({ value: '"\\ufffd"', warnings: [{ code: 'LONE_SURROGATE_REPLACED', message: expect.stringMatching(/^1 lone surrogate escape/) }] });
    results.push(sample, value);
    for (const r of results) {
      expect(r.text.isWellFormed()).toBe(true);
      expect(JSON.stringify(r.data).isWellFormed()).toBe(true);
    }
  });
});

test('other calls are answered while a big JSON array is being indexed (the pass yields between chunks)', async () => {
  const element = JSON.stringify({ id: 1, msg: 'x'.repeat(200), tags: ['a', 'b'] }, null, 2);
  const fd = fs.openSync(path.join(root, 'big-array.json'), 'w');
  fs.writeSync(fd, '[\n');
  const block = Array.from({ length: 10_000 }, () => element).join(',\n');
  for (let k = 0; k < 30; k++) fs.writeSync(fd, (k ? ',\n' : '') + block);
  fs.writeSync(fd, '\n]\n');
  fs.closeSync(fd);
  const order: string[] = [];
  // the ping is sent after the open (messages are handled in order) and answered while the open still runs
  const opening = call(c.client, 'open_file', { path: 'big-array.json' }).then((r) => { order.push('open'); return r; });
  await c.client.ping().then(() => order.push('ping'));
  const opened = await opening;
  expect(opened.data).toMatchObject({ format: 'json', file_type: 'json_array', record_count: 300_000 });
  expect(order).toEqual(['ping', 'open']);
});
