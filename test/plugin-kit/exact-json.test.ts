/**
 * The plugin kit's exact numbers for third-party languages (src/plugin-kit/exact-json.ts): numbers a double holds are
 * numbers, the others `JSON.rawJSON(lexeme)`. Expected values by hand: 2^53 = 9007199254740992 is the last integer
 * before doubles skip odd integers; 1.0, 1e3 and 0.1 are the values of the doubles 1, 1000 and 0.1's shortest spelling.
 */
import { libraryNumbers, parseExactJson } from '../../src/plugin-kit/index';

const raw = (v: unknown): string | undefined => (JSON.isRawJSON(v) ? (v as { rawJSON: string }).rawJSON : undefined);

describe('parseExactJson', () => {
  test('numbers a double holds are numbers; the others are JSON.rawJSON of their lexeme, written back digit for digit', () => {
    const text = '{"big":9007199254740993,"edge":9007199254740992,"one":1.0,"k":1e3,"tenth":0.1,"long":0.10000000000000000001,"huge":1e400,"neg":-0,"list":[12345678901234567891,2]}';
    const v = parseExactJson(text) as Record<string, unknown>;
    expect(raw(v.big)).toBe('9007199254740993');
    expect(v.edge).toBe(9007199254740992);
    expect(v.one).toBe(1);
    expect(v.k).toBe(1000);
    expect(v.tenth).toBe(0.1);
    expect(raw(v.long)).toBe('0.10000000000000000001');
    expect(raw(v.huge)).toBe('1e400');
    expect(Object.is(v.neg, -0)).toBe(true);
    expect(raw((v.list as unknown[])[0])).toBe('12345678901234567891');
    expect((v.list as unknown[])[1]).toBe(2);
    expect(JSON.stringify(v)).toBe('{"big":9007199254740993,"edge":9007199254740992,"one":1,"k":1000,"tenth":0.1,"long":0.10000000000000000001,"huge":1e400,"neg":0,"list":[12345678901234567891,2]}');
  });

  test('members keep the text\'s order, names like array indexes too; syntax errors are JSON.parse\'s; depth is bounded', () => {
    expect(Object.keys(parseExactJson('{"b":1,"2":2,"a":3}') as object)).toEqual(['b', '2', 'a']);
    expect(() => parseExactJson('{"a":')).toThrow(SyntaxError);
    expect(() => parseExactJson('['.repeat(3001) + ']'.repeat(3001))).toThrow(/maxDepth 2000/);
    expect(parseExactJson('['.repeat(10) + ']'.repeat(10), { maxDepth: 10 })).toEqual([[[[[[[[[[]]]]]]]]]]);
  });
});

describe('libraryNumbers', () => {
  test('turns the engine\'s rawJSON numbers a double holds into numbers, keeps the rest, never writes the value given', () => {
    const engine = { a: JSON.rawJSON('1.0'), b: [JSON.rawJSON('1e3'), JSON.rawJSON('9007199254740993')], c: { d: 'x', e: JSON.rawJSON('0.10000000000000000001') } };
    const before = JSON.stringify(engine);
    const lib = libraryNumbers(engine) as Record<string, any>;
    expect(lib.a).toBe(1);
    expect(lib.b[0]).toBe(1000);
    expect(raw(lib.b[1])).toBe('9007199254740993');
    expect(raw(lib.c.e)).toBe('0.10000000000000000001');
    expect(lib.c.e).toBe(engine.c.e);
    expect(JSON.stringify(engine)).toBe(before);
    expect(Array.isArray(lib.b)).toBe(true);
    const plain = { x: [1, 'a', null] };
    expect(libraryNumbers(plain)).toBe(plain);
    expect(libraryNumbers(JSON.rawJSON('2.50'))).toBe(2.5);
  });

  test('a member named __proto__ stays an own member; any depth', () => {
    const v = JSON.parse('{"__proto__":{"n":1}}');
    (v as Record<string, unknown>).k = JSON.rawJSON('1.0');
    const lib = libraryNumbers(v) as Record<string, unknown>;
    expect(Object.keys(lib)).toEqual(['__proto__', 'k']);
    expect(lib.k).toBe(1);
    let deep: unknown = JSON.rawJSON('3.0');
    for (let i = 0; i < 100_000; i++) deep = [deep];
    let out = libraryNumbers(deep);
    for (let i = 0; i < 100_000; i++) out = (out as unknown[])[0];
    expect(out).toBe(3);
  });
});
