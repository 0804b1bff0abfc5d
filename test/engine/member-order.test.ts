/**
 * Member order as the file has it: a JavaScript object lists names like array indexes ("2") first, so a plain parse
 * writes `{"b":1,"2":2}` back as `{"2":2,"b":1}`. The reference is the file itself: for compact JSON text, the value
 * written back must be the text (records/member-order.ts).
 */
import { parseExact } from '../../src/engine/records/parse';
import { parseRecord } from '../../src/engine/scan/fast-parse';
import { hasIndexLikeName, restoreMemberOrder } from '../../src/engine/records/member-order';

const site = () => ({ byteOffset: 0, line: 1, column: 1, recordIndex: 0, maxDepth: 2000 });
const many = '{' + Array.from({ length: 40 }, (_, k) => `"${k % 2 ? `k${k}` : 40 - k}":${k}`).join(',') + '}';

const TEXTS = [
  '{"b":1,"2":2,"a":3}',
  '{"z":{"10":1,"x":2,"1":3},"0":[{"b":0,"4294967294":1},{"a":1,"0":2}]}',
  '[{"x":1,"1":{"y":2,"0":{"q":1,"7":2}}}]',
  '{"01":1,"1":2,"-1":3,"a":4,"4294967295":5,"9":6}',
  '{"s":"\\"1\\":x","3":3}',
  '{"name":12345678901234567890,"5":1.50}',
  '{"__proto__":{"b":1,"0":2},"1":1}',
  many,
];

describe('parsed values keep the file order of their members', () => {
  test.each(TEXTS.map((t) => [t.slice(0, 30), t]))('parseExact %s', (_, text) => {
    expect(JSON.stringify(parseExact(text, site, 2000))).toBe(text);
  });
  test.each(TEXTS.map((t) => [t.slice(0, 30), t]))('parseRecord (the scans) %s', (_, text) => {
    expect(JSON.stringify(parseRecord(text, 2000, site))).toBe(text);
  });

  test('Object.keys, for…in and member access follow the file', () => {
    const v = parseExact('{"b":1,"2":2,"a":{"1":"x","c":[3]}}', site, 2000) as Record<string, any>;
    expect(Object.keys(v)).toEqual(['b', '2', 'a']);
    const seen: string[] = [];
    for (const k in v) seen.push(k);
    expect(seen).toEqual(['b', '2', 'a']);
    expect(v['2']).toBe(2);
    expect(v.a['1']).toBe('x');
    expect(Object.keys(v.a)).toEqual(['1', 'c']);
  });

  test('whitespace between tokens does not change the order found', () => {
    const v = parseExact(' { "b" : 1 ,\n "2" :\t[ { "y" : 0 , "1" : 1 } ] } ', site, 2000);
    expect(JSON.stringify(v)).toBe('{"b":1,"2":[{"y":0,"1":1}]}');
  });

  test('a repeated name keeps its first place and its last value (as JSON.parse)', () => {
    expect(JSON.stringify(parseExact('{"b":1,"2":2,"b":3}', site, 2000))).toBe('{"b":3,"2":2}');
    // The earlier value of a repeated name differs in kind from the last: an object, then an exact number or an array.
    const a = parseExact('{"a":{"0":null,"b":1},"\\u0061":1e5}', site, 2000) as Record<string, unknown>;
    expect(JSON.isRawJSON(a.a)).toBe(true);
    expect(JSON.stringify(a)).toBe('{"a":1e5}');
    expect(JSON.stringify(parseExact('{"a":{"1":0,"x":1},"a":[{"y":2,"0":3}]}', site, 2000))).toBe('{"a":[{"y":2,"0":3}]}');
    expect(JSON.stringify(parseExact('{"a":[1,2],"a":{"y":2,"0":3}}', site, 2000))).toBe('{"a":{"y":2,"0":3}}');
  });

  test('a member added or removed after the parse is listed, the file names first', () => {
    const v = parseExact('{"b":1,"2":2}', site, 2000) as Record<string, unknown>;
    v.c = 3;
    delete v.b;
    expect(JSON.stringify(v)).toBe('{"2":2,"c":3}');
  });

  test('only texts with an index-like name pay for the walk', () => {
    expect(hasIndexLikeName('{"a":1,"b":[1,2]}')).toBe(false);
    expect(hasIndexLikeName('{"a":{"0" : 1}}')).toBe(true);
    const plain = JSON.parse('{"a":{"b":1}}');
    expect(restoreMemberOrder('{"a":{"b":1}}', plain)).toBe(plain);
  });
});
