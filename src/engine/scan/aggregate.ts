/**
 * The scan engine's aggregates (`ctx.scan.aggregate`, contract in contracts/aggregate.ts). Records are read in
 * record-aligned batches and aggregated on this thread, or on worker threads for big files and for `where` queries
 * with regular expressions (aggregate-threads.ts); `each` units come from the engine's own query scan. Partial
 * tables are merged in file order, so a deadline stops at a batch boundary and `resume` continues exactly there.
 * A big file's `where` with a byte prefilter (required literals, no regular expression) starts on this thread, as
 * the search engine's scans do: while the prefilter narrows, there is little to evaluate and worker threads would
 * cost more (start-up, copies, their heaps) than they save; from the first batch it leaves more than half of, the
 * rest goes to the threads, into the same table.
 */
import type { AggregateOptions, AggregateProgress, AggregateResult } from '../../kernel/contracts/aggregate';
import type { Limits } from '../../kernel/contracts/limits';
import type { ScanNode, ScanPosition, ScanQueryOptions, ScanResult } from '../../kernel/contracts/scan';
import { McpgwError } from '../../kernel/errors';
import type { ParseSite } from '../records/parse';
import { atomsOfValue, newAtoms } from '../aggregate/extract';
import { specData } from '../aggregate/spec';
import { CompactTable } from '../aggregate/compact';
import { addUnit, compileSpec, finishGroup, mergeTable, newTable, rowOrder, shrinkDistinct, sortRows, takePart, type Compiled, type Group, type GroupRow, type Order, type TableData } from '../aggregate/table';
import { addStats, aggregateBatch, batchContext, exactParser, newStats, skip, type BatchStats, type WhereTest } from './aggregate-batch';
import { oversizedOutcome, viewOf } from './engine';
import { checkedKey, checkedMarks } from './checked';
import type { Clock } from '../../kernel/contracts/clock';
import { systemClock } from '../../kernel/clock';

/** Records aggregated on this thread between two turns of the event loop (and two checks of the memory bound). */
export const AGGREGATE_SLICE = 4096;

/** Estimated bytes a group table may hold (the groups, their keys and metric states). */
export const AGGREGATE_TABLE_BYTES = 48 * 1024 * 1024;
/** Of that, what exact distinct sets may hold before the largest turn into sketches. */
export const DISTINCT_BYTES = 16 * 1024 * 1024;

/** The state of an aggregate the deadline stopped (held by the caller's cursor; bounded like the table). */
export class AggregateState implements AggregateProgress {
  constructor(
    public record: number,
    readonly table: TableData,
    readonly stats: BatchStats,
    /** Records never to evaluate again (a regular expression was stuck on them; reported already). */
    readonly stuck: Set<number>,
    /** `each`: the engine's position inside `record`. */
    public position: ScanPosition | null,
    /** Checks that a resume belongs to the same aggregate. */
    readonly signature: string,
  ) {}

  /** `each`: the last record with a unit that counts (a record's units may span two pages). */
  lastMatched = -1;
}

/** Runs batches on worker threads (aggregate-threads.ts). */
export interface AggregatePool {
  /** Whether an aggregate over a `bytes`-byte file with this `where` should use threads. */
  wanted(bytes: number, where: WhereTest | null): boolean;
  run(job: AggregateJob): Promise<{ stoppedAt: number | null; stuck: number[] }>;
}

/** One aggregate handed to a pool: records [from, to) into `table` and `stats`. */
export interface AggregateJob {
  opts: AggregateOptions;
  compiled: Compiled;
  where: WhereTest | null;
  from: number;
  to: number;
  table: TableData;
  stats: BatchStats;
  skipRecords: ReadonlySet<number>;
  maxDepth: number;
  /** Called after each merge: throws when the table is over its bound. */
  checkMemory: () => void;
  /** The clock `opts.deadline` is on; the pool waits on it too. */
  clock: Clock;
  /**
   * Threads keep the whole table of their records (each within `threadBytes`, else the job fails with
   * aggregateGroupBytes) and, once every record is done, hand it over in `partsFor(their tables' bytes, at least the
   * bytes of the distinct groups)` hash parts,
   * each part's tables (from every thread) merged and given to `onPart` (not merged into `table`). At the deadline the
   * whole tables merge into `table` instead. Ignored with regular expressions in `where`.
   */
  keep?: { threadBytes: number; partsFor: (heldBytes: number, least: number) => number; onPart: (t: TableData | CompactTable, part: number, count: number) => void };
}

