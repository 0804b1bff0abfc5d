import type { RecordSource } from './format';
import type { CompiledQuery } from './query';
import type { SkippedRecord } from './scan';

/**
 * One step of a singular path (RFC 9535 §2.3.5.1 singular query; RFC 6901 reference tokens). What it selects
 * (api/path-token.ts `tokenName`, `tokenIndex`):
 * - a string or a number decides by the value it meets (RFC 6901 §4): in an array, a number (negative counts from the
 *   end) or a string of array-index form (`"0"`, digits without a leading zero) is an element; in an object, the token
 *   as a string names a member (`"0"` and `0` both name the member "0"). So `["tags", "0"]`, as a JSON Pointer
 *   `/tags/0` parses, and `["tags", 0]` select the same values;
 * - `{index}`: an RFC 9535 index selector (§2.3.3, JSONPath `[0]`, `[-1]`): an element of an array, nothing in an
 *   object;
 * - `{name}`: an RFC 9535 name selector (§2.3.1, JSONPath `['0']`, `.a`): a member of an object, nothing in an array.
 */
export type PathToken = string | number | { readonly index: number } | { readonly name: string };

/** A singular path inside a unit: its tokens from the unit down ({@link PathToken}). */
export type PathTokens = readonly PathToken[];

/**
 * A grouping dimension: the value at `path`, or its bucket. `width.unit: "number"` groups numbers by ⌊v / width⌋ ×
 * width (`lexeme`: the width as a JSON number > 0, exact); `"ms"` groups RFC 3339 timestamps and epoch numbers
 * (seconds, or milliseconds when |v| ≥ 1e11, unless `epoch` says) by a duration of `ms` milliseconds on the UTC time
 * line, counted from `origin` (ms since the epoch; default 2000-01-03T00:00:00Z = 946,857,600,000 ms, a Monday,
 * DuckDB's `time_bucket` origin: weeks start on Monday as in ISO 8601).
 */
export type AggregateDimension =
  | { kind: 'value'; path: PathTokens }
  | { kind: 'bucket'; path: PathTokens; width: { unit: 'number'; lexeme: string } | { unit: 'ms'; ms: number; epoch?: 's' | 'ms'; origin?: number } };

/**
 * A metric of each group over the values at `path` (members absent from a unit are left out):
 * - `count_distinct`: distinct values (by value: `1` and `1.0` are one, `1` and `"1"` two; `null` is a value), exact
 *   while the engine's memory bound allows, then a HyperLogLog estimate flagged with its error bound;
 * - `sum`, `avg`: of the numbers (other values are left out), exact decimals (never rounded; an average that does
 *   not terminate is rounded half to even at 34 significant digits, or more for longer sums), written in plain
 *   positional form (decimal.ts formatDecimal: the exponent form only past 40 padding zeros); null without numbers;
 * - `min`, `max`: of the numbers by exact value, the file's lexeme; of the strings by code point when the group
 *   holds no number; null when it holds neither.
 * A string holding a JSON number (`"42.53176"`) is a string to these metrics, and the answer says how many they met
 * (NUMBER_LIKE_STRINGS); `numeric: true` reads such strings as the numbers they spell (`sum(number(lat))`).
 */
export interface AggregateMetric {
  kind: 'count_distinct' | 'sum' | 'avg' | 'min' | 'max';
  path: PathTokens;
  /** sum/avg/min/max: a string holding an RFC 8259 number counts as that number. */
  numeric?: boolean;
}

/** Group order: by `count`, by `key` (type then value: missing, not bucketable, null, false, true, numbers, strings,
 *  arrays, objects), or by metric `metric` (its index; groups without a number last); ties by key ascending. */
export type AggregateOrder = { by: 'count' | 'key'; desc: boolean } | { by: 'metric'; metric: number; desc: boolean };

/** Where an aggregate stopped at a deadline: pass it back as `resume` to continue (opaque; holds the partial groups). */
export interface AggregateProgress {
  /** The first record not yet aggregated. */
  readonly record: number;
}

