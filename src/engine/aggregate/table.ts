/**
 * The group table of an aggregate: units (records, or the nodes `each` selects) are added as the typed atoms found at
 * the spec's paths; groups are keyed by the canonical spelling of their key parts, so `1` and `1.0` are one group,
 * `1` and `"1"` two, and a missing member is a group of its own, apart from `null`. A group keeps its key as first
 * seen in file order (the file's lexeme), its count and one state per metric. Tables are plain data: a worker thread
 * builds one per batch and the engine merges them in file order.
 */
import type { AggregateSpecData } from './spec';
import { compareNumerals, numeralKey } from '../numbers/compare';
import { divideDecimal, formatDecimal, jsonNumber } from './decimal';
import { addDistinct, distinctBytes, distinctValue, HLL_BYTES, mergeDistinct, newDistinct, toSketch, type DistinctState } from './distinct';
import { addLexeme, mergeSum, newSum, sumValue, type SumState } from './sum';
import { epochMs, formatInstant, numberBucket, numberWidth, parseTimestamp, timeBucket, type NumberWidth } from './buckets';

/** Atom types, in the order keys sort (missing first). */
export const T_MISSING = 0, T_NULL = 1, T_FALSE = 2, T_TRUE = 3, T_NUMBER = 4, T_STRING = 5, T_ARRAY = 6, T_OBJECT = 7;
/** Bucket key parts: not bucketable (a value that is neither a number nor a timestamp), a number bucket, a time bucket. */
export const T_UNBUCKETABLE = 8, T_BUCKET_NUMBER = 9, T_BUCKET_TIME = 10;

/**
 * One value found at a path: its type and text — a string's decoded value, a number's lexeme, an array's or
 * object's canonical JSON text (sorted member names, canonical numbers), empty otherwise.
 */
export interface Atoms {
  types: Uint8Array;
  texts: string[];
  /** Grouped strings read from bytes whose lone surrogates (RFC 8259 §8.2) became U+FFFD, so far. */
  replaced: number;
  /** For arrays and objects: their JSON text as in the record (the key shows it). */
  raws: string[];
}

/** A key part as first seen: type, text (as in Atoms; for buckets the start), the record it came from. */
export interface Part {
  t: number;
  x: string;
  /** Arrays and objects: the JSON text as in the file. */
  raw?: string;
  r: number;
}

/** `ls`: strings holding a JSON number met and left out (not `numeric`). */
export interface SumMetric { s: SumState; n: number; ls: number }
/** min/max: the best value so far: a number (preferred) or else a string, its text, and its record; `ls` as SumMetric's. */
export interface ExtremeMetric { t: number; x: string; r: number; ls: number }

/** RFC 8259 §6 number. */
const JSON_NUMERAL = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?$/;
/** Whether a string holds a JSON number (and nothing else): the strings a number metric is told about. */
export function isNumeral(x: string): boolean {
  const c = x.charCodeAt(0);
  return (c === 0x2d || (c >= 0x30 && c <= 0x39)) && x.length < 4096 && JSON_NUMERAL.test(x);
}
export type MetricState = DistinctState | SumMetric | ExtremeMetric;

export interface Group {
  parts: Part[];
  count: number;
  m: MetricState[];
  /** Estimated bytes held by this group, and by its exact distinct sets. */
  b: number;
  db: number;
}

export interface TableData {
  groups: Map<string, Group>;
  /** Estimated bytes held (keys, parts, metric states). */
  bytes: number;
  /** Bytes of that in exact distinct sets (the part that turns into sketches under pressure). */
  distinctBytes: number;
}

export function newTable(): TableData {
  return { groups: new Map(), bytes: 0, distinctBytes: 0 };
}

/** The per-dimension and per-metric plan derived from the spec once per thread. */
export interface Compiled {
  spec: AggregateSpecData;
  widths: (NumberWidth | number | null)[];
}

export function compileSpec(spec: AggregateSpecData): Compiled {
  return {
    spec,
    widths: spec.dimensions.map((d) => (d.kind !== 'bucket' ? null : d.width.unit === 'number' ? numberWidth(d.width.lexeme) : d.width.ms)),
  };
}

