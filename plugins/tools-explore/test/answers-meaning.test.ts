/**
 * One meaning per query: numerals are integers exactly when their value is (both tool sets agree), strings order by
 * code point and have as many characters as Unicode scalar values — checked against independent computations.
 */
import fc from 'fast-check';
import { lexemeIsInteger } from '../src/json/values';
import { codePointLess } from '../../query-jsonpath/src/exact';
import { scalarCount } from '../../query-jsonpath/src/compile';
import type { QueryLanguage } from '../../../src/kernel/contracts';
import { jsonpath } from '../../../test/helpers/query';

let jp: QueryLanguage;
beforeAll(async () => {
  jp = await jsonpath();
});

/** The exact value of a JSON numeral as a fraction num / 10^scale (scale ≥ 0), by BigInt arithmetic. */
function exactValue(lexeme: string): { num: bigint; scale: bigint } {
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(lexeme)!;
  const frac = m[3] ?? '';
  let num = BigInt(m[2]! + frac) * (m[1] ? -1n : 1n);
  let scale = BigInt(frac.length) - BigInt(m[4] ?? 0);
  if (scale < 0n) { num *= 10n ** -scale; scale = 0n; }
  return { num, scale };
}
const isIntegerValue = (lexeme: string) => { const { num, scale } = exactValue(lexeme); return num % 10n ** scale === 0n; };

const digits = (min: number, max: number) => fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: min, maxLength: max });
const numeral = fc.tuple(fc.boolean(), fc.oneof(fc.constant('0'), fc.tuple(fc.constantFrom(...'123456789'), digits(0, 25)).map(([a, b]) => a + b)),
  fc.option(digits(1, 12)), fc.option(fc.tuple(fc.constantFrom('e', 'E'), fc.constantFrom('', '+', '-'), fc.integer({ min: 0, max: 40 }))))
  .map(([neg, int, frac, exp]) => `${neg ? '-' : ''}${int}${frac !== null ? '.' + frac : ''}${exp !== null ? exp[0] + exp[1] + exp[2] : ''}`);

describe('numerals', () => {
  test('C20 spellings', () => {
    for (const l of ['1e-5', '150e-2', '12E-1', '0.5', '1.25e1', '-0.001e2']) expect({ l, i: lexemeIsInteger(l) }).toEqual({ l, i: false });
    for (const l of ['1E2', '2.50e1', '-0', '0.0', '-0.0e5', '1E400', '-1e400', '10E399', '100e-2', '1.0', '12345678901234567891', '1234567890123456789.1e1']) {
      expect({ l, i: lexemeIsInteger(l) }).toEqual({ l, i: true });
    }
  });

  test('lexemeIsInteger (get_schema, get_value_at_path) is true exactly when the value is an integer', () => {
    fc.assert(fc.property(numeral, (l) => expect([l, lexemeIsInteger(l)]).toEqual([l, isIntegerValue(l)])), { numRuns: 5000 });
  });

  test('filters compare every numeral by its exact value, whatever its spelling (fast filter and json-p3 evaluation agree)', () => {
    const asParsed = (l: string) => (String(Number(l)) === l ? Number(l) : JSON.rawJSON(l)); // as the kernel's parse keeps it
    const reference = (a: string, b: string) => {
      const x = exactValue(a), y = exactValue(b);
      const l = x.num * 10n ** y.scale, r = y.num * 10n ** x.scale;
      return l < r ? -1 : l > r ? 1 : 0;
    };
    fc.assert(fc.property(numeral, numeral, (a, b) => {
      const value = [{ a: asParsed(a) }];
      const want = reference(a, b);
      for (const [op, holds] of [['==', want === 0], ['!=', want !== 0], ['<', want < 0], ['<=', want <= 0], ['>', want > 0], ['>=', want >= 0]] as const) {
        const fast = jp.compile(`$[?@.a ${op} ${b}]`).evaluate(value).length === 1;
        const slow = jp.compile(`$[?length(@) == 1 && @.a ${op} ${b}]`).evaluate(value).length === 1;
        expect([a, op, b, fast, slow]).toEqual([a, op, b, holds, holds]);
      }
    }), { numRuns: 1500 });
  });

  test('deep equality compares the numbers inside arrays and objects by value too', () => {
    // as the kernel's exact parse keeps numbers: a double only when it spells the lexeme
    const exact = (t: string) => JSON.parse(t, (_k, v, c?: { source?: string }) => (typeof v === 'number' && c?.source !== undefined && String(v) !== c.source ? JSON.rawJSON(c.source) : v));
    const rec = (a: string, b: string) => [{ a: exact(a), b: exact(b) }];
    const eq = (a: string, b: string) => [jp.compile('$[?@.a == @.b]').evaluate(rec(a, b)).length, jp.compile('$[?@.a == @.b && length(@) == 2]').evaluate(rec(a, b)).length];
    expect(eq('[1e400, {"k": 0.10}]', '[10e399, {"k": 0.1}]')).toEqual([1, 1]);
    expect(eq('[1e400]', '[1e401]')).toEqual([0, 0]);
    expect(eq('{"k": -0}', '{"k": 0.0}')).toEqual([1, 1]);
    expect(eq('{"k": 0.1000000000000000000001}', '{"k": 0.1}')).toEqual([0, 0]);
    expect(eq('[1e400]', '[{}]')).toEqual([0, 0]); // a number is never an object, even one without members
  });

  test('filters over spellings of the same integer agree with the schema: 1E2 == 100, 2.50e1 == 25, 10E399 == 1E400 > 1E399', () => {
    const hit = (lexeme: string, filter: string) => {
      const value = [{ a: JSON.rawJSON(lexeme) }];
      return jp.compile(`$[?${filter}]`).evaluate(value).length === 1;
    };
    expect(hit('1E2', '@.a == 100')).toBe(true);
    expect(hit('2.50e1', '@.a == 25')).toBe(true);
    expect(hit('10E399', '@.a == 1E400')).toBe(true);
    expect(hit('1E400', '@.a > 1E399')).toBe(true);
    expect(hit('1E400', '@.a > 9007199254740993')).toBe(true);
    expect(hit('-1e400', '@.a < -1E399')).toBe(true);
    expect(hit('1234567890123456789.1e1', '@.a == 12345678901234567891')).toBe(true);
    expect(hit('1234567890123456789.1e1', '@.a == 12345678901234567890')).toBe(false);
    expect(hit('150e-2', '@.a == 1.5')).toBe(true);
  });
});

