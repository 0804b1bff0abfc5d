import { layoutJsonPage } from '../../../src/engine/records/json-layout';
import { pointerAt } from '../src/text/locate';
import { markersNeeded, preview } from '../src/text/preview';
import { TextMatcher } from '../src/search/text-matcher';
import type { RecordBatch } from '../../../src/kernel/contracts';

/** The whole text re-indented (one page large enough), as get_record lays a record out. */
const reindent = (text: string) => layoutJsonPage(text, { indent: '  ', maxBytes: 1 << 30 }).text;

describe('re-indenting (ctx.json, one page holding everything)', () => {
  test('matches JSON.stringify(v, null, 2) on ordinary values', () => {
    const v = { id: 4, name: 'Diana', tags: ['a', 'b'], empty: {}, none: [], nested: { x: [1, { y: null }] }, t: true };
    expect(reindent(JSON.stringify(v))).toBe(JSON.stringify(v, null, 2));
  });
  test('keeps number lexemes, escapes and key order as written', () => {
    const text = '{"b":12345678901234567891,"2":1.50,"a":"\\u00e9\\n\\"q\\"","e":1E+3}';
    expect(reindent(text)).toBe('{\n  "b": 12345678901234567891,\n  "2": 1.50,\n  "a": "\\u00e9\\n\\"q\\"",\n  "e": 1E+3\n}');
  });
  test('strings ending in escaped backslashes', () => {
    expect(reindent('["a\\\\",{"k\\\\":"v"}]')).toBe('[\n  "a\\\\",\n  {\n    "k\\\\": "v"\n  }\n]');
  });
  test('scalars and whitespace-padded input', () => {
    expect(reindent('  42 ')).toBe('42');
    expect(reindent('[ ]')).toBe('[]');
  });
});

describe('pointerAt', () => {
  const text = '{"id":4,"name":"Diana","user":{"a/b":["x","Diana~"]}}';
  const at = (needle: string, nth = 0) => {
    let i = -1;
    for (let n = 0; n <= nth; n++) i = text.indexOf(needle, i + 1);
    return pointerAt(text, i, i + needle.length);
  };
  test('a hit inside a string value points at it', () => expect(at('Dia')).toBe('/name'));
  test('a hit inside a member name points at the member', () => expect(at('name')).toBe('/name'));
  test('array elements and escaped reference tokens (RFC 6901 ~0 ~1)', () => expect(at('Diana~')).toBe('/user/a~1b/1'));
  test('a number', () => expect(at('4')).toBe('/id'));
  test('a hit across values points at their container', () => expect(at('"x","D')).toBe('/user/a~1b'));
  test('a hit across top-level members is the whole record', () => expect(at('4,"name')).toBe(''));
  test('malformed text gives null', () => expect(pointerAt('{"a":', 1, 2)).toBeNull());
});

describe('preview', () => {
  test('marks the hit and cuts long context with …', () => {
    const text = 'x'.repeat(100) + 'NEEDLE' + 'y'.repeat(100);
    // 20 characters of context either side
    expect(preview(text, 100, 106)).toEqual({ text: '…' + 'x'.repeat(20) + '«NEEDLE»' + 'y'.repeat(20) + '…', markers: [0, 21, 28, 49] });
  });
  test('short records are shown whole, newlines flattened', () => {
    expect(preview('{"a":\n"hit"}', 7, 10)).toEqual({ text: '{"a": "«hit»"}', markers: [7, 11] });
  });
  test('the markers are placed: a «, » or … of the data is told apart from them (in code points)', () => {
    const E = '\u{1F600}';
    // data holding the markers' characters, an emoji (2 UTF-16 units, 1 code point) before the hit
    const text = `{"q":"${E}«quoted» … said «x»"}`;
    const start = text.indexOf('«x»');
    const p = preview(text, start, start + 3); // the hit is the data's «x» itself
    // 20 UTF-16 units of context before the hit (from the `:`), all of it after
    expect(p.text).toBe(`…:"${E}«quoted» … said ««x»»"}`);
    const chars = [...p.text];
    expect(p.markers).toEqual([0, 20, 24]);
    expect(p.markers.map((i) => chars[i])).toEqual(['…', '«', '»']);
    expect(markersNeeded(p)).toBe(true);
    expect(markersNeeded(preview('{"a":"plain hit"}', 12, 15))).toBe(false);
    // a long hit is cut in its middle: that … is a marker too
    const long = preview('a'.repeat(200), 0, 200);
    expect([...long.text].filter((c, i) => c === '…' && long.markers.includes(i))).toHaveLength(1);
    expect(long.markers).toEqual([0, 61, 122]);
  });
});