/** Canonical spelling of an atom (part of a group key, or a distinct value). */
export function canonical(t: number, x: string): string {
  switch (t) {
    case T_NUMBER: return 'n' + numeralKey(x);
    case T_STRING: return 's' + x;
    case T_MISSING: return 'm';
    case T_NULL: return 'z';
    case T_FALSE: return 'f';
    case T_TRUE: return 't';
    case T_UNBUCKETABLE: return 'u';
    case T_BUCKET_NUMBER: return 'b' + numeralKey(x);
    case T_BUCKET_TIME: return 'b' + x;
    default: return 'j' + x; // arrays and objects: their canonical JSON
  }
}

/** Estimated bytes of a group object and of one key part (the estimate the bounds are stated in). */
export const GROUP_BYTES = 160;
export const PART_BYTES = 48;

/** The key parts keyPart sets, by dimension. */
export const keyTypes: number[] = [];
export const keyTexts: string[] = [];
let cacheText = '';

/** Sets keyTypes[d], keyTexts[d] to the key part of dimension d for an atom: itself, or its bucket. */
export function keyPart(c: Compiled, d: number, t: number, x: string): void {
  const dim = c.spec.dimensions[d]!;
  if (dim.kind !== 'bucket' || t === T_MISSING) { keyTypes[d] = t; keyTexts[d] = x; return; }
  const w = c.widths[d]!;
  keyTypes[d] = T_UNBUCKETABLE;
  keyTexts[d] = '';
  if (typeof w === 'number') {
    let ms = NaN;
    if (t === T_STRING) ms = parseTimestamp(x);
    else if (t === T_NUMBER) ms = epochMs(x, dim.width.unit === 'ms' ? dim.width.epoch : undefined);
    if (ms === ms) { keyTypes[d] = T_BUCKET_TIME; keyTexts[d] = String(timeBucket(ms, w, dim.width.unit === 'ms' ? dim.width.origin : undefined)); }
    return;
  }
  if (t !== T_NUMBER) return;
  const start = numberBucket(x, w);
  if (start !== null) { keyTypes[d] = T_BUCKET_NUMBER; keyTexts[d] = start; }
}

/**
 * One dimension: the table's groups by type and text, so that finding a group costs no key string (the canonical
 * key is built only for a new group). Kept beside the table, not in it (tables are sent between threads).
 */
const byPart = new WeakMap<TableData, Map<string, Group>[]>();
/** The last table's entry of byPart (units come in runs of one table: no WeakMap lookup per unit). */
let lastTable: TableData | null = null;
let lastMaps: Map<string, Group>[] = [];

/**
 * Adds one unit of record `record`: `atoms` holds the value at each slot of the spec (dimensions' and metrics' paths).
 */