export interface AggregateEnv {
  limits: Limits;
  /** Memory bounds, bytes (defaults AGGREGATE_TABLE_BYTES, DISTINCT_BYTES; lower in tests). */
  bounds?: { tableBytes?: number; distinctBytes?: number; threadTableBytes?: number };
  pool?: AggregatePool;
  /** The engine's query scan without taking another slot (for `each`). */
  scan: (opts: ScanQueryOptions) => Promise<ScanResult>;
  /** The clock `opts.deadline` is on (the engine's; default the system clock). */
  clock?: Clock;
}

function signatureOf(opts: AggregateOptions): string {
  return JSON.stringify([opts.source.identity, opts.where ? [opts.where.as, opts.where.query.language ?? null, opts.where.query.text] : null, opts.each?.text ?? null, opts.dimensions, opts.metrics]);
}

function whereTest(opts: AggregateOptions): WhereTest | null {
  const w = opts.where;
  if (!w) return null;
  if (w.as === 'select') return { as: 'select', query: w.query };
  const split = w.query.split;
  return {
    as: 'filter', query: w.query,
    ...(split?.test ? { test: split.test.bind(split) } : {}),
    ...(split?.test && split.testReads ? { testReads: split.testReads } : {}),
  };
}

/** Groups an aggregate over more groups than its memory bound answers with (the first, in the order asked). */
export const KEEP_ROWS = 10_000;

/**
 * The aggregate; past its memory bound (more groups than `tableBytes` hold), answered exactly all the same by
 * `runPartitioned`: several passes over the file, each holding one part of the groups.
 */
export async function runAggregate(opts: AggregateOptions, env: AggregateEnv): Promise<AggregateResult> {
  try {
    const { state, compiled, complete, folded } = await runPass(opts, env);
    return result(state, compiled, opts, complete, env.limits.maxDepth, folded?.parts(1));
  } catch (err) {
    if (!(err instanceof McpgwError) || err.limit?.name !== 'aggregateGroupBytes' || opts.resume !== undefined) throw err;
    return runPartitioned(opts, env, err);
  }
}

/**
 * An exact aggregate over more groups than one table holds: `count` passes (4, else 16, else 64), pass `index`
 * holding only the groups whose key hashes to it, so each table stays within the bound; each pass's groups are
 * finished and merged into the first KEEP_ROWS in the order asked (memory: one table and those rows), and
 * `groupsTotal` counts them all. The statistics are one pass's (every pass reads every record). A pass the deadline
 * stops makes the whole RESOURCE_LIMIT_EXCEEDED, saying why (a partitioned run does not resume).
 */
async function runPartitioned(opts: AggregateOptions, env: AggregateEnv, first: McpgwError): Promise<AggregateResult> {
  const order = opts.order;
  const by = { by: order.by === 'metric' ? order.metric : order.by, desc: order.desc };
  const tooLate = (count: number, index: number) => new McpgwError('RESOURCE_LIMIT_EXCEEDED', `${first.message} An exact answer reads the file ${count === 1 ? 'once, its groups merged in parts,' : `${count} times, one part of the groups each,`} and ${count === 1 ? 'the read' : `pass ${index + 1}`} did not finish before the deadline.`, {
    ...(first.limit ? { limit: first.limit } : {}),
    hint: 'Raise limits.requestTimeoutMs (mcpgw aggregate has no deadline), narrow the records with where, or group by a member with fewer distinct values.',
  });
  for (let count = 4; count <= 64; count *= 4) {
    let kept: GroupRow[] = [];
    let total = 0;
    let head: { state: AggregateState; compiled: Compiled } | null = null;
    const numberLike = opts.metrics.map(() => 0);
    const inexact = new Set<number>();
    let overflow = false;
    for (let index = 0; index < count; index++) {
      let pass: Awaited<ReturnType<typeof runPass>>;
      try {
        pass = await runPass(opts, env, { index, count });
      } catch (err) {
        if (err instanceof McpgwError && err.limit?.name === 'aggregateGroupBytes') { overflow = true; break; }
        throw err;
      }
      if (!pass.complete) throw tooLate(count, index);
      const parse = exactParser(env.limits.maxDepth);
      const rows: GroupRow[] = [];
      for (const g of pass.state.table.groups.values()) rows.push(finishGroup(g, pass.compiled, parse));
      total += rows.length;
      for (const r of rows) {
        r.numberLike.forEach((n, j) => { numberLike[j]! += n; });
        for (const j of r.inexact) inexact.add(j);
      }
      kept = kept.concat(rows);
      sortRows(kept, by);
      if (kept.length > KEEP_ROWS) kept.length = KEEP_ROWS;
      head ??= { state: pass.state, compiled: pass.compiled };
    }
    if (!overflow && head) return result(head.state, head.compiled, opts, true, env.limits.maxDepth, { rows: kept, total, numberLike, inexact, passes: count });
  }
  throw first;
}

