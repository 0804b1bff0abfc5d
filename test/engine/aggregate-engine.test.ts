/**
 * The scan engine's aggregates against values computed here, independently (plain JS over the parsed fixture, exact
 * rationals from test/helpers/exact.ts): every metric, on JSON Lines, a top-level array and a single document whose
 * units are `$.items[*]`; big integers, decimals, nulls, missing members, mixed types, timestamps in two time zones,
 * repeated and escaped member names, malformed records, an empty file; on this thread and on worker threads; and
 * pages stopped at a deadline add up to the unpaged answer.
 */
import { FakeClock } from '../../src/kernel/fake-clock';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import json from '../../plugins/format-json/src/index';
import jsonl from '../../plugins/format-jsonl/src/index';
import type { AggregateDimension, AggregateMetric, AggregateOptions, AggregateResult, Format, QueryLanguage, RecordSource } from '../../src/kernel/contracts';
import { AggregateThreads, QueryScanEngine } from '../../src/engine/scan';
import type { AggregateJob } from '../../src/engine/scan/aggregate';
import { DEFAULT_LIMITS } from '../../src/kernel/config/defaults';
import { fileService, formatsOf } from '../helpers/formats';
import { aggregateEngine, engine, jsonpath, sharedThreads } from '../helpers/query';
import { add, averageOk, cmp, divInt, eq, key as ratKey, lex, lexemeOf, rat, type Rat } from '../helpers/exact';

let dir: string;
let formats: Format[];
let jp: QueryLanguage;
/** The file's engine threads for the aggregate pools it makes itself: started once, a thread left clean serves the next. */
const threads = sharedThreads();
afterAll(() => threads.close());
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-aggregate-'));
  formats = [...(await formatsOf(jsonl)), ...(await formatsOf(json))];
  jp = await jsonpath();
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

async function open(name: string, content: string) {
  fs.writeFileSync(path.join(dir, name), content);
  return fileService(dir, formats).open(name);
}

const N = 2600;
const COUNTRIES = ['EE', 'JP', 'PT', 'Ünïcode'];
/** Record i as JSON text with chosen lexemes: status missing/null/escaped/repeated, code 1 / 1.0 / "1", big integers, decimals, two time zones. */
function recordText(i: number): string {
  const parts: string[] = [`"id":${i}`];
  if (i % 17 !== 0) {
    const st = i % 13 === 0 ? 'null' : JSON.stringify(['ok', 'failed', 'done', 'Failed'][i % 4]);
    // Some records spell the name with an escape; some repeat it (the last one holds).
    if (i % 29 === 1) parts.push(`"st\\u0061tus":${st}`);
    else if (i % 31 === 2) parts.push(`"status":"decoy"`, `"x":1`, `"status":${st}`);
    else parts.push(`"status":${st}`);
  }
  parts.push(`"code":${['1', '1.0', '"1"', '2', '10e-1', 'true'][i % 6]}`);
  parts.push(`"bytes":${i % 50 === 7 ? `${9007199254740993n + BigInt(i)}` : i % 50 === 8 ? `-${12345678901234567890n + BigInt(i)}` : String((i * 7919) % 100000)}`);
  if (i % 11 !== 5) parts.push(`"price":${i % 9 === 0 ? `${i % 100}.${i % 7}0` : i % 9 === 1 ? '1e2' : i % 9 === 2 ? '-0.5' : i % 9 === 3 ? '0.1' : i % 9 === 4 ? '"12.5"' : i % 9 === 5 ? 'null' : `${(i * 37) % 1000}.${String(i % 1000).padStart(3, '0')}`}`);
  const minute = String(i % 60).padStart(2, '0');
  const hour = (i * 7) % 24;
  const ts = i % 10 === 3 ? String(1740808800 + i * 61) // epoch seconds
    : i % 10 === 4 ? '"soon"'
    : i % 2 === 0 ? `"2025-03-0${1 + (i % 3)}T${String(hour).padStart(2, '0')}:${minute}:07.5${i % 10}Z"`
    : `"2025-03-0${1 + (i % 3)}T${String(hour).padStart(2, '0')}:${minute}:07+02:00"`;
  parts.push(`"ts":${ts}`);
  parts.push(`"user":{"id":${i % 37},"country":${JSON.stringify(COUNTRIES[i % 4])}${i % 5 === 0 ? ',"vip":true' : ''}}`);
  parts.push(`"name":${JSON.stringify(['zeta', 'alpha', 'Émile', 'a\u00e9', '😀'][i % 5])}`);
  parts.push(`"tags":${JSON.stringify(i % 3 === 0 ? [] : ['a', 'b'].slice(0, i % 3))}`);
  return `{${parts.join(',')}}`;
}
const BROKEN = new Set([100, 2001]);
function jsonlText(): string {
  const lines: string[] = [];
  for (let i = 0; i < N; i++) lines.push(BROKEN.has(i) ? `{"id":${i},"status":"ok",` : recordText(i));
  return lines.join('\n') + '\n';
}

/** The records as a test reads them: JSON.parse keeping each number's lexeme ({lex}). */
type Val = null | boolean | string | { lex: string } | Val[] | { [k: string]: Val };
const parseLex = (text: string): Val => JSON.parse(text, (_k, v, ctx?: { source?: string }) => (typeof v === 'number' ? { lex: ctx!.source! } : v));
const isLex = (v: unknown): v is { lex: string } => v !== null && typeof v === 'object' && !Array.isArray(v) && typeof (v as { lex?: unknown }).lex === 'string' && Object.keys(v).length === 1;
let parsed: { i: number; v: Record<string, Val> }[] | undefined;
/** The well-formed records, parsed once (read only). */
const records = (): { i: number; v: Record<string, Val> }[] => (parsed ??= [...Array(N).keys()].filter((i) => !BROKEN.has(i)).map((i) => ({ i, v: parseLex(recordText(i)) as Record<string, Val> })));
const texts: string[] = [];
/** recordText(i) for i < n, each made once. */
const recordTexts = (n: number): string[] => {
  for (let i = texts.length; i < n; i++) texts.push(recordText(i));
  return texts.slice(0, n);
};

