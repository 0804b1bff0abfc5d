/**
 * The aggregate tool's arguments turned into the kernel's terms: `group_by` paths and `bucket` into dimensions,
 * `metrics` (`count`, `count_distinct(path)`, `sum(path)`, `avg(path)`, `min(path)`, `max(path)`) into metrics,
 * `order` into an order, `where` into a compiled query (any registered language; detected: record predicates or JSONPath).
 */
import type { AggregateDimension, AggregateMetric, AggregateOrder, CompiledQuery, ToolContext } from 'mcpgw/plugin-api';
import { parsePath, PathError, type Tokens } from '../json/paths';
import { isPredicate, readsRecordPath } from '../search/predicate';
import { filterOf, PREDICATE } from '../search/predicate-language';
import { languageNames, queryLanguage } from '../search/languages';
import { compileQuery } from '../search/query-page';

/** A singular path as tokens. @throws INVALID_ARGUMENT */
export function singularPath(ctx: ToolContext, path: string, what: string): Tokens {
  let parsed: ReturnType<typeof parsePath>;
  try {
    parsed = parsePath(path);
  } catch (err) {
    if (err instanceof PathError) {
      throw ctx.error('INVALID_ARGUMENT', `Bad path ${JSON.stringify(path)} in ${what} at character ${err.position}: ${err.message}`, {
        hint: 'Paths: status, user.address.city, items[0].id, [\'a.b\'] for names with dots, /user/name (JSON Pointer) or $.user.name (JSONPath).',
      });
    }
    throw err;
  }
  if (!('tokens' in parsed)) {
    throw ctx.error('INVALID_ARGUMENT', `${what} takes singular paths; ${JSON.stringify(path)} may select several values.`, {
      hint: 'Use a path to one value (user.name, /user/name, $.user.name); to aggregate the elements of an array, pass each (e.g. "$.items[*]") and paths inside an element.',
    });
  }
  return parsed.tokens;
}

export const METRIC_KINDS = ['count_distinct', 'sum', 'avg', 'min', 'max'] as const;

/** `"sum(bytes)"` → {kind, path, name}; `"count"` → null (the count every group has). @throws INVALID_ARGUMENT */
export function parseMetric(ctx: ToolContext, text: string): (AggregateMetric & { name: string }) | null {
  const t = text.trim();
  if (t === 'count' || t === 'count()' || t === 'count(*)') return null;
  const m = /^([a-z_]+)\s*\(([\s\S]*)\)$/.exec(t);
  const kind = m?.[1] as AggregateMetric['kind'] | undefined;
  if (!m || !kind || !(METRIC_KINDS as readonly string[]).includes(kind) || m[2]!.trim() === '') {
    throw ctx.error('INVALID_ARGUMENT', `Unknown metric ${JSON.stringify(text)}.`, {
      hint: 'Metrics: count, count_distinct(path), sum(path), avg(path), min(path), max(path); number(path) inside sum/avg/min/max reads strings that hold a number as numbers; e.g. ["count", "sum(bytes)", "count_distinct(user.id)", "avg(number(lat))"].',
    });
  }
  const path = m[2]!.trim();
  // sum(number(lat)): strings that hold a JSON number ("42.5") count as that number
  const numeric = /^number\s*\(([\s\S]*)\)$/.exec(path);
  if (numeric && kind !== 'count_distinct') {
    const inner = numeric[1]!.trim();
    return { kind, path: singularPath(ctx, inner, `metric ${t}`), numeric: true, name: `${kind}(number(${inner}))` };
  }
  return { kind, path: singularPath(ctx, path, `metric ${t}`), name: `${kind}(${path})` };
}

