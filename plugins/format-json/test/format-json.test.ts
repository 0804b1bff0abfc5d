import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import json from '../src/index';
import jsonl from '../../format-jsonl/src/index';
import jsonseq from '../../format-jsonseq/src/index';
import type { Format, RecordSource, RecordWarning } from '../../../src/kernel/contracts';
import { McpgwError } from '../../../src/kernel/errors';
import { selectFormat } from '../../../src/kernel/plugins/registry';
import { fileService, formatsOf, values } from '../../../test/helpers/formats';

let dir: string;
let formats: Format[];
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-json-'));
  formats = [...(await formatsOf(json)), ...(await formatsOf(jsonl)), ...(await formatsOf(jsonseq))];
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function write(name: string, content: string | Buffer): string {
  fs.writeFileSync(path.join(dir, name), content);
  return name;
}
async function open(name: string, limits = {}, format = 'json') {
  return fileService(dir, formats, limits).open(name, { format });
}
function thrown(f: () => unknown): McpgwError {
  try { f(); } catch (e) { return e as McpgwError; }
  throw new Error('did not throw');
}
async function openError(name: string, limits = {}): Promise<McpgwError> {
  try { await open(name, limits); } catch (e) { return e as McpgwError; }
  throw new Error('opened');
}

describe('format-json: a top-level array is a sequence of records', () => {
  test('registers json for .json and .geojson', () => {
    expect(formats[0]!.name).toBe('json');
    expect(formats[0]!.extensions).toEqual(['.json', '.geojson']);
  });

  test('pretty array: one record per element, exact text, locations with lines', async () => {
    const text = JSON.stringify([{ a: 1 }, [1, [2]], 'x,]', 3, null, { s: 'q"}]' }], null, 2) + '\n';
    const { source, close } = await open(write('pretty.json', text));
    expect(source).toMatchObject({ format: 'json', rootType: 'array', rootIsSequence: true, count: 6 });
    expect(values(source)).toEqual([{ a: 1 }, [1, [2]], 'x,]', 3, null, { s: 'q"}]' }]);
    expect(source.text(1)).toBe('[\n    1,\n    [\n      2\n    ]\n  ]');
    expect(source.location(0)).toEqual({ byte_offset: 4, line: 2, column: 3, record_index: 0 });
    expect(source.location(2).line).toBe(text.split('\n').findIndex((l) => l.includes('x,]')) + 1);
    close();
  });

  test('compact array, empty array, nested empty containers, escapes across the board', async () => {
    const a = await open(write('compact.json', '[1,"a\\"b\\\\",{"k":[]},[],{}]'));
    expect(values(a.source)).toEqual([1, 'a"b\\', { k: [] }, [], {}]);
    a.close();
    const b = await open(write('empty.json', ' [ ] '));
    expect(b.source.count).toBe(0);
    expect(b.source.rootType).toBe('array');
    b.close();
  });

  test('a top-level object or scalar is one record (json_object / json_value), not a sequence', async () => {
    const o = await open(write('obj.json', '{"b":1,"a":[1,2]}\n'));
    expect(o.source).toMatchObject({ rootType: 'object', rootIsSequence: false, count: 1 });
    expect(o.source.text(0)).toBe('{"b":1,"a":[1,2]}');
    expect(Object.keys(o.source.value(0) as object)).toEqual(['b', 'a']);
    o.close();
    for (const [name, text, v, type] of [['n.json', ' 12 ', 12, 'number'], ['s.json', '"x y"', 'x y', 'string'], ['t.json', 'true\n', true, 'boolean'], ['z.json', 'null', null, 'null']] as const) {
      const s = await open(write(name, text));
      expect(s.source).toMatchObject({ rootType: type, rootIsSequence: false, count: 1 });
      expect(s.source.value(0)).toEqual(v);
      s.close();
    }
  });

  test('a UTF-8 BOM is skipped', async () => {
    const { source, close } = await open(write('bom.json', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('[1,2]')])));
    expect(values(source)).toEqual([1, 2]);
    close();
  });

  test.each([
    ['trailing garbage', '[1,2] x', 'after the JSON value', 1, 7],
    ['a second value', '{"a":1}\n{"a":2}\n', 'after the JSON value', 2, 1],
    ['unterminated array', '[1,\n[2,3]', 'Unterminated array', 2, 6],
    ['unterminated string', '["abc', 'Unterminated string', 1, 6],
    ['trailing comma', '[1,2,]', 'Trailing comma', 1, 6],
    ['empty element', '[1,,2]', "found ','", 1, 4],
    ['mismatched bracket', '[{"a":1]]', "Unexpected ']'", 1, 8],
    ['empty file', '', 'No JSON value', 1, 1],
    ['blank file', ' \n ', 'No JSON value', 2, 2],
    ['object member not a string', '{a:1}', 'member name', 1, 2],
  ])('%s is SYNTAX_ERROR at open with offset, line and column', async (_name, text, message, line, column) => {
    const err = await openError(write(`bad-${line}-${column}-${text.length}.json`, text));
    expect(err).toBeInstanceOf(McpgwError);
    expect(err.code).toBe('SYNTAX_ERROR');
    expect(err.message).toContain(message);
    expect(err.location).toMatchObject({ line, column });
    expect(typeof err.location!.byte_offset).toBe('number');
  });

  test('a bad element is a malformed record (SYNTAX_ERROR with line and column); the others read', async () => {
    const { source, close } = await open(write('badel.json', '[\n  {"a":1},\n  {"a":tru},\n  {"a":3}\n]'));
    expect(source.count).toBe(3);
    expect(source.value(2)).toEqual({ a: 3 });
    const err = thrown(() => source.value(1));
    expect(err.code).toBe('SYNTAX_ERROR');
    expect(err.location).toMatchObject({ record_index: 1, line: 3 });
    close();
  });

  test('indexing across chunk boundaries: strings and escapes split by 4 MiB reads', async () => {
    const items: unknown[] = [];
    for (let i = 0; i < 60_000; i++) items.push({ i, s: 'x\\"'.repeat(i % 50) + '\\', t: '"]}'.repeat(i % 7) });
    const text = JSON.stringify(items, null, 1);
    const { source, close } = await open(write('big.json', text));
    expect(source.count).toBe(60_000);
    for (const i of [0, 1, 4095, 30_000, 59_999]) expect(source.value(i)).toEqual(items[i]);
    // lines are counted on first need, in any order of requests, and agree with the text (ASCII: bytes = characters)
    for (const i of [59_999, 0, 30_000, 4095, 1024, 31_000]) {
      const loc = source.location(i);
      expect(text[loc.byte_offset!]).toBe('{');
      expect(loc.line).toBe(text.slice(0, loc.byte_offset).split('\n').length);
      expect(loc.column).toBe(2);
    }
    let n = 0;
    for await (const b of source.batches()) for (let k = 0; k < b.count; k++) { expect((b.value(k) as { i: number }).i).toBe(n); n++; }
    expect(n).toBe(60_000);
    close();
  });

  test('numbers stay exact in elements; key order kept; duplicate keys: last wins', async () => {
    const { source, close } = await open(write('nums.json', '[{"big":12345678901234567891,"d":0.12345678901234567890123,"p":42.00,"z":-0,"e":1E3},{"k":1,"k":2}]'));
    expect(JSON.stringify(source.value(0))).toBe('{"big":12345678901234567891,"d":0.12345678901234567890123,"p":42.00,"z":-0,"e":1E3}');
    expect(source.value(1)).toEqual({ k: 2 });
    close();
  });

  test('lone surrogate escapes become U+FFFD with a warning naming the record; pairs stay', async () => {
    const { source, close } = await open(write('sur.json', '[{"k":"a\\ud800b"},{"k":"\\ud83d\\ude00"},{"\\udc00":"low"}]'));
    const warnings: RecordWarning[] = [];
    expect(source.value(0, warnings)).toEqual({ k: 'a\ufffdb' });
    expect(warnings).toEqual([expect.objectContaining({ code: 'LONE_SURROGATE_REPLACED', record_index: 0, path: '/k' })]);
    expect(source.value(1, warnings)).toEqual({ k: '😀' });
    expect(warnings).toHaveLength(1);
    const v = source.value(2, warnings) as object;
    expect(Object.keys(v)).toEqual(['\ufffd']);
    expect(warnings[1]).toMatchObject({ record_index: 2 });
    // without a warnings array the value is still repaired
    expect(JSON.stringify(source.value(0)).includes('\\ud800')).toBe(false);
    close();
  });

  test('100,000 levels of [ never overflow: SYNTAX_ERROR (unterminated) or RESOURCE_LIMIT_EXCEEDED when read', async () => {
    const err = await openError(write('open100k.json', '['.repeat(100_000)));
    expect(err.code).toBe('SYNTAX_ERROR');
    const { source, close } = await open(write('deep100k.json', '['.repeat(100_000) + ']'.repeat(100_000)));
    expect(source.count).toBe(1);
    expect(thrown(() => source.value(0))).toMatchObject({ code: 'RESOURCE_LIMIT_EXCEEDED', limit: { name: 'maxDepth', limit: 2000 } });
    expect(source.node!(0, '/0/0/0')?.type).toBe('array');
    close();
  });

  test('the structural pass yields between chunks (other work runs while a big file opens)', async () => {
    const big = '[' + Array.from({ length: 200_000 }, (_, i) => `{"i":${i},"p":"${'y'.repeat(40)}"}`).join(',') + ']';
    const name = write('yield.json', big);
    let ticks = 0;
    const timer = setInterval(() => ticks++, 1);
    const { source, close } = await open(name);
    clearInterval(timer);
    expect(source.count).toBe(200_000);
    expect(ticks).toBeGreaterThan(0);
    close();
  });
});