function at(v: Val | undefined, p: (string | number)[]): Val | undefined {
  for (const t of p) {
    if (v === undefined || v === null || typeof v !== 'object' || isLex(v)) return undefined;
    if (Array.isArray(v)) { if (typeof t !== 'number') return undefined; v = v[t]; }
    else { if (typeof t !== 'string' || !Object.prototype.hasOwnProperty.call(v, t)) return undefined; v = v[t]; }
  }
  return v;
}

/** The test's own key of a value: numbers by exact value, strings, literals, missing. */
function tkey(v: Val | undefined): string {
  if (v === undefined) return 'missing';
  if (v === null) return 'null';
  if (typeof v === 'boolean') return String(v);
  if (typeof v === 'string') return 's:' + v;
  if (isLex(v)) return 'n:' + ratKey(lex(v.lex));
  return 'j:' + JSON.stringify(v);
}

/** The test's key of a result key value (numbers exact). */
function rkey(v: unknown, missing: boolean): string {
  if (missing) return 'missing';
  if (v === null) return 'null';
  if (typeof v === 'boolean') return String(v);
  if (typeof v === 'string') return 's:' + v;
  return 'n:' + ratKey(lex(lexemeOf(v)));
}

function spec(opts: Partial<AggregateOptions> & { source: RecordSource }): AggregateOptions {
  return { dimensions: [], metrics: [], order: { by: 'count', desc: true }, ...opts };
}

async function run(eng: QueryScanEngine, opts: AggregateOptions): Promise<AggregateResult> {
  return eng.aggregate(opts);
}

/** Expected group counts by the test's key of the value at `p`, over the well-formed records. */
function countsBy(p: string[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const { v } of records()) { const k = tkey(at(v, p)); m.set(k, (m.get(k) ?? 0) + 1); }
  return m;
}

/** The metrics asked by `checkEveryMetric`, grouped by user.country. */
const EVERY_METRIC: AggregateMetric[] = [
  { kind: 'count_distinct', path: ['user', 'id'] },
  { kind: 'sum', path: ['bytes'] },
  { kind: 'avg', path: ['price'] },
  { kind: 'min', path: ['price'] },
  { kind: 'max', path: ['price'] },
  { kind: 'min', path: ['name'] },
  { kind: 'max', path: ['bytes'] },
  { kind: 'sum', path: ['price'] },
  { kind: 'count_distinct', path: ['code'] },
];

/** Checks an answer grouped by user.country with EVERY_METRIC against values computed here from the parsed records. */
function checkEveryMetric(r: AggregateResult): void {
  expect(r.groups).toHaveLength(COUNTRIES.length);
  for (const g of r.groups) {
    const rows = records().filter(({ v }) => (v.user as Record<string, Val>).country === g.key[0]);
    expect(g.count).toBe(rows.length);
    const nums = (p: string[]) => rows.map(({ i, v }) => ({ i, x: at(v, p) })).filter((e): e is { i: number; x: { lex: string } } => isLex(e.x));
    // count_distinct(user.id), count_distinct(code)
    expect(g.metrics[0]).toBe(new Set(rows.map(({ v }) => tkey(at(v, ['user', 'id'])))).size);
    expect(g.metrics[8]).toBe(new Set(rows.map(({ v }) => tkey(v.code))).size);
    // sum(bytes): exact, past 2^53
    const bytes = nums(['bytes']).reduce((s, e) => add(s, lex(e.x.lex)), rat(0n));
    expect(eq(lex(lexemeOf(g.metrics[1])), bytes)).toBe(true);
    // avg(price) and sum(price): numbers only (strings and null left out)
    const prices = nums(['price']);
    const psum = prices.reduce((s, e) => add(s, lex(e.x.lex)), rat(0n));
    expect(averageOk(lex(lexemeOf(g.metrics[2])), psum, prices.length)).toBe(true);
    expect(eq(lex(lexemeOf(g.metrics[7])), psum)).toBe(true);
    // min/max(price): the first lexeme in file order among the extreme values
    const extreme = (list: { i: number; x: { lex: string } }[], dir: number) => list.reduce((best, e) => (cmp(lex(e.x.lex), lex(best.x.lex)) * dir > 0 ? e : best)).x.lex;
    expect(lexemeOf(g.metrics[3])).toBe(extreme(prices, -1));
    expect(lexemeOf(g.metrics[4])).toBe(extreme(prices, 1));
    expect(lexemeOf(g.metrics[6])).toBe(extreme(nums(['bytes']), 1));
    // min(name): strings by code point
    const names = rows.map(({ v }) => v.name as string);
    const byCodePoint = (a: string, b: string) => { const x = [...a].map((c) => c.codePointAt(0)!), y = [...b].map((c) => c.codePointAt(0)!); for (let k = 0; k < Math.min(x.length, y.length); k++) if (x[k] !== y[k]) return x[k]! - y[k]!; return x.length - y.length; };
    expect(g.metrics[5]).toBe([...names].sort(byCodePoint)[0]);
  }
}

