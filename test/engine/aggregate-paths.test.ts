/**
 * The aggregate engine's paths into arrays and objects decide by the value's type (RFC 6901 §4): a token of digits
 * (`"0"`, as a JSON Pointer or a dot path gives it) or a number (`[0]`) is an element of an array and the member of
 * that name in an object; an RFC 9535 index selector (`{index}`, JSONPath `[0]`) is an element of an array only, a
 * name selector (`{name}`, JSONPath `['0']`) a member of an object only. Checked against a resolver written here on records that mix both (arrays, objects with
 * numeric member names, escaped and repeated names, array records, nested arrays), for group keys, every metric and
 * a bucket; on JSON Lines, a top-level array and a single document's `$.items[*]`; on this thread and on worker
 * threads; read from bytes, from a parsed record (a where), and again from records already checked.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import json from '../../plugins/format-json/src/index';
import jsonl from '../../plugins/format-jsonl/src/index';
import type { AggregateDimension, AggregateMetric, AggregateOptions, AggregateResult, Format, PathTokens, QueryLanguage, RecordSource } from '../../src/kernel/contracts';
import type { QueryScanEngine } from '../../src/engine/scan';
import { fileService, formatsOf } from '../helpers/formats';
import { aggregateEngine, engine, jsonpath } from '../helpers/query';
import { add, cmp, key as ratKey, lex, lexemeOf, rat, type Rat } from '../helpers/exact';

let dir: string;
let formats: Format[];
let jp: QueryLanguage;
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-aggregate-paths-'));
  formats = [...(await formatsOf(jsonl)), ...(await formatsOf(json))];
  jp = await jsonpath();
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Records (JSON text) that hold the same tokens as array indexes in some and as member names in others. */
const RECORDS = [
  '{"tags":["a","b","c"],"o":{"0":"zero","1":"one"},"arr":[[1,2],[3]],"n":[10,"x"]}',
  '{"tags":{"0":"member-zero","00":"double","-1":"minus"},"o":["el0","el1"],"arr":[],"n":{"0":4}}',
  '{"id":2}',
  '{"tags":[],"o":{},"arr":[[5]],"n":[2.5]}',
  '{"tags":["z"],"o":{"0":7},"arr":[["q",1]],"n":[-1]}',
  '["top0",{"0":"m0"},[["deep"]]]',
  '{"0":"objtop","1":{"0":"m1"},"2":[["d2"]]}',
  '{"tags":["a"],"o":{"0":"first","0":"last"},"n":[12345678901234567890123]}',
  '{"tags":{"\\u0030":"esc-zero"},"o":{"\\u0031":"esc-one"},"arr":[[0.5e1,"p"]],"n":["7"]}',
  '[]',
  '"scalar"',
  '{"tags":"not-a-container","o":null,"arr":[[null]],"n":[1e2]}',
];

/** The records as this test reads them: numbers kept as their lexemes. */
type Val = null | boolean | string | { lex: string } | Val[] | { [k: string]: Val };
const isLex = (v: unknown): v is { lex: string } => v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 1 && typeof (v as { lex?: unknown }).lex === 'string';
const parsed = RECORDS.map((t) => JSON.parse(t, (_k, v, c?: { source?: string }) => (typeof v === 'number' ? { lex: c!.source! } : v)) as Val);

/**
 * RFC 6901 §4 as this test reads it: in an array, a number (negative from the end) or a string of array-index form;
 * in an object, the member named by the token as a string. RFC 9535 as it reads it: `{index}` (§2.3.3) an element of
 * an array only (negative from the end), `{name}` (§2.3.1) a member of an object only.
 */
function resolve(v: Val | undefined, p: PathTokens): Val | undefined {
  for (const t of p) {
    if (v === undefined || v === null || typeof v !== 'object' || isLex(v)) return undefined;
    if (Array.isArray(v)) {
      let i: number;
      if (typeof t === 'object') {
        if (!('index' in t)) return undefined;
        i = t.index < 0 ? v.length + t.index : t.index;
      } else i = typeof t === 'number' ? (t < 0 ? v.length + t : t) : /^(0|[1-9][0-9]*)$/.test(t) ? Number(t) : -1;
      if (i < 0 || i >= v.length) return undefined;
      v = v[i];
    } else {
      if (typeof t === 'object' && !('name' in t)) return undefined;
      const name = typeof t === 'object' ? t.name : String(t);
      if (!Object.prototype.hasOwnProperty.call(v, name)) return undefined;
      v = v[name];
    }
  }
  return v;
}