function batchOf(records: string[]): RecordBatch {
  const bytes = Buffer.from(records.join('\n'));
  const starts: number[] = [];
  let p = 0;
  for (const r of records) { starts.push(p); p += Buffer.byteLength(r) + 1; }
  return {
    first: 0, count: records.length, bytes,
    span: (k) => [starts[k]!, starts[k]! + Buffer.byteLength(records[k]!)],
    recordAt: (o) => { let k = -1; for (let i = 0; i < starts.length; i++) if (starts[i]! <= o) k = i; return k; },
    text: (k) => records[k]!,
    value: (k) => JSON.parse(records[k]!),
  };
}

describe('TextMatcher: byte prefilter, then decoded names and values', () => {
  const records = ['{"n":"Diana"}', '{"n":"DIANA diana"}', '{"n":"Bob"}', '{"n":"Ünïcode ÉCOLE"}', '{"n":"dia"}', '{"n":"\\u00c9cole \\"q\\""}', '{"kilo":"x"}'];
  const found = (q: string, matchCase: boolean) => {
    const out: [number, string, string][] = [];
    const m = new TextMatcher(q, matchCase);
    const batch = batchOf(records);
    m.candidates(batch, (k) => {
      const text = batch.text(k);
      const hit = m.match(text);
      if (hit) out.push([k, hit.token.pointer, text.slice(hit.token.start, hit.token.end)]);
    });
    return out;
  };
  const candidates = (q: string, matchCase: boolean) => {
    const out: number[] = [];
    new TextMatcher(q, matchCase).candidates(batchOf(records), (k) => void out.push(k));
    return out;
  };
  test('case-insensitive ASCII: one hit per record', () => expect(found('diana', false)).toEqual([[0, '/n', '"Diana"'], [1, '/n', '"DIANA diana"']]));
  test('case-sensitive', () => expect(found('diana', true)).toEqual([[1, '/n', '"DIANA diana"']]));
  test('case-insensitive non-ASCII folds Unicode, through \\u escapes too', () =>
    expect(found('école', false)).toEqual([[3, '/n', '"Ünïcode ÉCOLE"'], [5, '/n', '"\\u00c9cole \\"q\\""']]));
  test('an escaped quote matches its decoded character', () => expect(found('"q"', true)).toEqual([[5, '/n', '"\\u00c9cole \\"q\\""']]));
  test('a needle spanning two records or JSON structure never matches', () => {
    expect(found('}\n{', true)).toEqual([]);
    expect(found('"n":"B', false)).toEqual([]);
  });
  test('the byte prefilter skips records that cannot match (an escape forces a look only when it can spell part of the needle)', () => {
    expect(candidates('bob', false)).toEqual([2]); // record 5's \u00c9 and \" spell no b or o
    expect(candidates('bob', true)).toEqual([]);
    expect(candidates('école', true)).toEqual([]); // \u00c9 is É, not é: case-sensitive, code units decide
    expect(candidates('Éc', true)).toEqual([5]); // \u00c9 can spell its É (record 3 has ÉC, not Éc)
    expect(candidates('"q"', true)).toEqual([5]); // a short escape spells "
  });
  test('records with escapes among many without: exactly those whose escapes can spell the needle (the batch\'s backslashes searched once, in order)', () => {
    const mixed: string[] = [];
    const expected: number[] = [];
    for (let k = 0; k < 300; k++) {
      if (k % 37 === 5) { mixed.push(`{"a":"\\u0062ob ${k}"}`); expected.push(k); } // \u0062 is b: it may spell "bob"
      else if (k % 41 === 7) mixed.push(`{"a":"line\\nbreak \\u00e9 ${k}"}`); // neither \n nor é spells "bob"
      else if (k % 43 === 9) { mixed.push(`{"a":"\\u0042OB ${k}"}`); if (k >= 0) expected.push(k); } // B: only case-insensitively
      else mixed.push(`{"a":"plain ${k}"}`);
    }
    for (const matchCase of [false, true]) {
      const out: number[] = [];
      new TextMatcher('bob', matchCase).candidates(batchOf(mixed), (k) => void out.push(k));
      expect(out).toEqual(matchCase ? expected.filter((k) => k % 43 !== 9 || k % 37 === 5) : expected);
    }
  });
  test('a non-ASCII needle is prefiltered on its longest ASCII run', () => {
    expect(candidates('ÉCOLE', false)).toEqual([3, 5]);
    expect(candidates('ünï', false)).toEqual([3, 5]); // no ASCII run of 3: each record is decoded and searched (5: a \u escape)
    expect(found('ünï', false)).toEqual([[3, '/n', '"Ünïcode ÉCOLE"']]);
  });
  test('k and s fold with their non-ASCII partners (K, ſ)', () => expect(found('KILO', false)).toEqual([[6, '/kilo', '"kilo"']]));
  test('case-insensitive ASCII over a batch of many 64 KiB windows: hits across every window boundary, none lost or doubled', () => {
    // records of 1,000 bytes; the needle placed so that it straddles, starts at, or ends at the window edges
    const big: string[] = [];
    const expected: number[] = [];
    for (let k = 0; k < 400; k++) {
      const start = k * 1001; // each record is 1,000 bytes plus its newline
      const window = Math.ceil(start / 65536) * 65536; // the next window edge at or after the record's start
      const at = window - start - 5 + (k % 11); // the needle around that edge, when it falls inside this record
      let text = 'x'.repeat(990);
      if (at >= 10 && at <= 975) { text = text.slice(0, at - 8) + 'NeEdLe' + text.slice(at - 2); expected.push(k); }
      else if (k % 37 === 0) { text = 'needle' + text.slice(6); expected.push(k); }
      big.push(`{"t":"${text}"}`.padEnd(1000, ' '));
    }
    const out: number[] = [];
    new TextMatcher('needle', false).candidates(batchOf(big), (k) => void out.push(k));
    expect(expected.length).toBeGreaterThan(10);
    expect(out).toEqual(expected);
  });
});