const HOUR_BY_COUNTRY: AggregateDimension[] = [{ kind: 'value', path: ['user', 'country'] }, { kind: 'bucket', path: ['ts'], width: { unit: 'ms', ms: 3_600_000 } }];
/** Expected counts by country and UTC hour (Date.parse for RFC 3339 in any offset, epoch seconds × 1000), as `country|ms`. */
function hourCounts(): Map<string, number> {
  const expected = new Map<string, number>();
  for (const { v } of records()) {
    const ts = v.ts;
    const ms = typeof ts === 'string' ? Date.parse(ts) : isLex(ts) ? Number(ts.lex) * 1000 : NaN;
    const b = Number.isNaN(ms) ? 'unbucketable' : String(Math.floor(ms / 3_600_000) * 3_600_000);
    const k = `${(v.user as Record<string, Val>).country}|${b}`;
    expected.set(k, (expected.get(k) ?? 0) + 1);
  }
  return expected;
}
const hourGroups = (r: AggregateResult) => new Map(r.groups.map((g) => [`${g.key[0]}|${g.unbucketable.includes(1) ? 'unbucketable' : Date.parse(g.key[1] as string)}`, g.count]));

const engines: [string, () => QueryScanEngine][] = [['this thread', () => engine()], ['worker threads', () => aggregateEngine()]];

