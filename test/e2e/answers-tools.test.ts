/**
 * Answers an assistant can trust, end to end through a real MCP client: one duplicate-member policy in every tool,
 * well-formed Unicode in every string, resources that do not leak, hints instead of silent zeros, encodings.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { call, connect, type Connected } from '../helpers/mcp';

let base: string;
let root: string;
let c: Connected;
const write = (name: string, content: string | Buffer) => fs.writeFileSync(path.join(root, name), content);

const DUPS = [
  '{"a":1,"b":{"k":"old","k":"new"},"a":3}',
  '{"x":"plain"}',
  '{"n":"first","m":0,"n":"second"}',
];

beforeAll(async () => {
  base = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-answers-'));
  root = path.join(base, 'data');
  fs.mkdirSync(root);
  write('dups.jsonl', DUPS.join('\n') + '\n');
  c = await connect(['--root', root]);
});
afterAll(async () => {
  try { await c?.close(); } finally { fs.rmSync(base, { recursive: true, force: true }); }
});

describe('a repeated member name: the last value wins, at the first position, in every tool', () => {
  let handle: string;
  beforeAll(async () => {
    handle = (await call(c.client, 'open_file', { path: 'dups.jsonl' })).data.handle;
  });

  test('open_file reports it, with the record, line and path of the first', async () => {
    const r = await call(c.client, 'open_file', { path: 'dups.jsonl' });
    const w = r.data.warnings.find((x: any) => x.code === 'DUPLICATE_KEY');
    expect(w).toMatchObject({ code: 'DUPLICATE_KEY', record_index: 0, line: 1, path: '/b/k' });
    expect(w.message).toContain('2 of the 3 records examined repeat a member name');
    const reader = await call(c.client, 'json_open', { path: 'dups.jsonl' });
    const rw = reader.data.warnings.find((x: any) => x.code === 'DUPLICATE_KEY');
    expect(rw).toMatchObject({ location: { record_index: 0, line: 1 } });
    expect(rw.message).toContain('"k" at "/b/k" in record 0 (line 1)');
  });

  test('get_record and sample_records show what queries see', async () => {
    for (let i = 0; i < DUPS.length; i++) {
      const r = await call(c.client, 'get_record', { handle, index: i, record_format: 'pretty' });
      expect(r.data.record).toBe(JSON.stringify(JSON.parse(DUPS[i]!), null, 2));
      // one line by default
      expect((await call(c.client, 'get_record', { handle, index: i })).data.record).toBe(JSON.stringify(JSON.parse(DUPS[i]!)));
    }
    const s = await call(c.client, 'sample_records', { handle, count: 3 });
    // the record's compact text, a repeated name once with its last value at its first position
    expect(s.data.records.map((x: any) => x.record)).toEqual(['{"a":3,"b":{"k":"new"}}', '{"x":"plain"}', '{"n":"second","m":0}']);
    expect(s.data.records.map((x: any) => JSON.parse(x.record))).toEqual(DUPS.map((l) => JSON.parse(l)));
    const projected = await call(c.client, 'get_record', { handle, index: 0, fields: ['b', 'a'] });
    expect(JSON.parse(projected.data.record)).toEqual({ b: { k: 'new' }, a: 3 });
  });

  test('get_value_at_path, get_outline, extract_keys, predicates, text search and json_read agree', async () => {
    expect((await call(c.client, 'get_value_at_path', { handle, index: 0, path: 'b' })).data.value).toBe('{"k":"new"}');
    expect((await call(c.client, 'get_value_at_path', { handle, index: 0, path: 'a' })).data.value).toBe('3');
    const outline = (await call(c.client, 'get_outline', { handle, index: 2 })).data.outline;
    expect(outline.children).toBe(2);
    expect(outline.members.map((m: any) => [m.key, m.value])).toEqual([['n', '"second"'], ['m', '0']]);
    expect((await call(c.client, 'extract_keys', { handle })).data.key_counts).toEqual({ a: 1, b: 1, m: 1, n: 1, x: 1 });
    const miss = await call(c.client, 'get_value_at_path', { handle, index: 2, path: 'zz' });
    expect(miss.data.error.message).toContain('its keys: "n", "m"');
    const ids = async (args: Record<string, unknown>) => (await call(c.client, 'search', { handle, ...args })).data.matches.map((m: any) => m.record_index);
    expect(await ids({ query: '$.a = 3' })).toEqual([0]);
    expect(await ids({ query: '$.a = 1' })).toEqual([]);
    expect(await ids({ query: 'old' })).toEqual([]);
    expect(await ids({ query: 'new' })).toEqual([0]);
    expect(await ids({ query: 'first' })).toEqual([]);
    expect(await ids({ query: 'second' })).toEqual([2]);
    const r = await call(c.client, 'json_read', { path: 'dups.jsonl', language: 'jsonpath', query: '$[0]' });
    expect(r.data.items).toEqual([{ path: '/0', value: { a: 3, b: { k: 'new' } } }]);
  });
});

describe('every string the server emits is well-formed Unicode', () => {
  /** Every string and member name in a result (and its text block) holds no half surrogate pair. */
  function expectWellFormed(r: { data: unknown; text: string }) {
    const walk = (v: unknown, at: string) => {
      if (typeof v === 'string') expect({ at, ok: v.isWellFormed() }).toEqual({ at, ok: true });
      else if (Array.isArray(v)) v.forEach((x, i) => walk(x, `${at}/${i}`));
      else if (v !== null && typeof v === 'object') for (const [k, x] of Object.entries(v)) { walk(k, `${at}/${k}(name)`); walk(x, `${at}/${k}`); }
    };
    walk(r.data, '');
    walk(JSON.parse(r.text), 'text');
  }

  beforeAll(() => {
    // Characters beyond U+FFFF (two UTF-16 units) at every alignment around the places text is cut: 40 characters of
    // preview context, 80 in outlines, 120 in value previews, 200 in quoted paths, and V8's parse messages.
    const lines: string[] = [];
    for (let shift = 0; shift < 4; shift++) {
      const pad = 'x'.repeat(shift);
      lines.push(JSON.stringify({ pre: pad + '😀'.repeat(45), k: `needle${'𝄞'.repeat(70)}`, long: pad + '👍'.repeat(90) }));
    }
    lines.push('{"a":😀}');
    lines.push('{"b":"x"}😀');
    write('astral.jsonl', lines.join('\n') + '\n');
  });

  test('previews, outlines, parse errors, warnings and quoted paths', async () => {
    const open = await call(c.client, 'open_file', { path: 'astral.jsonl' });
    expectWellFormed(open);
    expect(open.data.warnings.map((w: any) => w.message)).toEqual([
      expect.stringContaining("Unexpected token '😀'"),
      expect.stringContaining('Unexpected non-whitespace character after JSON'),
    ]);
    const handle = open.data.handle;
    const results = [
      await call(c.client, 'search', { handle, query: 'needle' }),
      await call(c.client, 'search', { handle, query: '𝄞𝄞' }),
      await call(c.client, 'search', { handle, query: '$.long' }),
      await call(c.client, 'search', { handle, query: '$.k = "x"' }),
      await call(c.client, 'get_outline', { handle, index: 1 }),
      await call(c.client, 'get_record', { handle, index: 4 }),
      await call(c.client, 'get_record', { handle, index: 2, length: 7, offset: 5 }),
      await call(c.client, 'json_read', { path: 'astral.jsonl', language: 'jsonpath', query: '$[*].pre' }),
      await call(c.client, 'json_read', { path: 'astral.jsonl', language: 'pointer', query: '/4' }),
      await call(c.client, 'open_file', { path: `${'😀'.repeat(99)}x${'😀'.repeat(20)}.jsonl` }),
      await call(c.client, 'open_file', { path: `${'😀'.repeat(100)}x${'😀'.repeat(20)}.jsonl` }),
      await call(c.client, 'sample_records', { handle, count: 6 }),
    ];
    for (const r of results) expectWellFormed(r);
    expect(results[0]!.data.matches).toHaveLength(4);
    expect(results[0]!.data.matches[0].preview).toContain('«needle»');
    expect(results[5]!.data.error).toMatchObject({ code: 'SYNTAX_ERROR' });
    expect(results[5]!.data.error.message).toContain("Unexpected token '😀'");
    expect(results[8]!.data.error.message).toContain("Unexpected token '😀'");
  });
});