const tkey = (v: Val | undefined): string => (v === undefined ? 'missing' : v === null ? 'null' : typeof v === 'boolean' ? String(v) : typeof v === 'string' ? 's:' + v : isLex(v) ? 'n:' + ratKey(lex(v.lex)) : 'j:' + JSON.stringify(v));
const rkey = (v: unknown, missing: boolean): string => (missing ? 'missing' : v === null ? 'null' : typeof v === 'boolean' ? String(v) : typeof v === 'string' ? 's:' + v : 'n:' + ratKey(lex(lexemeOf(v))));

/** Each path in the forms the explorer's path parser gives (pointer and dot tokens as strings, brackets as numbers). */
const PATHS: PathTokens[] = [
  ['tags', '0'], ['tags', 0], ['tags', -1], ['tags', '-1'], ['tags', '00'], ['tags', '2'],
  ['o', '0'], ['o', 0], ['o', '1'],
  ['arr', '0', '0'], ['arr', 0, 0], ['arr', '0', 1], ['arr', 0, '1'],
  ['0'], [0], ['1', '0'], [1, 0], ['2', '0', '0'], [2, 0, 0], [-1, 0, 0],
  ['n', '0'], ['n', 0],
  // JSONPath selectors (the explorer's parser gives them for $-paths): index only, name only
  [{ name: 'tags' }, { index: 0 }], ['tags', { index: -1 }], ['tags', { name: '0' }], ['tags', { name: '-1' }], ['tags', { index: 2 }],
  ['o', { index: 0 }], ['o', { name: '0' }], ['o', { index: 1 }], ['o', { name: '1' }],
  ['arr', { index: 0 }, { index: 0 }], ['arr', { name: '0' }, 0], ['arr', 0, { name: '1' }],
  [{ index: 0 }], [{ name: '0' }], [{ name: '1' }, { name: '0' }], [{ index: 1 }, { index: 0 }], [{ name: '2' }, { index: 0 }, 0], [{ index: -1 }, { index: 0 }, 0],
  ['n', { index: 0 }], ['n', { name: '0' }], [{ name: 'id' }],
];

function expectedCounts(values: Val[], p: PathTokens): Map<string, number> {
  const m = new Map<string, number>();
  for (const v of values) { const k = tkey(resolve(v, p)); m.set(k, (m.get(k) ?? 0) + 1); }
  return m;
}

/** The numbers at `p` (exact), the strings there, and the distinct values (absent members left out). */
function expectedMetrics(values: Val[], p: PathTokens) {
  const found = values.map((v) => resolve(v, p)).filter((x) => x !== undefined);
  const nums = found.filter(isLex).map((x) => x.lex);
  const strings = found.filter((x): x is string => typeof x === 'string');
  // Of equal numbers the first in the file (its lexeme); strings here are ASCII, where code point order is sort()'s.
  const extreme = (dir: number) => nums.reduce((best, x) => (cmp(lex(x), lex(best)) * dir > 0 ? x : best));
  return {
    distinct: new Set(found.map(tkey)).size,
    sum: nums.length ? nums.reduce((s, x) => add(s, lex(x)), rat(0n)) : null,
    min: nums.length ? extreme(-1) : strings.length ? [...strings].sort()[0]! : null,
    max: nums.length ? extreme(1) : strings.length ? [...strings].sort().at(-1)! : null,
  };
}

const containers: [string, string, (texts: string[]) => string, boolean][] = [
  ['JSON Lines', 'p.jsonl', (t) => t.join('\n') + '\n', false],
  ['a top-level array', 'p.json', (t) => `[\n${t.join(',\n')}\n]\n`, false],
  ['a single document, $.items[*]', 'p-doc.json', (t) => `{"0":"decoy","tags":["decoy"],"items":[${t.join(',')}]}`, true],
];
const engines: [string, () => QueryScanEngine][] = [['this thread', () => engine()], ['worker threads', () => aggregateEngine()]];

