import * as fs from 'node:fs';
import * as path from 'node:path';
import type { PathToken } from '../../../src/plugin-api/index';
import { tokenIndex } from '../../../src/engine/paths/path-token';
import { parsePath, toPointer } from '../src/json/paths';
import { children, compact, forEachToken, spanAt, type Token } from '../src/json/scan';
import { inferSchema } from '../src/json/schema';
import { inferWithinBudget } from '../src/json/schema-budget';
import { codePointCompare, lexemeIsInteger, sampleIndexes, typeOf, valuesAt } from '../src/json/values';
import { TextMatcher } from '../src/search/text-matcher';
import { tokenPreview } from '../src/text/preview';

describe('paths: dot form, JSON Pointer, $-JSONPath', () => {
  test.each([
    ['user.address.city', ['user', 'address', 'city']],
    ['items[2].name', ['items', 2, 'name']],
    ['items[-1]', ['items', -1]],
    ["['a.b'].c", ['a.b', 'c']],
    ['a["x]y"][0]', ['a', 'x]y', 0]],
    ['/user/address/city', ['user', 'address', 'city']],
    ['/a~1b/~0c/0', ['a/b', '~c', '0']],
    ['/', ['']],
    ['', []],
    ['$', []],
    // JSONPath selectors keep their kind (RFC 9535 §2.3.1 name, §2.3.3 index); dot paths and pointers decide by the value
    ["$.user['address'].city", [{ name: 'user' }, { name: 'address' }, { name: 'city' }]],
    ['$.items[2]', [{ name: 'items' }, { index: 2 }]],
    ['$.t[-1]', [{ name: 't' }, { index: -1 }]],
    ['$.t["0"]', [{ name: 't' }, { name: '0' }]],
    ["@['0'][0]", [{ name: '0' }, { index: 0 }]],
    ['t[0]', ['t', 0]],
    ['t.0', ['t', '0']],
    ["t['0']", ['t', '0']],
  ] as [string, PathToken[]][])('%s', (p, tokens) => {
    expect(parsePath(p)).toEqual({ tokens });
  });

  test('non-singular JSONPath is left to the query language', () => {
    expect(parsePath('$..name')).toEqual({ jsonpath: '$..name' });
    // not RFC 9535 indexes (leading zero, -0) nor a member-name shorthand: the query language says why
    expect(parsePath('$.t[01]')).toEqual({ jsonpath: '$.t[01]' });
    expect(parsePath('$.t[-0]')).toEqual({ jsonpath: '$.t[-0]' });
    expect(parsePath('$.t.0')).toEqual({ jsonpath: '$.t.0' });
    expect(parsePath('$.items[*].id')).toEqual({ jsonpath: '$.items[*].id' });
  });

  test('bad paths throw with a position', () => {
    expect(() => parsePath('items[2')).toThrow('Expected "]"');
    expect(() => parsePath("['a")).toThrow('Unterminated');
    expect(() => parsePath('/a~2')).toThrow('escape');
  });

  test('toPointer escapes ~ and / (RFC 6901 §3)', () => {
    expect(toPointer(['a/b', '~c', 0])).toBe('/a~1b/~0c/0');
    expect(toPointer([{ name: 'a/b' }, { index: 0 }, { name: '0' }])).toBe('/a~1b/0/0');
  });
});