describe('resources: implicit reads do not leak handles; cursors say what to do', () => {
  let small: Connected;
  let dir: string;
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-answers-res-'));
    fs.mkdirSync(path.join(dir, 'data'));
    for (let f = 0; f < 6; f++) fs.writeFileSync(path.join(dir, 'data', `f${f}.jsonl`), [0, 1, 2, 3, 4].map((i) => JSON.stringify({ f, i })).join('\n') + '\n');
    fs.writeFileSync(path.join(dir, '.mcpgwrc.json'), JSON.stringify({ root: './data', limits: { maxOpenFiles: 3 } }));
    small = await connect(['--config', path.join(dir, '.mcpgwrc.json')], { cwd: dir });
  });
  afterAll(async () => {
    try { await small?.close(); } finally { fs.rmSync(dir, { recursive: true, force: true }); }
  });
  const peek = (file: string) => call(small.client, 'json_read', { path: file, language: 'jsonpath', query: '$[*].i', max_items: 1 });

  test('peeking at one file again and again reuses one handle; every cursor of it still works', async () => {
    const cursors: string[] = [];
    const ids = new Set<string>();
    for (let k = 0; k < 40; k++) {
      const r = await peek('f0.jsonl');
      expect(r.data.items).toEqual([{ path: '/0/i', value: 0 }]);
      cursors.push(r.data.next_cursor);
      ids.add(r.data.file_id);
    }
    expect(ids.size).toBe(1);
    // Two explicit opens still fit beside it (maxOpenFiles 3).
    const a = await call(small.client, 'json_open', { path: 'f1.jsonl' });
    const b = await call(small.client, 'json_open', { path: 'f2.jsonl' });
    expect([a.isError, b.isError]).toEqual([false, false]);
    const next = await call(small.client, 'json_read', { cursor: cursors[17] });
    expect(next.data.items).toEqual([{ path: '/1/i', value: 1 }]);
    await call(small.client, 'json_close', { file_id: a.data.file_id });
    await call(small.client, 'json_close', { file_id: b.data.file_id });
  });

  test('peeks at more files than maxOpenFiles: the least recently used implicit handle makes room, its cursor says so', async () => {
    const first = await peek('f1.jsonl');
    const later = [];
    for (const f of ['f2.jsonl', 'f3.jsonl', 'f4.jsonl', 'f5.jsonl']) later.push(await peek(f));
    for (const r of later) expect(r.isError).toBe(false);
    const open = await call(small.client, 'json_open', { path: 'f0.jsonl' });
    expect(open.isError).toBe(false);
    const gone = await call(small.client, 'json_read', { cursor: first.data.next_cursor });
    expect(gone.data.error.code).toBe('HANDLE_EXPIRED');
    expect(gone.data.error.message).toContain('closed to make room');
    const live = await call(small.client, 'json_read', { cursor: later[3]!.data.next_cursor });
    expect(live.data.items).toEqual([{ path: '/1/i', value: 1 }]);
  });

  test('a reused cursor says it was already used; the latest one continues', async () => {
    const r1 = await peek('f3.jsonl');
    const r2 = await call(small.client, 'json_read', { cursor: r1.data.next_cursor });
    expect(r2.data.items).toEqual([{ path: '/1/i', value: 1 }]);
    const again = await call(small.client, 'json_read', { cursor: r1.data.next_cursor });
    expect(again.data.error.code).toBe('NOT_FOUND');
    expect(again.data.error.message).toMatch(/^The cursor jc_[0-9a-f]{16} was already used — continue from the latest next_cursor\.$/);
    const { data: open } = await call(small.client, 'open_file', { path: 'f4.jsonl' });
    const s1 = await call(small.client, 'search', { handle: open.handle, query: '$.i >= 0', max_results: 2 });
    const s2 = await call(small.client, 'search', { handle: open.handle, query: '$.i >= 0', max_results: 2, cursor: s1.data.next_cursor });
    expect(s2.data.matches.map((m: any) => m.record_index)).toEqual([2, 3]);
    const s3 = await call(small.client, 'search', { handle: open.handle, query: '$.i >= 0', max_results: 2, cursor: s1.data.next_cursor });
    expect(s3.data.error.message).toMatch(/^The search cursor sc_[0-9a-f]{16} was already used — continue from the latest next_cursor\.$/);
    expect(s3.data.error.hint).toContain('run the search again');
  });
});