/** Hash parts the threads' tables are handed over in when they hold many groups: this thread merges 1/PARTS at once. */
export const PARTS = 16;

/** The first KEEP_ROWS finished rows of groups handed over part by part, in the order asked, and what all said. */
class Fold {
  rows: GroupRow[] = [];
  total = 0;
  readonly numberLike: number[];
  readonly inexact = new Set<number>();
  constructor(private readonly by: Order, metrics: number, private readonly parse: (text: string) => unknown) {
    this.numberLike = Array.from({ length: metrics }, () => 0);
  }

  /**
   * By count without metrics: the groups that may be among the first KEEP_ROWS, still compact (rows are made of them
   * at the end): those within the KEEP_ROWS-th count of these and each part's groups, ties included.
   */
  private kept: CompactTable | null = null;
  private keptOf: Compiled | null = null;

  add(t: TableData | CompactTable, compiled: Compiled): void {
    if (t instanceof CompactTable && this.by.by === 'count' && compiled.spec.metrics.length === 0 && this.rows.length === 0) {
      // A group whose count puts it after the KEEP_ROWS-th count of the groups kept and this part's cannot be among the
      // first KEEP_ROWS: it is only counted. Rows (~800 bytes each) made part after part left the heap grown by tens
      // of MiB of rows sorted out.
      const kept = this.kept;
      const desc = this.by.desc;
      const had = kept ? kept.n : 0;
      let bound = desc ? -Infinity : Infinity;
      if (had + t.n > KEEP_ROWS) {
        const counts = new Float64Array(had + t.n);
        if (kept) counts.set(kept.counts.subarray(0, had));
        counts.set(t.counts.subarray(0, t.n), had);
        counts.sort();
        bound = desc ? counts[counts.length - KEEP_ROWS]! : counts[KEEP_ROWS - 1]!;
      }
      const next = new CompactTable(compiled, 0);
      const within = (n: number) => (desc ? n >= bound : n <= bound);
      if (kept) for (let g = 0; g < had; g++) if (within(kept.counts[g]!)) next.copy(kept, g);
      for (let g = 0; g < t.n; g++) if (within(t.counts[g]!)) next.copy(t, g);
      this.total += t.n;
      this.kept = next;
      this.keptOf = compiled;
      return;
    }
    this.rowsOfKept();
    const order = rowOrder(this.by);
    // Once KEEP_ROWS are kept, only rows before the last of them can enter (the sort then stays small).
    const last = this.rows.length >= KEEP_ROWS ? this.rows[this.rows.length - 1]! : null;
    const rows: GroupRow[] = [];
    const each = (g: Group) => {
      const r = finishGroup(g, compiled, this.parse);
      this.total++;
      r.numberLike.forEach((n, j) => { this.numberLike[j]! += n; });
      for (const j of r.inexact) this.inexact.add(j);
      if (last === null || order(r, last) < 0) rows.push(r);
    };
    if (t instanceof CompactTable) t.forEach(each);
    else for (const g of t.groups.values()) each(g);
    this.rows = this.rows.concat(rows);
    this.rows.sort(order);
    if (this.rows.length > KEEP_ROWS) this.rows.length = KEEP_ROWS;
  }

