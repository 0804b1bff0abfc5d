/**
 * The kernel's one comparison of JSON numbers by value (src/engine/numbers/compare.ts), against BigInt arithmetic on
 * the same numerals: random integers up to 300 digits, decimals scaled by powers of ten in every spelling, huge
 * exponents, zeros of every sign, numerals of millions of digits.
 */
import fc from 'fast-check';
import { compareNumerals, isNumeral, numeralKey, numeralOf } from '../../src/engine/numbers/compare';
import * as kit from '../../src/plugin-kit/index';
import { recordsToolkit } from '../../src/engine/records';

/** The exact value of a numeral as num / 10^scale (scale ≥ 0), by BigInt arithmetic (the reference). */
function exactValue(lexeme: string): { num: bigint; scale: bigint } {
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(lexeme)!;
  const frac = m[3] ?? '';
  let num = BigInt(m[2]! + frac) * (m[1] ? -1n : 1n);
  let scale = BigInt(frac.length) - BigInt(m[4] ?? 0);
  if (scale < 0n) { num *= 10n ** -scale; scale = 0n; }
  return { num, scale };
}

function reference(a: string, b: string): number {
  const x = exactValue(a), y = exactValue(b);
  const l = x.num * 10n ** y.scale, r = y.num * 10n ** x.scale;
  return l < r ? -1 : l > r ? 1 : 0;
}

/** A digit string of 1–max digits without a leading zero (or "0"). */
const digits = (max: number) => fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: 1, maxLength: max }).map((d) => d.replace(/^0+(?=\d)/, ''));

/**
 * The numeral `sign digits × 10^shift` spelled one of several ways: plain integer or decimal (point inside, leading
 * `0.000…`), with trailing fraction zeros, or with an exponent (`e`, `E`, `e+`, leading zeros in the exponent).
 */
function spell(neg: boolean, d: string, shift: number, style: number, pad: number): string {
  const sign = neg ? '-' : '';
  const e = (n: number) => (n < 0 ? `e-${'0'.repeat(style % 2)}${-n}` : style % 3 === 0 ? `E+${n}` : `e${n}`);
  switch (style % 4) {
    case 0: { // plain
      if (shift >= 0) return sign + (d === '0' ? '0' : d + '0'.repeat(shift)) + (pad ? '.' + '0'.repeat(pad) : '');
      const k = d.length + shift; // digits before the point
      const body = k > 0 ? `${d.slice(0, k)}.${d.slice(k)}` : `0.${'0'.repeat(-k)}${d}`;
      return sign + body + '0'.repeat(pad);
    }
    case 1: // d e shift
      return sign + d + e(shift);
    case 2: { // one digit before the point, exponent adjusted
      const rest = d.slice(1) + '0'.repeat(pad);
      return sign + d[0] + (rest ? '.' + rest : '') + e(shift + d.length - 1);
    }
    default: { // 0.d × 10^(shift + len)
      return sign + '0.' + '0'.repeat(pad) + d + e(shift + d.length + pad);
    }
  }
}

const numeral = fc.tuple(fc.boolean(), digits(300), fc.integer({ min: -400, max: 400 }), fc.nat(11), fc.nat(3)).map(([n, d, s, st, p]) => spell(n, d, s, st, p));