describe('strings: characters are Unicode scalar values, order is code point order', () => {
  const text = fc.string({ unit: fc.oneof(fc.constantFrom('a', 'z', '\uFF61', '\uE000', '\uFFFF', '\uD7FF', 'é'), fc.integer({ min: 0x10000, max: 0x10ffff }).map((cp) => String.fromCodePoint(cp))), maxLength: 6 });
  const codePoints = (s: string) => [...s].map((c) => c.codePointAt(0)!);
  const cpLess = (a: string, b: string) => {
    const x = codePoints(a), y = codePoints(b);
    for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! < y[i]!;
    return x.length < y.length;
  };

  test('codePointLess agrees with comparing code point arrays', () => {
    fc.assert(fc.property(text, text, (a, b) => expect([a, b, codePointLess(a, b)]).toEqual([a, b, cpLess(a, b)])), { numRuns: 5000 });
  });

  test('scalarCount agrees with the string iterator', () => {
    fc.assert(fc.property(text, (s) => expect(scalarCount(s)).toBe([...s].length)), { numRuns: 2000 });
  });

  test('filters: < and > by code point, length() in scalar values (fast filter and json-p3 evaluation agree)', () => {
    const recs = ['😀', 'ab', '\uFF61', 'e\u0301', '👍🏽', '𝄞x'].map((s, i) => ({ id: i + 1, s }));
    const ids = (q: string) => jp.compile(q).evaluate(recs).map((n) => n.value);
    expect(ids('$[?@.s > "\uFF61"].id')).toEqual([1, 5, 6]); // fast filter
    expect(ids('$[?@.s > "\uFF61" && length(@.s) >= 1].id')).toEqual([1, 5, 6]); // through json-p3
    expect(ids('$[?length(@.s) == 1].id')).toEqual([1, 3]);
    expect(ids('$[?length(@.s) == 2].id')).toEqual([2, 4, 5, 6]);
    expect(ids('$[?length(@) == 2].id')).toEqual([1, 2, 3, 4, 5, 6]); // objects: members
  });
});

describe('names a query selects, for explaining an empty answer', () => {
  test('JSONPath: name selectors in segments and filters; pointer: tokens that are not indexes', async () => {
    expect(jp.compile('$.user.lable').memberNames).toEqual(['user', 'lable']);
    expect(jp.compile('$[?@.lable == "x" && length(@.tags) > 1].meta["a.b"]').memberNames).toEqual(['lable', 'tags', 'meta', 'a.b']);
    expect(jp.compile('$[*][0]').memberNames).toBeUndefined();
    const { pointer } = await import('../../../test/helpers/query');
    const ptr = await pointer();
    expect(ptr.compile('/0/lable/1/a~1b').memberNames).toEqual(['lable', 'a/b']);
    expect(ptr.compile('/0/1').memberNames).toBeUndefined();
  });

  test('edit distance: transpositions count 1, case differences ½', () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { distance } = require('../../../src/engine/scan/hints') as typeof import('../../../src/engine/scan/hints');
    expect(distance('lable', 'label')).toBe(1);
    expect(distance('lable', 'table')).toBe(1);
    expect(distance('lable', 'labels')).toBe(2);
    expect(distance('Label', 'label')).toBe(0.5);
    expect(distance('', 'abc')).toBe(3);
    expect(distance('😀a', 'a😀')).toBe(1);
  });
});