describe('encodings and compressed files: a hint, never records of garbage', () => {
  const text = '{"id":1,"s":"ü"}\n{"id":2,"s":"x"}\n';
  const utf16be = (s: string) => { const b = Buffer.from(s, 'utf16le'); for (let i = 0; i < b.length; i += 2) [b[i], b[i + 1]] = [b[i + 1]!, b[i]!]; return b; };
  const utf32le = (s: string) => { const out = Buffer.alloc([...s].length * 4); [...s].forEach((ch, i) => out.writeUInt32LE(ch.codePointAt(0)!, i * 4)); return out; };
  beforeAll(() => {
    fs.mkdirSync(path.join(root, 'enc'));
    const put = (name: string, b: Buffer | string) => fs.writeFileSync(path.join(root, 'enc', name), b);
    put('bom16le.jsonl', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]));
    put('nobom16be.json', utf16be('{"a": [1, 2, 3]}'));
    put('bom32le.jsonl', Buffer.concat([Buffer.from([0xff, 0xfe, 0, 0]), utf32le(text)]));
    put('nobom32le.jsonl', utf32le(text));
    put('data.jsonl.gz', require('node:zlib').gzipSync(text));
    put('data.jsonl.zst', Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0x20, 0x05, 0x29, 0, 0, 0x7b]));
    put('image.json', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d]));
    put('empty.jsonl', '');
    put('ok.jsonl', text);
  });

  test('list_files: no format for binary, UTF-16/32 or compressed files, with a note saying why; an empty file the format open_file gives it', async () => {
    const r = await call(c.client, 'list_files', { path: 'enc' });
    const byName = Object.fromEntries(r.data.files.map((f: any) => [path.basename(f.path), [f.format, f.note ?? null]]));
    expect(byName).toEqual({
      'bom16le.jsonl': [null, 'UTF-16LE text: convert it to UTF-8 to open it'],
      'bom32le.jsonl': [null, 'UTF-32LE text: convert it to UTF-8 to open it'],
      'data.jsonl.gz': [null, 'gzip-compressed: decompress it to open it'],
      'data.jsonl.zst': [null, 'zstd-compressed: decompress it to open it'],
      'empty.jsonl': ['jsonl', 'empty file: no records'],
      'image.json': [null, 'binary data, not JSON text'],
      'nobom16be.json': [null, 'UTF-16BE text: convert it to UTF-8 to open it'],
      'nobom32le.jsonl': [null, 'UTF-32LE text: convert it to UTF-8 to open it'],
      'ok.jsonl': ['jsonl', null],
    });
  });

  test('list_files: an empty or blank JSON Lines / JSON-seq file is zero records; an empty or blank .json is not a JSON text, and says so', async () => {
    const files: Record<string, string> = { 'e.json': '', 'ws.json': ' \n\t\n', 'e.jsonl': '', 'ws.jsonl': '\n\n  \n', 'e.json-seq': '', 'ws.json-seq': '\n \n', 'e.txt': '', 'ws.txt': '  \n' };
    fs.mkdirSync(path.join(root, 'blank'));
    for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(root, 'blank', name), text);
    const r = await call(c.client, 'list_files', { path: 'blank' });
    const byName = Object.fromEntries(r.data.files.map((f: any) => [path.basename(f.path), [f.format, f.note ?? null]]));
    const refused = 'not a JSON text, open_file refuses it (SYNTAX_ERROR)';
    expect(byName).toEqual({
      'e.json': ['json', `empty file: ${refused}`],
      'ws.json': ['json', `blank file (whitespace only): ${refused}`],
      'e.jsonl': ['jsonl', 'empty file: no records'],
      'ws.jsonl': ['jsonl', 'blank file (whitespace only): no records'],
      'e.json-seq': ['json-seq', 'empty file: no records'],
      'ws.json-seq': ['json-seq', 'blank file (whitespace only): no records'],
      'e.txt': [null, 'empty file'],
      'ws.txt': [null, 'blank file (whitespace only)'],
    });
    // what the notes say is what open_file does
    for (const [name, [format, note]] of Object.entries(byName) as [string, [string | null, string]][]) {
      if (format === null) continue;
      const open = await call(c.client, 'open_file', { path: `blank/${name}` });
      if (note.endsWith('no records')) expect({ name, count: open.data.record_count }).toEqual({ name, count: 0 });
      else expect({ name, code: open.data.error?.code }).toEqual({ name, code: 'SYNTAX_ERROR' });
      if (open.data.handle) await call(c.client, 'close_file', { handle: open.data.handle });
    }
  });

  test('open_file and json_open: UNSUPPORTED_FORMAT with what to do, even with an explicit format', async () => {
    const cases: [string, string | undefined, RegExp, RegExp][] = [
      ['bom16le.jsonl', undefined, /UTF-16LE text \(byte-order mark FF FE\); JSON text must be UTF-8/, /iconv -f UTF-16LE -t UTF-8/],
      ['bom16le.jsonl', 'jsonl', /UTF-16LE text/, /UTF-8/],
      ['nobom16be.json', 'json', /UTF-16BE text \(a NUL byte before each ASCII character\)/, /iconv -f UTF-16BE/],
      ['bom32le.jsonl', undefined, /UTF-32LE text \(byte-order mark FF FE 00 00\)/, /iconv -f UTF-32LE/],
      ['nobom32le.jsonl', undefined, /UTF-32LE text \(NUL bytes around ASCII characters\)/, /UTF-8/],
      ['data.jsonl.gz', undefined, /gzip-compressed/, /gunzip -k/],
      ['data.jsonl.zst', 'jsonl', /zstd-compressed/, /zstd -d/],
      ['image.json', undefined, /NUL byte at offset 8.*binary data/, /a format this server reads \(json, jsonl, json-seq; UTF-8 text\)/],
    ];
    for (const [file, format, message, hint] of cases) {
      for (const [tool, args] of [['open_file', { path: `enc/${file}`, ...(format ? { format } : {}) }], ['json_open', { path: `enc/${file}`, ...(format ? { format } : {}) }]] as const) {
        const r = await call(c.client, tool, args);
        expect({ file, tool, code: r.data.error?.code }).toEqual({ file, tool, code: 'UNSUPPORTED_FORMAT' });
        expect(r.data.error.message).toMatch(message);
        expect(r.data.error.hint).toMatch(hint);
      }
    }
    // An empty file opens, with no records; binary data under an explicit format is read as that format's records.
    expect((await call(c.client, 'open_file', { path: 'enc/empty.jsonl' })).data.record_count).toBe(0);
    const forced = await call(c.client, 'open_file', { path: 'enc/image.json', format: 'jsonl' });
    expect(forced.isError).toBe(false);
    expect(forced.data.validation.malformed_records).toBeGreaterThan(0);
  });
});