describe('TextMatcher raw-text hits', () => {
  test('several raw occurrences inside one token: one hit for the token, none when a decoded hit has it', () => {
    const m = new TextMatcher('xxx', false);
    const text = JSON.stringify({ a: 'p00000'.padEnd(100, 'x'), b: 'yXXXy' });
    expect(m.rawSpans(text)).toHaveLength(32);
    expect(m.rawHits(text, [])).toEqual([
      expect.objectContaining({ token: expect.objectContaining({ pointer: '/a', kind: 'string' }), raw: { start: text.indexOf('xxx'), end: text.indexOf('xxx') + 3 } }),
      expect.objectContaining({ token: expect.objectContaining({ pointer: '/b', kind: 'string' }), raw: { start: text.indexOf('XXX'), end: text.indexOf('XXX') + 3 } }),
    ]);
    expect(m.rawHits(text, m.matchAll(text))).toEqual([]);
  });

  test('a hit spanning structure belongs to the first name or value it touches; max bounds the hits', () => {
    const m = new TextMatcher('"status":"failed"', true);
    const text = '{"id":1,"status":"failed","next":{"status":"failed"}}';
    expect(m.matchAll(text)).toEqual([]);
    expect(m.rawHits(text, []).map((h) => [h.token.pointer, h.token.kind, h.raw])).toEqual([
      ['/status', 'key', { start: 8, end: 25 }],
      ['/next/status', 'key', { start: 34, end: 51 }],
    ]);
    expect(m.rawHits(text, [], undefined, 1)).toHaveLength(1);
  });
});
