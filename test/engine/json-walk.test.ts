/**
 * The JSON walker (src/engine/bytes/json-walk.ts, exported by the plugin API): where strings and values end, over
 * bytes and over text. The reference is JSON.stringify: a value serialized and followed by more text ends where the
 * serialization ends.
 */
import {
  isJsonScalarEnd, JSON_WS, jsonEndsInEscape, jsonStringBodyEnd, jsonStringEnd, jsonTextStringEnd, jsonTextValueEnd,
  jsonValueEnd, skipJsonTextWhitespace, skipJsonWhitespace,
} from '../../src/engine/bytes/json-walk';

/** Values whose serializations hold every case the walker must get right: escapes before quotes, long strings, nesting. */
function values(): unknown[] {
  const out: unknown[] = [
    '', 'a', '"', '\\', '\\"', '\\\\', 'x\\', 'é"ü', '\u2028', '\ud83d\ude00', 'a'.repeat(47), 'a'.repeat(48), 'a'.repeat(49),
    '\\'.repeat(60), '"'.repeat(70), 'b'.repeat(200) + '\\"' + 'c'.repeat(100), 0, -1.5e-7, 12345678901234567890, true, false, null,
    [], {}, [[[]]], { 'a"b': ['x\\', { '': '"' }] }, { k: 'v'.repeat(100), n: [1, 2, 3], s: '}]"' },
  ];
  // seeded mixtures (sfc-like LCG, no clock)
  let seed = 7;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
  const pieces = ['a', '"', '\\', '}', ']', ',', ':', ' ', 'é', '\n'];
  const str = () => Array.from({ length: Math.floor(rnd() * 120) }, () => pieces[Math.floor(rnd() * pieces.length)]).join('');
  for (let k = 0; k < 200; k++) out.push(k % 3 === 0 ? str() : k % 3 === 1 ? { [str()]: [str(), k] } : [str(), { x: str() }]);
  return out;
}

describe('the JSON walker', () => {
  test.each([[','], [' ,'], ['}'], [']'], ['\t]']])('a value followed by %j ends where JSON.stringify ends it, in bytes and in text', (after) => {
    for (const v of values()) {
      const json = JSON.stringify(v);
      const text = ` ${json}${after}`;
      const b = Buffer.from(text);
      const start = skipJsonWhitespace(b, 0);
      expect(start).toBe(1);
      expect(jsonValueEnd(b, start, b.length)).toBe(1 + Buffer.byteLength(json));
      expect(skipJsonTextWhitespace(text, 0)).toBe(1);
      expect(jsonTextValueEnd(text, 1)).toBe(1 + json.length);
      if (typeof v === 'string') {
        expect(jsonStringEnd(b, 1, b.length)).toBe(1 + Buffer.byteLength(json));
        expect(jsonTextStringEnd(text, 1)).toBe(1 + json.length);
      }
    }
  });

  test('a string cut anywhere: not closed before the cut (-1), and the cut is inside an escape exactly when an odd run of backslashes ends it', () => {
    for (const v of values()) {
      if (typeof v !== 'string') continue;
      const b = Buffer.from(JSON.stringify(v));
      for (let cut = 1; cut < b.length; cut++) {
        expect(jsonStringEnd(b, 0, cut)).toBe(-1);
        let bs = 0;
        for (let k = cut - 1; k >= 1 && b[k] === 0x5c; k--) bs++;
        expect(jsonEndsInEscape(b, 1, cut)).toBe(bs % 2 === 1);
        // resumed after the cut, as the structural scanner and lazy nodes resume: the same end
        const from = jsonEndsInEscape(b, 1, cut) ? cut + 1 : cut;
        expect(from >= b.length ? b.length : jsonStringBodyEnd(b, from, b.length)).toBe(b.length);
      }
    }
  });

  test('bytes that do not hold a whole value: -1 (an open string, an open container, a container deeper than the bound, no scalar)', () => {
    const end = (s: string, maxDepth?: number) => jsonValueEnd(Buffer.from(s), 0, Buffer.byteLength(s), maxDepth);
    expect(end('"abc')).toBe(-1);
    expect(end('"abc\\"')).toBe(-1);
    expect(end('[1, "]"')).toBe(-1);
    expect(end('[[[1]]]', 2)).toBe(-1);
    expect(end('[[[1]]]', 3)).toBe(7);
    expect(end(',')).toBe(-1);
    expect(end('12}')).toBe(2);
  });

  test('whitespace is the four bytes of RFC 8259 §2, and scalars end at whitespace, a comma or a closing bracket', () => {
    const ws = [...Array(256).keys()].filter((c) => JSON_WS[c] === 1);
    expect(ws).toEqual([0x09, 0x0a, 0x0d, 0x20]);
    const ends = [...Array(0x3000).keys()].filter(isJsonScalarEnd);
    expect(ends).toEqual([0x09, 0x0a, 0x0d, 0x20, 0x2c, 0x5d, 0x7d]);
  });
});