describe('zero results with a hint: a member no record has, and the nearest names seen', () => {
  beforeAll(() => {
    write('labels.jsonl', [
      '{"id":1,"label":"a","labels":["x"],"meta":{"table":"t1"}}',
      '{"id":2,"label":"b","title":"T"}',
      '{"id":3,"name":"c","meta":{"table":"t2","owner":"o"}}',
    ].join('\n') + '\n');
  });

  test('explorer search: a JSONPath or a predicate naming "lable" says so and lists "label", "table", "labels"', async () => {
    const { data: open } = await call(c.client, 'open_file', { path: 'labels.jsonl' });
    for (const query of ['$.lable', '$.lable = "a"', '$.meta.ownr', '!($.id) || $.lable']) {
      const r = await call(c.client, 'search', { handle: open.handle, query });
      expect({ query, total: r.data.total_matches }).toEqual({ query, total: 0 });
      expect(r.data.hint).toMatch(/^No record has a member named "(lable|ownr)" \(nearest names seen: /);
      expect(r.data.hint).toContain('All 3 record(s) examined.');
    }
    const lable = (await call(c.client, 'search', { handle: open.handle, query: '$.lable' })).data.hint;
    // Edit distances from "lable": label 1 (a transposition), table 1, labels 2, name 3, title 3 (ties alphabetical).
    expect(lable).toBe('No record has a member named "lable" (nearest names seen: "label", "table", "labels", "name", "title"). All 3 record(s) examined.');
    const owner = (await call(c.client, 'search', { handle: open.handle, query: '$.meta.ownr' })).data.hint;
    expect(owner).toContain('"ownr" (nearest names seen: "owner"');
    // Every name exists: nothing matched for another reason, so no hint.
    const none = await call(c.client, 'search', { handle: open.handle, query: '$.label = "zzz"' });
    expect(none.data).toMatchObject({ total_matches: 0 });
    expect(none.data.hint).toBeUndefined();
    expect((await call(c.client, 'search', { handle: open.handle, query: 'lable' })).data.hint).toBeUndefined(); // text
  });

  test('json_read of a record past the end (pointer or index): the hint says how many records there are', async () => {
    const fid = (await call(c.client, 'json_open', { path: 'labels.jsonl' })).data.file_id;
    const cases: [string, string, string][] = [
      ['pointer', '/3', 'There is no record 3'],
      ['pointer', '/3/id', 'There is no record 3'],
      ['jsonpath', '$[7].id', 'There is no record 7'],
      ['jsonpath', '$[-4]', 'There is no record -4'],
    ];
    for (const [language, query, start] of cases) {
      const r = await call(c.client, 'json_read', { file_id: fid, language, query });
      expect({ query, items: r.data.items, complete: r.data.complete }).toEqual({ query, items: [], complete: true });
      expect(r.data.hint).toBe(`${start}: with $ as the whole file, its first segment (a pointer's first reference token) picks a record, and the file has 3 record(s) (indexes 0 to 2${language === 'jsonpath' ? ', or -1 to -3 from the end' : ''}).`);
    }
    // the last record exists: its member is read, no hint
    expect((await call(c.client, 'json_read', { file_id: fid, language: 'pointer', query: '/2/id' })).data).toMatchObject({ items: [{ path: '/2/id', value: 3 }] });
    // a pointer has no negative index and "-" names the element after the last (RFC 6901 §4): said, not "no member named"
    for (const query of ['/-1', '/-1/id', '/-']) {
      const r = await call(c.client, 'json_read', { file_id: fid, language: 'pointer', query });
      expect({ query, items: r.data.items, complete: r.data.complete }).toEqual({ query, items: [], complete: true });
      const token = query.split('/')[1];
      expect(r.data.hint).toBe(`A JSON Pointer has no negative index: in an array a reference token is 0 or digits without a leading zero (RFC 6901 §4), so "${token}" picks no record`
        + `${token === '-' ? ' ("-" names the element after the last, which never exists)' : ''}. The file has 3 record(s): the last is /2, or $[-1] in JSONPath.`);
    }
    await call(c.client, 'json_close', { file_id: fid });
  });

  test('a hint from a sample says so: how many records were examined, of how many, and that the rest may have the name', async () => {
    // 1,500 records: only record 1,200 (past the 1,000 examined) has "late"; the query asks for a value none has.
    write('late.jsonl', Array.from({ length: 1500 }, (_, i) => (i === 1200 ? `{"id":${i},"late":3}` : `{"id":${i},"lake":1}`)).join('\n') + '\n');
    const { data: open } = await call(c.client, 'open_file', { path: 'late.jsonl' });
    const r = await call(c.client, 'search', { handle: open.handle, query: '$.late = 5' });
    expect(r.data.total_matches).toBe(0);
    const sample = 'None of the first 1000 record(s) examined (a sample from the start of the file, which has 1500) has a member named "late" (nearest names seen: "lake", "id"). The other 500 record(s) were not examined and may have it.';
    expect(r.data.hint).toBe(sample);
    const read = await call(c.client, 'json_read', { path: 'late.jsonl', language: 'jsonpath', query: '$[?@.late == 5]' });
    expect(read.data.items).toEqual([]);
    expect(read.data.hint).toBe(sample);
    // The name is there: the search that asks for its value finds record 1,200.
    const found = await call(c.client, 'search', { handle: open.handle, query: '$.late = 3' });
    expect(found.data.matches.map((m: any) => m.record_index)).toEqual([1200]);
    // 8 MiB bound: records of exactly 10,000 bytes (without the newline), 838 of them fit in 8,388,608 bytes.
    const pad = (i: number) => { const head = `{"id":${i},"pad":"`; return head + 'x'.repeat(10_000 - head.length - 2) + '"}'; };
    write('wide.jsonl', Array.from({ length: 900 }, (_, i) => pad(i)).join('\n') + '\n');
    const { data: wide } = await call(c.client, 'open_file', { path: 'wide.jsonl' });
    const w = await call(c.client, 'search', { handle: wide.handle, query: '$.nope' });
    expect(w.data.hint).toBe(`None of the first ${Math.floor(8 * 1024 * 1024 / 10_000)} record(s) examined (a sample from the start of the file, which has 900) has a member named "nope" (nearest names seen: "id", "pad"). The other ${900 - Math.floor(8 * 1024 * 1024 / 10_000)} record(s) were not examined and may have it.`);
    await call(c.client, 'close_file', { handle: open.handle });
    await call(c.client, 'close_file', { handle: wide.handle });
  });

  test('json_read: an empty answer names the missing member; a non-empty one has no hint', async () => {
    const r = await call(c.client, 'json_read', { path: 'labels.jsonl', language: 'jsonpath', query: '$[*].lable' });
    expect(r.data.items).toEqual([]);
    expect(r.data.hint).toContain('No record has a member named "lable" (nearest names seen: "label", "table", "labels"');
    const p = await call(c.client, 'json_read', { path: 'labels.jsonl', language: 'pointer', query: '/0/lable' });
    expect(p.data.hint).toContain('"lable"');
    const ok = await call(c.client, 'json_read', { path: 'labels.jsonl', language: 'jsonpath', query: '$[*].label' });
    expect(ok.data.items).toHaveLength(2);
    expect(ok.data.hint).toBeUndefined();
  });
});