/** FNV-1a of a key's type and text: the partition a group falls in (the same on every thread). */
function keyHash(t: number, text: string): number {
  let h = (0x811c9dc5 ^ t) >>> 0;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

export function addUnit(table: TableData, c: Compiled, record: number, atoms: Atoms): void {
  const dims = c.spec.dimensions;
  const part = c.spec.partition;
  let key = '';
  let g: Group | undefined;
  let cache: Map<string, Group> | undefined;
  if (dims.length === 1) {
    const s = dims[0]!.slot;
    keyPart(c, 0, atoms.types[s]!, atoms.texts[s]!);
    let maps = lastTable === table ? lastMaps : byPart.get(table);
    if (!maps) byPart.set(table, (maps = []));
    lastTable = table;
    lastMaps = maps;
    cache = maps[keyTypes[0]!] ??= new Map();
    // Numbers by canonical value (1 and 1.0 one group); other texts as they are.
    const t = keyTypes[0]!;
    const text = t === T_NUMBER || t === T_BUCKET_NUMBER ? numeralKey(keyTexts[0]!) : keyTexts[0]!;
    if (part && keyHash(t, text) % part.count !== part.index) return;
    g = cache.get(text);
    if (g === undefined) {
      key = canonical(t, keyTexts[0]!);
      g = table.groups.get(key);
      if (g !== undefined) cache.set(text, g);
      else cacheText = text;
    }
  } else {
    for (let d = 0; d < dims.length; d++) {
      const s = dims[d]!.slot;
      keyPart(c, d, atoms.types[s]!, atoms.texts[s]!);
      const k = canonical(keyTypes[d]!, keyTexts[d]!);
      key += k.length + ':' + k;
    }
    if (part && keyHash(0, key) % part.count !== part.index) return;
    g = table.groups.get(key);
  }
  if (g === undefined) {
    const parts: Part[] = [];
    let bytes = GROUP_BYTES + 2 * key.length;
    for (let d = 0; d < dims.length; d++) {
      const s = dims[d]!.slot;
      const t = keyTypes[d]!;
      const p: Part = { t, x: keyTexts[d]!, r: record };
      if (t === T_ARRAY || t === T_OBJECT) p.raw = atoms.raws[s]!;
      parts.push(p);
      bytes += PART_BYTES + 2 * p.x.length + (p.raw ? 2 * p.raw.length : 0);
    }
    bytes += c.spec.metrics.length * 64;
    g = { parts, count: 0, m: c.spec.metrics.map((m) => newMetric(m.kind)), b: bytes, db: 0 };
    table.groups.set(key, g);
    table.bytes += bytes;
    if (cache) cache.set(cacheText, g);
  }
  g.count++;
  if (c.spec.metrics.length === 0) return;
  addMetrics(g.m, c, record, atoms);
  if (metricGrowth.all !== 0) { table.bytes += metricGrowth.all; g.b += metricGrowth.all; }
  if (metricGrowth.distinct !== 0) { table.distinctBytes += metricGrowth.distinct; g.db += metricGrowth.distinct; }
}

/** What the last addMetrics grew a group by (estimated bytes), all metrics, and of that its exact distinct sets. */
export const metricGrowth = { all: 0, distinct: 0 };

/** Adds one unit's values to a group's metric states `ms`; sets {@link metricGrowth}. */
export function addMetrics(ms: MetricState[], c: Compiled, record: number, atoms: Atoms): void {
  metricGrowth.all = 0;
  metricGrowth.distinct = 0;
  const metrics = c.spec.metrics;
  for (let j = 0; j < metrics.length; j++) {
    const m = metrics[j]!;
    let t = atoms.types[m.slot]!;
    if (t === T_MISSING) continue;
    const x = atoms.texts[m.slot]!;
    const st = ms[j]!;
    if (t === T_STRING && m.kind !== 'count_distinct' && isNumeral(x)) {
      if (m.numeric) t = T_NUMBER;
      else (st as SumMetric | ExtremeMetric).ls++;
    }
    switch (m.kind) {
      case 'count_distinct': {
        const grew = addDistinct(st as DistinctState, canonical(t, x));
        if (grew) { metricGrowth.all += grew; metricGrowth.distinct += grew; }
        break;
      }
      case 'sum':
      case 'avg':
        if (t === T_NUMBER) { addLexeme((st as SumMetric).s, x); (st as SumMetric).n++; }
        break;
      default:
        if (t === T_NUMBER || t === T_STRING) {
          const e = st as ExtremeMetric;
          if (better(m.kind === 'min', t, x, record, e)) {
            metricGrowth.all += 2 * (x.length - e.x.length);
            e.t = t; e.x = x; e.r = record;
          }
        }
    }
  }
}

/**
 * Merges metric states `sb` (another part of the same group's units) into `sa`, for metrics other than
 * count_distinct (tables with exact distinct sets merge in {@link mergeTable}); returns the estimated bytes `sa` grew.
 */
export function mergeMetrics(sa: MetricState[], sb: MetricState[], c: Compiled): number {
  let grew = 0;
  const metrics = c.spec.metrics;
  for (let j = 0; j < metrics.length; j++) {
    const m = metrics[j]!;
    if (m.kind === 'sum' || m.kind === 'avg') {
      const a = sa[j] as SumMetric, b = sb[j] as SumMetric;
      mergeSum(a.s, b.s);
      a.n += b.n;
      a.ls += b.ls;
    } else if (m.kind !== 'count_distinct') {
      const eb = sb[j] as ExtremeMetric, ea = sa[j] as ExtremeMetric;
      ea.ls += eb.ls;
      if (eb.t !== -1 && better(m.kind === 'min', eb.t, eb.x, eb.r, ea)) {
        grew += 2 * (eb.x.length - ea.x.length);
        ea.t = eb.t; ea.x = eb.x; ea.r = eb.r;
      }
    }
  }
  return grew;
}

export function newMetric(kind: string): MetricState {
  if (kind === 'count_distinct') return newDistinct();
  if (kind === 'sum' || kind === 'avg') return { s: newSum(), n: 0, ls: 0 };
  return { t: -1, x: '', r: -1, ls: 0 };
}

/** Whether (t, x) from record r replaces the extreme `e`: numbers beat strings; ties keep the earlier record. */
export function better(min: boolean, t: number, x: string, r: number, e: ExtremeMetric): boolean {
  if (e.t === -1) return true;
  if (t !== e.t) return t === T_NUMBER;
  const c = t === T_NUMBER ? compareNumerals(x, e.x) : compareCodePoints(x, e.x);
  if (c === 0) return r < e.r;
  return min ? c < 0 : c > 0;
}

/** Strings by Unicode code point (not UTF-16 unit). */
export function compareCodePoints(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i), y = b.charCodeAt(i);
    if (x === y) continue;
    // A surrogate (a code point above U+FFFF) sorts after every BMP code point above it in UTF-16.
    const sx = x >= 0xd800 && x <= 0xdfff, sy = y >= 0xd800 && y <= 0xdfff;
    if (sx !== sy) return sx ? 1 : -1;
    return x < y ? -1 : 1;
  }
  return a.length < b.length ? -1 : a.length > b.length ? 1 : 0;
}