describe.each(engines)('aggregates on %s', (_name, makeEngine) => {
  let source: RecordSource;
  let eng: QueryScanEngine;
  beforeAll(async () => {
    source = (await open(`events-${_name.replace(/ /g, '')}.jsonl`, jsonlText())).source;
    eng = makeEngine();
  });

  test('group_by status: counts, missing apart from null, escaped and repeated names as JSON.parse reads them, malformed records skipped', async () => {
    const r = await run(eng, spec({ source, dimensions: [{ kind: 'value', path: ['status'] }] }));
    const expected = countsBy(['status']);
    const got = new Map(r.groups.map((g) => [rkey(g.key[0], g.missing.includes(0)), g.count]));
    expect(got).toEqual(expected);
    expect(got.get('missing')).toBeGreaterThan(0);
    expect(got.get('null')).toBeGreaterThan(0);
    expect(got.has('s:decoy')).toBe(false);
    expect(r.recordsScanned).toBe(N);
    expect(r.recordsMatched).toBe(N - BROKEN.size);
    expect(r.skipped).toBe(BROKEN.size);
    expect(r.firstSkipped.map((s) => s.record_index)).toEqual([...BROKEN]);
    expect(r.firstSkipped.map((s) => [s.code, s.line])).toEqual([...BROKEN].map((i) => ['SYNTAX_ERROR', i + 1]));
    expect(r.complete).toBe(true);
    // Sorted by count descending, ties by key.
    for (let k = 1; k < r.groups.length; k++) expect(r.groups[k - 1]!.count).toBeGreaterThanOrEqual(r.groups[k]!.count);
  });

  test('mixed types: 1, 1.0 and 10e-1 are one group, "1" another, true a third; the key is the first lexeme in the file', async () => {
    const r = await run(eng, spec({ source, dimensions: [{ kind: 'value', path: ['code'] }], order: { by: 'key', desc: false } }));
    const expected = new Map<string, number>();
    for (const { v } of records()) { const k = tkey(v.code); expected.set(k, (expected.get(k) ?? 0) + 1); }
    expect(new Map(r.groups.map((g) => [rkey(g.key[0], false), g.count]))).toEqual(expected);
    expect(r.groups.map((g) => g.key[0])).toEqual([true, 1, 2, '1']); // key order: booleans, numbers, strings
    expect(expected.size).toBe(4);
  });

  test('every metric per group: count_distinct, exact sums of big integers, averages, min/max lexemes, min/max of strings', async () => {
    checkEveryMetric(await run(eng, spec({ source, dimensions: [{ kind: 'value', path: ['user', 'country'] }], metrics: EVERY_METRIC })));
  });

  test('a decimal average that a double cannot hold carries full precision; an integer sum past 2^53 is exact', async () => {
    const f = await open(`avg-${_name.replace(/ /g, '')}.jsonl`, ['{"v":0.1}', '{"v":0.2}', '{"v":0.3}', '{"v":9007199254740993}', '{"v":1}', '{"v":2}'].join('\n'));
    const r = await run(eng, spec({ source: f.source, metrics: [{ kind: 'avg', path: ['v'] }, { kind: 'sum', path: ['v'] }] }));
    const g = r.groups[0]!;
    expect(lexemeOf(g.metrics[1])).toBe('9007199254740996.6');
    expect(lexemeOf(g.metrics[0])).toBe('1501199875790166.1');
    expect(JSON.stringify(g.metrics)).toBe('[1501199875790166.1,9007199254740996.6]');
    const r2 = await run(eng, spec({ source: (await open(`avg3-${_name.replace(/ /g, '')}.jsonl`, '{"v":1}\n{"v":1}\n{"v":2}\n')).source, metrics: [{ kind: 'avg', path: ['v'] }] }));
    expect(lexemeOf(r2.groups[0]!.metrics[0])).toBe('1.' + '3'.repeat(33));
  });

  test('several dimensions and a bucket of timestamps in two time zones and epoch seconds (1h), unbucketable values apart', async () => {
    const r = await run(eng, spec({ source, dimensions: HOUR_BY_COUNTRY, order: { by: 'key', desc: false } }));
    expect(hourGroups(r)).toEqual(hourCounts());
    expect(r.groups.some((g) => g.unbucketable.length > 0)).toBe(true);
    // keys are RFC 3339 UTC hour starts
    for (const g of r.groups) if (!g.unbucketable.length) expect(g.key[1]).toMatch(/^2025-03-0\dT\d\d:00:00Z$/);
    // key order: country, then time
    const keys = r.groups.map((g) => `${g.key[0]}|${g.unbucketable.length ? '' : g.key[1]}`);
    expect(keys).toEqual([...keys].sort());
  });

  test('a numeric bucket of width 0.5 (exact decimals), with where as a record predicate and as JSONPath', async () => {
    const where = { query: jp.compile('$[?@.user.vip == true]'), as: 'filter' as const };
    const r = await run(eng, spec({ source, where, dimensions: [{ kind: 'bucket', path: ['price'], width: { unit: 'number', lexeme: '0.5' } }] }));
    const expected = new Map<string, number>();
    let matched = 0;
    for (const { v } of records()) {
      if ((v.user as Record<string, Val>).vip !== true) continue;
      matched++;
      const p = v.price;
      const k = p === undefined ? 'missing' : isLex(p) ? ratKey(divInt(rat(floorDiv(lex(p.lex)), 1n), 2)) : 'unbucketable';
      expected.set(k, (expected.get(k) ?? 0) + 1);
    }
    const got = new Map(r.groups.map((g) => [g.missing.length ? 'missing' : g.unbucketable.length ? 'unbucketable' : ratKey(lex(lexemeOf(g.key[0]))), g.count]));
    expect(got).toEqual(expected);
    expect(r.recordsMatched).toBe(matched);
    const sel = await run(eng, spec({ source, where: { query: jp.compile('$.user.vip'), as: 'select' }, dimensions: [{ kind: 'bucket', path: ['price'], width: { unit: 'number', lexeme: '0.5' } }] }));
    expect(sel.groups).toEqual(r.groups);
  });

  test('a where with match() (on a worker thread when threads are used) and the byte prefilter', async () => {
    const r = await run(eng, spec({ source, where: { query: jp.compile('$[?match(@.status, "[fF]ailed")]'), as: 'filter' }, dimensions: [{ kind: 'value', path: ['status'] }] }));
    const expected = new Map<string, number>();
    for (const { v } of records()) if (v.status === 'failed' || v.status === 'Failed') expected.set(v.status, (expected.get(v.status) ?? 0) + 1);
    expect(new Map(r.groups.map((g) => [g.key[0], g.count]))).toEqual(expected);
    const lit = await run(eng, spec({ source, where: { query: jp.compile('$[?@.status == "Failed"]'), as: 'filter' } }));
    expect(lit.groups).toEqual([{ key: [], missing: [], unbucketable: [], count: expected.get('Failed'), metrics: [] }]);
  });

  test('the deadline is read on the engine\'s clock (a fake one, months behind real time): before it the answer is whole, past it the page stops', async () => {
    const clock = new FakeClock(Date.UTC(2026, 0, 1));
    const timed = _name === 'this thread' ? engine({}, clock) : aggregateEngine({}, 2, 0, clock);
    const lines = recordTexts(40000); // ~12 MB: three batches
    const big = (await open(`clock-${_name.replace(/ /g, '')}.jsonl`, lines.join('\n'))).source;
    const opts = spec({ source: big, dimensions: [{ kind: 'value', path: ['status'] }] });
    // A minute left on the engine's clock, though that moment is long past in real time: one complete page.
    const inTime = await timed.aggregate({ ...opts, deadline: clock.now() + 60_000 });
    expect(inTime.complete).toBe(true);
    expect(inTime.recordsScanned).toBe(40000);
    clock.advance(60_001);
    const late = await timed.aggregate({ ...opts, deadline: clock.now() - 1 });
    expect(late.complete).toBe(false);
    expect(late.recordsScanned).toBeLessThan(40000);
  }, 60_000);

  test('pages stopped at the deadline add up to the unpaged answer', async () => {
    // Without where: ~12 MB, three batches (a page stops at a batch boundary); a where with match(): 700 records
    // (on threads a page stops between slices of 64 records).
    const lines = recordTexts(40000).map((t, i) => (BROKEN.has(i) ? '{"id":' : t));
    const big = (await open(`big-${_name.replace(/ /g, '')}.jsonl`, lines.join('\n'))).source;
    const small = (await open(`small-${_name.replace(/ /g, '')}.jsonl`, lines.slice(0, 700).join('\n'))).source;
    for (const where of [undefined, { query: jp.compile('$[?match(@.name, "[aÉ].*")]'), as: 'filter' as const }]) {
      const n = where ? 700 : 40000;
      const opts = spec({ source: where ? small : big, ...(where ? { where } : {}), dimensions: [{ kind: 'value', path: ['status'] }, { kind: 'bucket', path: ['ts'], width: { unit: 'ms', ms: 86_400_000 } }], metrics: [{ kind: 'sum', path: ['bytes'] }, { kind: 'count_distinct', path: ['user', 'id'] }, { kind: 'max', path: ['price'] }] });
      const whole = await run(eng, opts);
      let r = await run(eng, { ...opts, deadline: Date.now() - 1 });
      // A continuation leaves the state it started from as it was: running it again gives the same answer.
      const again1 = await run(eng, { ...opts, resume: r.resume! });
      const again2 = await run(eng, { ...opts, resume: r.resume! });
      expect(again2.groups).toEqual(again1.groups);
      expect(again1.groups).toEqual(whole.groups);
      let pages = 1;
      while (!r.complete) {
        expect(r.resume!.record).toBeGreaterThan(0);
        r = await run(eng, { ...opts, deadline: Date.now() - 1, resume: r.resume! });
        pages++;
        expect(pages).toBeLessThan(1000);
      }
      if (!where || _name === 'worker threads') expect(pages).toBeGreaterThan(1);
      expect(r.groups).toEqual(whole.groups);
      expect(r.recordsScanned).toBe(n);
      expect(r.recordsMatched).toBe(whole.recordsMatched);
      expect(r.skipped).toBe(where ? 1 : 2);
    }
  }, 60_000);
});

