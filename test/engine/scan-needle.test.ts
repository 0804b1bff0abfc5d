/**
 * indexOfBytes (the scan prefilter's literal search through a probe at the literal's rarest byte) gives exactly
 * what Buffer.indexOf gives: on generated JSON-like text, overlapping and repeated occurrences, occurrences at the
 * buffer's ends and cut by them, from every position.
 */
import { caselessFinder, indexOfCaseless, indexOfBytes } from '../../src/engine/bytes/bytes';
import { PAIR_WINDOW, pairSearchAvailable, pairsIn } from '../../src/engine/bytes/byte-pairs';

/** A deterministic generator (mulberry32). */
function rng(seed: number) {
  return () => {
    seed |= 0; seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ALPHABET = ['"', ':', ',', ' ', 'e', 'r', 'o', 'a', 'E', 'R', 'x', 'q', 'Z', '0', '7', '\\', 'u', '{', '}', 'é', '😀'];

test('the same positions as indexOf, from every offset, on 400 generated texts and needles', () => {
  const r = rng(7);
  const pick = () => ALPHABET[Math.floor(r() * ALPHABET.length)]!;
  let checked = 0, found = 0;
  for (let t = 0; t < 400; t++) {
    const needle = Buffer.from(Array.from({ length: 1 + Math.floor(r() * 12) }, pick).join(''));
    // Text made of the needle's pieces and noise, so that partial and overlapping matches are common.
    const parts: string[] = [];
    const ns = needle.toString();
    for (let k = 0; k < 60; k++) {
      const x = r();
      parts.push(x < 0.2 ? ns : x < 0.4 ? ns.slice(0, Math.max(1, Math.floor(r() * ns.length))) : x < 0.5 ? ns.slice(Math.floor(r() * ns.length)) : pick());
    }
    const hay = Buffer.from(parts.join(''));
    for (let from = 0; from <= hay.length + 2; from++) {
      const want = hay.indexOf(needle, from);
      const got = indexOfBytes(hay, needle, from);
      if (got !== want) throw new Error(`needle ${JSON.stringify(ns)} from ${from} in ${JSON.stringify(hay.toString('latin1'))}: ${got} vs ${want}`);
      checked++;
      if (want >= 0) found++;
    }
  }
  expect(checked).toBeGreaterThan(50_000);
  expect(found).toBeGreaterThan(checked / 4);
});

test('JSON literals as the prefilter gets them: quoted values, member names, escapes; at the start, the end and cut by it', () => {
  const rec = '{"level":"error","msg":"an error\\u00e9 \\"x\\"","NEEDLE-7f3a":1,"z":"failed"}';
  const hay = Buffer.from(`${rec}\n${rec}`);
  for (const lit of ['"error"', 'error', '"failed"', '\\u', 'NEEDLE-7f3a', '{"level"', '"failed"}', '"z"', 'q', '"nope"', `${rec}\n${rec}`, `${rec}\n${rec}x`]) {
    const needle = Buffer.from(lit);
    for (let from = 0; from <= hay.length; from++) expect([lit, from, indexOfBytes(hay, needle, from)]).toEqual([lit, from, hay.indexOf(needle, from)]);
  }
  // the buffer cut inside an occurrence: no match past its end
  const cut = hay.subarray(0, hay.length - 3);
  expect(indexOfBytes(cut, Buffer.from('"failed"}'), rec.length)).toBe(-1);
});

/** ASCII letters in lower case, other bytes as they are (what indexOfCaseless compares). */
const asciiLower = (b: Buffer) => Buffer.from(b.map((x) => (x >= 0x41 && x <= 0x5a ? x + 32 : x)));

test('indexOfCaseless: the positions indexOf finds in the text with ASCII letters lowered, from every offset', () => {
  const r = rng(11);
  const pick = () => ALPHABET[Math.floor(r() * ALPHABET.length)]!;
  let checked = 0, found = 0;
  for (let t = 0; t < 300; t++) {
    const ns = Array.from({ length: 1 + Math.floor(r() * 10) }, pick).join('');
    const needle = asciiLower(Buffer.from(ns));
    // the needle's pieces in random case, and noise
    const parts: string[] = [];
    const cased = () => [...ns].map((c) => (r() < 0.5 ? c.toUpperCase() : c.toLowerCase())).join('');
    for (let k = 0; k < 50; k++) {
      const x = r();
      parts.push(x < 0.25 ? cased() : x < 0.4 ? cased().slice(0, Math.max(1, Math.floor(r() * ns.length))) : pick());
    }
    const hay = Buffer.from(parts.join(''));
    const lowered = asciiLower(hay);
    for (let from = 0; from <= hay.length + 2; from++) {
      const want = lowered.indexOf(needle, from);
      const got = indexOfCaseless(hay, needle, from);
      if (got !== want) throw new Error(`needle ${JSON.stringify(ns)} from ${from} in ${JSON.stringify(hay.toString('latin1'))}: ${got} vs ${want}`);
      checked++;
      if (want >= 0) found++;
    }
  }
  expect(checked).toBeGreaterThan(30_000);
  expect(found).toBeGreaterThan(checked / 4);
  // only ASCII letters fold: é/É (UTF-8 C3 A9 / C3 89) and the KELVIN SIGN are bytes like any other
  const cafe = Buffer.from('"CAFÉ" "Café"');
  expect(indexOfCaseless(cafe, Buffer.from('"café"'), 0)).toBe(cafe.indexOf('"Café"'));
  // a KELVIN SIGN spelled as an escape and as UTF-8 (E2 84 AA): neither is the letter k
  const kelvin = Buffer.from('"\\u212Aelvin" "\u212Aelvin" "KELVIN"');
  expect(indexOfCaseless(kelvin, Buffer.from('"kelvin"'), 0)).toBe(kelvin.indexOf('"KELVIN"'));
});

test('caselessFinder: one finder asked again and again (from increasing, jumping, going back) answers as a fresh search', () => {
  const r = rng(5);
  for (let t = 0; t < 200; t++) {
    const ns = ['"failed"', 'x', 'ab"', '"é', 'NEEDLE-7f3a'.toLowerCase()][t % 5]!;
    const needle = Buffer.from(ns);
    const parts: string[] = [];
    for (let k = 0; k < 40; k++) parts.push(r() < 0.3 ? [...ns].map((c) => (r() < 0.5 ? c.toUpperCase() : c)).join('') : ['a', 'F', 'f', '"', 'é', 'X', ' '][Math.floor(r() * 7)]!);
    const hay = Buffer.from(parts.join(''));
    const find = caselessFinder(hay, needle);
    let from = 0;
    for (let step = 0; step < 60 && from <= hay.length + 1; step++) {
      expect([from, find(from)]).toEqual([from, indexOfCaseless(hay, needle, from)]);
      const x = r();
      from = x < 0.1 ? Math.floor(r() * from) : from + 1 + Math.floor(r() * (x < 0.6 ? 3 : 40));
    }
  }
});

describe('caselessFinder on buffers of 4 KiB and more (the SIMD pair search, a window of 256 KiB at a time)', () => {
  /** JSON-like noise with the needle in random case at random places, some straddling the windows' edges. */
  function hayWith(ns: string, size: number, seed: number): Buffer {
    const r = rng(seed);
    const noise = ['{"status":"ok","msg":"fa il ed f a"}', 'F', 'f', 'a', 'É', '"', ' ', 'ai', 'FA', '\n', 'x'];
    const parts: string[] = [];
    let length = 0;
    const cased = () => [...ns].map((c) => (r() < 0.5 ? c.toUpperCase() : c)).join('');
    while (length < size) {
      const edge = PAIR_WINDOW * Math.ceil((length + 1) / PAIR_WINDOW);
      let part: string;
      if (edge - length > 0 && edge - length < ns.length && r() < 0.5) part = cased(); // across a window's edge
      else part = r() < 0.02 ? cased() : r() < 0.01 ? cased().slice(0, ns.length - 1) : noise[Math.floor(r() * noise.length)]!;
      parts.push(part);
      length += Buffer.byteLength(part);
    }
    return Buffer.from(parts.join(''));
  }

  test.each(['"failed"', 'failed', 'fa', 'd"', '"é', 'needle-7f3a', 'x', ':1'])('%s: every occurrence, the same as indexOf on the lowered text, increasing and jumping', (ns) => {
    const needle = asciiLower(Buffer.from(ns));
    for (const [size, seed] of [[5000, 1], [PAIR_WINDOW * 2 + 777, 2]] as const) {
      const hay = hayWith(ns, size, seed);
      const lowered = asciiLower(hay);
      // every occurrence in order, each from just past the last
      const want: number[] = [];
      for (let p = lowered.indexOf(needle); p !== -1; p = lowered.indexOf(needle, p + 1)) want.push(p);
      const find = caselessFinder(hay, needle);
      const got: number[] = [];
      for (let p = find(0); p !== -1; p = find(p + 1)) got.push(p);
      expect(got).toEqual(want);
      expect(want.length).toBeGreaterThan(2);
      // one finder asked from anywhere: forward, backward, past the end
      const r = rng(seed + 10);
      for (let step = 0, from = 0; step < 300; step++) {
        expect([from, find(from)]).toEqual([from, lowered.indexOf(needle, from)]);
        const x = r();
        from = x < 0.15 ? Math.floor(r() * hay.length) : x < 0.2 ? hay.length - Math.floor(r() * 10) : from + 1 + Math.floor(r() * 5000);
      }
    }
  });

  test('a needle longer than the buffer, and occurrences at the very start and end', () => {
    const hay = Buffer.concat([Buffer.from('FAILED'), Buffer.alloc(6000, 0x20), Buffer.from('fAiLeD')]);
    const find = caselessFinder(hay, Buffer.from('failed'));
    expect([find(0), find(1), find(hay.length - 6), find(hay.length - 5)]).toEqual([0, hay.length - 6, hay.length - 6, -1]);
    expect(caselessFinder(Buffer.alloc(5000, 0x61), Buffer.alloc(5001, 0x61))(0)).toBe(-1);
  });

  test('pairsIn: the positions of a pair, exact or without case, inside the window asked', () => {
    if (!pairSearchAvailable()) return; // the finder then uses indexOf streams, tested above all the same
    const hay = Buffer.from('xFaxfAx"fa"FA');
    expect([...pairsIn(hay, 0, hay.length - 1, 0x66, 0x20, 0x61, 0x20)]).toEqual([1, 4, 8, 11]);
    expect([...pairsIn(hay, 0, hay.length - 1, 0x66, 0, 0x61, 0x20)]).toEqual([4, 8]);
    expect([...pairsIn(hay, 2, 9, 0x66, 0x20, 0x61, 0x20)]).toEqual([4, 8]);
    expect([...pairsIn(hay, 7, 8, 0x22, 0, 0x66, 0x20)]).toEqual([7]);
    // only ASCII letters fold: 0x40 | 0x20 is 0x60, yet "@" is not "`"
    expect([...pairsIn(Buffer.from('`a@a'), 0, 3, 0x60, 0, 0x61, 0x20)]).toEqual([0]);
  });
});
