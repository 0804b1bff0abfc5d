import { jsonpath } from 'json-p3';
import { caseInsensitivePattern, isPredicate, PredicateError, translatePredicate } from '../../plugins/tools-explore/src/search/predicate';

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
    expect(caseInsensitivePattern('a.b$')).toBe('[aA]\\.[bB][$]');
    // no cased character: an exact comparison, which the engine can prefilter on bytes
    expect(translatePredicate('$.zip = "69001"', false).filter).toBe('@.zip == "69001"');
    expect(translatePredicate('$.s = "Ab"', false).filter).toBe('match(@.s, "[Aa][bB]")');
    expect(translatePredicate('$.s != "Ab"', false).filter).toBe('!match(@.s, "[Aa][bB]")');
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