/** ⌊2x⌋ for a rational x (the index of its 0.5-wide bucket). */
function floorDiv(x: Rat): bigint {
  const n = x.n * 2n, d = x.d;
  let q = n / d;
  if (n < 0n && q * d !== n) q -= 1n;
  return q;
}

/** The same well-formed records as JSON Lines, as a top-level array, and as the `items` of one document (with decoys beside). */
const containers: [string, string, string, boolean][] = [
  ['JSON Lines', 'c.jsonl', '', false],
  ['a top-level array', 'c-array.json', '', false],
  ['a single document, $.items[*]', 'c-doc.json', '', true],
];
function containerText(name: string): string {
  const texts = [...Array(N).keys()].filter((i) => !BROKEN.has(i)).map(recordText);
  if (name.endsWith('.jsonl')) return texts.join('\n') + '\n';
  if (name === 'c-array.json') return '[\n' + texts.map((t) => '  ' + t).join(',\n') + '\n]\n';
  return `{"status":"decoy","user":{"country":"ZZ"},"items":[${texts.join(',')}],"tail":{"items":[{"status":"decoy"}]}}`;
}

describe.each(containers.flatMap(([label, file, , each]) => engines.map(([e, make]) => [`${label}, ${e}`, file, each, make] as const)))('every metric on %s', (label, file, each, makeEngine) => {
  let source: RecordSource;
  let eng: QueryScanEngine;
  const units = () => (each ? { each: jp.compile('$.items[*]') } : {});
  beforeAll(async () => {
    source = (await open(`${label.replace(/[^a-z]/gi, '')}-${file}`, containerText(file))).source;
    eng = makeEngine();
  });

  test('status: missing apart from null; code: 1, 1.0 and 10e-1 one group, "1" another, true a third', async () => {
    const st = await run(eng, spec({ source, ...units(), dimensions: [{ kind: 'value', path: ['status'] }] }));
    expect(new Map(st.groups.map((g) => [rkey(g.key[0], g.missing.includes(0)), g.count]))).toEqual(countsBy(['status']));
    expect(st.groups.some((g) => g.missing.includes(0))).toBe(true);
    expect(st.groups.some((g) => g.key[0] === null && !g.missing.includes(0))).toBe(true);
    const code = await run(eng, spec({ source, ...units(), dimensions: [{ kind: 'value', path: ['code'] }], order: { by: 'key', desc: false } }));
    expect(new Map(code.groups.map((g) => [rkey(g.key[0], false), g.count]))).toEqual(countsBy(['code']));
    expect(code.groups.map((g) => g.key[0])).toEqual([true, 1, 2, '1']);
    if (each) expect([code.recordsMatched, code.units]).toEqual([1, N - BROKEN.size]);
    else expect([code.recordsMatched, code.skipped]).toEqual([N - BROKEN.size, 0]);
  });

  test('count_distinct, sum (big integers), avg (decimals), min and max per group', async () => {
    checkEveryMetric(await run(eng, spec({ source, ...units(), dimensions: [{ kind: 'value', path: ['user', 'country'] }], metrics: EVERY_METRIC })));
  });

  test('hours of timestamps in two time zones and epoch seconds', async () => {
    expect(hourGroups(await run(eng, spec({ source, ...units(), dimensions: HOUR_BY_COUNTRY })))).toEqual(hourCounts());
  });
});

