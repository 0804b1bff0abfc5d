import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import jsonl from '../../plugins/format-jsonl/src/index';
import { JsonScanError, JsonStructureScanner } from '../../src/engine/records/json-scan';
import { needsExactParse, parseExact, countMemberNames, countMembers, findDuplicateKey } from '../../src/engine/records/parse';
import { fileService, formatsOf, values } from '../helpers/formats';

/** Feeds `text` to a scanner in the given pieces; returns the children of the root, or the error. */
function scan(bytes: Buffer, cuts: number[]): { starts: number[]; end: number } | { error: string; offset: number } {
  const starts: number[] = [];
  const s = new JsonStructureScanner({ captureDepth: 1, onChild: (_d, o) => starts.push(o) });
  try {
    let prev = 0;
    for (const c of [...cuts.filter((c) => c > 0 && c < bytes.length).sort((a, b) => a - b), bytes.length]) {
      if (c <= prev) continue;
      s.feed(bytes.subarray(prev, c), c - prev, prev);
      prev = c;
    }
    s.finish(bytes.length);
    return { starts, end: s.rootEnd };
  } catch (e) {
    return { error: (e as Error).message, offset: (e as JsonScanError).offset };
  }
}

describe('structural scanner', () => {
  test('any split of the text into pieces gives the same children and errors (strings, escapes, backslash runs at cuts)', () => {
    fc.assert(fc.property(
      fc.array(fc.jsonValue({ maxDepth: 4 }), { maxLength: 8 }),
      fc.array(fc.nat(400), { maxLength: 12 }),
      fc.constantFrom(0, 1, 2),
      (items, cuts, indent) => {
        // strings full of quotes and backslashes stress the escape carry
        const text = JSON.stringify(items.map((v, i) => (i % 2 ? v : `\\"${JSON.stringify(v)}\\\\`)), null, indent);
        const bytes = Buffer.from(text);
        const whole = scan(bytes, []);
        expect(scan(bytes, cuts)).toEqual(whole);
        expect('starts' in whole && whole.starts.length).toBe(items.length);
      },
    ), { numRuns: 300 });
  });

  test('strings short and long (walked byte by byte, or searched), cut at every byte, escapes at the cut included', () => {
    const long = 'x'.repeat(60);
    const text = `{"a\\\\":["\\"",{"k\\\\\\"":"${long}\\\\"},"${long}\\"${long}","]\\\\"],"b":[1,"\\u00e9\\\\"]}`;
    expect(JSON.parse(text)).toBeTruthy();
    const b = Buffer.from(text);
    const whole = scan(b, []);
    expect(whole).toEqual({ starts: [1, text.indexOf('"b"')], end: text.length });
    for (let cut = 0; cut <= b.length; cut++) expect(scan(b, [cut])).toEqual(whole);
    for (let cut = 0; cut + 3 <= b.length; cut++) expect(scan(b, [cut, cut + 1, cut + 3])).toEqual(whole);
    // the same text with a quote left open in a long string is unterminated however it is cut
    const open = Buffer.from(text.slice(0, text.indexOf(long) + 30));
    for (let cut = 0; cut <= open.length; cut += 7) expect(scan(open, [cut])).toMatchObject({ error: expect.stringMatching(/Unterminated string/) });
  });

  test('child offsets are where the elements start', () => {
    const text = '[ 1 ,"a\\\\",{"k":"]"}, [] ]';
    const r = scan(Buffer.from(text), []);
    expect(r).toEqual({ starts: [2, 5, 11, 22], end: text.length });
    expect([2, 5, 11, 22].map((o) => text[o])).toEqual(["1", "\"", "{", "["]);
  });

  // A word that is not a literal is an error where the word starts, as Python's json.loads says for 'tru e', 'nul' and
  // 'not json at all' ("Expecting value: line 1 column 1 (char 0)"); for 'truex' Python says "Extra data" at char 4,
  // we name the whole word (a literal run on into letters or digits is no literal).
  test('broken texts are errors at the right offset, however they are split', () => {
    for (const [text, offset] of [['[1,2', 4], ['[1]]', 3], ['{"a":1,}', 7], ['[1] 2', 4], ['"abc', 4], ['[}', 1], ['tru e', 0], ['nul', 0], ['truex', 0], ['not json at all', 0], [' false0', 1]] as const) {
      const b = Buffer.from(text);
      for (let cut = 0; cut <= b.length; cut++) expect(scan(b, [cut])).toMatchObject({ offset });
    }
  });
});