/** FNV-1a of a table key (a group's canonical key): the part it falls in, the same on every thread. */
export function partOfKey(key: string, parts: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193) >>> 0;
  return h % parts;
}

/**
 * Takes the groups of hash part `part` of `parts` out of `t` into a table of their own (threads that each hold a
 * table over some of the records hand their groups over part by part: the engine merges one part at a time).
 */
export function takePart(t: TableData, part: number, parts: number): TableData {
  const out = newTable();
  for (const [key, g] of t.groups) {
    if (partOfKey(key, parts) !== part) continue;
    out.groups.set(key, g);
    out.bytes += g.b;
    out.distinctBytes += g.db;
    t.groups.delete(key);
  }
  t.bytes -= out.bytes;
  t.distinctBytes -= out.distinctBytes;
  return out;
}

/** Adds partial table `b` (later records, or any records when first-seen positions decide) into `a`. */
export function mergeTable(a: TableData, b: TableData, c: Compiled): void {
  for (const [key, gb] of b.groups) {
    const ga = a.groups.get(key);
    if (ga === undefined) {
      a.groups.set(key, gb);
      a.bytes += gb.b;
      a.distinctBytes += gb.db;
      continue;
    }
    ga.count += gb.count;
    for (let d = 0; d < ga.parts.length; d++) if (gb.parts[d]!.r < ga.parts[d]!.r) ga.parts[d] = gb.parts[d]!;
    const metrics = c.spec.metrics;
    for (let j = 0; j < metrics.length; j++) {
      const m = metrics[j]!;
      const sa = ga.m[j]!, sb = gb.m[j]!;
      if (m.kind === 'count_distinct') {
        const exact = (sa as DistinctState).set !== null;
        const grew = mergeDistinct(sa as DistinctState, sb as DistinctState);
        a.bytes += grew; ga.b += grew;
        if (exact && (sa as DistinctState).set !== null) { a.distinctBytes += grew; ga.db += grew; }
        else if (exact) { a.distinctBytes -= ga.db; ga.db = 0; } // the set became a sketch
      } else if (m.kind === 'sum' || m.kind === 'avg') {
        mergeSum((sa as SumMetric).s, (sb as SumMetric).s);
        (sa as SumMetric).n += (sb as SumMetric).n;
        (sa as SumMetric).ls += (sb as SumMetric).ls;
      } else {
        const eb = sb as ExtremeMetric, ea = sa as ExtremeMetric;
        ea.ls += eb.ls;
        if (eb.t !== -1 && better(m.kind === 'min', eb.t, eb.x, eb.r, ea)) {
          const grew = 2 * (eb.x.length - ea.x.length);
          a.bytes += grew; ga.b += grew;
          ea.t = eb.t; ea.x = eb.x; ea.r = eb.r;
        }
      }
    }
  }
}