describe('scanners over record text', () => {
  const text = '{ "a" : {"b": [10, 20.50, {"c": "x\\"y"}]}, "n": 12345678901234567891, "a.b": true, "d": 1, "d": 2 }';

  test('spanAt keeps lexemes; last duplicate wins; negative indexes; missing depth', () => {
    const at = (t: (string | number)[]) => {
      const s = spanAt(text, t);
      return 'start' in s ? text.slice(s.start, s.end) : s;
    };
    expect(at(['a', 'b', 1])).toBe('20.50');
    expect(at(['a', 'b', -1, 'c'])).toBe('"x\\"y"');
    expect(at(['n'])).toBe('12345678901234567891');
    expect(at(['a.b'])).toBe('true');
    expect(at(['d'])).toBe('2');
    expect(at(['a', 'b', '0'])).toBe('10');
    expect(at(['a', 'zz'])).toEqual({ missing: 1 });
    expect(at(['a', 'b', 5])).toEqual({ missing: 2 });
  });

  test('compact drops whitespace outside strings only', () => {
    expect(compact('{ "a b" : [ 1 , "x  y" ] }')).toBe('{"a b":[1,"x  y"]}');
  });

  test('children lists members in order with key spans', () => {
    expect([...children(text, 0)].map((c) => c.key)).toEqual(['a', 'n', 'a.b', 'd', 'd']);
  });

  test('forEachToken visits names before values, in document order, with pointers', () => {
    const seen: string[] = [];
    forEachToken('{"a":[1,{"b~/":null}],"c":"s"}', (t: Token) => void seen.push(`${t.kind} ${t.pointer}`));
    expect(seen).toEqual(['key /a', 'number /a/0', 'key /a/1/b~0~1', 'literal /a/1/b~0~1', 'key /c', 'string /c']);
  });

  test('forEachToken survives deep nesting without recursion', () => {
    const deep = '['.repeat(100000) + '"x"' + ']'.repeat(100000);
    let last: Token | null = null;
    forEachToken(deep, (t) => void (last = t));
    expect(last!.kind).toBe('string');
  });
});

describe('values', () => {
  test('integer is decided on the lexeme (JSON Schema §6.1.1)', () => {
    expect(lexemeIsInteger('1')).toBe(true);
    expect(lexemeIsInteger('1.0')).toBe(true);
    expect(lexemeIsInteger('1.5e1')).toBe(true);
    expect(lexemeIsInteger('1.25e1')).toBe(false);
    expect(lexemeIsInteger('12345678901234567891')).toBe(true);
    expect(lexemeIsInteger('0.1000000000000000000001')).toBe(false);
    expect(typeOf(JSON.rawJSON('12345678901234567891'))).toBe('integer');
    expect(typeOf(JSON.rawJSON('0.1000000000000000000001'))).toBe('number');
    expect(typeOf(2.5)).toBe('number');
  });

  test('sample indexes: even = floor(i·(total−1)/(count−1))', () => {
    expect(sampleIndexes(10, 3, 'even')).toEqual([0, 4, 9]);
    expect(sampleIndexes(10, 1, 'even')).toEqual([0]);
    expect(sampleIndexes(10, 4, 'even')).toEqual([0, 3, 6, 9]);
    expect(sampleIndexes(3, 5, 'even')).toEqual([0, 1, 2]);
    expect(sampleIndexes(10, 3, 'first')).toEqual([0, 1, 2]);
    expect(sampleIndexes(10, 3, 'last')).toEqual([7, 8, 9]);
    expect(sampleIndexes(0, 3, 'even')).toEqual([]);
  });

  test('valuesAt descends into arrays of objects', () => {
    const v = { items: [{ name: 'a' }, { x: 1 }, { name: 'b' }], user: { tags: ['t'] } };
    expect(valuesAt(v, ['items', 'name'])).toEqual(['a', 'b']);
    expect(valuesAt(v, ['items', 1, 'x'])).toEqual([1]);
    expect(valuesAt(v, ['items', 'name'], false)).toEqual([]);
    expect(valuesAt(v, ['user', 'tags', -1])).toEqual(['t']);
  });

  test('one rule for index tokens in every navigator (RFC 6901 §4): the value decides; "01", "-1" and "-" are no index', () => {
    const text = '{"tags":["a","b"],"o":{"0":"zero","01":"z1","-1":"m1"},"n":{"x":[{"0":"e0"},["f0"]]}}';
    const v = JSON.parse(text);
    const span = (t: (string | number)[]) => { const s = spanAt(text, t); return 'start' in s ? JSON.parse(text.slice(s.start, s.end)) : undefined; };
    const cases: [(string | number)[], unknown][] = [
      [['tags', '0'], 'a'], [['tags', 0], 'a'], [['tags', -1], 'b'], [['tags', '-1'], undefined], [['tags', '01'], undefined], [['tags', '-'], undefined], [['tags', '2'], undefined],
      [['o', '0'], 'zero'], [['o', 0], 'zero'], [['o', '01'], 'z1'], [['o', '-1'], 'm1'], [['o', -1], 'm1'],
      [['n', 'x', '0', '0'], 'e0'], [['n', 'x', 1, '0'], 'f0'],
    ];
    for (const [t, want] of cases) {
      expect([t, span(t)]).toEqual([t, want]);
      expect([t, valuesAt(v, t, false)]).toEqual([t, want === undefined ? [] : [want]]);
    }
    expect(['0', '7', '10', 3, -2, '01', '-1', '-', '', '1e1', ' 1'].map(tokenIndex)).toEqual([0, 7, 10, 3, -2, NaN, NaN, NaN, NaN, NaN, NaN]);
  });

  test('JSONPath selectors keep their kind in every navigator: [0] selects nothing in an object, ["0"] nothing in an array (RFC 9535 §2.3.1, §2.3.3)', () => {
    const text = '{"tags":["a","b"],"o":{"0":"zero","-1":"m1"},"items":[{"name":"x"}]}';
    const v = JSON.parse(text);
    const span = (t: PathToken[]) => { const s = spanAt(text, t); return 'start' in s ? JSON.parse(text.slice(s.start, s.end)) : undefined; };
    const cases: [PathToken[], unknown][] = [
      [['tags', { index: 0 }], 'a'], [['tags', { index: -1 }], 'b'], [['tags', { name: '0' }], undefined],
      [['o', { index: 0 }], undefined], [['o', { index: -1 }], undefined], [['o', { name: '0' }], 'zero'], [['o', { name: '-1' }], 'm1'],
      [[{ name: 'tags' }, { index: 1 }], 'b'], [[{ index: 0 }], undefined],
    ];
    for (const [t, want] of cases) {
      expect([t, span(t)]).toEqual([t, want]);
      expect([t, valuesAt(v, t, false)]).toEqual([t, want === undefined ? [] : [want]]);
      expect([t, valuesAt(v, t)]).toEqual([t, want === undefined ? [] : [want]]);
    }
    // a dot path's name descends into an array's objects (Thoth); a JSONPath name selector does not
    expect(valuesAt(v, ['items', 'name'])).toEqual(['x']);
    expect(valuesAt(v, [{ name: 'items' }, { name: 'name' }])).toEqual([]);
  });

  test('keys sort by code point (as Thoth, in Rust), not by UTF-16 unit', () => {
    expect(['\u{1F600}', '\uFF21', 'b', 'B'].sort(codePointCompare)).toEqual(['B', 'b', '\uFF21', '\u{1F600}']);
  });
});

