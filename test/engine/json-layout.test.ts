/**
 * The page-at-a-time JSON layout (ctx.json): a page equals the same bytes of the whole laid-out text, computed here
 * independently with JSON.stringify on fixtures where it lays out exactly as the file is written (integers, plain and
 * JSON.stringify-style escapes, raw emoji); pages read from `end` to `end` rebuild the text; no page ends inside a
 * character or an escape.
 */
import { CallJsonLayout, LayoutMarks, layoutJsonPage, MARK_EVERY, safeJsonCut } from '../../src/engine/records/json-layout';
import { replaceLoneSurrogateEscapes } from '../../src/engine/unicode';

const E = '\u{1F600}';
const VALUE = {
  id: 7,
  name: `tab\there "quoted" back\\slash ${E} é`,
  tags: ['a', `${E}${E}`, '', 'line\nbreak'],
  empty: {},
  none: [],
  nested: { deep: { deeper: [1, 2, { x: null, y: true, z: false }] }, list: [[], [{}], [[3]]] },
  ctrl: '\u0001\u001f',
  long: 'w'.repeat(300),
};
const COMPACT = JSON.stringify(VALUE);
// The same value written with other whitespace: the layout must not depend on how the file is spaced.
const SPACED = JSON.stringify(VALUE, null, '\t').replace(/\n/g, '\r\n  ');

const lone = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
/** True when `s` ends inside an escape sequence: an odd run of backslashes, or \u with fewer than 4 hex digits after. */
function endsMidEscape(s: string): boolean {
  const m = /(\\+)(u[0-9a-fA-F]{0,3})?$/.exec(s);
  if (m && m[1]!.length % 2 === 1) return true;
  const u = /(\\+)u[0-9a-fA-F]{0,3}$/.exec(s);
  return u !== null && u[1]!.length % 2 === 1;
}

describe.each([
  ['re-indented', '  ', JSON.stringify(VALUE, null, 2)],
  ['compact', '', JSON.stringify(VALUE)],
])('%s', (_name, indent, full) => {
  const bytes = Buffer.from(full);

  test('the whole text in one page equals JSON.stringify, from either spelling of the input', () => {
    for (const input of [COMPACT, SPACED]) {
      expect(layoutJsonPage(input, { indent, maxBytes: 1 << 20 })).toEqual({ text: full, start: 0, end: bytes.length, total: bytes.length });
    }
  });

  test('a cut page is the prefix of the whole text, on a character boundary outside escapes', () => {
    for (let max = 1; max <= bytes.length; max += 1) {
      const page = layoutJsonPage(SPACED, { indent, maxBytes: max });
      expect(page.start).toBe(0);
      expect(page.total).toBe(bytes.length);
      expect(page.text).toBe(bytes.subarray(0, page.end).toString('utf8'));
      expect(Buffer.byteLength(page.text)).toBe(page.end);
      expect(page.end).toBeLessThanOrEqual(max);
      expect(page.end).toBeGreaterThan(max - 13); // at most one escape pair or character given back
      expect(lone.test(page.text)).toBe(false);
      expect(endsMidEscape(page.text)).toBe(false);
    }
  });

  test('pages read on from end continue exactly and rebuild the whole text', () => {
    for (const max of [1, 2, 3, 5, 7, 11, 64, 333]) {
      const parts: string[] = [];
      let from = 0;
      for (;;) {
        const page = layoutJsonPage(COMPACT, { indent, from, maxBytes: max });
        expect(page.start).toBe(from);
        expect(page.end).toBeGreaterThan(from); // always advances
        parts.push(page.text);
        from = page.end;
        if (from >= page.total) break;
      }
      expect(parts.join('')).toBe(full);
    }
  });

  test('a start inside a character moves to the next character; past the end is an empty page at the end', () => {
    const at = bytes.indexOf(Buffer.from(E));
    const page = layoutJsonPage(COMPACT, { indent, from: at + 1, maxBytes: 8 });
    expect(page.start).toBe(at + 4);
    expect(page.text).toBe(bytes.subarray(at + 4, page.end).toString('utf8'));
    expect(layoutJsonPage(COMPACT, { indent, from: bytes.length + 5, maxBytes: 8 })).toEqual({ text: '', start: bytes.length, end: bytes.length, total: bytes.length });
  });
});