/**
 * Frees memory by turning the largest exact distinct sets into sketches until the distinct sets hold at most
 * `budget` bytes (or no set is worth converting). Returns true when something was converted.
 */
export function shrinkDistinct(t: TableData, c: Compiled, budget: number): boolean {
  const idx = c.spec.metrics.map((m, j) => (m.kind === 'count_distinct' ? j : -1)).filter((j) => j >= 0);
  if (idx.length === 0 || t.distinctBytes <= budget) return false;
  const sets: { d: DistinctState; g: Group; bytes: number }[] = [];
  for (const g of t.groups.values()) for (const j of idx) {
    const d = g.m[j] as DistinctState;
    if (d.set) sets.push({ d, g, bytes: distinctBytes(d) });
  }
  sets.sort((x, y) => y.bytes - x.bytes);
  let converted = false;
  let total = sets.reduce((n, s) => n + s.bytes, 0);
  for (const s of sets) {
    // Half the budget is left free so that conversions stay rare; a set smaller than two sketches is kept.
    if (total <= budget / 2 || s.bytes <= 2 * HLL_BYTES) break;
    const freed = toSketch(s.d);
    total -= s.bytes;
    t.bytes -= freed;
    s.g.b -= freed;
    s.g.db -= s.bytes;
    converted = true;
  }
  t.distinctBytes = total;
  return converted;
}

/** A finished group: key values (null where absent), which dimensions were absent or not bucketable, metrics. */
export interface GroupRow {
  key: unknown[];
  missing: number[];
  unbucketable: number[];
  count: number;
  metrics: unknown[];
  /** For sorting: the parts. */
  parts: Part[];
  /** Metric values' sort keys: numbers as lexemes (null when none). */
  sortMetrics: (string | null)[];
  /** Metrics whose value is inexact (a sum past the exact range): reported as warnings. */
  inexact: number[];
  /** Per metric: strings holding a JSON number it met and left out (0 for count_distinct and `numeric` metrics). */
  numberLike: number[];
}

/** Significant digits of averages that do not terminate: past what a double holds, and at least the sum's. */
const AVG_DIGITS = 34;