describe('schema inference: field case C14', () => {
  const dir = path.join(__dirname, '..', '..', '..', 'test', 'fixtures', 'cases', 'C14');
  const spec = JSON.parse(fs.readFileSync(path.join(dir, 'case.json'), 'utf8'));
  const records = fs.readFileSync(path.join(dir, spec.input), 'utf8').trim().split('\n').map((l) => JSON.parse(l));

  /** C14's compare rule: type arrays and required lists order-insensitive; extra annotations allowed. */
  function normalize(s: any): any {
    if (Array.isArray(s)) return s.map(normalize);
    if (s === null || typeof s !== 'object') return s;
    const out: any = {};
    for (const [k, v] of Object.entries(s)) {
      if (k.startsWith('x-')) continue;
      out[k] = (k === 'type' || k === 'required') && Array.isArray(v) ? [...v].sort() : normalize(v);
    }
    return out;
  }

  test('matches the expected schema over all 3 records', () => {
    expect(normalize(inferSchema(records))).toEqual(normalize(spec.expected));
  });

  test('optional members report how often they appear', () => {
    const s = inferSchema(records) as any;
    expect(s.properties.meta['x-occurrences']).toBe(1);
    expect(s.properties.extra).toMatchObject({ type: 'boolean', 'x-occurrences': 1, 'x-frequency': 0.333 });
    expect(s.properties.id['x-occurrences']).toBeUndefined();
  });

  test('integer then number is number; nested arrays of objects get items with required', () => {
    const s = inferSchema([{ v: 1, a: [{ p: 1, q: 'x' }, { p: 2 }] }, { v: 1.5, a: [] }]) as any;
    expect(s.properties.v.type).toBe('number');
    expect(s.properties.a.items).toMatchObject({ type: 'object', required: ['p'] });
  });
});