describe.each(containers.flatMap(([label, file, text, each]) => engines.map(([e, make]) => [`${label}, ${e}`, file, text, each, make] as const)))('paths into arrays and objects on %s', (label, file, text, each, makeEngine) => {
  let source: RecordSource;
  let eng: QueryScanEngine;
  beforeAll(async () => {
    const name = `${label.replace(/[^a-z]/gi, '')}-${file}`;
    fs.writeFileSync(path.join(dir, name), text(RECORDS));
    source = (await fileService(dir, formats).open(name)).source;
    eng = makeEngine();
  });
  const units = () => (each ? { each: jp.compile('$.items[*]') } : {});
  /** No where (bytes), a where that parses each record, and the first again (records checked by then). */
  const wheres = (): (Partial<AggregateOptions>)[] => [{}, { where: { query: jp.compile('$'), as: 'select' } }, {}];
  const run = (o: Partial<AggregateOptions>): Promise<AggregateResult> => eng.aggregate({ source, ...units(), dimensions: [], metrics: [], order: { by: 'key', desc: false }, ...o });

  test.each(PATHS.map((p) => [JSON.stringify(p), p] as const))('group_by %s and its metrics', async (_n, p) => {
    const metrics: AggregateMetric[] = (['count_distinct', 'sum', 'min', 'max'] as const).map((kind) => ({ kind, path: p }));
    const want = expectedMetrics(parsed, p);
    for (const w of wheres()) {
      const r = await run({ ...w, dimensions: [{ kind: 'value', path: p }] });
      expect(new Map(r.groups.map((g) => [rkey(g.key[0], g.missing.includes(0)), g.count]))).toEqual(expectedCounts(parsed, p));
      const m = (await run({ ...w, metrics })).groups[0]!.metrics;
      expect(m[0]).toBe(want.distinct);
      if (want.sum === null) expect(m[1]).toBeNull();
      else expect(ratKey(lex(lexemeOf(m[1])))).toBe(ratKey(want.sum));
      expect(typeof m[2] === 'string' || m[2] === null ? m[2] : lexemeOf(m[2])).toBe(want.min);
      expect(typeof m[3] === 'string' || m[3] === null ? m[3] : lexemeOf(m[3])).toBe(want.max);
    }
  });

  test('a bucket of width 1 on /n/0 and n[0] alike', async () => {
    const expected = new Map<string, number>();
    for (const v of parsed) {
      const x = resolve(v, ['n', 0]);
      const k = x === undefined ? 'missing' : isLex(x) ? ratKey(rat(floor(lex(x.lex)))) : 'unbucketable';
      expected.set(k, (expected.get(k) ?? 0) + 1);
    }
    expect(expected.get('unbucketable')).toBe(1); // "7"
    for (const p of [['n', '0'], ['n', 0]] as PathTokens[]) {
      for (const w of wheres()) {
        const dims: AggregateDimension[] = [{ kind: 'bucket', path: p, width: { unit: 'number', lexeme: '1' } }];
        const r = await run({ ...w, dimensions: dims });
        expect(new Map(r.groups.map((g) => [g.missing.includes(0) ? 'missing' : g.unbucketable.includes(0) ? 'unbucketable' : ratKey(lex(lexemeOf(g.key[0]))), g.count]))).toEqual(expected);
      }
    }
  });
});

test.each(engines)('on %s, paths that differ only by kind read apart in one aggregate (slots, and top-level names vs elements)', async (_e, makeEngine) => {
  fs.writeFileSync(path.join(dir, 'kinds.jsonl'), RECORDS.join('\n') + '\n');
  const source = (await fileService(dir, formats).open('kinds.jsonl')).source;
  const eng = makeEngine();
  const sets: PathTokens[][] = [
    [['o', 0], ['o', { index: 0 }], ['o', { name: '0' }], ['o', '0']],
    [[0], [{ index: 0 }], [{ name: '0' }], ['0']],
    [['tags', -1], ['tags', { index: -1 }], ['tags', { name: '-1' }]],
  ];
  for (const paths of sets) {
    for (const w of [{}, { where: { query: jp.compile('$'), as: 'select' as const } }, {}]) {
      const r = await eng.aggregate({ source, ...w, dimensions: paths.map((p) => ({ kind: 'value', path: p })), metrics: [], order: { by: 'key', desc: false } });
      const got = new Map(r.groups.map((g) => [paths.map((_, d) => rkey(g.key[d], g.missing.includes(d))).join('|'), g.count]));
      const want = new Map<string, number>();
      for (const v of parsed) { const k = paths.map((p) => tkey(resolve(v, p))).join('|'); want.set(k, (want.get(k) ?? 0) + 1); }
      expect([JSON.stringify(paths), got]).toEqual([JSON.stringify(paths), want]);
    }
  }
});

function floor(x: Rat): bigint {
  let q = x.n / x.d;
  if (x.n < 0n && q * x.d !== x.n) q -= 1n;
  return q;
}

test('esc.jsonl: /tags/0 and tags.0 group as tags[0] does (a, z, and two records without one)', async () => {
  fs.writeFileSync(path.join(dir, 'esc.jsonl'), fs.readFileSync(path.join(__dirname, '..', 'fixtures', 'edges', 'esc.jsonl')));
  const source = (await fileService(dir, formats).open('esc.jsonl')).source;
  for (const p of [['tags', '0'], ['tags', 0]] as PathTokens[]) {
    const r = await engine().aggregate({ source, dimensions: [{ kind: 'value', path: p }], metrics: [{ kind: 'count_distinct', path: p }, { kind: 'min', path: p }], order: { by: 'key', desc: false } });
    expect(r.groups.map((g) => [g.key[0], g.count, g.missing])).toEqual([[null, 2, [0]], ['a', 1, []], ['z', 1, []]]);
    expect(r.groups.map((g) => g.metrics)).toEqual([[0, null], [1, 'a'], [1, 'z']]);
  }
});