describe('formats and units', () => {
  test('a top-level array file gives the same groups as JSON Lines', async () => {
    const texts = [...Array(300).keys()].map(recordText);
    const a = await open('arr.json', '[\n' + texts.map((t) => '  ' + t).join(',\n') + '\n]\n');
    const l = await open('arr.jsonl', texts.join('\n'));
    const opts = (source: RecordSource) => spec({ source, dimensions: [{ kind: 'value', path: ['status'] }], metrics: [{ kind: 'sum', path: ['bytes'] }, { kind: 'min', path: ['price'] }] });
    const ra = await engine().aggregate(opts(a.source));
    const rl = await engine().aggregate(opts(l.source));
    expect(ra.groups).toEqual(rl.groups);
    expect(ra.groups.reduce((n, g) => n + g.count, 0)).toBe(300);
  });

  test('a single document: the units are $.items[*], with where on each unit', async () => {
    const items = [...Array(500).keys()].map((i) => `{"kind":${JSON.stringify(['a', 'b', 'c'][i % 3])},"n":${i % 7 === 0 ? '1.5' : i},"q":${i % 4 === 0 ? 'null' : i % 4}}`);
    const f = await open('doc.json', `{"meta":{"kind":"x"},"items":[${items.join(',')}]}`);
    const each = jp.compile('$.items[*]');
    const r = await engine().aggregate(spec({ source: f.source, each, dimensions: [{ kind: 'value', path: ['kind'] }], metrics: [{ kind: 'sum', path: ['n'] }, { kind: 'count_distinct', path: ['q'] }] }));
    const parsed = [...Array(500).keys()].map((i) => ({ kind: ['a', 'b', 'c'][i % 3]!, n: i % 7 === 0 ? rat(3n, 2n) : rat(BigInt(i)), q: i % 4 === 0 ? null : i % 4 }));
    for (const g of r.groups) {
      const rows = parsed.filter((p) => p.kind === g.key[0]);
      expect(g.count).toBe(rows.length);
      expect(eq(lex(lexemeOf(g.metrics[0])), rows.reduce((s, p) => add(s, p.n), rat(0n)))).toBe(true);
      expect(g.metrics[1]).toBe(new Set(rows.map((p) => p.q)).size);
    }
    expect(r.units).toBe(500);
    expect(r.recordsMatched).toBe(1);
    const where = await engine().aggregate(spec({ source: f.source, each, where: { query: jp.compile('$[?@.q == 2]'), as: 'filter' }, dimensions: [{ kind: 'value', path: ['kind'] }] }));
    expect(where.units).toBe(parsed.filter((p) => p.q === 2).length);
    const joined = await engine().aggregate(spec({ source: f.source, each: jp.compile('$.items[?@.q == 2]'), dimensions: [{ kind: 'value', path: ['kind'] }] }));
    expect(joined.groups).toEqual(where.groups);
  });

  test('an empty file, an empty array and a document with no items: no groups, nothing scanned', async () => {
    for (const [name, text] of [['empty.jsonl', ''], ['empty.json', '[]']] as const) {
      const f = await open(name, text);
      const r = await engine().aggregate(spec({ source: f.source, dimensions: [{ kind: 'value', path: ['status'] }], metrics: [{ kind: 'sum', path: ['x'] }] }));
      expect(r).toMatchObject({ groups: [], recordsScanned: 0, recordsMatched: 0, units: 0, complete: true, skipped: 0 });
      const none = await engine().aggregate(spec({ source: f.source }));
      expect(none.groups).toEqual([]);
    }
    const doc = await open('empty-items.json', '{"items":[],"meta":{"status":"x","items":[{"status":"y"}]}}');
    const r = await engine().aggregate(spec({ source: doc.source, each: jp.compile('$.items[*]'), dimensions: [{ kind: 'value', path: ['status'] }], metrics: [{ kind: 'sum', path: ['x'] }] }));
    expect(r).toMatchObject({ groups: [], recordsScanned: 1, units: 0, complete: true, skipped: 0 });
  });


  test('lone surrogates (RFC 8259 §8.2) group as U+FFFD on every path, and the answer says so', async () => {
    // "\ud800" alone, "\udc00" alone, a literal U+FFFD, a pair (😀), and the same lone one again; read from bytes,
    // through a where that parses each record, and from a top-level array
    const lines = ['{"k":"a\\ud800"}', '{"k":"a\\udc00"}', '{"k":"a\ufffd"}', '{"k":"a\\ud83d\\ude00"}', '{"k":"a\\ud800","n":1}'];
    const expected = [{ key: ['a\ufffd'], count: 4 }, { key: ['a\u{1F600}'], count: 1 }];
    for (const [name, text] of [['lone.jsonl', lines.join('\n')], ['lone.json', `[${lines.join(',')}]`]] as const) {
      const f = await open(name, text);
      for (const where of [undefined, { query: jp.compile('$[?@.k]'), as: 'filter' as const }, { query: jp.compile('$..k'), as: 'select' as const }]) {
        const r = await engine().aggregate(spec({ source: f.source, dimensions: [{ kind: 'value', path: ['k'] }], ...(where ? { where } : {}) }));
        expect(r.groups.map((g) => ({ key: g.key, count: g.count }))).toEqual(expected);
        expect(r.warnings).toEqual([{ code: 'LONE_SURROGATE_REPLACED', message: expect.stringMatching(/^3 record\(s\) counted escape a lone surrogate/) }]);
      }
    }
  });

  test('a resume from another aggregate is refused', async () => {
    // The deadline stops a scan between batches: a file of several (~7 MB).
    const f = await open('resume.jsonl', Array.from({ length: 60000 }, (_, i) => `{"a":${i % 3},"pad":"${'x'.repeat(100)}"}`).join('\n'));
    const r = await engine().aggregate(spec({ source: f.source, deadline: Date.now() - 1 }));
    expect(r.complete).toBe(false);
    await expect(engine().aggregate(spec({ source: f.source, dimensions: [{ kind: 'value', path: ['a'] }], resume: r.resume! }))).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    // the same continuation with the same spec is accepted and finishes the count
    expect((await engine().aggregate(spec({ source: f.source, resume: r.resume! }))).groups).toEqual([{ key: [], missing: [], unbucketable: [], count: 60000, metrics: [] }]);
  });
});