describe('lazy nodes: RecordSource.node', () => {
  const fc = {
    type: 'FeatureCollection',
    name: 'x',
    features: Array.from({ length: 300 }, (_, i) => ({ type: 'Feature', id: i, properties: { n: `f${i}`, big: 12345678901234567891 }, geometry: { type: 'Point', coordinates: [i, -i] } })),
  };
  const text = JSON.stringify(fc, null, 2).replace(/12345678901234567000/g, '12345678901234567891');

  test('a FeatureCollection: /features/5 without parsing the file', async () => {
    const { source, close } = await open(write('fc.geojson', text), {}, 'auto');
    expect(source.rootType).toBe('object');
    const root = source.node!(0, '')!;
    expect(root).toMatchObject({ type: 'object', byteOffset: 0, byteLength: text.length, childCount: 3 });
    expect(root.children!(0, 3).map((c) => c.key)).toEqual(['type', 'name', 'features']);
    const f = source.node!(0, '/features')!;
    expect(f).toMatchObject({ type: 'array', childCount: 300 });
    const five = source.node!(0, '/features/5')!;
    expect(five.type).toBe('object');
    expect(JSON.stringify(five.value())).toBe(JSON.stringify(fc.features[5]).replace('12345678901234567000', '12345678901234567891'));
    expect(JSON.stringify(source.node!(0, '/features/5/properties/big')!.value())).toBe('12345678901234567891');
    expect(text.slice(five.byteOffset, five.byteOffset + five.byteLength)).toBe(JSON.stringify(fc.features[5], null, 2).replace(/\n/g, '\n    ').replace('12345678901234567000', '12345678901234567891'));
    expect(source.node!(0, '/features/299/geometry/coordinates/1')!.value()).toBe(-299);
    expect(source.node!(0, '/features/300')).toBeUndefined();
    expect(source.node!(0, '/features/05')).toBeUndefined();
    expect(source.node!(0, '/nope')).toBeUndefined();
    expect(source.node!(0, '/name/x')).toBeUndefined();
    expect(f.children!(298, 400).map((c) => c.index)).toEqual([298, 299]);
    expect(thrown(() => source.node!(0, 'features')).code).toBe('INVALID_ARGUMENT');
    close();
  });

  test('pointer escapes, duplicate names (last wins), nodes inside array records', async () => {
    const { source, close } = await open(write('esc.json', '[{"a/b":{"m~n":[10,20]},"d":1,"d":2},["x",{"y":[true]}]]'));
    expect(source.node!(0, '/a~1b/m~0n/1')!.value()).toBe(20);
    expect(source.node!(0, '/d')!.value()).toBe(2);
    expect(source.node!(1, '/1/y/0')).toMatchObject({ type: 'boolean' });
    expect(source.node!(0, '/a~1b')!.children!(0, 1)[0]!.key).toBe('m~n');
    close();
  });

  test('a node larger than maxRecordBytes cannot be parsed whole but its parts can', async () => {
    const { source, close } = await open(write('limit.json', JSON.stringify({ list: Array.from({ length: 2000 }, (_, i) => ({ i })) })), { maxRecordBytes: 1024 });
    expect(thrown(() => source.value(0)).code).toBe('RESOURCE_LIMIT_EXCEEDED');
    expect(thrown(() => source.node!(0, '/list')!.value()).code).toBe('RESOURCE_LIMIT_EXCEEDED');
    expect(source.node!(0, '/list/1999')!.value()).toEqual({ i: 1999 });
    close();
  });

  test('nodes work in JSON Lines records too', async () => {
    const { source, close } = await open(write('n.jsonl', '{"a":{"b":[1,2,3]}}\n{"a":null}\n'), {}, 'jsonl');
    expect(source.node!(0, '/a/b/2')!.value()).toBe(3);
    expect(source.node!(1, '/a')!.type).toBe('null');
    close();
  });
});

