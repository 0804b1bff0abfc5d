/** Character-safe cuts and previews of the session-history bundle. */
import { createHash } from 'node:crypto';
import { charLength, cutText, guardBinary, hasBinarySummary, previewOf, shownText, textBefore, textPart } from '../src/text';
import { markersNeeded, previewAround } from '../src/search/matcher';
import { paragraphs } from '../src/semantic/rank';

describe('cutText', () => {
  test('counts characters (code points), not UTF-16 units', () => {
    expect(cutText('a😀b😀c', 3)).toEqual({ text: 'a😀b', truncated: true });
    expect(charLength('a😀b')).toBe(3);
  });

  test('never splits a surrogate pair, a letter from its combining mark, or an emoji sequence', () => {
    // "e" + U+0301 COMBINING ACUTE is one character on screen: a cut after the "e" backs off before it.
    expect(cutText('cafe\u0301s', 4)).toEqual({ text: 'caf', truncated: true });
    expect(cutText('cafe\u0301s', 5)).toEqual({ text: 'cafe\u0301', truncated: true });
    // A family emoji: four people joined by ZWJ (7 code points) stays whole or goes.
    const family = '\u{1F468}\u200D\u{1F469}\u200D\u{1F467}\u200D\u{1F466}';
    for (let n = 1; n <= 7; n++) expect(cutText(`x${family}y`, n + 1).text).toBe(n === 7 ? `x${family}` : 'x');
    // A flag is two regional indicators.
    expect(cutText('\u{1F1EB}\u{1F1F7}!', 1).text).toBe('');
  });

  test('0 or less is no limit; a text that fits is not truncated', () => {
    expect(cutText('abc', 0)).toEqual({ text: 'abc', truncated: false });
    expect(cutText('abc', 3)).toEqual({ text: 'abc', truncated: false });
  });
});

test('previewOf collapses whitespace and marks a cut', () => {
  expect(previewOf('  one\n\n two\tthree  ', 100)).toEqual({ text: 'one two three', markers: [] });
  expect(previewOf('one two three', 7)).toEqual({ text: 'one two…', markers: [7] });
});

describe('guardBinary: only base64 data is summarized', () => {
  // 6,000 bytes of varied binary: base64 of it is 8,000 characters over the whole alphabet.
  const bytes = Buffer.from(Array.from({ length: 6000 }, (_, i) => (i * 167 + (i >> 3) * 29) & 255));
  const b64 = bytes.toString('base64');

  test('base64 of binary data, plain, MIME-wrapped, URL-safe or in a data: URL, is summarized', () => {
    expect(b64.length).toBe(8000);
    expect(guardBinary(b64)).toBe('[base64 data: 8,000 bytes]');
    const wrapped = b64.match(/.{1,76}/g)!.join('\r\n');
    expect(guardBinary(wrapped)).toBe(`[base64 data: ${(8000 + 2 * 105).toLocaleString('en-US')} bytes]`);
    expect(guardBinary(bytes.toString('base64url'))).toBe('[base64 data: 8,000 bytes]');
    expect(guardBinary(`data:image/png;base64,${b64}`)).toBe('[data URL: image/png, 8,000 bytes of base64]');
    expect(hasBinarySummary(`see\n\n${guardBinary(b64)}`)).toBe(true);
  });

  test('hex digests one per line, a run of one letter, prose and broken base64 are kept as written', () => {
    const hashes = Array.from({ length: 120 }, (_, i) => createHash('sha1').update(String(i)).digest('hex')).join('\n') + '\n';
    expect(hashes.length).toBe(120 * 41);
    expect(guardBinary(hashes)).toBe(hashes);
    const z = 'Z'.repeat(400000);
    expect(guardBinary(z)).toBe(z);
    const prose = 'word '.repeat(2000);
    expect(guardBinary(prose)).toBe(prose);
    const mixed = b64.slice(0, 4000) + '-_' + b64.slice(4000); // both alphabets: not one encoding
    expect(guardBinary(mixed)).toBe(mixed);
    const badPad = b64 + '=';
    expect(guardBinary(badPad)).toBe(badPad);
    expect(hasBinarySummary(hashes)).toBe(false);
    expect(hasBinarySummary('[base64 data: lots]')).toBe(false);
  });
});