describe('compareNumerals', () => {
  test('agrees with BigInt arithmetic on random integers up to 300 digits', () => {
    const int = fc.tuple(fc.boolean(), digits(300)).map(([n, d]) => (n && d !== '0' ? '-' : '') + d);
    fc.assert(fc.property(int, int, (a, b) => {
      expect([a, b, compareNumerals(a, b)]).toEqual([a, b, reference(a, b)]);
    }), { numRuns: 3000 });
  });

  test('agrees with BigInt arithmetic on decimals scaled by powers of ten, in every spelling', () => {
    fc.assert(fc.property(numeral, numeral, (a, b) => {
      expect([a, b, compareNumerals(a, b)]).toEqual([a, b, reference(a, b)]);
      expect(compareNumerals(b, a)).toBe(-reference(a, b) || 0);
    }), { numRuns: 5000 });
  });

  test('every spelling of one value is equal to every other (and the neighbours differ)', () => {
    const value = fc.tuple(fc.boolean(), digits(60), fc.integer({ min: -300, max: 300 }));
    fc.assert(fc.property(value, fc.nat(11), fc.nat(3), fc.nat(11), fc.nat(3), ([n, d, s], st1, p1, st2, p2) => {
      const a = spell(n, d, s, st1, p1), b = spell(n, d, s, st2, p2);
      expect([a, b, compareNumerals(a, b)]).toEqual([a, b, 0]);
      expect([a, b, numeralKey(a) === numeralKey(b)]).toEqual([a, b, true]);
      if (d !== '0') {
        const bigger = spell(n, d + '1', s - 1, st2, p2); // one more digit at the end: further from zero
        expect([a, bigger, compareNumerals(a, bigger)]).toEqual([a, bigger, n ? 1 : -1]);
      }
    }), { numRuns: 3000 });
  });

  test('the values the doubles lose: 1e400 < 1e401, 0.1000000000000000000001 > 0.1, 10^1500 + 1 > 10^1500', () => {
    expect(compareNumerals('1e400', '1e401')).toBe(-1);
    expect(compareNumerals('-1e400', '-1e401')).toBe(1);
    expect(compareNumerals('1e400', '10e399')).toBe(0);
    expect(compareNumerals('0.1000000000000000000001', '0.1')).toBe(1);
    expect(compareNumerals('0.1000000000000000000001', 0.1)).toBe(1);
    const big = '1' + '0'.repeat(1500);
    expect(compareNumerals(big.slice(0, -1) + '1', big)).toBe(1);
    expect(compareNumerals(big, '1e1500')).toBe(0);
    expect(compareNumerals(big.slice(0, -1) + '1', '1e1500')).toBe(1);
    expect(compareNumerals('9007199254740993', '9007199254740992')).toBe(1);
    expect(compareNumerals('9007199254740993', 9007199254740992)).toBe(1);
  });

  test('a positive number is above zero however small, a negative one below; -0 == 0 == 0.000 == 0e99', () => {
    const tiny = '0.' + '0'.repeat(400) + '1';
    expect(Number(tiny)).toBe(0); // what a double would compare
    expect(compareNumerals(tiny, '0')).toBe(1);
    expect(compareNumerals(tiny, 0)).toBe(1);
    expect(compareNumerals('-' + tiny, 0)).toBe(-1);
    expect(compareNumerals('1e-400', '0')).toBe(1);
    expect(compareNumerals('-0', '0')).toBe(0);
    expect(compareNumerals('-0', 0)).toBe(0);
    expect(compareNumerals(-0, '0.000')).toBe(0);
    expect(compareNumerals('-0.0e-7', '0E99')).toBe(0);
    expect(compareNumerals(-0, 0)).toBe(0);
  });

  test('exponents of any length: compared as digit strings, with the digits before them', () => {
    const e20 = '1' + '0'.repeat(19); // 10^19, past the 15 digits a double adds exactly
    expect(compareNumerals(`1e${e20}`, `1e${e20.slice(0, -1)}1`)).toBe(-1);
    expect(compareNumerals(`10e${e20}`, `1e${e20.slice(0, -1)}1`)).toBe(0); // 10 × 10^E = 1 × 10^(E+1)
    expect(compareNumerals(`0.01e${e20}`, `1e${e20}`)).toBe(-1);
    expect(compareNumerals(`1e-${e20}`, '0')).toBe(1);
    expect(compareNumerals(`1e-${e20}`, `1e-${e20.slice(0, -1)}1`)).toBe(1);
    expect(compareNumerals(`1e${e20}`, '1e400')).toBe(1);
    expect(compareNumerals(`1e-${e20}`, '1e-400')).toBe(-1);
    // a borrow across the 15-digit cut: 10^19 - 1 written with leading zeros in the exponent, and as digits × 10^…
    const nines = '9'.repeat(19);
    expect(compareNumerals(`1e00${e20}`, `1000e${nines.slice(0, -1)}7`)).toBe(0);
    expect(compareNumerals(`0.001e${e20}`, `1e${nines.slice(0, -1)}7`)).toBe(0);
    expect(compareNumerals(`123e${'9'.repeat(30)}`, `1.23e${'1' + '0'.repeat(29)}1`)).toBe(0);
    expect(compareNumerals(`-5e-${'9'.repeat(30)}`, `-0.5e-${'9'.repeat(29)}8`)).toBe(0);
    // and against the reference, with exponents just around the cut
    fc.assert(fc.property(digits(20), digits(18), fc.boolean(), digits(18), fc.boolean(), fc.integer({ min: -20, max: 20 }), (d, e1, n1, e2, n2, k) => {
      if (d === '0') return;
      const a = `${d}e${n1 ? '-' : ''}${e1}`;
      const b = `${d}e${n2 ? '-' : ''}${e2}`;
      const want = BigInt(n1 ? '-' + e1 : e1) < BigInt(n2 ? '-' + e2 : e2) ? -1 : BigInt(n1 ? '-' + e1 : e1) > BigInt(n2 ? '-' + e2 : e2) ? 1 : 0;
      expect([a, b, compareNumerals(a, b)]).toEqual([a, b, want]);
      const c = `${d}${'0'.repeat(Math.max(0, k))}e${n1 ? '-' : ''}${e1}`; // k more digits: 10^k larger
      if (k > 0) expect([a, c, compareNumerals(a, c)]).toEqual([a, c, -1]);
    }), { numRuns: 2000 });
  });

  test('JavaScript numbers stand for their shortest round-trip spelling', () => {
    expect(compareNumerals(0.1, '0.1')).toBe(0); // the file's 0.1 is one tenth, not the double's binary expansion
    expect(compareNumerals(0.1, '0.1000000000000000055511151231257827021181583404541015625')).toBe(-1);
    expect(compareNumerals(1e21, '1000000000000000000000')).toBe(0); // String(1e21) is "1e+21"
    expect(compareNumerals(5e-324, '0')).toBe(1);
    expect(compareNumerals(-1.5e-7, '-0.00000015')).toBe(0);
    expect(numeralOf(-0)).toBe('0');
    fc.assert(fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.double({ noNaN: true, noDefaultInfinity: true }), (x, y) => {
      const want = x < y ? -1 : x > y ? 1 : 0;
      expect(compareNumerals(x, y)).toBe(want);
      expect(compareNumerals(String(x), y)).toBe(want);
      expect(compareNumerals(x, String(y))).toBe(want);
    }), { numRuns: 3000 });
  });

  test('what is not a JSON number is a TypeError naming it; NaN and infinities a RangeError', () => {
    for (const bad of ['', '-', '01', '1.', '.5', '+1', '1e', '1e+', '0x10', '1 ', ' 1', 'NaN', 'Infinity', '1_000', '١']) {
      expect(() => compareNumerals(bad, '0')).toThrow(TypeError);
      expect(isNumeral(bad)).toBe(false);
    }
    expect(() => compareNumerals('0', '01')).toThrow(/Not a JSON number \(RFC 8259 §6\): "01"/);
    expect(() => compareNumerals(Number.NaN, '0')).toThrow(RangeError);
    expect(() => compareNumerals(Number.POSITIVE_INFINITY, 1)).toThrow(RangeError);
    for (const good of ['0', '-0', '0.0', '1E+2', '1e-0', '-12.50e0003']) expect(isNumeral(good)).toBe(true);
  });

  test('linear in the length: a pair of 4,000,000-digit numerals (equal up to the last digit) compares', () => {
    // Sized so that BigInt parsing of these (super-linear) would take seconds, while one linear pass takes milliseconds.
    const n = 4_000_000;
    const a = '7'.repeat(n - 1) + '1';
    const b = '7'.repeat(n - 1) + '2';
    expect(compareNumerals(a, b)).toBe(-1);
    expect(compareNumerals('-' + a, '-' + b)).toBe(1);
    expect(compareNumerals(`0.${a}e${n}`, a)).toBe(0);
    expect(compareNumerals(`1e${'9'.repeat(n)}`, `1e${'9'.repeat(n - 1)}8`)).toBe(1);
  });

  test('numeralKey: one spelling per value, equal exactly when compareNumerals says so, itself a numeral of that value', () => {
    expect(['1', '1.0', '100e-2', '0.1e1', '1E+0'].map(numeralKey)).toEqual(['1', '1', '1', '1', '1']);
    expect(['0', '-0', '0.000', '0e99', -0].map(numeralKey)).toEqual(['0', '0', '0', '0', '0']);
    expect(['150', '1.5e2', '15000e-2'].map(numeralKey)).toEqual(['150', '150', '150']);
    expect(['100000000000000000000', '1e20', '1e21', '1000000000000000000000', '-1.0e21'].map(numeralKey)).toEqual(['100000000000000000000', '100000000000000000000', '1e21', '1e21', '-1e21']);
    expect(numeralKey('-0.05')).toBe('-5e-2');
    expect(numeralKey('12.50')).toBe('1.25e1');
    expect(numeralKey(0.1)).toBe('1e-1');
    expect(numeralKey(42)).toBe('42');
    expect(numeralKey(`1e${'9'.repeat(30)}`)).toBe(`1e${'9'.repeat(30)}`);
    expect(numeralKey(`-12e-${'9'.repeat(30)}`)).toBe(`-1.2e-${'9'.repeat(29)}8`);
    fc.assert(fc.property(numeral, numeral, (a, b) => {
      const ka = numeralKey(a), kb = numeralKey(b);
      expect([a, b, ka === kb]).toEqual([a, b, compareNumerals(a, b) === 0]);
      expect([a, compareNumerals(ka, a)]).toEqual([a, 0]);
    }), { numRuns: 3000 });
    const n = 4_000_000;
    expect(numeralKey('1' + '0'.repeat(n))).toBe(`1e${n}`);
  });

  test('is the one comparison plugins get: a runtime export of mcpgw/plugin-kit and a member of context.records', () => {
    expect(kit.compareNumerals).toBe(compareNumerals);
    expect(recordsToolkit.compareNumerals).toBe(compareNumerals);
  });
});