describe('validate: probe and full passes', () => {
  test('counts malformed records, duplicate keys and lone surrogates with the first error located', async () => {
    const lines = ['{"a":1}', '{"a":', '{"k":1,"k":2}', '{"s":"\\udc00"}', '[1,{"x":{"y":1,"y":2}}]', 'nul'];
    const { source, close } = await open(write('v.jsonl', lines.join('\n') + '\n'), {}, 'jsonl');
    const report = await source.validate!({ mode: 'full' });
    expect(report).toMatchObject({
      mode: 'full', complete: true, recordsExamined: 6, malformedRecords: 2, duplicateKeys: 2, loneSurrogates: 1, oversizedRecords: 0,
      firstDuplicateKey: { recordIndex: 2, key: 'k', path: '/k' },
      firstError: { code: 'SYNTAX_ERROR', location: expect.objectContaining({ line: 2, record_index: 1 }) },
    });
    expect(report.firstMalformed.map((m) => [m.recordIndex, m.line])).toEqual([[1, 2], [5, 6]]);
    const probe = await source.validate!({ probeRecords: 2 });
    expect(probe).toMatchObject({ mode: 'probe', complete: false, recordsExamined: 2, malformedRecords: 1 });
    close();
  });

  test('finds the nested duplicate path; reports progress; an aborted signal is CANCELLED', async () => {
    const { source, close } = await open(write('v2.json', '[{"a":[{"b":1}]},{"a":[0,{"c":1,"c":2}]}]'));
    const seen: number[] = [];
    const r = await source.validate!({ mode: 'full', onProgress: (d) => seen.push(d) });
    expect(r.firstDuplicateKey).toEqual({ recordIndex: 1, key: 'c', path: '/a/1/c' });
    expect(seen.length).toBeGreaterThan(0);
    const ac = new AbortController();
    ac.abort();
    await expect(source.validate!({ mode: 'full', signal: ac.signal })).rejects.toMatchObject({ code: 'CANCELLED' });
    close();
  });

  test('a scan goes on past a record over maxRecordBytes: it comes alone, without bytes, and reading it throws', async () => {
    const { source, close } = await open(write('v4.json', `[1,"${'x'.repeat(3000)}",3]`), { maxRecordBytes: 1024 });
    const seen: unknown[] = [];
    for await (const b of source.batches()) {
      for (let k = 0; k < b.count; k++) {
        try { seen.push(b.value(k)); } catch (e) { seen.push([(e as McpgwError).code, (e as McpgwError).limit]); }
      }
    }
    expect(seen).toEqual([1, ['RESOURCE_LIMIT_EXCEEDED', { name: 'maxRecordBytes', limit: 1024, value: 3002 }], 3]);
    // longer than a scan chunk: alone in its batch, without bytes
    const big = await open(write('v5.json', `[1,"${'x'.repeat(5 * 1024 * 1024)}",3]`), { maxRecordBytes: 1024 });
    const batches: [number, number, number][] = [];
    for await (const b of big.source.batches()) batches.push([b.first, b.count, b.bytes.length]);
    expect(batches).toEqual([[0, 1, expect.any(Number)], [1, 1, 0], [2, 1, expect.any(Number)]]);
    big.close();
    close();
  });

  test('records over maxRecordBytes are counted as oversized, not malformed', async () => {
    const { source, close } = await open(write('v3.json', `[{"s":"${'x'.repeat(3000)}"},1]`), { maxRecordBytes: 1024 });
    const r = await source.validate!({ mode: 'full' });
    expect(r).toMatchObject({ complete: true, recordsExamined: 2, oversizedRecords: 1, malformedRecords: 0 });
    close();
  });
});

