/**
 * The aggregate's building blocks against independent references: the byte check of a record agrees with JSON.parse
 * on generated texts and their mutations (and the members it finds with the parsed value), exact decimals agree with
 * rationals, timestamps with Date.parse, and a distinct-count sketch stays inside its stated error bound.
 */
import { atomsOfRecord, atomsOfValue, canonicalJson, MALFORMED, newAtoms, OK, readRecord, slotPlan, TOO_DEEP } from '../../src/engine/aggregate/extract';
import { divideDecimal, formatDecimal, parseDecimal } from '../../src/engine/aggregate/decimal';
import { compareNumerals, numeralKey } from '../../src/engine/numbers/compare';
import { addLexeme, mergeSum, newSum, sumValue } from '../../src/engine/aggregate/sum';
import { epochMs, formatInstant, numberBucket, numberWidth, parseDuration, parseTimestamp, timeBucket } from '../../src/engine/aggregate/buckets';
import { addDistinct, distinctValue, mergeDistinct, newDistinct, toSketch } from '../../src/engine/aggregate/distinct';
import { parseExact } from '../../src/engine/records/parse';
import { add, cmp, eq, lex, rat, type Rat } from '../helpers/exact';
import { genValue, jsonOk, mutate, rng } from '../helpers/json-gen';

describe('the byte check of a record', () => {
  const paths = [['status'], ['a'], ['user', 'a'], ['st"x'], ['é'], ['__proto__'], [''], ['b/c'], ['0'], [0], [1], ['user', 0], []] as (string | number)[][];
  const plan = slotPlan(paths, 50);
  const atoms = newAtoms(paths.length);
  const viaValue = newAtoms(paths.length);
  const parse = (t: string) => parseExact(t, () => ({ byteOffset: 0, line: 1, column: 1, recordIndex: 0, maxDepth: 50 }), 50);

  test('accepts exactly what JSON.parse accepts, on 20,000 generated texts and mutations, and finds the members JSON.parse keeps', () => {
    const r = rng(7);
    let valid = 0, invalid = 0;
    for (let n = 0; n < 20000; n++) {
      let text = genValue(r, 0);
      if (r() < 0.5) text = mutate(r, text);
      if (r() < 0.2) text = ` ${text}\t`;
      text = Buffer.from(text).toString(); // a mutation may split a surrogate pair: bytes hold U+FFFD then
      const b = Buffer.from('\n' + text + '\n');
      const st = readRecord(b, 1, b.length - 1, plan);
      const ok = jsonOk(text);
      expect([text, st === OK]).toEqual([text, ok]);
      if (!ok) { invalid++; continue; }
      valid++;
      atomsOfRecord(b, 1, b.length - 1, plan, atoms, parse);
      atomsOfValue(parse(text), paths, viaValue);
      expect([text, [...atoms.types], atoms.texts]).toEqual([text, [...viaValue.types], viaValue.texts]);
    }
    expect(valid).toBeGreaterThan(5000);
    expect(invalid).toBeGreaterThan(5000);
  });

  test('nesting past the bound is TOO_DEEP, not malformed; other faults are MALFORMED', () => {
    const deep = '['.repeat(51) + ']'.repeat(51);
    const b = Buffer.from(deep);
    expect(readRecord(b, 0, b.length, plan)).toBe(TOO_DEEP);
    const ok = Buffer.from('['.repeat(50) + ']'.repeat(50));
    expect(readRecord(ok, 0, ok.length, plan)).toBe(OK);
    for (const bad of ['{"a":1} {"a":2}', '{"a":01}', '{"a":1,}', '"\t"', 'nul', '{"a" 1}', '[1 2]', '']) {
      const x = Buffer.from(bad);
      expect([bad, readRecord(x, 0, x.length, plan)]).toEqual([bad, MALFORMED]);
    }
  });

  test('canonical JSON: member order and number spelling do not matter', () => {
    const parse2 = (t: string) => parseExact(t, () => ({ byteOffset: 0, line: 1, column: 1, recordIndex: 0, maxDepth: 50 }), 50);
    expect(canonicalJson(parse2('{"b":[1.0,{"y":2,"x":1e0}],"a":"s"}'))).toBe(canonicalJson(parse2('{"a":"s","b":[1,{"x":1,"y":2.00}]}')));
    expect(canonicalJson(parse2('[1,"1"]'))).not.toBe(canonicalJson(parse2('["1",1]')));
  });
});