/** `"count_desc"`, `"key_asc"`, `"sum(bytes)_desc"` or `"sum(bytes) desc"`. @throws INVALID_ARGUMENT */
export function parseOrder(ctx: ToolContext, text: string, metricNames: readonly string[]): AggregateOrder {
  const m = /^\s*([\s\S]*?)[\s_]+(asc|desc)\s*$/.exec(text);
  const by = m?.[1]?.trim();
  const desc = m?.[2] === 'desc';
  if (by === 'count' || by === 'key') return { by, desc };
  if (by !== undefined) {
    const norm = (s: string) => s.replace(/\s+/g, '');
    const j = metricNames.findIndex((n) => norm(n) === norm(by));
    if (j >= 0) return { by: 'metric', metric: j, desc };
  }
  throw ctx.error('INVALID_ARGUMENT', `Bad order ${JSON.stringify(text)}.`, {
    hint: `order: count_desc (default), count_asc, key_asc, key_desc, or a metric of this call with _asc/_desc${metricNames.length ? ` (${metricNames.map((n) => `"${n}_desc"`).join(', ')})` : ''}.`,
  });
}

const DURATION = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d|w)\s*$/;
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };
const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/**
 * The default origin of time buckets: 2000-01-03T00:00:00Z, a Monday, as DuckDB's `time_bucket` (for widths without
 * months): day buckets start at 00:00Z, week buckets on Monday (ISO 8601), and any width lies as DuckDB's does.
 */
export const DEFAULT_BUCKET_ORIGIN = '2000-01-03T00:00:00Z';
const DEFAULT_BUCKET_ORIGIN_MS = 946_857_600_000;
const ORIGIN = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|([+-])(\d{2}):(\d{2})))?$/;

/** An RFC 3339 date-time or full-date (midnight UTC) → ms since the epoch, or NaN (impossible dates too). */
export function parseOrigin(text: string): number {
  const m = ORIGIN.exec(text.trim());
  if (!m) return NaN;
  const [y, mo, d, h = '0', mi = '0', s = '0'] = [m[1]!, m[2]!, m[3]!, m[4], m[5], m[6]];
  const frac = m[7] ? Math.floor(Number(`0${m[7]}`) * 1000) : 0;
  const date = new Date(0);
  date.setUTCFullYear(Number(y), Number(mo) - 1, Number(d));
  date.setUTCHours(Number(h), Number(mi), Number(s), frac);
  if (date.getUTCFullYear() !== Number(y) || date.getUTCMonth() !== Number(mo) - 1 || date.getUTCDate() !== Number(d) || Number(h) > 23 || Number(mi) > 59 || Number(s) > 59) return NaN;
  const offset = m[9] ? (m[9] === '+' ? 1 : -1) * (Number(m[10]) * 60 + Number(m[11])) * 60_000 : 0;
  return date.getTime() - offset;
}

/** RFC 3339 spelling of an instant in UTC, milliseconds only when there are some. */
export function formatOrigin(ms: number): string {
  const iso = new Date(ms).toISOString();
  return iso.endsWith('.000Z') ? iso.slice(0, -5) + 'Z' : iso;
}