describe('cuts on character boundaries everywhere in the sessions bundle (emoji at the cut)', () => {
  const E = '\u{1F600}'; // 😀: two UTF-16 units
  const lone = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

  test('textBefore counts back characters and never starts inside a pair', () => {
    expect(textBefore(`ab${E}${E}c`, 7, 2)).toEqual({ text: `${E}c`, truncated: true });
    expect(textBefore(`ab${E}${E}c`, 7, 3)).toEqual({ text: `${E}${E}c`, truncated: true });
    expect(textBefore(`${E}x`, 3, 5)).toEqual({ text: `${E}x`, truncated: false });
  });

  test('previewAround: emoji on both sides of the context window at every alignment', () => {
    for (let pad = 0; pad < 4; pad++) {
      const z = 'z'.repeat(pad);
      const text = `${E.repeat(200)}${z}NEEDLE${z}${E.repeat(200)}`;
      const start = 400 + pad;
      const p = previewAround(text, start, start + 6);
      expect(lone.test(p.text)).toBe(false);
      // 80 characters each side, with "…" where text was left out.
      expect(p).toEqual({ text: `…${E.repeat(80 - pad)}${z}«NEEDLE»${z}${E.repeat(80 - pad)}…`, markers: [0, 81, 88, 169] });
    }
  });

  test('a quoted path cut at 200 characters keeps its emoji whole and states its length', () => {
    const p = `/h/${E.repeat(300)}`;
    expect(shownText(p, 200)).toBe(`/h/${E.repeat(197)}… (303 characters)`);
    expect(shownText('short')).toBe('short');
  });

  test('semantic paragraphs are cut to 2,000 characters without half a pair', () => {
    const para = 'w'.repeat(1999) + E.repeat(10);
    const [cut] = paragraphs(para);
    expect(cut).toBe('w'.repeat(1999) + E);
    expect(lone.test(cut!)).toBe(false);
  });
});

describe('textPart: a long text read in parts by character offsets', () => {
  const FAMILY = '\u{1F468}\u200D\u{1F469}\u200D\u{1F467}'; // one grapheme cluster of 5 code points
  const S = `ab${FAMILY}cd e\u0301f`;
  test('parts followed by next rebuild the text, each cut between grapheme clusters, never empty while text remains', () => {
    for (const max of [1, 2, 3, 4, 5, 7, 100, 0]) {
      let out = '', offset = 0, n = 0;
      for (;;) {
        const p = textPart(S, offset, max);
        expect(p.length).toBe([...S].length);
        if (p.next !== undefined) expect(p.next).toBeGreaterThan(offset);
        out += p.text;
        if (p.next === undefined || ++n > 50) break;
        offset = p.next;
      }
      expect(out).toBe(S);
    }
    // the family is longer than 3 characters: it comes whole rather than nothing
    expect(textPart(S, 2, 3)).toEqual({ text: FAMILY, next: 7, length: 13 });
    // e + combining acute stay together
    expect(textPart(S, 10, 1)).toEqual({ text: 'e\u0301', next: 12, length: 13 });
  });
  test('an offset at or past the end is an empty part at the end; 0 is no limit', () => {
    expect(textPart(S, 13, 5)).toEqual({ text: '', length: 13 });
    expect(textPart(S, 99, 5)).toEqual({ text: '', length: 13 });
    expect(textPart(S, 0, 0)).toEqual({ text: S, length: 13 });
    expect(textPart(S, 9, 0)).toEqual({ text: ' e\u0301f', length: 13 });
  });
});

