import { RE2JS } from 're2js';
import type { QueryLanguage } from '../../../src/kernel/contracts';
import { IRegexpFunction, re2Refusal, toEcmaScript, toRe2 } from '../src/iregexp-functions';
import { jsonpath } from '../../../test/helpers/query';

/** A small deterministic generator (mulberry32), so a failing case names its seed. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// characters the strings are made of: ASCII, CR/LF, a non-BMP letter, a surrogate pair symbol, lone surrogates,
// an unassigned code point (Cn), a private-use one (Co), a format character (Cf)
const ALPHABET = ['a', 'b', 'c', 'A', '1', '-', '.', ' ', '\n', '\r', 'é', '\u{1D400}', '😀', '\uD800', '\uDC00', '\u0378', '\uE000', '\u200B', "'", '^', '$'];
const ATOMS = ['a', 'b', 'c', '.', '\\.', '\\-', '\\n', '\\r', '\\t', '[ab]', '[^a]', '[a-c]', '[-a]', '[a-]', '[\\-\\]]', '[^\\n]', '\\p{L}', '\\P{L}', '\\p{Lu}', '\\p{Nd}', '\\p{Cn}', '\\p{Co}', '\\p{Cf}', '\\p{C}', '\\p{So}', '[\\p{L}1]', '[^\\p{Ll}]', "'", 'é', '😀'];
const QUANTIFIERS = ['', '', '', '*', '+', '?', '{2}', '{1,3}', '{0,}', '{2,}'];

function genPattern(r: () => number, depth = 0): string {
  const pieces = 1 + Math.floor(r() * 3);
  let out = '';
  for (let i = 0; i < pieces; i++) {
    let atom = ATOMS[Math.floor(r() * ATOMS.length)]!;
    if (depth < 2 && r() < 0.25) atom = `(${genPattern(r, depth + 1)}${r() < 0.4 ? `|${genPattern(r, depth + 1)}` : ''})`;
    out += atom + QUANTIFIERS[Math.floor(r() * QUANTIFIERS.length)]!;
  }
  if (depth === 0 && r() < 0.1) out = '^' + out;
  if (depth === 0 && r() < 0.1) out += '$';
  return out;
}

function genString(r: () => number): string {
  const n = Math.floor(r() * 7);
  let s = '';
  for (let i = 0; i < n; i++) s += ALPHABET[Math.floor(r() * ALPHABET.length)]!;
  return s;
}

describe('match()/search() on RE2 agree with the ECMAScript mapping of RFC 9485 §5.3', () => {
  it('on 3000 generated patterns, each over 12 generated strings', () => {
    const r = rng(20261201);
    let compared = 0;
    for (let p = 0; p < 3000; p++) {
      const pattern = genPattern(r);
      const ecmaWhole = new RegExp(`^(?:${toEcmaScript(pattern)})$`, 'u');
      const ecmaAny = new RegExp(toEcmaScript(pattern), 'u');
      const re2Whole = new IRegexpFunction(true, () => true);
      const re2Any = new IRegexpFunction(false, () => true);
      for (let k = 0; k < 12; k++) {
        const s = genString(r);
        const got = [re2Whole.call(s, pattern), re2Any.call(s, pattern)];
        const want = [ecmaWhole.test(s), ecmaAny.test(s)];
        if (got[0] !== want[0] || got[1] !== want[1]) throw new Error(`${JSON.stringify(pattern)} on ${JSON.stringify(s)}: RE2 ${got}, ECMAScript ${want}`);
        compared++;
      }
    }
    expect(compared).toBe(36000);
  });

  it('keeps . as any character but CR and LF, a surrogate pair as one character', () => {
    const whole = new IRegexpFunction(true, () => true);
    expect(['a', '😀', 'é', '\u2028'].map((s) => whole.call(s, '.'))).toEqual([true, true, true, true]);
    expect(['\n', '\r', '', 'ab', '😀😀'].map((s) => whole.call(s, '.'))).toEqual([false, false, false, false, false]);
    expect(whole.call('😀', '..')).toBe(false);
    expect(toRe2('a.[.]\\.\\-[\\-]')).toBe('a(?:[^\\r\\n\\p{Cs}]|\\p{Cs}\\p{Cs})[.]\\.-[\\-]');
  });

  it('answers a pattern that makes a backtracking engine explode, over 50,001 characters', () => {
    const s = 'a'.repeat(50000) + 'b';
    const match = new IRegexpFunction(true, () => true);
    const search = new IRegexpFunction(false, () => true);
    // whole strings: none of these spans the final b; substrings: (a|a)* matches the empty one, (a+)+$ needs the
    // string to end in a, (x+x+)+y needs an x
    expect([match.call(s, '(a|a)*'), match.call(s, '(a+)+$'), match.call(s, '(x+x+)+y')]).toEqual([false, false, false]);
    expect([search.call(s, '(a|a)*'), search.call(s, '(a+)+$'), search.call(s, '(x+x+)+y')]).toEqual([true, false, false]);
    expect([match.call(s, '(a|a)*b'), search.call(s, '(a+)+b$'), search.call(s.slice(0, -1) + 'y', '(a+a+)+y')]).toEqual([true, true, true]);
    expect(RE2JS.compile('^(?:(a|a)*b)$').matches(s)).toBe(true);
  });
});

describe('a valid I-Regexp RE2 refuses', () => {
  let jp: QueryLanguage;
  beforeAll(async () => {
    jp = await jsonpath();
  });

  it('matches nothing, and the query says so with an I_REGEXP_TOO_LARGE warning', () => {
    expect(re2Refusal('a{1000}')).toBeNull();
    expect(re2Refusal('a{1001}')).toContain('{1001}');
    expect(re2Refusal('(a{100}){100}')).not.toBeNull();
    const q = jp.compile("$[?match(@, 'a{1001}')]");
    expect(q.evaluate(['a'.repeat(1001), 'a']).map((n) => n.value)).toEqual([]);
    expect(q.warnings).toHaveLength(1);
    expect(q.warnings![0]).toMatchObject({ code: 'I_REGEXP_TOO_LARGE', position: 13 });
    expect(q.warnings![0]!.message).toContain('x{1000}x{500}');
    const ok = jp.compile("$[?match(@, 'a{1000}a')]");
    expect(ok.warnings ?? []).toEqual([]);
    expect(ok.evaluate(['a'.repeat(1001), 'a']).map((n) => n.value)).toEqual(['a'.repeat(1001)]);
  });
});