describe('text search over decoded names and values', () => {
  const m = (q: string, text: string, matchCase = false) => {
    const hit = new TextMatcher(q, matchCase).match(text);
    return hit && { pointer: hit.token.pointer, kind: hit.token.kind, preview: tokenPreview(text, hit.token, hit.decoded, hit.start, hit.end) };
  };

  test('a file storing \\u00e9 matches "é", and É matches é', () => {
    expect(m('é', '{"city":"Caf\\u00e9"}')).toEqual({ pointer: '/city', kind: 'string', preview: { text: '{"city":"Caf«é»"}', markers: [12, 14] } });
    expect(m('CAFÉ', '{"city":"Café"}')).toMatchObject({ pointer: '/city' });
    expect(m('CAFÉ', '{"city":"Café"}', true)).toBeNull();
  });

  test('keys match and point at their member; first in document order', () => {
    expect(m('nam', '{"id":1,"name":"x","other":"name"}')).toMatchObject({ pointer: '/name', kind: 'key' });
  });

  test('structure and raw escapes never match', () => {
    expect(m('":', '{"a":1}')).toBeNull();
    expect(m('u00e9', '{"a":"\\u00e9"}')).toBeNull();
    expect(m('n', '{"a":"x\\ny"}')).toBeNull();
    expect(m('\n', '{"a":"x\\ny"}')).toMatchObject({ pointer: '/a' });
  });

  test('numbers and literals match by lexeme', () => {
    expect(m('28', '{"age":28}')).toMatchObject({ pointer: '/age', kind: 'number', preview: { text: '{"age":«28»}', markers: [7, 10] } });
    expect(m('TRUE', '{"ok":[false,true]}')).toMatchObject({ pointer: '/ok/1' });
  });

  test('previews are bounded and marked', () => {
    const long = `{"a":"${'x'.repeat(500)}needle${'y'.repeat(500)}"}`;
    const p = m('needle', long)!.preview;
    // 20 characters of context either side
    expect(p).toEqual({ text: `…${'x'.repeat(20)}«needle»${'y'.repeat(20)}…`, markers: [0, 21, 28, 49] });
  });
});

describe('schema inference within a budget (level by level)', () => {
  const dir = path.join(__dirname, '..', '..', '..', 'test', 'fixtures', 'cases', 'C14');
  const spec = JSON.parse(fs.readFileSync(path.join(dir, 'case.json'), 'utf8'));
  const records = fs.readFileSync(path.join(dir, spec.input), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  const roomy = { maxDepth: 16, maxBytes: 1 << 20, until: Number.POSITIVE_INFINITY, maxProps: 1000 };

  test('with room and time it describes what inferSchema describes (C14)', () => {
    const r = inferWithinBudget(records, roomy);
    expect(r.schema).toEqual(inferSchema(records));
    expect(r.stopped).toBeUndefined();
  });

  test('out of time from the start: the root and its members by type (an answer of the bare root type says nothing), depth 1, said', () => {
    const r = inferWithinBudget([{ a: { b: 1 }, c: 'x' }, { a: { b: 2 } }], { ...roomy, until: 0 });
    expect(r).toMatchObject({ depth: 1, stopped: 'time' });
    expect(r.schema).toEqual({ type: 'object', properties: { a: { type: 'object' }, c: { type: 'string', 'x-occurrences': 1, 'x-frequency': 0.5 } }, required: ['a'] });
  });

  test('a level that would pass the byte budget is not described', () => {
    const wide = [{ a: Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`member${i}`, i])) }];
    const r = inferWithinBudget(wide, { ...roomy, maxBytes: 200 });
    expect(r).toMatchObject({ depth: 1, stopped: 'bytes', schema: { type: 'object', properties: { a: { type: 'object' } }, required: ['a'] } });
  });

  test('long arrays are described from 256 elements spread evenly, and say so', () => {
    const arr = Array.from({ length: 1000 }, (_, i) => (i === 999 ? 'last' : i));
    const r = inferWithinBudget([arr], roomy);
    expect(r.sampledArrays).toBe(true);
    expect(r.schema).toEqual({ type: 'array', items: { type: ['integer', 'string'] } }); // element 999 is one of the 256
  });
});