describe('exact decimals', () => {
  const r = rng(11);
  const lexeme = (): string => {
    const sign = r() < 0.3 ? '-' : '';
    const int = r() < 0.2 ? '0' : String(Math.floor(r() * 10 ** Math.floor(r() * 18)) || 1);
    const frac = r() < 0.5 ? '.' + String(Math.floor(r() * 10 ** (1 + Math.floor(r() * 20)))).padStart(1 + Math.floor(r() * 3), '0') : '';
    const exp = r() < 0.3 ? (r() < 0.5 ? 'e' : 'E') + (r() < 0.5 ? '-' : '') + Math.floor(r() * 30) : '';
    return sign + int + frac + exp;
  };

  test('canonical spelling and order agree with rationals', () => {
    for (let n = 0; n < 5000; n++) {
      const a = lexeme();
      const base = a.replace(/e.*$/i, '');
      // the same digits without the exponent, maybe with a zero more (never "00": not a JSON number)
      const b = r() < 0.2 ? base + (r() < 0.5 && !/^-?0$/.test(base) ? '0' : '') : lexeme();
      const ra = lex(a), rb = lex(b);
      expect([a, b, compareNumerals(a, b)]).toEqual([a, b, cmp(ra, rb)]);
      expect([a, b, numeralKey(a) === numeralKey(b)]).toEqual([a, b, eq(ra, rb)]);
      expect(eq(lex(formatDecimal(parseDecimal(a))), ra)).toBe(true);
    }
    expect(numeralKey('1.0')).toBe(numeralKey('10e-1'));
    expect(numeralKey('-0')).toBe('0');
  });

  test('sums of any lexemes, merged in any split, are exact', () => {
    for (let round = 0; round < 50; round++) {
      const list = Array.from({ length: 1 + Math.floor(r() * 200) }, lexeme);
      const cut = Math.floor(r() * list.length);
      const a = newSum(), b = newSum();
      list.slice(0, cut).forEach((l) => addLexeme(a, l));
      list.slice(cut).forEach((l) => addLexeme(b, l));
      mergeSum(a, b);
      const expected = list.reduce((s: Rat, l) => add(s, lex(l)), rat(0n));
      expect(eq(lex(formatDecimal(sumValue(a)!)), expected)).toBe(true);
    }
    // Many small integers past 2^53 in total
    const s = newSum();
    for (let i = 0; i < 2000; i++) addLexeme(s, '999999999999999');
    expect(formatDecimal(sumValue(s)!)).toBe('1999999999999998000');
  });

  test('exact decimals print in plain positional form: an integer as its digits; an exponent only past 40 padding zeros', () => {
    const z = (n: number) => '0'.repeat(n);
    const cases: [string, string][] = [
      ['12345678901234567890123', '12345678901234567890123'],
      ['-12345678901234567890123', '-12345678901234567890123'],
      ['1e21', '1' + z(21)], ['1.5e22', '15' + z(21)], ['12e20', '12' + z(20)],
      ['1e40', '1' + z(40)], ['1.5e41', '15' + z(40)], ['-1e40', '-1' + z(40)],
      ['1e41', '1e+41'], ['1.5e42', '1.5e+42'], ['-123e400', '-1.23e+402'],
      ['1e-7', '0.0000001'], ['-2.5e-10', '-0.00000000025'], ['123.456e-2', '1.23456'],
      ['1.5e-41', '0.' + z(40) + '15'], ['1e-41', '0.' + z(40) + '1'],
      ['1.5e-42', '1.5e-42'], ['1e-42', '1e-42'], ['-7e-500', '-7e-500'],
      ['0.000', '0'], ['-0', '0'], ['100', '100'], ['1.50', '1.5'],
    ];
    for (const [lexeme, want] of cases) {
      const got = formatDecimal(parseDecimal(lexeme));
      expect([lexeme, got]).toEqual([lexeme, want]);
      expect(eq(lex(got), lex(lexeme))).toBe(true);
    }
    // the bench file's trace ids: the exact sum (as Python's int sum gives it), in digits
    const s = newSum();
    const ids = ['6426802993820582989828', '6426802993820582989829'];
    for (const id of ids) addLexeme(s, id);
    expect(formatDecimal(sumValue(s)!)).toBe('12853605987641165979657');
    expect(String(ids.reduce((a, b) => a + BigInt(b), 0n))).toBe('12853605987641165979657');
  });

  test('division rounds half to even at the asked digits, exact when it terminates', () => {
    expect(divideDecimal(parseDecimal('1'), 3n, 5)).toEqual({ value: parseDecimal('0.33333'), exact: false });
    expect(divideDecimal(parseDecimal('2'), 3n, 5).value).toEqual(parseDecimal('0.66667'));
    expect(divideDecimal(parseDecimal('0.125'), 1n, 2).value).toEqual(parseDecimal('0.12'));
    expect(divideDecimal(parseDecimal('0.375'), 1n, 2).value).toEqual(parseDecimal('0.38'));
    expect(divideDecimal(parseDecimal('7'), 8n, 34)).toEqual({ value: parseDecimal('0.875'), exact: true });
    expect(formatDecimal(divideDecimal(parseDecimal('-1'), 3n, 3).value)).toBe('-0.333');
  });

  test('numeric buckets: ⌊v / w⌋ × w exactly, on the fast path and the exact one', () => {
    for (let n = 0; n < 3000; n++) {
      const v = lexeme();
      const w = ['0.5', '10', '0.1', '3', '1e3', '0.0000001', '7.25'][n % 7]!;
      const got = numberBucket(v, numberWidth(w))!;
      const rv = lex(v), rw = lex(w);
      // q = ⌊v / w⌋ as a bigint
      const num = rv.n * rw.d, den = rv.d * rw.n;
      let q = num / den;
      if (num < 0n && q * den !== num) q -= 1n;
      const expected = rat(q * rw.n, rw.d);
      expect([v, w, eq(lex(got), expected)]).toEqual([v, w, true]);
    }
  });
});