describe('threads and the byte prefilter', () => {
  /** Worker threads (minBytes 0) that note where each run they are given starts. */
  class SpyThreads extends AggregateThreads {
    froms: number[] = [];
    override run(job: AggregateJob) {
      this.froms.push(job.from);
      return super.run(job);
    }
  }
  const spyEngine = () => {
    const entries: Record<string, string> = { jsonpath: require.resolve('../../plugins/query-jsonpath/dist/index.js') };
    const pool = new SpyThreads({ pluginOf: (n) => (entries[n] ? { entry: entries[n]!, options: {} } : undefined), threads: 2, minBytes: 0, threadPool: threads });
    return { pool, eng: new QueryScanEngine({ limits: () => DEFAULT_LIMITS, aggregates: pool }) };
  };
  // ~11 MB, three 4 MiB batches: "rare" in 1 record of 100 up to record 50,000, in every record from there (the second batch holds more than half "rare": the third goes to the threads).
  const N = 100_000, TURN = 50_000;
  const PAD = 'x'.repeat(60);
  const tagOf = (i: number) => (i >= TURN || i % 100 === 0 ? 'rare' : 'common');
  let source: RecordSource;
  beforeAll(async () => {
    const lines = Array.from({ length: N }, (_, i) => `{"i":${i},"tag":"${tagOf(i)}","g":"${'abc'[i % 3]}","k":"k${i % 500}","pad":"${PAD}"}`);
    source = (await open('turn.jsonl', lines.join('\n'))).source;
  });
  const byG = (pass: (i: number) => boolean) => {
    const m = new Map<string, number>();
    for (let i = 0; i < N; i++) if (pass(i)) m.set('abc'[i % 3]!, (m.get('abc'[i % 3]!) ?? 0) + 1);
    return m;
  };
  const groups = (r: AggregateResult) => new Map(r.groups.map((g) => [g.key[0] as string, g.count]));
  const where = (q: string) => ({ query: jp.compile(q), as: 'filter' as const });
  const dims: AggregateDimension[] = [{ kind: 'value', path: ['g'] }];

  test('a literal in few records keeps the aggregate on this thread', async () => {
    const { pool, eng } = spyEngine();
    const r = await eng.aggregate(spec({ source, where: where('$[?@.k == "k7"]'), dimensions: dims }));
    expect(groups(r)).toEqual(byG((i) => i % 500 === 7));
    expect(r).toMatchObject({ recordsScanned: N, recordsMatched: N / 500, complete: true });
    expect(pool.froms).toEqual([]);
  }, 60_000);

  test('a literal that turns common mid-file: the rest goes to the threads once, at a batch boundary, progress going on', async () => {
    const { pool, eng } = spyEngine();
    const progress: [number, number][] = [];
    const r = await eng.aggregate(spec({ source, where: where('$[?@.tag == "rare"]'), dimensions: dims, onProgress: (d, t) => progress.push([d, t]) }));
    expect(groups(r)).toEqual(byG((i) => tagOf(i) === 'rare'));
    expect(r).toMatchObject({ recordsScanned: N, recordsMatched: N - TURN + TURN / 100, complete: true });
    expect(pool.froms).toHaveLength(1);
    expect(pool.froms[0]).toBeGreaterThan(TURN);
    expect(pool.froms[0]).toBeLessThan(N);
    expect(progress.every(([, t]) => t === N)).toBe(true);
    expect(progress.map(([d]) => d)).toEqual([...progress.map(([d]) => d)].sort((a, b) => a - b));
    expect(progress[progress.length - 1]).toEqual([N, N]);
    // the same answer on this thread alone
    expect((await engine().aggregate(spec({ source, where: where('$[?@.tag == "rare"]'), dimensions: dims }))).groups).toEqual(r.groups);
  }, 60_000);

  test('a literal in every record: the first batch here, the rest on the threads; no where or no literal: threads from the start', async () => {
    const { pool, eng } = spyEngine();
    const all = await eng.aggregate(spec({ source, where: where(`$[?@.pad == "${PAD}"]`), dimensions: dims }));
    expect(groups(all)).toEqual(byG(() => true));
    expect(pool.froms).toHaveLength(1);
    expect(pool.froms[0]).toBeGreaterThan(0);
    pool.froms.length = 0;
    expect(groups(await eng.aggregate(spec({ source, dimensions: dims })))).toEqual(byG(() => true));
    expect(groups(await eng.aggregate(spec({ source, where: where('$[?@.i < 500]'), dimensions: dims })))).toEqual(byG((i) => i < 500));
    expect(groups(await eng.aggregate(spec({ source, where: where('$[?match(@.tag, "r.re")]'), dimensions: dims })))).toEqual(byG((i) => tagOf(i) === 'rare'));
    expect(pool.froms).toEqual([0, 0, 0]);
  }, 60_000);

  test('a deadline while on this thread stops there; the continuation finishes with the same answer', async () => {
    const { eng } = spyEngine();
    const opts = spec({ source, where: where('$[?@.tag == "rare"]'), dimensions: dims });
    let r = await eng.aggregate({ ...opts, deadline: Date.now() - 1 });
    expect(r.complete).toBe(false);
    let pages = 1;
    while (!r.complete) { r = await eng.aggregate({ ...opts, deadline: Date.now() - 1, resume: r.resume! }); pages++; }
    expect(pages).toBeGreaterThan(2);
    expect(groups(r)).toEqual(byG((i) => tagOf(i) === 'rare'));
    expect(r.recordsScanned).toBe(N);
  }, 60_000);
});