export interface AggregateOptions {
  source: RecordSource;
  /**
   * Only units this query accepts count. `as: "filter"`: the query is `$[?<filter>]` and a unit counts when the
   * filter holds with `@` = the unit (a record predicate); `as: "select"`: a unit counts when the query, with the
   * unit as `$`, selects at least one node.
   */
  where?: { query: CompiledQuery; as: 'filter' | 'select' };
  /**
   * The units: the nodes this query selects in each record (record as `$`, e.g. `$.items[*]` of a single document).
   * Absent: each record is a unit. With `each`, `where` is evaluated on this thread, so it must not use regular
   * expressions (UNSUPPORTED_QUERY_FEATURE).
   */
  each?: CompiledQuery;
  /** The group key's dimensions, in order (none: one group of every unit). */
  dimensions: AggregateDimension[];
  metrics: AggregateMetric[];
  order: AggregateOrder;
  /** From a previous result that stopped at its deadline, with the same source and options. */
  resume?: AggregateProgress;
  signal?: AbortSignal;
  /** ms since the epoch: past it the aggregate stops with `complete: false` and `resume` (groups so far). */
  deadline?: number;
  /** Records aggregated of records to aggregate. */
  onProgress?: (done: number, total: number) => void;
}

/** One group: its key (one value per dimension, numbers exact), its count and metric values (options' order). */
export interface AggregateGroup {
  /** Per dimension: the value as first seen in the file (numbers as their lexeme), a bucket's start (a number, or an
   *  RFC 3339 UTC timestamp), or null where the member is absent (`missing`) or not bucketable (`unbucketable`). */
  key: unknown[];
  /** Indexes of the dimensions whose member is absent from the group's units (apart from a `null` value). */
  missing: number[];
  /** Indexes of bucket dimensions whose value is neither a number nor a timestamp (nor, for a number width, a number). */
  unbucketable: number[];
  count: number;
  /** Per metric: a number (exact: `JSON.rawJSON` where a double cannot hold it), a string (min/max of strings), null,
   *  or for an estimated distinct count `{value, estimated: true, error_bound}` (three standard errors). */
  metrics: unknown[];
}

export interface AggregateResult {
  /** Every group, sorted by `order` (past the memory bound: the first of them, see `groupsTotal`). */
  groups: AggregateGroup[];
  /** When `groups` holds only the first of them (an exact answer over more groups than the memory bound): all groups. */
  groupsTotal?: number;
  /** Records visited (from the resume position on, plus those of earlier pages). */
  recordsScanned: number;
  /** Records with at least one unit that counts. */
  recordsMatched: number;
  /** Units that count (the sum of the groups' counts): records, or with `each` the nodes selected. */
  units: number;
  /** false: the deadline stopped the aggregate; `resume` continues it. */
  complete: boolean;
  resume?: AggregateProgress;
  /** Records passed over (malformed, too deep, or not evaluated in time), and the first five of them. */
  skipped: number;
  firstSkipped: SkippedRecord[];
  /** Metrics that could not be exact for some group (a sum spanning more than 4,000 digits): values are doubles. */
  warnings: { code: string; message: string }[];
}

/**
 * Aggregates run by the scan engine (`ctx.scan.aggregate`): byte prefilter for `where`, on-demand reads of the
 * grouped members, worker threads on big files, deadline, cancellation, progress; memory bounded whatever the file
 * size (distinct sets turn into sketches; a table past the bound is RESOURCE_LIMIT_EXCEEDED,
 * `limit.name: "aggregateGroupBytes"`).
 * @throws McpgwError CANCELLED, RESOURCE_LIMIT_EXCEEDED, UNSUPPORTED_QUERY_FEATURE, SOURCE_CHANGED, IO_ERROR,
 *   SYNTAX_ERROR (a single-document file that is malformed).
 */
export interface Aggregator {
  aggregate(options: AggregateOptions): Promise<AggregateResult>;
}