  /** The groups kept compact made rows (counted already), sorted, the first KEEP_ROWS. */
  private rowsOfKept(): void {
    const kept = this.kept;
    if (!kept) return;
    this.kept = null;
    const rows: GroupRow[] = [];
    kept.forEach((g) => rows.push(finishGroup(g, this.keptOf!, this.parse)));
    this.rows = this.rows.concat(rows);
    this.rows.sort(rowOrder(this.by));
    if (this.rows.length > KEEP_ROWS) this.rows.length = KEEP_ROWS;
  }

  parts(passes: number): Partitioned {
    this.rowsOfKept();
    return { rows: this.rows, total: this.total, numberLike: this.numberLike, inexact: this.inexact, passes };
  }
}

async function runPass(opts: AggregateOptions, env: AggregateEnv, partition?: { index: number; count: number }): Promise<{ state: AggregateState; compiled: Compiled; complete: boolean; folded?: Fold }> {
  const { source } = opts;
  const maxDepth = env.limits.maxDepth;
  const compiled = compileSpec({ ...specData(opts.dimensions, opts.metrics), ...(partition ? { partition } : {}) });
  const signature = signatureOf(opts);
  let state: AggregateState;
  if (opts.resume !== undefined) {
    if (!(opts.resume instanceof AggregateState) || opts.resume.signature !== signature) {
      throw new McpgwError('INVALID_ARGUMENT', 'The resume position belongs to another aggregate (another file, where, each, group or metrics).');
    }
    // A copy: a continuation that fails or is cancelled leaves the caller's state as it was (retrying it is safe).
    const r = opts.resume;
    state = new AggregateState(r.record, structuredClone(r.table), structuredClone(r.stats), new Set(r.stuck), r.position, signature);
    state.lastMatched = r.lastMatched;
  } else state = new AggregateState(0, newTable(), newStats(), new Set(), null, signature);
  const { table, stats } = state;

  const tableBytes = env.bounds?.tableBytes ?? AGGREGATE_TABLE_BYTES;
  const distinctBudget = env.bounds?.distinctBytes ?? DISTINCT_BYTES;
  const checkMemory = () => {
    if (table.bytes <= tableBytes) return;
    if (shrinkDistinct(table, compiled, distinctBudget / 2) && table.bytes <= tableBytes) return;
    throw new McpgwError('RESOURCE_LIMIT_EXCEEDED', `The aggregate holds ${table.groups.size} groups, more than fit its memory bound (${(tableBytes / 1024 / 1024).toFixed(0)} MiB).`, {
      limit: { name: 'aggregateGroupBytes', limit: tableBytes, value: table.bytes },
      hint: 'Group by a member with fewer distinct values, narrow the records with where, or bucket numbers and timestamps; count_distinct(path) tells how many distinct values a member has.',
    });
  };
  const whenDistinctGrows = () => {
    if (table.distinctBytes > distinctBudget) shrinkDistinct(table, compiled, distinctBudget);
  };

  let complete = true;
  let folded: Fold | undefined;
  if (opts.each) {
    complete = await runEach(opts, env, compiled, state, checkMemory);
  } else {
    const where = whereTest(opts);
    const from = state.record;
    const to = source.count;
    if (from < to) {
      const pool = env.pool && env.pool.wanted(source.identity.size, where) ? env.pool : null;
      const memory = () => { whenDistinctGrows(); checkMemory(); };
      // A prefilter that narrows: this thread, until a batch shows it does not (then `handOver`, the next record).
      const here = !pool || (!!where?.query.requiredLiterals?.length && !where.query.usesRegex);
      let start = from;
      if (here) {
        const r = await runHere(opts, env, compiled, where, from, to, state, memory, pool);
        if (r.stoppedAt !== null) { state.record = r.stoppedAt; complete = false; }
        else if (r.handOver === null) state.record = to;
        else start = r.handOver;
      }
      /**
       * The threads keep their tables (each within twice the table bound, or bounds.threadTableBytes) and hand them
       * over at the end: whole when they are small, else in PARTS hash parts, each part (with this table's groups of
       * it) merged into `whole` while that stays within the bound (then it is the answer, every group in it), and
       * once past it finished and folded into the first KEEP_ROWS rows: this thread holds the bound and one part.
       */
      let whole = newTable();
      /** Compact parts (compact.ts) kept whole while their groups' estimate stays within the bound. */
      let wholeParts: CompactTable[] = [];
      let wholeEstimate = 0;
      let foldAll = false;
      const onCompactPart = (t: CompactTable, part: number, count: number) => {
        if (count === 1) { mergeTable(table, t.toTable(), compiled); memory(); return; }
        t.mergeTable(takePart(table, part, count));
        if (!folded && foldAll) folded = new Fold(orderOf(opts), opts.metrics.length, exactParser(maxDepth));
        if (folded) { folded.add(t, compiled); return; }
        wholeParts.push(t);
        wholeEstimate += t.estimate;
        if (wholeEstimate <= tableBytes) {
          // every part within the bound: the answer is every group, as on this thread
          if (part === count - 1) { for (const w of wholeParts) mergeTable(table, w.toTable(), compiled); wholeParts = []; }
          return;
        }
        folded = new Fold(orderOf(opts), opts.metrics.length, exactParser(maxDepth));
        for (const w of wholeParts) folded.add(w, compiled);
        wholeParts = [];
      };
      const keep: AggregateJob['keep'] = {
        threadBytes: env.bounds?.threadTableBytes ?? 2 * tableBytes,
        partsFor: (held, least) => {
          // The distinct groups past the bound (one thread's alone, or the threads' own keys): more groups than an
          // answer of every group holds, so the parts are folded as they come (none kept whole).
          if (least > tableBytes) foldAll = true;
          return held + table.bytes > tableBytes / 2 ? PARTS : 1;
        },
        onPart: (t, part, count) => {
          if (t instanceof CompactTable) { onCompactPart(t, part, count); return; }
          if (count === 1) { mergeTable(table, t, compiled); memory(); return; }
          mergeTable(t, takePart(table, part, count), compiled);
          if (!folded) {
            mergeTable(whole, t, compiled);
            if (whole.distinctBytes > distinctBudget) shrinkDistinct(whole, compiled, distinctBudget);
            if (whole.bytes > tableBytes) shrinkDistinct(whole, compiled, distinctBudget / 2);
            if (whole.bytes <= tableBytes) {
              if (part === count - 1) { mergeTable(table, whole, compiled); whole = newTable(); } // every part: the answer
              return;
            }
            folded = new Fold(orderOf(opts), opts.metrics.length, exactParser(maxDepth));
            t = whole;
            whole = newTable();
          }
          folded.add(t, compiled);
        },
      };
      if (pool && (!here || start > from)) {
        // Progress goes on from the records done here, against the same total.
        const onProgress = opts.onProgress;
        const moved = start === from ? opts : { ...opts, ...(onProgress ? { onProgress: (done: number) => onProgress(start - from + done, to - from) } : {}) };
        const r = await pool.run({ opts: moved, compiled, where, from: start, to, table, stats, skipRecords: state.stuck, maxDepth, checkMemory: memory, clock: env.clock ?? systemClock, ...(partition ? {} : { keep }) });
        for (const s of r.stuck) state.stuck.add(s);
        if (r.stoppedAt !== null) { state.record = r.stoppedAt; complete = false; }
        else state.record = to;
      }
    }
  }
  return { state, compiled, complete, ...(folded ? { folded } : {}) };
}