describe('bounded memory, cancellation', () => {
  const bounded = (bounds: { tableBytes?: number; distinctBytes?: number }) => new QueryScanEngine({ limits: () => DEFAULT_LIMITS, aggregateBounds: bounds });
  let source: RecordSource;
  beforeAll(async () => {
    const lines: string[] = [];
    for (let i = 0; i < 30000; i++) lines.push(`{"id":${i},"g":"${['a', 'b', 'c'][i % 3]}","u":"user-${i % 20000}"}`);
    source = (await open('bounded.jsonl', lines.join('\n'))).source;
  });

  test('more groups than the table holds: answered exactly in passes (the first 10,000 kept, all counted); past 64 passes RESOURCE_LIMIT_EXCEEDED naming the bound', async () => {
    // 30,000 distinct ids in a 600,000-byte table: one pass holds ~2,400 groups, so the engine reads the file in parts
    const r = await bounded({ tableBytes: 600_000 }).aggregate(spec({ source, dimensions: [{ kind: 'value', path: ['id'] }] }));
    expect(r.complete).toBe(true);
    expect(r.groupsTotal).toBe(30000);
    expect(r.groups).toHaveLength(10000);
    // count_desc, ties by key ascending: ids 0, 1, 2, … once each (by hand)
    expect(r.groups.slice(0, 3).map((g) => [g.key, g.count])).toEqual([[[0], 1], [[1], 1], [[2], 1]]);
    expect(r.groups[9999]!.key).toEqual([9999]);
    expect(r.recordsScanned).toBe(30000);
    expect(r.recordsMatched).toBe(30000);
    expect(r.warnings.map((w) => w.code)).toEqual(['GROUPS_KEPT']);
    const err = await bounded({ tableBytes: 1_000 }).aggregate(spec({ source, dimensions: [{ kind: 'value', path: ['id'] }] })).catch((e) => e);
    expect(err).toMatchObject({ code: 'RESOURCE_LIMIT_EXCEEDED', limit: { name: 'aggregateGroupBytes', limit: 1_000 } });
    expect(err.hint).toMatch(/count_distinct/);
    // the same with few groups fits
    const ok = await bounded({ tableBytes: 200_000 }).aggregate(spec({ source, dimensions: [{ kind: 'value', path: ['g'] }] }));
    expect(ok.groups.map((g) => g.count)).toEqual([10000, 10000, 10000]);
  });

  test('a top 10 over 20,000 keys past the bound is exact: Python\'s collections.Counter gives the same counts', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-topn-'));
    try {
      const file = path.join(dir, 'keys.jsonl');
      // Python writes the file and its own top 10 (20,000 keys; ten of them repeated 40 to 49 times, the rest once or twice)
      const top = JSON.parse(execFileSync('python3', ['-c', String.raw`
import json, random, sys
from collections import Counter
random.seed(6)
keys = ['k%d' % i for i in range(20000) for _ in range(1 + i % 2)] + ['hot%d' % j for j in range(10) for _ in range(40 + j)]
random.shuffle(keys)
open(sys.argv[1], 'w').write(''.join(json.dumps({'scope': k}) + chr(10) for k in keys))
print(json.dumps(Counter(keys).most_common(10)))
`, file], { encoding: 'utf8' }));
      const big = (await open('topn-keys.jsonl', fs.readFileSync(file, 'utf8'))).source;
      const r = await bounded({ tableBytes: 1_000_000 }).aggregate(spec({ source: big, dimensions: [{ kind: 'value', path: ['scope'] }] }));
      expect(r.groupsTotal).toBe(20010);
      expect(r.groups.slice(0, 10).map((g) => [g.key[0], g.count])).toEqual(top);
      // the same without a bound (one pass): the same top 10
      const one = await engine().aggregate(spec({ source: big, dimensions: [{ kind: 'value', path: ['scope'] }] }));
      expect(one.groups.slice(0, 10)).toEqual(r.groups.slice(0, 10));
      // and on worker threads (the partition travels with the spec to each thread): their compact tables hold the
      // 20,010 groups in 1,000,000 bytes, so a tighter bound makes them read the file in passes too
      const passes: { index: number; count: number }[] = [];
      const pool = new (class extends AggregateThreads {
        override run(job: AggregateJob) {
          if (job.compiled.spec.partition) passes.push(job.compiled.spec.partition);
          return super.run(job);
        }
      })({ pluginOf: () => undefined, threads: 2, minBytes: 0, threadPool: threads });
      const threaded = await new QueryScanEngine({ limits: () => DEFAULT_LIMITS, aggregateBounds: { tableBytes: 250_000 }, aggregates: pool })
        .aggregate(spec({ source: big, dimensions: [{ kind: 'value', path: ['scope'] }] }));
      expect(threaded.groupsTotal).toBe(20010);
      expect(threaded.groups.slice(0, 10).map((g) => [g.key[0], g.count])).toEqual(top);
      // the answer came from passes on the threads, every part of the last partition once
      const last = passes[passes.length - 1]!.count;
      expect(passes.filter((p) => p.count === last).map((p) => p.index)).toEqual([...Array(last).keys()]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  test('distinct sets past their bound become sketches: estimated, within the stated error bound, never silently', async () => {
    const eng = bounded({ distinctBytes: 300_000 });
    const one = await eng.aggregate(spec({ source, metrics: [{ kind: 'count_distinct', path: ['u'] }, { kind: 'count_distinct', path: ['g'] }] }));
    const est = one.groups[0]!.metrics[0] as { value: number; estimated: boolean; error_bound: number };
    expect(est.estimated).toBe(true);
    expect(Math.abs(est.value - 20000)).toBeLessThanOrEqual(est.error_bound);
    expect(one.groups[0]!.metrics[1]).toBe(3); // small sets stay exact
    const per = await eng.aggregate(spec({ source, dimensions: [{ kind: 'value', path: ['g'] }], metrics: [{ kind: 'count_distinct', path: ['u'] }] }));
    for (const g of per.groups) {
      const truth = new Set([...Array(30000).keys()].filter((i) => ['a', 'b', 'c'][i % 3] === g.key[0]).map((i) => i % 20000)).size;
      const v = g.metrics[0] as number | { value: number; error_bound: number };
      if (typeof v === 'number') expect(v).toBe(truth);
      else expect(Math.abs(v.value - truth)).toBeLessThanOrEqual(v.error_bound);
    }
    // without pressure the same counts are exact
    const exact = await engine().aggregate(spec({ source, metrics: [{ kind: 'count_distinct', path: ['u'] }] }));
    expect(exact.groups[0]!.metrics[0]).toBe(20000);
  });

  test('a cancelled aggregate is CANCELLED, on this thread and on worker threads', async () => {
    for (const eng of [engine(), aggregateEngine()]) {
      const ac = new AbortController();
      ac.abort();
      await expect(eng.aggregate(spec({ source, signal: ac.signal }))).rejects.toMatchObject({ code: 'CANCELLED' });
      const mid = new AbortController();
      const big = (await open('cancel.jsonl', Array.from({ length: 60000 }, (_, i) => `{"id":${i},"pad":"${'x'.repeat(100)}"}`).join('\n'))).source;
      await expect(eng.aggregate(spec({ source: big, signal: mid.signal, onProgress: () => mid.abort() }))).rejects.toMatchObject({ code: 'CANCELLED' });
    }
  });
});