describe('exact parsing', () => {
  test('only texts with numerals a double cannot hold take the slow path', () => {
    expect(needsExactParse('{"a":1,"b":2.5,"c":-3,"d":1e400}')).toBe(true);
    expect(needsExactParse('{"a":1,"b":2.5,"c":-3,"ts":"00:00:01.50"}')).toBe(false);
    for (const t of ['12345678901234567891', '42.00', '1E3', '-0', '0.10000000000000000001', '1.0']) expect(needsExactParse(`[${t}]`)).toBe(true);
    for (const t of ['123456789012345', '0', '-1', '0.5', '1e+21'.replace('+', '')]) expect(needsExactParse(`[${t}]`)).toBe(t === '1e21');
  });

  test('property: parseExact then JSON.stringify gives back every numeral as written', () => {
    const numeral = fc.oneof(
      fc.bigInt({ min: -(10n ** 25n), max: 10n ** 25n }).map(String),
      fc.tuple(fc.integer({ min: -99999, max: 99999 }), fc.stringMatching(/^[0-9]{1,22}$/)).map(([a, b]) => `${a}.${b}`),
      fc.tuple(fc.integer({ min: 1, max: 9 }), fc.constantFrom('e', 'E', 'e+', 'e-'), fc.integer({ min: 0, max: 400 })).map(([a, e, x]) => `${a}${e}${x}`),
    );
    fc.assert(fc.property(fc.array(numeral, { minLength: 1, maxLength: 6 }), (nums) => {
      const text = `{"v":[${nums.join(',')}]}`;
      const site = () => ({ byteOffset: 0, line: 1, column: 1, recordIndex: 0, maxDepth: 10 });
      expect(JSON.stringify(parseExact(text, site, 10))).toBe(text);
    }), { numRuns: 500 });
  });

  test('at maxDepth 2000 the exact (reviver) path works and keeps the numeral', () => {
    const d = 2000;
    const text = '['.repeat(d) + '1.50' + ']'.repeat(d);
    const site = () => ({ byteOffset: 0, line: 1, column: 1, recordIndex: 0, maxDepth: d });
    let v = parseExact(text, site, d) as unknown[];
    for (let k = 1; k < d; k++) v = v[0] as unknown[];
    expect(JSON.stringify(v)).toBe('[1.50]');
  });

  test('past the runtime\'s own recursion limit (maxDepth raised to 100,000) the answer is RESOURCE_LIMIT_EXCEEDED, not a RangeError', () => {
    const d = 50_000;
    const text = '['.repeat(d) + '1.50' + ']'.repeat(d);
    const site = () => ({ byteOffset: 0, line: 1, column: 1, recordIndex: 3, maxDepth: 100_000 });
    expect(() => parseExact(text, site, 100_000)).toThrow(expect.objectContaining({ code: 'RESOURCE_LIMIT_EXCEEDED', limit: { name: 'maxDepth', limit: 100_000 } }));
  });

  test('duplicate member names: counted, located, last wins', () => {
    const text = '{"a":{"x":1,"y":[{"k":1},{"k":2,"k":3}]},"b":"\\"a\\":"}';
    const v = parseExact(text, () => ({ byteOffset: 0, line: 1, column: 1, recordIndex: 0, maxDepth: 10 }), 10);
    expect(countMemberNames(text)).toBe(7);
    expect(countMembers(v)).toBe(6);
    expect(findDuplicateKey(text)).toEqual({ key: 'k', path: '/a/y/1/k' });
    expect((v as { a: { y: { k: number }[] } }).a.y[1]!.k).toBe(3);
    expect(findDuplicateKey('{"a":1,"b":{"a":2}}')).toBeNull();
  });
});

describe('format-jsonl crash leftovers', () => {
  test('a final partial line (truncated JSON, no newline) is a malformed record at its line; the records before stay readable', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-crash-'));
    fs.writeFileSync(path.join(dir, 'crash.jsonl'), '{"a":1}\n{"a":2}\n{"a":3,"b":"unfinis');
    const files = fileService(dir, await formatsOf(jsonl));
    const { source, close } = await files.open('crash.jsonl');
    expect(source.count).toBe(3);
    const v = values(source);
    expect(v.slice(0, 2)).toEqual([{ a: 1 }, { a: 2 }]);
    expect(v[2]).toMatchObject({ code: 'SYNTAX_ERROR', location: { line: 3, record_index: 2 } });
    const report = await source.validate!({ mode: 'full' });
    expect(report).toMatchObject({ complete: true, malformedRecords: 1, firstMalformed: [expect.objectContaining({ recordIndex: 2, line: 3 })] });
    close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
});

describe('offset index', () => {
  test('offsets and line checkpoints survive block boundaries (65,536 a block) and finish()', () => {
    const { Float64OffsetIndex } = jest.requireActual('../../src/engine/records/offset-index') as typeof import('../../src/engine/records/offset-index');
    const ix = new Float64OffsetIndex();
    const N = 200_003;
    const big = 2 ** 40; // offsets past 2^32 stay exact
    for (let i = 0; i < N; i++) ix.push(big + i * 7, i % 1024 === 0 ? i + 1 : 0);
    ix.finish();
    expect(ix.count).toBe(N);
    for (const i of [0, 1023, 1024, 65_535, 65_536, 131_071, 131_072, N - 1]) expect(ix.start(i)).toBe(big + i * 7);
    expect(ix.checkpointLine(0)).toBe(1);
    expect(ix.checkpointLine(64)).toBe(64 * 1024 + 1);
    expect(ix.checkpointLine(Math.floor((N - 1) / 1024))).toBe(Math.floor((N - 1) / 1024) * 1024 + 1);
  });
});

describe('full validation against the deadline, on a fake clock', () => {
  test('past the deadline it stops after the current batch with complete: false; before it, every record is examined', async () => {
    const { FakeClock } = jest.requireActual('../../src/kernel/fake-clock') as typeof import('../../src/kernel/fake-clock');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-vdl-'));
    const N = 20_000; // ~10 MB: three 4 MiB batches
    const pad = 'x'.repeat(500);
    fs.writeFileSync(path.join(dir, 'many.jsonl'), Array.from({ length: N }, (_, i) => `{"i":${i},"pad":"${pad}"}\n`).join(''));
    const files = fileService(dir, await formatsOf(jsonl));
    const { source, close } = await files.open('many.jsonl');
    const clock = new FakeClock(1_000);
    const inTime = await source.validate!({ mode: 'full', deadline: 2_000, now: () => clock.now() });
    expect(inTime).toMatchObject({ complete: true, recordsExamined: N });
    clock.advance(1_001); // now 2,001: past the deadline before the first batch ends
    const late = await source.validate!({ mode: 'full', deadline: 2_000, now: () => clock.now() });
    expect(late.complete).toBe(false);
    expect(late.recordsExamined).toBeGreaterThan(0);
    expect(late.recordsExamined).toBeLessThan(N);
    close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