test('escapes JSON.stringify would not write stay as in the file, whole, even as a \\u pair', () => {
  const text = '{"a":"caf\\u00e9 \\ud83d\\ude00 \\/ end","n":1.50,"b":12345678901234567890}';
  const full = '{\n  "a": "caf\\u00e9 \\ud83d\\ude00 \\/ end",\n  "n": 1.50,\n  "b": 12345678901234567890\n}';
  expect(layoutJsonPage(text, { indent: '  ', maxBytes: 1000 }).text).toBe(full);
  const pair = full.indexOf('\\ud83d');
  for (let max = pair + 1; max < pair + 12; max++) {
    expect(layoutJsonPage(text, { indent: '  ', maxBytes: max }).end).toBe(pair); // never half of the pair
  }
  expect(layoutJsonPage(text, { indent: '  ', maxBytes: pair + 12 }).end).toBe(pair + 12);
});

test('safeJsonCut: bytes as in a file are cut outside characters and escapes', () => {
  const b = Buffer.from('"ab\\ncd\\u00e9\\ud83d\\ude00\\\\x' + E + '"');
  const s = b.toString('latin1');
  const at = (t: string) => s.indexOf(t);
  expect(safeJsonCut(b, 0, at('\\n') + 1)).toBe(at('\\n')); // inside \n
  expect(safeJsonCut(b, 0, at('\\n') + 2)).toBe(at('\\n') + 2); // right after it
  expect(safeJsonCut(b, 0, at('\\u00e9') + 4)).toBe(at('\\u00e9'));
  expect(safeJsonCut(b, 0, at('\\ude00') + 2)).toBe(at('\\ud83d')); // the second half of a pair of escapes
  expect(safeJsonCut(b, 0, at('\\\\x') + 1)).toBe(at('\\\\x'));
  expect(safeJsonCut(b, 0, at('\\\\x') + 2)).toBe(at('\\\\x') + 2); // after an escaped backslash: "x" is plain
  const emoji = b.indexOf(Buffer.from(E));
  for (let k = 1; k < 4; k++) expect(safeJsonCut(b, 0, emoji + k)).toBe(emoji);
});

describe('lone surrogate escapes (RFC 8259 §8.2) come back as \\ufffd, the same length', () => {
  // Expected texts are written out by hand: \ud800 alone, \udc00 alone, a pair, a high before a non-low escape, an
  // escaped backslash before "ud800" (text, not an escape), uppercase hex.
  const cases: [string, string, number][] = [
    ['"a\\ud800b"', '"a\\ufffdb"', 1],
    ['"\\udc00"', '"\\ufffd"', 1],
    ['"\\ud83d\\ude00"', '"\\ud83d\\ude00"', 0],
    ['"\\uD83D\\uDE00x\\uDBFF"', '"\\uD83D\\uDE00x\\ufffd"', 1],
    ['"\\ud800\\u0041"', '"\\ufffd\\u0041"', 1],
    ['"\\ud800\\ud800\\udc00"', '"\\ufffd\\ud800\\udc00"', 1],
    ['"\\\\ud800"', '"\\\\ud800"', 0],
    ['"\\\\\\ud800"', '"\\\\\\ufffd"', 1],
    ['{"\\udfff":"\\n\\ud801"}', '{"\\ufffd":"\\n\\ufffd"}', 2],
  ];

  test.each(cases)('%s → %s (%i replaced)', (input, output, replaced) => {
    expect(replaceLoneSurrogateEscapes(input)).toEqual({ text: output, replaced });
    expect(output.length).toBe(input.length);
    // what a client parses is well-formed, and equals JSON.parse's reading with the lone ones as U+FFFD
    const parsed = JSON.parse(output);
    expect(JSON.stringify(parsed).isWellFormed()).toBe(true);
    const fixed = (v: unknown): unknown => typeof v === 'string' ? v.toWellFormed()
      : v && typeof v === 'object' ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k.toWellFormed(), fixed(x)])) : v;
    expect(parsed).toEqual(fixed(JSON.parse(input)));
  });

  test('a page says how many it replaced; its offsets are those of the unreplaced text', () => {
    const text = '{"k":"a\\ud800b","pair":"\\ud83d\\ude00","low":"\\udc00"}';
    const whole = layoutJsonPage(text, { indent: '  ', maxBytes: 1 << 20 });
    expect(whole.replaced).toBe(2);
    expect(JSON.parse(whole.text)).toEqual({ k: 'a\ufffdb', pair: E, low: '\ufffd' });
    // paged in 7-byte steps, the pages rebuild the same text and the counts add up
    let rebuilt = '', count = 0;
    for (let from = 0; from < whole.total;) {
      const p = layoutJsonPage(text, { indent: '  ', from, maxBytes: 7 });
      rebuilt += p.text; count += p.replaced ?? 0; from = p.end;
    }
    expect(rebuilt).toBe(whole.text);
    expect(count).toBe(2);
    expect(layoutJsonPage('{"a":"\\u00e9"}', { indent: '', maxBytes: 100 }).replaced).toBeUndefined();
  });

  test("a call's layout counts what it replaced, in pages and in text cut with safeCut", () => {
    const layout = new CallJsonLayout();
    layout.page('["\\ud800"]', { indent: '', maxBytes: 100 });
    expect(layout.wellFormedText('"x\\udc00"')).toBe('"x\\ufffd"');
    expect(layout.wellFormedText('"fine"')).toBe('"fine"');
    expect(layout.replaced).toBe(2);
  });
});

