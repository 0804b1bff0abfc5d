import { jsonpath } from 'json-p3';
import { caseInsensitivePattern, foldClass, isPredicate, looksLikePredicate, PredicateError, translatePredicate } from '../src/search/predicate';
import { defaultMode } from '../src/search/search';

/** Evaluates a translated predicate the way the explorer does: `$[?filter]` on a one-element array holding the record. */
function matches(query: string, record: unknown, matchCase = false): boolean {
  const { filter } = translatePredicate(query, matchCase);
  return jsonpath.query(`$[?${filter}]`, [record] as never).values().length > 0;
}

const people = [
  { id: 1, name: 'Alice', age: 30, status: 'active', tags: ['a', 'b', 'c'], bytes: 2048 },
  { id: 2, name: 'bob', age: 45, status: 'DONE', tags: [], bytes: 10 },
  { id: 3, name: 'Élodie', age: 41, status: 'Active', user: { name: 'alice' } },
];
const which = (q: string, matchCase = false) => people.filter((p) => matches(q, p, matchCase)).map((p) => p.id);

describe('record predicates → RFC 9535 filters', () => {
  test('Thoth forms: = with a JSON literal, a single-quoted string, a bare word, == ', () => {
    expect(translatePredicate('$.age = 30', false)).toEqual({ filter: '@.age == 30', paths: ['$.age'] });
    expect(which('$.age = 30')).toEqual([1]);
    expect(which('$.status = "active"')).toEqual([1, 3]);
    expect(which("$.user.name == 'ALICE'")).toEqual([3]);
    expect(which('$.status = done')).toEqual([2]);
    expect(which('$.status = "active"', true)).toEqual([1]);
  });

  test('comparisons, logic, negation, existence, functions, parentheses', () => {
    expect(which('$.age > 40')).toEqual([2, 3]);
    expect(which('$.status != "done" && $.bytes >= 1024')).toEqual([1]);
    expect(which('!($.tags)')).toEqual([3]);
    expect(which('length($.tags) > 2')).toEqual([1]);
    expect(which('($.age < 35 || $.age > 44) && $.tags')).toEqual([1, 2]);
    expect(which('$.age >= 41 and not $.user')).toEqual([2]);
    expect(which('$["status"] = \'Done\'')).toEqual([2]);
  });

  test('case folding is Unicode: É equals é', () => {
    expect(which('$.name = "élodie"')).toEqual([3]);
    expect(which('$.name = "ÉLODIE"', true)).toEqual([]);
    expect(caseInsensitivePattern('a.b$')).toBe('[Aa]\\.[Bb][$]');
    // no cased character: an exact comparison, which the engine can prefilter on bytes
    expect(translatePredicate('$.zip = "69001"', false).filter).toBe('@.zip == "69001"');
    expect(translatePredicate('$.s = "Ab"', false).filter).toBe('match(@.s, "[Aa][Bb]")');
    expect(translatePredicate('$.s != "Ab"', false).filter).toBe('!match(@.s, "[Aa][Bb]")');
  });

  test('folding classes are Unicode simple case folding (CaseFolding.txt C+S), not lower/upper mapping', () => {
    const cls = (ch: string) => foldClass(ch.codePointAt(0)!).map((cp) => String.fromCodePoint(cp)).join('');
    expect(cls('σ')).toBe('Σςσ'); // final sigma folds to σ
    expect(cls('ς')).toBe('Σςσ');
    expect(cls('k')).toBe('Kk\u212A'); // KELVIN SIGN
    expect(cls('s')).toBe('Ssſ'); // LONG S
    expect(cls('ß')).toBe('ßẞ'); // CAPITAL SHARP S folds to ß (ß → SS is a full folding, not simple)
    expect(cls('ı')).toBe('ı'); // dotless i: only a Turkic (T) folding
    expect(cls('İ')).toBe('İ');
    expect(cls('i')).toBe('Ii');
    expect(cls('µ')).toBe('µΜμ'); // MICRO SIGN folds to μ
    expect(cls('\u2126')).toBe('\u03A9\u03C9\u2126'); // OHM SIGN
    expect(cls('𐐀')).toBe('𐐀𐐨'); // Deseret, beyond the BMP
    expect(cls('7')).toBe('7');
    expect(caseInsensitivePattern('ΟΔΟΣ')).toBe('[Οο][Δδ][Οο][Σςσ]');
    expect(which('$.name = "ÉLODIE"')).toEqual([3]);
    const fold = [{ w: 'ΟΔΟΣ' }, { w: 'οδος' }, { w: 'οδοσ' }, { w: 'K' }, { w: 'STRAẞE' }, { w: 'ilik' }, { w: 'ılık' }];
    const hits = (q: string) => fold.filter((r) => matches(q, r)).map((r) => r.w);
    expect(hits('$.w = "οδος"')).toEqual(['ΟΔΟΣ', 'οδος', 'οδοσ']);
    expect(hits('$.w = "k"')).toEqual(['K']);
    expect(hits('$.w = "straße"')).toEqual(['STRAẞE']);
    expect(hits('$.w = "ılık"')).toEqual(['ılık']);
    expect(hits('$.w = "ILIK"')).toEqual(['ilik']);
  });

  test('without mode, a query is a predicate when it parses as one and reads the record; else text', () => {
    for (const q of ['!($.tags)', 'length($.tags) > 2', 'not $.a', '($.a)', 'count($.items[*]) >= 1 && $.b', '"x" = $.a']) {
      expect({ q, predicate: looksLikePredicate(q), mode: defaultMode(q, false) }).toEqual({ q, predicate: true, mode: 'jsonpath' });
    }
    for (const q of ['error', 'a = b', '50% off', 'length > 2', '(a)', '@home', 'x && y', '!!!', 'not found', 'status: $.x', 'σ']) {
      expect({ q, predicate: looksLikePredicate(q), mode: defaultMode(q, false) }).toEqual({ q, predicate: false, mode: 'text' });
    }
    expect(defaultMode('$.a', false)).toBe('jsonpath');
    expect(defaultMode('length($.a) > 2', true)).toBe('text'); // regex: true is text search
  });

  test('regex metacharacters in a value are literal', () => {
    const rec = { v: 'a+b (c)?' };
    expect(matches('$.v = "A+B (C)?"', rec)).toBe(true);
    expect(matches('$.v = "a+bb (c)"', rec)).toBe(false);
  });

  test('plain JSONPath queries are not predicates', () => {
    expect(isPredicate('$.user.name')).toBe(false);
    expect(isPredicate("$.items[?@.price > 10]")).toBe(false);
    expect(isPredicate("$['a b'][0]")).toBe(false);
    expect(isPredicate('$..name')).toBe(false);
    expect(isPredicate('$.age > 4')).toBe(true);
    expect(isPredicate('!($.tags)')).toBe(true);
  });

  test('syntax errors carry the character position', () => {
    expect(() => translatePredicate('$.age >', false)).toThrow(PredicateError);
    let caught: unknown = null;
    try { translatePredicate('$.age = = 3', false); } catch (e) { caught = e; }
    expect(caught).toBeInstanceOf(PredicateError);
    expect((caught as PredicateError).position).toBe(8);
    expect(() => translatePredicate('$.a = "x', false)).toThrow('Unterminated string');
    expect(() => translatePredicate('30', false)).toThrow('comparison operator');
  });
});