/** `{path, width, epoch?, origin?}` → a bucket dimension. @throws INVALID_ARGUMENT */
export function parseBucket(ctx: ToolContext, bucket: { path: string; width: string | number; epoch?: 's' | 'ms' | undefined; origin?: string | undefined }): AggregateDimension {
  const path = singularPath(ctx, bucket.path, 'bucket.path');
  const w = bucket.width;
  if (typeof w === 'number' || JSON_NUMBER.test(w.trim())) {
    const lexeme = typeof w === 'number' ? String(w) : w.trim();
    if (!(Number(lexeme) > 0) || !JSON_NUMBER.test(lexeme)) {
      throw ctx.error('INVALID_ARGUMENT', `bucket.width must be a positive number or a duration; got ${JSON.stringify(w)}.`, { hint: 'Numbers: {"path": "latency_ms", "width": 100}; timestamps: {"path": "ts", "width": "1h"}.' });
    }
    if (bucket.epoch) throw ctx.error('INVALID_ARGUMENT', 'bucket.epoch goes with a duration width ("1h"), not a number.');
    if (bucket.origin !== undefined) throw ctx.error('INVALID_ARGUMENT', 'bucket.origin goes with a duration width ("1w"), not a number: number buckets start at multiples of the width.');
    return { kind: 'bucket', path, width: { unit: 'number', lexeme } };
  }
  const m = DURATION.exec(w);
  const ms = m ? Number(m[1]) * UNIT_MS[m[2]!]! : NaN;
  if (!m || !Number.isInteger(ms) || ms <= 0) {
    throw ctx.error('INVALID_ARGUMENT', `bucket.width ${JSON.stringify(w)} is neither a positive number nor a duration.`, {
      hint: 'Durations: a number and a unit, ms, s, m, h, d or w ("15m", "1h", "1d"); numbers: a positive width (100, 0.5).',
    });
  }
  let origin = DEFAULT_BUCKET_ORIGIN_MS;
  if (bucket.origin !== undefined) {
    origin = parseOrigin(bucket.origin);
    if (origin !== origin || Math.abs(origin) > 8.64e15) {
      throw ctx.error('INVALID_ARGUMENT', `bucket.origin ${JSON.stringify(bucket.origin)} is not an RFC 3339 time.`, {
        hint: 'An instant the buckets are counted from, e.g. "2000-01-03T00:00:00Z" (the default, a Monday), "1970-01-01" (the Unix epoch, a Thursday) or "2025-01-05T00:00:00-05:00" (Sundays in New York).',
      });
    }
  }
  return { kind: 'bucket', path, width: { unit: 'ms', ms, origin, ...(bucket.epoch ? { epoch: bucket.epoch } : {}) } };
}

/** `where` compiled: by a language that selects records (`as: "filter"`: a record predicate) or takes each as its root. */
export interface Where {
  query: CompiledQuery;
  as: 'filter' | 'select';
  /** For a record predicate: the RFC 9535 filter it was translated to. */
  filter?: string;
}

/**
 * Compiles `where` with the registered query language `languageName`, or without one as before languages could be
 * named: a record predicate (`$.status = "failed"`, `$.bytes > 1000 && $.user`; string equality ignores case unless
 * matchCase) or a JSONPath query (a unit counts when it selects something). A language that selects records from their
 * sequence (`perRecord: "sequence"`, the predicates) filters records; any other runs on each record (or unit) as its
 * root, which counts when the node list is not empty.
 * @throws QUERY_SYNTAX_ERROR, UNSUPPORTED_QUERY_FEATURE, INVALID_ARGUMENT (plain text, an unknown language)
 */
export function compileWhere(ctx: ToolContext, text: string, matchCase: boolean, languageName?: string): Where {
  const trimmed = text.trim();
  let name = languageName;
  if (name === undefined) {
    // Anything that reads a record path is compiled as a predicate, so a fault in it is a QUERY_SYNTAX_ERROR with its
    // position (aggregate has no text search to fall back on).
    if (isPredicate(trimmed) && (trimmed.startsWith('$') || /^[!(]/.test(trimmed) || readsRecordPath(trimmed))) name = PREDICATE;
    else if (trimmed.startsWith('$')) name = 'jsonpath';
    else {
      throw ctx.error('INVALID_ARGUMENT', `where takes a record predicate or a JSONPath query; ${JSON.stringify(text.slice(0, 100))} is neither.`, {
        hint: `E.g. $.status = "failed", $.latency_ms > 100 && $.level == "error", or $.trace_id (records that have one); or name its language (${languageNames(ctx.registry)}). Text search is search's job.`,
      });
    }
  }
  const language = queryLanguage(ctx, name);
  const query = compileQuery(ctx, language, trimmed, matchCase);
  if (language.perRecord !== 'sequence') return { query, as: 'select' };
  return { query, as: 'filter', ...(language.name === PREDICATE ? { filter: filterOf(query) } : {}) };
}
