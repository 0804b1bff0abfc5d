import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { testTools, type ToolTester } from '../../../src/plugin-kit/index';

/**
 * Error paths, bounds and the finer points of each explorer tool, through a real MCP client: in-process, over the
 * SDK's in-memory transport, with the plugin kit's tool tester (every result checked against its output schema).
 */
let dir: string;
let root: string;
let t: ToolTester;
let handle: string;

/** A tool call's structuredContent (`data`), text block and error flag. */
async function call(name: string, args: Record<string, unknown>) {
  const r = await t.call(name, args);
  return { data: r.structuredContent as any, text: r.text, isError: r.isError };
}

const NESTED = [
  { id: 1, user: { name: 'Zoë', address: { city: 'Café \u00e9' } }, items: [{ sku: 'a', qty: 1 }, { sku: 'b' }], 'a.b': 'dotted' },
  { id: 2, user: { name: 'Bob', address: { city: 'Paris' } }, items: [], note: null },
];

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-explore-'));
  root = path.join(dir, 'root');
  fs.mkdirSync(path.join(root, 'sub'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'secret.jsonl'), '{"secret":1}\n');
  // Record 0 stores é as an escape in the file, so a search for "é" must decode it.
  fs.writeFileSync(path.join(root, 'nested.jsonl'), NESTED.map((r) => JSON.stringify(r).replace('é', '\\u00e9')).join('\n') + '\n');
  const wide = Array.from({ length: 40 }, (_, i) => JSON.stringify({ i, blob: 'x'.repeat(3000) + (i % 2 ? ' needle' : '') })).join('\n');
  fs.writeFileSync(path.join(root, 'sub', 'wide.jsonl'), wide + '\n');
  fs.writeFileSync(path.join(root, 'notes.txt'), 'plain text\n');
  fs.writeFileSync(path.join(root, 'sub', 'broken.jsonl'), '{"k":"alpha","n":1}\n{"k":"alpha",\n{"k":"beta","n":3}\n');
  t = await testTools('@mcpgw/tools-explore', { root, config: { limits: { maxResultBytes: 16384, maxRecordPreviewBytes: 2048 } } });
  handle = (await call('open_file', { path: 'nested.jsonl' })).data.handle;
});
afterAll(async () => {
  await t.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function expectError(name: string, args: Record<string, unknown>, code: string, message?: RegExp) {
  const r = await call(name, args);
  expect({ name, args, isError: r.isError, code: r.data?.error?.code }).toEqual({ name, args, isError: true, code });
  expect(JSON.parse(r.text)).toEqual(r.data);
  if (message) expect(r.data.error.message).toMatch(message);
  return r.data.error;
}

describe('error paths', () => {
  test('unknown handle, closed handle, out-of-range index', async () => {
    for (const tool of ['get_record', 'get_value_at_path', 'get_outline', 'sample_records', 'get_schema', 'extract_keys', 'search', 'get_file_info', 'get_record_count']) {
      const args: Record<string, unknown> = { handle: 'file_99' };
      if (tool === 'get_record' || tool === 'get_value_at_path') args.index = 0;
      if (tool === 'get_value_at_path') args.path = 'id';
      if (tool === 'search') args.query = 'x';
      await expectError(tool, args, 'NOT_FOUND', /file_99/);
    }
    const h = (await call('open_file', { path: 'nested.jsonl' })).data.handle;
    expect((await call('close_file', { handle: h })).data).toEqual({ closed: true });
    await expectError('get_record', { handle: h, index: 0 }, 'NOT_FOUND');
    await expectError('get_record', { handle, index: 2 }, 'INVALID_ARGUMENT', /0\.\.1/);
    await expectError('get_value_at_path', { handle, index: 7, path: 'id' }, 'INVALID_ARGUMENT', /out of range/);
    await expectError('get_outline', { handle, index: 2 }, 'INVALID_ARGUMENT');
  });

  test('bad paths: unparsable is INVALID_ARGUMENT, missing is NOT_FOUND naming the keys that exist', async () => {
    await expectError('get_value_at_path', { handle, index: 0, path: 'items[2' }, 'INVALID_ARGUMENT', /character 7/);
    const e = await expectError('get_value_at_path', { handle, index: 0, path: 'user.adress.city' }, 'NOT_FOUND', /"address", "name"|"name", "address"/);
    expect(e.location).toMatchObject({ record_index: 0, path: '/user/adress' });
    await expectError('get_value_at_path', { handle, index: 0, path: 'items[5]' }, 'NOT_FOUND', /2 elements/);
    await expectError('get_record', { handle, index: 0, fields: ['a['] }, 'INVALID_ARGUMENT');
  });

  test('bad JSONPath and bad predicates are QUERY_SYNTAX_ERROR with a position', async () => {
    const e = await expectError('search', { handle, query: '$.age = = 3' }, 'QUERY_SYNTAX_ERROR', /character 8/);
    expect(e.location).toEqual({ position: 8 });
    const j = await expectError('search', { handle, query: '$[?' }, 'QUERY_SYNTAX_ERROR');
    expect(typeof j.location.position).toBe('number');
    await expectError('search', { handle, query: '$.items[*] > 1' }, 'QUERY_SYNTAX_ERROR', /translates to the RFC 9535 query/);
    await expectError('get_value_at_path', { handle, index: 0, path: '$.items[?' }, 'QUERY_SYNTAX_ERROR');
    await expectError('search', { handle, query: 'a(b', regex: true }, 'QUERY_SYNTAX_ERROR', /regular expression/);
  });

  test('malformed records: reading one is SYNTAX_ERROR with its line; scans skip it and say so', async () => {
    const opened = await call('open_file', { path: 'sub/broken.jsonl' });
    expect(opened.data).toMatchObject({ record_count: 3, validation: { malformed_records: 1 }, warnings: [{ code: 'SYNTAX_ERROR', record_index: 1, line: 2 }] });
    const h = opened.data.handle;
    const e = await expectError('get_record', { handle: h, index: 1 }, 'SYNTAX_ERROR');
    expect(e.location).toMatchObject({ line: 2, record_index: 1 });
    const text = await call('search', { handle: h, query: 'alpha' });
    expect(text.data).toMatchObject({ total_matches: 1, matches: [{ record_index: 0 }], warnings: [{ code: 'SYNTAX_ERROR', record_index: 1, line: 2 }] });
    // The text scan's warning locates the record in the file as open_file's does: line, column and byte.
    expect(text.data.warnings[0].message).toMatch(/^Record 1 was skipped: Record 1 is not valid JSON: .*\(line 2, column \d+, byte \d+\)\.$/);
    const jp = await call('search', { handle: h, query: '$.n >= 1' });
    expect(jp.data).toMatchObject({ total_matches: 2, warnings: [{ code: 'SYNTAX_ERROR', record_index: 1, line: 2 }] });
    const schema = await call('get_schema', { handle: h });
    expect(schema.data).toMatchObject({ records_sampled: 2, schema: { required: ['k', 'n'] }, warnings: [{ record_index: 1 }] });
    const sample = await call('sample_records', { handle: h, count: 3 });
    expect(sample.data.records.map((r: { index: number }) => r.index)).toEqual([0, 2]);
    expect(sample.data.warnings).toHaveLength(1);
  });

  test('a case-insensitive text query is at most 4,096 characters: longer is INVALID_ARGUMENT before any record is read', async () => {
    // one s more than the bound, and the bound itself (s folds to S and to the long s, U+017F)
    await expectError('search', { handle, query: 's'.repeat(4097) }, 'INVALID_ARGUMENT', /^This text query \(4097 characters\) is too large to search for case-insensitively \(at most 4096\)\.$/);
    await expectError('search', { handle, query: 'é'.repeat(5000) }, 'INVALID_ARGUMENT', /\(5000 characters\)/);
    const atBound = await call('search', { handle, query: 's'.repeat(4096) });
    expect(atBound.data).toMatchObject({ total_matches: 0, complete: true });
    // exact matching compiles no case-folding expression: up to the query bound (16,384)
    const exact = await call('search', { handle, query: 's'.repeat(16384), match_case: true });
    expect(exact.data).toMatchObject({ total_matches: 0, complete: true });
    // the echo of a query over 1,024 characters is cut (a 16 KiB answer could not hold it whole)
    expect(exact.data.query).toBe(`${'s'.repeat(1024)}… (16384 characters)`);
    expect(atBound.data.query).toBe(`${'s'.repeat(1024)}… (4096 characters)`);
  });

  test('files outside the root', async () => {
    await expectError('open_file', { path: '../secret.jsonl' }, 'ACCESS_DENIED');
    await expectError('open_file', { path: path.join(dir, 'secret.jsonl') }, 'ACCESS_DENIED');
    await expectError('list_files', { path: '..' }, 'ACCESS_DENIED');
    await expectError('list_files', { path: 'nested.jsonl' }, 'INVALID_ARGUMENT', /not a folder/);
    await expectError('list_files', { glob: '[abc' }, 'INVALID_ARGUMENT');
  });
});

describe('the tools, beyond the walkthrough', () => {
  test('list_files: recursive, path order, format null for what no format opens', async () => {
    const r = await call('list_files', {});
    expect(r.data.files.map((f: { path: string; format: string | null }) => [f.path, f.format])).toEqual([
      ['nested.jsonl', 'jsonl'], ['notes.txt', null], ['sub/broken.jsonl', 'jsonl'], ['sub/wide.jsonl', 'jsonl'],
    ]);
    expect((await call('list_files', { path: 'sub' })).data.files.map((f: { path: string }) => f.path)).toEqual(['sub/broken.jsonl', 'sub/wide.jsonl']);
    expect((await call('list_files', { glob: 'sub/w*.jsonl' })).data.files).toHaveLength(1);
  });

  test('get_value_at_path: every path form', async () => {
    const v = async (p: string, index = 0) => (await call('get_value_at_path', { handle, index, path: p })).data;
    // a dot path or pointer names the value itself: no pointer beside it
    expect(await v('user.address.city')).toEqual({ value: '"Caf\\u00e9 é"', path: 'user.address.city', value_type: 'string' });
    expect(await v('/user/name')).toEqual({ value: '"Zoë"', path: '/user/name', value_type: 'string' });
    expect(await v('items[1].sku')).toEqual({ value: '"b"', path: 'items[1].sku', value_type: 'string' });
    expect(await v('items[-1]')).toMatchObject({ value: '{"sku":"b"}', value_type: 'object' });
    expect(await v("['a.b']")).toEqual({ value: '"dotted"', path: "['a.b']", value_type: 'string' });
    // a JSONPath evaluated to find the value: the pointer says which node it took
    expect(await v("$.user['name']")).toEqual({ value: '"Zoë"', path: "$.user['name']", value_type: 'string' });
    expect(await v('$.items[?@.sku == "b"]')).toEqual({ value: '{"sku":"b"}', path: '$.items[?@.sku == "b"]', value_type: 'object', pointer: '/items/1' });
    expect(await v('note', 1)).toMatchObject({ value: 'null', value_type: 'null' });
    expect(await v('')).toMatchObject({ value_type: 'object' });
    expect((await v('')).pointer).toBeUndefined();
  });

  test('extract_keys descends into arrays of objects and counts records per key', async () => {
    const r = await call('extract_keys', { handle, path: 'items' });
    expect(r.data).toEqual({ keys: ['qty', 'sku'], records_sampled: 2, key_counts: { qty: 1, sku: 1 } });
    const top = await call('extract_keys', { handle });
    // counts only for the keys some of the 2 records lack (id, items and user are in both)
    expect(top.data).toMatchObject({ records_sampled: 2, key_counts: { 'a.b': 1, note: 1 } });
    expect(top.data.keys).toEqual(['a.b', 'id', 'items', 'note', 'user']);
    expect((await call('extract_keys', { handle, path: 'user.address' })).data.keys).toEqual(['city']);
  });

  test('get_schema is recursive, with optional-member frequencies', async () => {
    const { schema } = (await call('get_schema', { handle })).data;
    expect(schema.required).toEqual(['id', 'items', 'user']);
    expect(schema.properties.user).toMatchObject({ type: 'object', required: ['address', 'name'], properties: { address: { type: 'object', required: ['city'] } } });
    expect(schema.properties.items.items).toMatchObject({ type: 'object', required: ['sku'], properties: { qty: { type: 'integer', 'x-occurrences': 1 } } });
    expect(schema.properties.note).toMatchObject({ type: 'null', 'x-occurrences': 1, 'x-frequency': 0.5 });
  });

  test('text search decodes escapes, folds case, reports match_path of a value or a key, projects fields', async () => {
    const r = await call('search', { handle, query: 'É', fields: ['id', 'user.name', 'missing'] });
    expect(r.data.total_matches).toBe(1);
    expect(r.data.matches).toEqual([{ record_index: 0, match_path: '/user/address/city', preview: expect.stringContaining('"Caf«é» é"'), record: { id: 1, 'user.name': 'Zoë' } }]);
    const key = await call('search', { handle, query: 'ADDR' });
    expect(key.data.matches.map((m: { match_path: string }) => m.match_path)).toEqual(['/user/address', '/user/address']);
    // The escape as written in the file is found in the raw bytes (as a byte search finds it), at the value it is in.
    const escape = await call('search', { handle, query: 'u00e9' });
    expect(escape.data.total_matches).toBe(1);
    expect(escape.data.matches).toEqual([{ record_index: 0, match_path: '/user/address/city', preview: expect.stringContaining('"Caf\\«u00e9» ') }]);
  });

  test('get_outline: members with types, counts, sizes; a nested path; depth', async () => {
    const r = await call('get_outline', { handle, path: 'items', depth: 1 });
    expect(r.data).toEqual({
      index: 0,
      pointer: '/items',
      outline: {
        type: 'array', bytes: 33, children: 2,
        members: [{ key: 0, type: 'object', bytes: 19, children: 2 }, { key: 1, type: 'object', bytes: 11, children: 1 }],
      },
    });
  });
});

describe('bounded answers (maxResultBytes 16 KiB, maxRecordPreviewBytes 2 KiB)', () => {
  let wide: string;
  beforeAll(async () => {
    wide = (await call('open_file', { path: 'sub/wide.jsonl' })).data.handle;
  });

  test('sample_records stops before maxResultBytes and says where; fields keep it small', async () => {
    const r = await call('sample_records', { handle: wide, count: 40 });
    expect(Buffer.byteLength(r.text)).toBeLessThanOrEqual(16384);
    expect(r.data.truncated).toBe(true);
    const n = r.data.records.length;
    expect(n).toBeGreaterThan(2);
    expect(n).toBeLessThan(40);
    expect(r.data.cut).toEqual({ limit: 'maxResultBytes', at: `after ${n} of 40 records (next index ${n})`, rest: expect.stringContaining('get_record') });
    const small = await call('sample_records', { handle: wide, count: 40, fields: ['i'] });
    expect(small.data.records).toHaveLength(40);
    expect(small.data.truncated).toBeUndefined();
    expect(small.data.records[39]).toEqual({ index: 39, record: '{"i":39}' });
  });

  test('JSONPath and predicate searches page through the engine with exact totals', async () => {
    for (const query of ['$.blob', '$.i >= 0', '$.i > 9 && $.i < 30']) {
      const want = query === '$.i > 9 && $.i < 30' ? 20 : 40;
      const seen: number[] = [];
      let cursor: string | undefined;
      for (let pages = 0; pages < 30; pages++) {
        const r = await call('search', { handle: wide, query, max_results: 7, ...(cursor ? { cursor } : {}) });
        expect(r.isError).toBe(false);
        expect(Buffer.byteLength(r.text)).toBeLessThanOrEqual(16384);
        expect({ query, total: r.data.total_matches, complete: r.data.complete }).toEqual({ query, total: want, complete: true });
        seen.push(...r.data.matches.map((m: { record_index: number }) => m.record_index));
        cursor = r.data.next_cursor;
        if (!cursor) break;
      }
      expect(seen).toEqual(Array.from({ length: want }, (_, k) => k + (want === 20 ? 10 : 0)));
    }
  });

  test('search pages stay under maxResultBytes; every match is reachable through next_cursor', async () => {
    const seen: number[] = [];
    let cursor: string | undefined;
    for (let pages = 0; pages < 30; pages++) {
      const r = await call('search', { handle: wide, query: 'needle', fields: ['blob'], ...(cursor ? { cursor } : {}) });
      expect(Buffer.byteLength(r.text)).toBeLessThanOrEqual(16384);
      expect(r.data.total_matches).toBe(20);
      seen.push(...r.data.matches.map((m: { record_index: number }) => m.record_index));
      if (r.data.next_cursor) expect(r.data.cut).toMatchObject({ limit: 'maxResultBytes' });
      cursor = r.data.next_cursor;
      if (!cursor) break;
    }
    expect(seen).toEqual(Array.from({ length: 20 }, (_, k) => 2 * k + 1));
  });

  test('get_record and get_value_at_path cut long text at the preview size and page with offset', async () => {
    const r = await call('get_record', { handle: wide, index: 1 });
    const whole = `{"i":1,"blob":"${'x'.repeat(3000)} needle"}`;
    const size = Buffer.byteLength(whole);
    expect(r.data).toMatchObject({ truncated: true, offset: 0, record_bytes: size, next_offset: 2048, record: expect.stringContaining(`[cut: bytes 0–2048 of ${size}; call get_record with offset 2048`) });
    const v = await call('get_value_at_path', { handle: wide, index: 1, path: 'blob' });
    expect(v.data).toMatchObject({ truncated: true, value_bytes: 3009, offset: 0, next_offset: 2048 });
    const rest = await call('get_value_at_path', { handle: wide, index: 1, path: 'blob', offset: v.data.next_offset });
    expect(rest.data.value.endsWith(' needle"')).toBe(true);
  });
});