describe('detection through selectFormat', () => {
  const pick = (text: string | Buffer, fileName: string, size?: number) => {
    const bytes = Buffer.isBuffer(text) ? text : Buffer.from(text);
    const r = selectFormat(formats, { fileName, extension: path.extname(fileName), bytes, size: size ?? bytes.length });
    return [r.format.name, r.detection.basis];
  };
  test('RS at byte 0 is json-seq whatever the name', () => {
    expect(pick('\x1e{"a":1}\n\x1e{"a":2}\n', 'x.json')).toEqual(['json-seq', 'content']);
    expect(pick('\x1e{"a":1}\n', 'x')).toEqual(['json-seq', 'content']);
  });
  test('several line-aligned values are JSON Lines whatever the name', () => {
    expect(pick('{"a":1}\n{"a":2}\n', 'x.json')).toEqual(['jsonl', 'content']);
    expect(pick('1\n2\n3\n', 'data')).toEqual(['jsonl', 'content']);
  });
  test('one pretty value is JSON whatever the name', () => {
    expect(pick('{\n  "a": 1\n}\n', 'x.jsonl')).toEqual(['json', 'content']);
    expect(pick('[\n 1,\n 2\n]', 'x.txt')).toEqual(['json', 'content']);
  });
  test('one line: the extension decides; without one, JSON', () => {
    expect(pick('{"a":1}\n', 'x.jsonl')).toEqual(['jsonl', 'extension']);
    expect(pick('{"a":1}\n', 'x.ndjson')).toEqual(['jsonl', 'extension']);
    expect(pick('{"a":1}\n', 'x.json')).toEqual(['json', 'extension']);
    expect(pick('{"a":1}', 'x.geojson')).toEqual(['json', 'extension']);
    expect(pick('{"a":1}', 'x')).toEqual(['json', 'content']);
  });
  test('a probe cut inside a pretty value is JSON; inside one long line the extension decides', () => {
    const pretty = '[\n  {"a": "' + 'x'.repeat(100) + '"},\n';
    expect(pick(pretty, 'big.jsonl', 1e9)).toEqual(['json', 'content']);
    const oneLine = '{"a":"' + 'x'.repeat(100);
    expect(pick(oneLine, 'big.jsonl', 1e9)).toEqual(['jsonl', 'extension']);
    expect(pick(oneLine, 'big.json', 1e9)).toEqual(['json', 'extension']);
  });
  test('empty files and broken content go by extension', () => {
    expect(pick('', 'e.json-seq')).toEqual(['json-seq', 'extension']);
    expect(pick('', 'e.json')).toEqual(['json', 'extension']);
    expect(pick('[1,}', 'e.json')).toEqual(['json', 'extension']);
  });
});