describe('marks: pages that resume where the layout stood are the pages of a whole pass', () => {
  // About 10 MARK_EVERY of laid-out text: escapes (\u00e9, a \ud83d\ude00 pair, a lone \udc00), raw emoji, empty
  // containers, deep nesting, long strings crossing marks, repeated names.
  const items = Array.from({ length: 900 }, (_, i) =>
    `{"id":${i},"n":"caf\\u00e9 \\ud83d\\ude00 ${E} \\"q\\" ${i % 50 === 0 ? '\\udc00' : ''}","x":1.50,"e":{},"a":[],` +
    `"deep":{"a":[[{"b":[${i},"${'z'.repeat(i % 7 === 0 ? 3000 : 5)}"]}]]},"id":${-i}}`);
  const text = `{ "kind" : "big",\r\n "items" : [ ${items.join(' ,\n')} ] }`;

  test.each([['re-indented', '  '], ['compact', '']])('%s: the same text, start, end, total and replacements at any offset and length', (_n, indent) => {
    const whole = layoutJsonPage(text, { indent, maxBytes: 1 << 30 });
    expect(whole.total).toBeGreaterThan(8 * MARK_EVERY);
    const marks = new LayoutMarks();
    // The first page fills the marks and is the page without them.
    expect(layoutJsonPage(text, { indent, from: 0, maxBytes: 4096, marks })).toEqual(layoutJsonPage(text, { indent, from: 0, maxBytes: 4096 }));
    expect(marks.total).toBe(whole.total);
    expect(marks.at.length / 3).toBeGreaterThan(8);
    let seed = 7;
    const rand = (n: number) => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed % n; };
    const cases: [number, number][] = [[0, 1], [whole.total, 10], [whole.total + 5, 10], [whole.total - 1, 10]];
    for (let k = 0; k < 120; k++) cases.push([rand(whole.total), 1 + rand(3 * MARK_EVERY)]);
    for (let k = 0; k < marks.at.length; k += 3) cases.push([marks.at[k + 1]!, 100], [marks.at[k + 1]! - 1, 2]);
    for (const [from, maxBytes] of cases) {
      expect(layoutJsonPage(text, { indent, from, maxBytes, marks })).toEqual(layoutJsonPage(text, { indent, from, maxBytes }));
    }
    // Pages read on from end rebuild the whole laid-out text.
    let at = 0, out = '';
    while (at < whole.total) {
      const page = layoutJsonPage(text, { indent, from: at, maxBytes: 5000, marks });
      out += page.text;
      at = page.end;
    }
    expect(out).toBe(whole.text);
  });

  test('marks of another text or indent are not used: the page is that text\'s own', () => {
    const marks = new LayoutMarks();
    layoutJsonPage(text, { indent: '  ', maxBytes: 100, marks });
    const other = text.replace('"big"', '"bigger"');
    expect(layoutJsonPage(other, { indent: '  ', from: 50000, maxBytes: 300, marks })).toEqual(layoutJsonPage(other, { indent: '  ', from: 50000, maxBytes: 300 }));
    expect(layoutJsonPage(text, { indent: '', from: 50000, maxBytes: 300, marks })).toEqual(layoutJsonPage(text, { indent: '', from: 50000, maxBytes: 300 }));
  });
});