function orderOf(opts: AggregateOptions): Order {
  return { by: opts.order.by === 'metric' ? opts.order.metric : opts.order.by, desc: opts.order.desc };
}

/**
 * Records [from, to) on this thread. Returns where the deadline stopped it (`stoppedAt`), or, given a `pool`, the
 * first record of the rest once a batch's prefilter left more than half of its records (`handOver`; the batch itself
 * is done), else nulls.
 */
async function runHere(opts: AggregateOptions, env: AggregateEnv, compiled: Compiled, where: WhereTest | null, from: number, to: number, state: AggregateState, checkMemory: () => void, pool: AggregatePool | null = null): Promise<{ stoppedAt: number | null; handOver: number | null }> {
  const { source } = opts;
  const maxDepth = env.limits.maxDepth;
  const site = (i: number): ParseSite => {
    const loc = source.location(i);
    return { byteOffset: loc.byte_offset ?? 0, line: loc.line ?? 1, column: loc.column ?? 1, recordIndex: i, maxDepth };
  };
  const ctx = batchContext(compiled, where, maxDepth, state.stuck, site);
  const parse = exactParser(maxDepth);
  const total = to - from;
  const marks = checkedMarks(source, checkedKey(ctx.plan.tops, maxDepth));
  const checked = marks ? { marks, first: 0 } : null;
  for await (const batch of source.batches({ from, to, signal: opts.signal })) {
    let wide = false;
    if (batch.oversized) {
      const err = oversizedOutcome(batch).error!;
      if (!source.rootIsSequence) throw err; // one document: the answer is the error
      state.stats.scanned++;
      skip(state.stats, batch.first, err);
    } else {
      const batchStats = newStats();
      const view = viewOf(batch);
      // In slices: the memory bound is checked after each (a table past it is refused at once, not a batch later), and
      // the event loop runs between them (pings, cancellations, other calls): a batch of many new groups held it for
      // seconds.
      let evaluated = 0;
      for (let k0 = 0; k0 < batch.count; k0 += AGGREGATE_SLICE) {
        if (k0 > 0) {
          await new Promise((r) => setImmediate(r));
          if (opts.signal?.aborted) throw new McpgwError('CANCELLED', 'The request was cancelled.');
        }
        evaluated += aggregateBatch(view, k0, Math.min(batch.count, k0 + AGGREGATE_SLICE), ctx, state.table, batchStats, parse, undefined, undefined, checked);
        checkMemory();
      }
      if (!source.rootIsSequence && batchStats.skipped > 0) throw recreate(opts, 0);
      addStats(state.stats, batchStats);
      wide = evaluated > batch.count / 2;
    }
    await new Promise((r) => setImmediate(r));
    const next = batch.first + batch.count;
    opts.onProgress?.(next - from, total);
    if (opts.signal?.aborted) throw new McpgwError('CANCELLED', 'The request was cancelled.');
    if (opts.deadline !== undefined && (env.clock ?? systemClock).now() > opts.deadline && next < to) return { stoppedAt: next, handOver: null };
    if (pool && wide && next < to) return { stoppedAt: null, handOver: next };
  }
  return { stoppedAt: null, handOver: null };
}