describe('preview markers', () => {
  test('a text holding «, » or … itself: the match says where the markers are, in code points', () => {
    const E = '\u{1F600}';
    const text = `Use ${E} «guillemets» … and find «this» here`;
    const start = text.indexOf('this');
    const p = previewAround(text, start, start + 4);
    // the whole text fits the context: no cut; the data's « » … stay, the markers close around the hit
    expect(p.text).toBe(`Use ${E} «guillemets» … and find ««this»» here`);
    const chars = [...p.text];
    expect(p.markers).toEqual([31, 36]); // after `Use 😀 «guillemets» … and find «` (31 code points)
    expect(p.markers.map((i) => chars[i])).toEqual(['«', '»']);
    expect(markersNeeded(p)).toBe(true);
    expect(markersNeeded(previewAround('plain words here', 6, 11))).toBe(false);
    // the hit cut at 200 characters: the … before » is a marker
    const long = previewAround(`a ${'h'.repeat(300)} b`, 2, 302);
    expect(long.markers).toEqual([2, 203, 204]);
    expect([...long.text].slice(202, 205).join('')).toBe('h…»');
  });
});

test('previewOf: a … of the text\'s own is not at a marker position; the cut\'s … is', () => {
  expect(previewOf('wait…', 10)).toEqual({ text: 'wait…', markers: [] });
  expect(previewOf('wait… and more words', 7)).toEqual({ text: 'wait… a…', markers: [7] });
  // cut on a grapheme boundary: the marker sits right after the kept text
  expect(previewOf('ab\u{1F600}cd', 3)).toEqual({ text: 'ab\u{1F600}…', markers: [3] });
});

describe('the fast paths of cutText and previewOf agree with a whole-text reference', () => {
  // Deterministic pseudo-random strings over pieces that exercise every rule: ASCII, CR LF, combining marks, emoji
  // sequences, whitespace runs (long ones too); no run of 20 key characters (that rule has its own tests).
  let seed = 12345;
  const rand = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
  const PIECES = ['a', 'b', 'Z', '.', ' ', '\n', '\r\n', '\t', 'é', 'e\u0301', '\u{1F600}', '\u{1F468}\u200D\u{1F469}\u200D\u{1F467}', '\u{1F1EB}\u{1F1F7}', '…', '  '];
  const randomText = () => {
    let s = '';
    let run = 0;
    const n = Math.floor(rand() * 80);
    for (let i = 0; i < n; i++) {
      let p = PIECES[Math.floor(rand() * PIECES.length)]!;
      if (rand() < 0.05) p = ' '.repeat(Math.floor(rand() * 2000));
      run = /^[A-Za-z]$/.test(p) ? run + 1 : 0;
      if (run >= 10) { p = ' '; run = 0; }
      s += p;
    }
    return s;
  };
  const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  const referenceCut = (s: string, n: number) => {
    if ([...s].length <= n) return { text: s, truncated: false };
    let out = '', used = 0;
    for (const { segment } of segmenter.segment(s)) {
      const len = [...segment].length;
      if (used + len > n) break;
      out += segment;
      used += len;
    }
    return { text: out, truncated: true };
  };
  test('cutText cuts where a whole-text grapheme segmentation says, for 3,000 random texts', () => {
    for (let i = 0; i < 3000; i++) {
      const s = randomText();
      const n = 1 + Math.floor(rand() * 40);
      expect({ s, n, cut: cutText(s, n) }).toEqual({ s, n, cut: referenceCut(s, n) });
    }
  });
  test('previewOf equals flattening the whole text first, for 3,000 random texts with long whitespace runs', () => {
    for (let i = 0; i < 3000; i++) {
      const s = randomText();
      const n = 1 + Math.floor(rand() * 40);
      const { text, truncated } = referenceCut(s.replace(/\s+/g, ' ').trim(), n);
      const expected = truncated ? { text: `${text}…`, markers: [[...text].length] } : { text, markers: [] };
      expect({ s, n, p: previewOf(s, n) }).toEqual({ s, n, p: expected });
    }
  });
});