export function finishGroup(g: Group, c: Compiled, parse: (text: string) => unknown): GroupRow {
  const key: unknown[] = [];
  const missing: number[] = [];
  const unbucketable: number[] = [];
  g.parts.forEach((p, d) => {
    switch (p.t) {
      case T_MISSING: key.push(null); missing.push(d); break;
      case T_UNBUCKETABLE: key.push(null); unbucketable.push(d); break;
      case T_NULL: key.push(null); break;
      case T_FALSE: key.push(false); break;
      case T_TRUE: key.push(true); break;
      case T_NUMBER: case T_BUCKET_NUMBER: key.push(jsonNumber(p.x)); break;
      case T_STRING: key.push(p.x); break;
      case T_BUCKET_TIME: key.push(formatInstant(Number(p.x))); break;
      default: key.push(parse(p.raw ?? p.x));
    }
  });
  const metrics: unknown[] = [];
  const sortMetrics: (string | null)[] = [];
  const inexact: number[] = [];
  const numberLike = c.spec.metrics.map((m, j) => (m.kind === 'count_distinct' ? 0 : (g.m[j] as SumMetric | ExtremeMetric).ls));
  c.spec.metrics.forEach((m, j) => {
    const st = g.m[j]!;
    if (m.kind === 'count_distinct') {
      const v = distinctValue(st as DistinctState);
      metrics.push(v);
      sortMetrics.push(String(typeof v === 'number' ? v : v.value));
    } else if (m.kind === 'sum' || m.kind === 'avg') {
      const { s, n } = st as SumMetric;
      if (n === 0) { metrics.push(null); sortMetrics.push(null); return; }
      const total = sumValue(s);
      if (s.inexact) inexact.push(j); // rounded to MAX_EXACT_SPAN digits below its largest term: never null
      const exact = m.kind === 'sum' ? total : divideDecimal(total, BigInt(n), Math.max(AVG_DIGITS, total.digits.toString().length + 3)).value;
      const lexeme = formatDecimal(exact);
      metrics.push(jsonNumber(lexeme));
      sortMetrics.push(lexeme);
    } else {
      const e = st as ExtremeMetric;
      if (e.t === -1) { metrics.push(null); sortMetrics.push(null); return; }
      metrics.push(e.t === T_NUMBER ? jsonNumber(e.x) : e.x);
      sortMetrics.push(e.t === T_NUMBER ? e.x : null);
    }
  });
  return { key, missing, unbucketable, count: g.count, metrics, parts: g.parts, sortMetrics, inexact, numberLike };
}

/** Rank of a key part's type in key order: missing, not bucketable, null, false, true, numbers, strings, arrays, objects. */
function rank(t: number): number {
  switch (t) {
    case T_MISSING: return 0;
    case T_UNBUCKETABLE: return 1;
    case T_NULL: return 2;
    case T_FALSE: return 3;
    case T_TRUE: return 4;
    case T_NUMBER: case T_BUCKET_NUMBER: case T_BUCKET_TIME: return 5;
    case T_STRING: return 6;
    case T_ARRAY: return 7;
    default: return 8;
  }
}

/** Key order: by dimension, each by type rank then value (numbers exactly, strings by code point). */
export function compareKeys(a: Part[], b: Part[]): number {
  for (let d = 0; d < a.length; d++) {
    const x = a[d]!, y = b[d]!;
    const rx = rank(x.t), ry = rank(y.t);
    if (rx !== ry) return rx < ry ? -1 : 1;
    let c = 0;
    if (x.t === T_NUMBER || x.t === T_BUCKET_NUMBER) c = compareNumerals(x.x, y.x);
    else if (x.t === T_BUCKET_TIME) c = Number(x.x) - Number(y.x);
    else if (x.t === T_STRING || x.t === T_ARRAY || x.t === T_OBJECT) c = compareCodePoints(x.x, y.x);
    if (c !== 0) return c < 0 ? -1 : 1;
  }
  return 0;
}

/** The order of the groups: by count, key or a metric (its index), ascending or descending; ties by key ascending. */
export interface Order {
  by: 'count' | 'key' | number;
  desc: boolean;
}

export function sortRows(rows: GroupRow[], order: Order): void {
  rows.sort(rowOrder(order));
}

/** The comparison sortRows sorts by. */
export function rowOrder(order: Order): (a: GroupRow, b: GroupRow) => number {
  const sign = order.desc ? -1 : 1;
  return (a, b) => {
    let c = 0;
    if (order.by === 'count') c = a.count - b.count;
    else if (order.by === 'key') return sign * compareKeys(a.parts, b.parts);
    else {
      const x = a.sortMetrics[order.by] ?? null, y = b.sortMetrics[order.by] ?? null;
      if (x === null || y === null) {
        if (x !== y) return x === null ? 1 : -1; // groups without a value last, either way
      } else c = compareNumerals(x, y);
    }
    if (c !== 0) return sign * (c < 0 ? -1 : 1);
    return compareKeys(a.parts, b.parts);
  };
}