/** The error of record i, read again (a single-document file: a malformed document is the answer). */
export function recreate(opts: AggregateOptions, i: number): McpgwError {
  try {
    opts.source.value(i);
  } catch (err) {
    if (err instanceof McpgwError) return err;
    throw err;
  }
  return new McpgwError('SYNTAX_ERROR', `Record ${i} is not valid JSON.`, { location: { record_index: i } });
}

/** `each`: the units are the nodes the query selects in each record, streamed from the engine's query scan. */
async function runEach(opts: AggregateOptions, env: AggregateEnv, compiled: Compiled, state: AggregateState, checkMemory: () => void): Promise<boolean> {
  const where = opts.where;
  if (where?.query.usesRegex) {
    throw new McpgwError('UNSUPPORTED_QUERY_FEATURE', 'A where that uses match() or search() cannot be combined with each: it would run on the server thread, where a regular expression cannot be stopped.', {
      hint: 'End each with a wildcard ($.items[*]) so the filter joins it, or compare strings exactly (match_case: true).',
    });
  }
  const test = where ? whereTest(opts)! : null;
  const atoms = newAtoms(compiled.spec.slots.length);
  const paths = compiled.spec.slots;
  const sink = (nodes: ScanNode[]) => {
    for (const node of nodes) {
      const value = node.value;
      if (test) {
        const pass = test.as === 'select' ? test.query.evaluate(value).length > 0
          : test.test ? test.test(value) : test.query.evaluate([value]).length > 0;
        if (!pass) continue;
      }
      atomsOfValue(value, paths, atoms);
      addUnit(state.table, compiled, node.record, atoms);
      state.stats.units++;
      if (node.record !== state.lastMatched) { state.lastMatched = node.record; state.stats.matched++; }
    }
    checkMemory();
  };
  const from = state.position?.record ?? 0;
  const r = await env.scan({
    source: opts.source, query: opts.each!, addressing: 'record', unit: 'nodes',
    ...(state.position ? { resume: state.position } : {}),
    sink,
    ...(opts.signal ? { signal: opts.signal } : {}),
    ...(opts.deadline !== undefined ? { deadline: opts.deadline } : {}),
    onProgress: (done, total) => opts.onProgress?.(done, total),
  });
  addStats(state.stats, { scanned: 0, matched: 0, units: 0, skipped: r.skipped, firstSkipped: r.firstSkipped, loneSurrogates: 0 });
  if (r.complete || r.next === null) {
    state.stats.scanned += opts.source.count - from;
    state.record = opts.source.count;
    return true;
  }
  state.stats.scanned += r.next.record - from;
  state.position = r.next;
  state.record = r.next.record;
  return false;
}