describe('timestamps and durations', () => {
  test('RFC 3339 date-times in any offset agree with Date.parse; impossible dates and other text are NaN', () => {
    const r = rng(3);
    for (let n = 0; n < 3000; n++) {
      const y = 1970 + Math.floor(r() * 100), mo = 1 + Math.floor(r() * 12), d = 1 + Math.floor(r() * 28);
      const h = Math.floor(r() * 24), mi = Math.floor(r() * 60), s = Math.floor(r() * 60);
      const frac = r() < 0.5 ? '.' + String(Math.floor(r() * 1e6)).padStart(6, '0') : '';
      const off = r() < 0.3 ? 'Z' : `${r() < 0.5 ? '+' : '-'}${String(Math.floor(r() * 14)).padStart(2, '0')}:${r() < 0.5 ? '00' : '30'}`;
      const p2 = (x: number) => String(x).padStart(2, '0');
      const t = `${y}-${p2(mo)}-${p2(d)}T${p2(h)}:${p2(mi)}:${p2(s)}${frac}${off}`;
      expect([t, parseTimestamp(t)]).toEqual([t, Date.parse(t.replace(/(\.\d{3})\d+/, '$1'))]);
    }
    expect(parseTimestamp('2025-03-01')).toBe(Date.UTC(2025, 2, 1));
    expect(parseTimestamp('2024-02-29T00:00:00Z')).toBe(Date.UTC(2024, 1, 29));
    // a leap second is within the minute it names (RFC 3339 §5.7): its last millisecond, in any offset
    expect(parseTimestamp('2016-12-31T23:59:60Z')).toBe(Date.UTC(2016, 11, 31, 23, 59, 59, 999));
    expect(parseTimestamp('2016-12-31T23:59:60.5Z')).toBe(Date.UTC(2016, 11, 31, 23, 59, 59, 999));
    expect(parseTimestamp('2016-12-31T18:59:60-05:00')).toBe(Date.UTC(2016, 11, 31, 23, 59, 59, 999));
    expect(parseTimestamp('2017-01-01T05:29:60+05:30')).toBe(Date.UTC(2016, 11, 31, 23, 59, 59, 999));
    expect(parseTimestamp('2015-06-30T23:59:60Z')).toBe(Date.UTC(2015, 5, 30, 23, 59, 59, 999));
    for (const bad of ['2025-02-29T00:00:00Z', '2025-13-01T00:00:00Z', '2025-03-01T24:00:00Z', '2025-03-01T10:00:00', '2025-03-01T10:00Z', 'soon', '2025-03-01T10:00:00+2:00', '']) {
      expect([bad, parseTimestamp(bad)]).toEqual([bad, NaN]);
    }
    expect(parseTimestamp('0099-01-01T00:00:00Z')).toBe(Date.parse('0099-01-01T00:00:00Z'));
  });

  test('a leap second falls in the bucket of the minute it names, for every width', () => {
    // widths from a millisecond to a week: the bucket of 23:59:60 is the bucket of 23:59:59.999 (computed with Date.UTC)
    const leap = ['2016-12-31T23:59:60Z', '2016-12-31T23:59:60.250Z', '2016-12-31T18:59:60-05:00'];
    const last = Date.UTC(2016, 11, 31, 23, 59, 59, 999);
    const cases: [string, number, string][] = [
      ['1d', 86_400_000, '2016-12-31T00:00:00Z'], ['1h', 3_600_000, '2016-12-31T23:00:00Z'], ['15m', 900_000, '2016-12-31T23:45:00Z'],
      ['1m', 60_000, '2016-12-31T23:59:00Z'], ['1s', 1000, '2016-12-31T23:59:59Z'], ['500ms', 500, '2016-12-31T23:59:59.500Z'],
      ['1w', 604_800_000, '2016-12-26T00:00:00Z'], // weeks from 2000-01-03, a Monday (ISO 8601, DuckDB)
    ];
    const origin = Date.UTC(2000, 0, 3);
    for (const [name, width, start] of cases) {
      expect(parseDuration(name)).toBe(width);
      expect(formatInstant(origin + Math.floor((last - origin) / width) * width)).toBe(start);
      for (const t of leap) expect([name, t, formatInstant(timeBucket(parseTimestamp(t), width))]).toEqual([name, t, start]);
    }
    // the second after it is the next day
    expect(formatInstant(timeBucket(parseTimestamp('2017-01-01T00:00:00Z'), 86_400_000))).toBe('2017-01-01T00:00:00Z');
  });

  test('epoch numbers are seconds below 1e11, milliseconds from there; durations; bucket starts in UTC', () => {
    expect(epochMs('1740808800')).toBe(1740808800000);
    expect(epochMs('1740808800123')).toBe(1740808800123);
    expect(epochMs('1740808800', 'ms')).toBe(1740808800);
    expect(epochMs('1e300')).toBeNaN();
    expect([parseDuration('15m'), parseDuration('1h'), parseDuration('1d'), parseDuration('1.5s'), parseDuration('500ms'), parseDuration('0h'), parseDuration('1y')]).toEqual([900000, 3600000, 86400000, 1500, 500, null, null]);
    expect(formatInstant(Date.UTC(2025, 2, 1, 6))).toBe('2025-03-01T06:00:00Z');
    expect(formatInstant(Date.UTC(2025, 2, 1, 6, 0, 0, 500))).toBe('2025-03-01T06:00:00.500Z');
  });
});

describe('distinct counts', () => {
  test('exact sets merge exactly; a sketch stays within its error bound and merges with sets and sketches', () => {
    const a = newDistinct(), b = newDistinct();
    for (let i = 0; i < 1000; i++) addDistinct(a, 'v' + (i % 700));
    for (let i = 500; i < 1500; i++) addDistinct(b, 'v' + i);
    mergeDistinct(a, b);
    expect(distinctValue(a)).toBe(1500);
    for (const n of [300, 5000, 60000, 250000]) {
      const x = newDistinct(), y = newDistinct();
      for (let i = 0; i < n; i++) addDistinct(i % 2 ? x : y, `k${i}`);
      toSketch(x);
      mergeDistinct(x, y); // a set into a sketch
      const v = distinctValue(x) as { value: number; estimated: boolean; error_bound: number };
      expect(v.estimated).toBe(true);
      expect(Math.abs(v.value - n)).toBeLessThanOrEqual(v.error_bound);
    }
  });
});