/** A partitioned run's groups (runPartitioned): the first KEEP_ROWS, how many in all, and what every row said. */
interface Partitioned { rows: GroupRow[]; total: number; numberLike: number[]; inexact: Set<number>; passes: number }

function result(state: AggregateState, compiled: Compiled, opts: AggregateOptions, complete: boolean, maxDepth: number, parts?: Partitioned): AggregateResult {
  const parse = exactParser(maxDepth);
  let rows: GroupRow[] = [];
  if (parts) rows = parts.rows;
  else {
    for (const g of state.table.groups.values()) rows.push(finishGroup(g, compiled, parse));
    const order = opts.order;
    sortRows(rows, { by: order.by === 'metric' ? order.metric : order.by, desc: order.desc });
  }
  const warnings: AggregateResult['warnings'] = [];
  const inexact = parts?.inexact ?? new Set<number>();
  for (const r of rows) for (const j of r.inexact) inexact.add(j);
  if (parts && parts.total > rows.length) {
    warnings.push({ code: 'GROUPS_KEPT', message: `The answer holds the first ${rows.length} of ${parts.total} groups in the order asked: that many groups pass the aggregate's memory bound, so it ${parts.passes === 1 ? 'merged them in parts' : `read the file ${parts.passes} times, one part of the groups each,`} and kept the first ${KEEP_ROWS} (counts and metrics exact).` });
  }
  const name = (j: number) => {
    const m = compiled.spec.metrics[j]!;
    const path = m.path.map((t) => (typeof t === 'number' ? `[${t}]` : typeof t === 'string' ? `.${t}` : 'index' in t ? `[${t.index}]` : `['${t.name}']`)).join('').replace(/^\./, '');
    return `${m.kind}(${m.numeric ? `number(${path})` : path})`;
  };
  for (const j of inexact) {
    warnings.push({ code: 'INEXACT_SUM', message: `${name(j)}: a sum spans more than 4,000 digits between its largest and smallest term in some group; those groups report it rounded toward zero to 4,000 digits below its largest term.` });
  }
  const numberLike = parts?.numberLike ?? compiled.spec.metrics.map((_, j) => rows.reduce((n, r) => n + r.numberLike[j]!, 0));
  numberLike.forEach((n, j) => {
    if (n === 0) return;
    const m = compiled.spec.metrics[j]!;
    warnings.push({
      code: 'NUMBER_LIKE_STRINGS',
      message: `${name(j)} met ${n} string${n === 1 ? '' : 's'} holding a number (such as "42.5"), which ${m.kind === 'sum' || m.kind === 'avg' ? 'it left out' : 'it compared as text, after any numbers'}; ${m.kind}(number(${name(j).slice(m.kind.length + 1, -1)})) reads them as numbers.`,
    });
  });
  if (state.stats.loneSurrogates > 0) {
    warnings.push({ code: 'LONE_SURROGATE_REPLACED', message: `${state.stats.loneSurrogates} record(s) counted escape a lone surrogate (\\uD800–\\uDFFF without its pair; RFC 8259 §8.2) in a grouped string: it is read as U+FFFD, so such strings group with any that hold U+FFFD there.` });
  }
  return {
    groups: rows.map((r) => ({ key: r.key, missing: r.missing, unbucketable: r.unbucketable, count: r.count, metrics: r.metrics })),
    ...(parts ? { groupsTotal: parts.total } : {}),
    recordsScanned: state.stats.scanned,
    recordsMatched: state.stats.matched,
    units: state.stats.units,
    complete,
    ...(complete ? {} : { resume: state }),
    skipped: state.stats.skipped,
    firstSkipped: state.stats.firstSkipped,
    warnings,
  };
}
