import type { AggregateOptions, AggregateResult } from '../../kernel/contracts/aggregate';
import type { AggregatePool } from './aggregate';
import { isUtf8 } from 'node:buffer';
import type { LazyNode, RecordBatch, RecordSource } from '../../kernel/contracts/format';
import type { Limits } from '../../kernel/contracts/limits';
import type { Logger } from '../../kernel/contracts/plugin';
import type { Clock } from '../../kernel/contracts/clock';
import { systemClock } from '../../kernel/clock';
import type { CompiledQuery, QueryNode } from '../../kernel/contracts/query';
import type { MatchScanOptions, MatchScanResult, MissingMembers, NumberLikeWarning, QueryNote, ScanEngine, ScanNode, ScanPosition, ScanQueryOptions, ScanResult, SkippedRecord } from '../../kernel/contracts/scan';
import { clipText, McpgwError } from '../../kernel/errors';
import type { ParseSite } from '../records/parse';
import { candidates, evaluateOptions, evaluateRecord, inRange, inRangeCount, type BatchView, type Plan, type RecordOutcome } from './plan';
import { missingMembers } from './hints';
import { numberLikeStrings, queryNotes } from './number-like';
import { Semaphore } from './semaphore';
import { parseRecord } from './fast-parse';
import type { WorkerPool } from './workers';
import { ElementSource, IndexedRecordSource } from '../records/source';
import { RecordWalk, testInParts, walkedUnit, type WalkHost } from './walk';

/** The main-thread scan lets the event loop run at least this often, ms (between records). */
const YIELD_MS = 20;

/** A file addressed as a whole whose query does not distribute over records is evaluated in memory up to this size. */
export const MATERIALIZE_BYTES = 16 * 1024 * 1024;

export interface EngineOptions {
  /** The clock deadlines are read on (default the system clock); the event loop is let run on real time. */
  clock?: Clock;
  limits: () => Limits;
  /** Single documents larger than this many bytes are walked through lazy nodes (default LAZY_DOCUMENT_BYTES). */
  lazyBytes?: number;
  /** Walks: values parsed whole up to this size, arrays streamed from this many elements (walk.ts defaults; for tests). */
  walk?: { pieceBytes?: number; streamMin?: number };
  log?: Logger;
  /** Runs batches on worker threads (see workers.ts); absent: always on this thread. */
  workers?: WorkerPool;
  /** Runs aggregate batches on worker threads (aggregate-threads.ts); absent: always on this thread. */
  aggregates?: AggregatePool;
  /** Aggregate memory bounds, bytes (aggregate.ts defaults; for tests). */
  aggregateBounds?: { tableBytes?: number; distinctBytes?: number; threadTableBytes?: number };
}

/** Bytes of a record source (from its identity; the array's own size for the elements of an array), for thresholds. */
const sizeOf = (source: RecordSource) => (source instanceof ElementSource ? source.byteSize : source.identity.size);

/**
 * The scan engine behind `ctx.scan` (contract in contracts/scan.ts). One instance per server: its semaphore bounds
 * concurrent scans server-wide (Limits.maxConcurrentScans).
 */
export class QueryScanEngine implements ScanEngine {
  private readonly slots: Semaphore;
  private readonly clock: Clock;
  /** `clock.now` as a function (evaluations read the deadline's clock through it). */
  private readonly now: () => number;

  constructor(private readonly options: EngineOptions) {
    this.clock = options.clock ?? systemClock;
    const clock = this.clock;
    this.now = () => clock.now();
    this.slots = new Semaphore(() => options.limits().maxConcurrentScans, this.clock);
  }

  async run(opts: ScanQueryOptions): Promise<ScanResult> {
    if (opts.signal?.aborted) throw new McpgwError('CANCELLED', 'The request was cancelled.');
    const release = await this.slots.acquire(opts.deadline, opts.signal);
    try {
      return await this.scan(opts);
    } finally {
      release();
    }
  }

  /** A scan slot for a scan a tool runs itself (contracts/scan.ts). */
  async slot(deadline: number | undefined, signal: AbortSignal | undefined): Promise<() => void> {
    if (signal?.aborted) throw new McpgwError('CANCELLED', 'The request was cancelled.');
    return this.slots.acquire(deadline, signal);
  }

  /** Aggregates (contracts/aggregate.ts, aggregate.ts), in one of the same scan slots. */
  async aggregate(opts: AggregateOptions): Promise<AggregateResult> {
    if (opts.signal?.aborted) throw new McpgwError('CANCELLED', 'The request was cancelled.');
    const release = await this.slots.acquire(opts.deadline, opts.signal);
    try {
      // loaded on the first aggregate (start-up time: the aggregation modules are ~120 KB that a start does not run)
      const { runAggregate } = require('./aggregate') as typeof import('./aggregate');
      return await runAggregate(opts, {
        limits: this.options.limits(), scan: (o) => this.scan(o), clock: this.clock,
        ...(this.options.aggregates ? { pool: this.options.aggregates } : {}),
        ...(this.options.aggregateBounds ? { bounds: this.options.aggregateBounds } : {}),
      });
    } finally {
      release();
    }
  }

  missingMembers(source: RecordSource, names: readonly string[], signal?: AbortSignal): Promise<MissingMembers> {
    return missingMembers(source, names, signal);
  }

  /** Counts what a query's comparisons with numbers passed by (number-like.ts). */
  numberLikeStrings(query: CompiledQuery, options: Pick<ScanQueryOptions, 'source' | 'addressing' | 'unit' | 'signal' | 'deadline'>): Promise<NumberLikeWarning[]> {
    // A note, not the answer: each check looks for at most limits.detailTimeMs (and within the call's deadline), so a
    // query pays a bounded look, not a second full scan; a look the bound cut counts "at least".
    const deadline = Math.min(options.deadline ?? Infinity, this.clock.now() + this.options.limits().detailTimeMs);
    return numberLikeStrings(query, { ...options, deadline }, (o) => this.run(o));
  }

  /** Every note of a query's checks (number-like.ts), each look bounded as for numberLikeStrings. */
  queryNotes(query: CompiledQuery, options: Pick<ScanQueryOptions, 'source' | 'addressing' | 'unit' | 'signal' | 'deadline'>): Promise<QueryNote[]> {
    const deadline = Math.min(options.deadline ?? Infinity, this.clock.now() + this.options.limits().detailTimeMs);
    return queryNotes(query, { ...options, deadline }, (o) => this.run(o));
  }

  /** The record loop over a caller's matcher (contracts/scan.ts, match.ts). */
  match<H>(opts: MatchScanOptions<H>): Promise<MatchScanResult> {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return (require('./match') as typeof import('./match')).runMatch(opts, this.clock);
  }

  /** The per-record plan of a scan. @throws UNSUPPORTED_QUERY_FEATURE */
  plan(opts: ScanQueryOptions): Plan | 'materialize' {
    const { source, query } = opts;
    const limits = this.options.limits();
    const { texts, fold } = prefilterLiterals(query);
    const literals = texts ? texts.map((l) => Buffer.from(l, 'utf8')) : null;
    const base = {
      literals, slashEscape: !!texts?.some((l) => l.includes('/')), ...(fold ? { fold } : {}),
      maxDepth: limits.maxDepth, maxNodes: limits.maxNodes, firstOnly: opts.unit === 'records',
      ...(opts.deadline !== undefined ? { deadline: opts.deadline, now: this.now, requestTimeoutMs: limits.requestTimeoutMs } : {}),
    };
    if (opts.addressing === 'record') return { kind: 'record', start: 0, end: source.count, step: 1, query, ...base };
    if (!source.rootIsSequence) return { kind: 'document', start: 0, end: Math.min(1, source.count), step: 1, query, ...base };
    const split = query.split;
    if (!split) {
      if (sizeOf(source) <= MATERIALIZE_BYTES) return 'materialize';
      throw notDistributing(query, source.count, sizeOf(source), opts.countAll === true && opts.limit === 0);
    }
    const r = split.range(source.count);
    return {
      kind: 'split', start: r.start, end: Math.min(r.end, source.count), step: Math.max(1, r.step), query: split.inner,
      ...(split.test ? { test: split.test.bind(split) } : {}),
      ...(split.testReads ? { testReads: split.testReads } : {}),
      ...base,
    };
  }

  /**
   * `page`: the page a nested scan (a walk's streamed array) belongs to — when it began and whether it had advanced
   * before this scan started — so a record the deadline stops first here is retried by the next page (the page ends
   * before it) unless the page began at it; absent: this scan is the page.
   */
  private async scan(opts: ScanQueryOptions, page?: PageState): Promise<ScanResult> {
    const epoch = page?.epoch ?? this.clock.now();
    const plan = this.plan(opts);
    const result = new Collector(opts, this.options.limits().requestTimeoutMs);
    if (plan === 'materialize') return this.materialize(opts, result);
    const { source } = opts;
    let from = plan.start;
    if (opts.resume) {
      if (!Number.isInteger(opts.resume.record) || !Number.isInteger(opts.resume.node) || opts.resume.record < 0 || opts.resume.node < 0) {
        throw new McpgwError('INVALID_ARGUMENT', 'The resume position is not one this engine returned.');
      }
      from = Math.max(from, opts.resume.record);
      result.skipUnits = opts.resume.record === from ? opts.resume.node : 0;
      result.skipRecord = from;
    }
    if (plan.step > 1 && from > plan.start) from = plan.start + Math.ceil((from - plan.start) / plan.step) * plan.step;
    const to = plan.end;
    const total = Math.max(0, to - from);
    if (from >= to) return result.finish(null, true);
    const site = (i: number): ParseSite => {
      const loc = source.location(i);
      return { byteOffset: loc.byte_offset ?? 0, line: loc.line ?? 1, column: loc.column ?? 1, recordIndex: i, maxDepth: plan.maxDepth };
    };
    if (plan.kind === 'document' || (plan.kind === 'record' && !source.rootIsSequence)) {
      // one document (addressed as the file, or as its one record): large ones are walked, not parsed whole
      const walked = await this.walkDocument(opts, plan, result, epoch);
      if (walked) return walked;
    }
    // Workers for big scans, judged on the bytes the plan covers (`$[12345]` of a big array reads one record). The
    // elements of an array inside a walked document stay on this thread (worker heaps would double the memory of a
    // scan meant to stay bounded) unless a regular expression must be stoppable.
    const inDocument = source instanceof ElementSource;
    const pool = inDocument && !opts.query.usesRegex ? undefined : this.options.workers;
    const covered = (sizeOf(source) * (to - from)) / Math.max(1, source.count) / Math.max(1, plan.step);
    const useWorkers = !!pool && pool.wanted(covered, opts.query);
    const oversized = (batch: RecordBatch) => this.walkOversized(opts, plan, result, batch, epoch);
    if (useWorkers) {
      return pool!.run({ opts, plan, from, to, site, collector: result, oversized, ...(page ? { page: { start: page.epoch, advanced: page.advanced } } : {}) });
    }
    let scanned = 0;
    let checks = 0;
    let lastYield = Date.now();
    let finished = 0;
    for await (const batch of source.batches({ from, to, signal: opts.signal })) {
      if (batch.oversized) {
        if (!inRange(plan, batch.first)) continue;
        const r = await oversized(batch);
        if (r) return r;
        continue;
      }
      const view = viewOf(batch);
      const list = candidates(view, plan, 0, batch.count);
      // Valid UTF-8 is checked once per batch when most records are read, else per candidate record.
      const utf8Ok = list === null || list.length > batch.count / 8 ? isUtf8(batch.bytes) : false;
      const n = list ? list.length : batch.count;
      /** The first record whose prefilter outcome is not yet counted (records the prefilter ruled out before it are). */
      let counted = batch.first;
      for (let j = 0; j < n; j++) {
        const k = list ? list[j]! : j;
        const i = batch.first + k;
        if (!inRange(plan, i)) continue;
        if (list) {
          result.addUnparsed(inRangeCount(plan, counted, i));
          counted = i + 1;
        }
        const started = this.clock.now();
        if (Date.now() - lastYield > YIELD_MS) {
          // One evaluation is bounded (maxNodes, the deadline), and between records the event loop runs (pings,
          // cancellations, other requests) — the batch stays valid until the next one is asked for.
          await new Promise((r) => setImmediate(r));
          lastYield = Date.now();
        }
        const out = evaluateRecord(view, k, plan, utf8Ok, site, !result.full);
        if (out?.error?.limit?.name === 'requestTimeoutMs') {
          out.error = timedOut(out.error, this.options.limits().requestTimeoutMs);
          // The deadline passed inside this record's evaluation: the next page retries it, unless it alone ran for
          // half the page's time (it would get no more then) or it is the page's first (a page finishes a record; in a
          // walk, the page has advanced when the walk handed over units or finished evaluations before this scan).
          const ran = this.clock.now() - started;
          if ((finished > 0 || page?.advanced === true) && ran < (opts.deadline! - epoch) / 2) {
            await result.flush();
            return result.finish({ record: i, node: 0 }, false);
          }
          if (!result.take(out, source, plan)) return (await result.flush(), result.finish(null, true));
          await result.flush();
          return result.finish({ record: i + 1, node: 0 }, false);
        }
        finished++;
        if (out?.unparsed) result.addUnparsed(1);
        else if (out && !result.take(out, source, plan)) return (await result.flush(), result.finish(null, true));
        if ((++checks & 255) === 0 && opts.deadline !== undefined && this.clock.now() > opts.deadline) {
          await result.flush();
          return result.finish({ record: i + 1, node: 0 }, false);
        }
      }
      if (list) result.addUnparsed(inRangeCount(plan, counted, batch.first + batch.count));
      await result.flush();
      scanned = batch.first + batch.count - from;
      opts.onProgress?.(Math.min(scanned, total), total);
      if (opts.signal?.aborted) throw new McpgwError('CANCELLED', 'The request was cancelled.');
      const nextRecord = batch.first + batch.count;
      if (opts.deadline !== undefined && this.clock.now() > opts.deadline && nextRecord < to) {
        return result.finish({ record: nextRecord, node: 0 }, false);
      }
      // The prefilter did not narrow this batch (a literal every record holds, such as a member name): the rest of a
      // big scan goes to worker threads after all, from the next record on, into the same page.
      if (pool && list !== null && list.length > batch.count / 2 && nextRecord < to && !(result.full && !opts.countAll)
        && pool.wanted((sizeOf(source) * (to - nextRecord)) / Math.max(1, to - from), opts.query, false)) {
        return pool.run({ opts, plan, from: nextRecord, to, site, collector: result, oversized, ...(page ? { page: { start: page.epoch, advanced: page.advanced } } : {}) });
      }
    }
    await result.flush();
    return result.finish(null, true);
  }

  /** What record walks need from this engine; `epoch`: when the page the walk belongs to began. */
  private walkHost(epoch: number): WalkHost {
    const limits = this.options.limits();
    return { subScan: (o, advanced) => this.scan(o, { epoch, advanced }), maxRecordBytes: limits.maxRecordBytes, maxDepth: limits.maxDepth, maxNodes: limits.maxNodes, requestTimeoutMs: limits.requestTimeoutMs, now: this.now, ...this.options.walk };
  }

  /** Record i's root as a lazy node of a kernel source, or null (another implementation: no walking). */
  private lazyRoot(source: RecordSource, i: number): { source: IndexedRecordSource; root: LazyNode } | null {
    if (!(source instanceof IndexedRecordSource)) return null;
    const root = source.node(i, '');
    return root ? { source, root } : null;
  }

  /**
   * A single document larger than `lazyBytes` (or than maxRecordBytes) is walked through lazy nodes instead of
   * parsed whole (walk.ts). Null: parse it as a record. @throws RESOURCE_LIMIT_EXCEEDED (maxRecordBytes) when the
   * document cannot be parsed and the query cannot be walked (no segments: a filter reads `$`).
   */
  private async walkDocument(opts: ScanQueryOptions, plan: Plan, result: Collector, epoch: number): Promise<ScanResult | null> {
    const limits = this.options.limits();
    const lazy = this.lazyRoot(opts.source, 0);
    if (!lazy || lazy.root.byteLength <= Math.min(this.options.lazyBytes ?? LAZY_DOCUMENT_BYTES, limits.maxRecordBytes)) return null;
    if (!opts.query.segments) {
      if (lazy.root.byteLength <= limits.maxRecordBytes) return null;
      throw cannotWalk(opts.query, lazy.root.byteLength, limits.maxRecordBytes);
    }
    const walk = new RecordWalk(this.walkHost(epoch), opts, result, lazy.source, 0, '', opts.query, plan.firstOnly, opts.resume?.record === 0 ? opts.resume : undefined);
    const end = await walk.run(lazy.root);
    await result.flush();
    return end === 'deadline' ? result.finish(walk.stopAt, false) : result.finish(null, true);
  }

  /**
   * A record over maxRecordBytes met by a scan: walked through lazy nodes when the query has segments (a split's
   * filter tested on the members it reads), else reported as the error its reading gives. Returns the scan's result
   * when it must stop here (page full, deadline), else null.
   */
  private async walkOversized(opts: ScanQueryOptions, plan: Plan, result: Collector, batch: RecordBatch, epoch: number): Promise<ScanResult | null> {
    const i = batch.first;
    const limits = this.options.limits();
    const query = plan.kind === 'split' ? walkableInner(opts.query, plan.query) : plan.query!;
    const stopped = async () => (await result.flush(), result.finish(null, true));
    const fail = (error: McpgwError) => (result.take({ record: i, error }, opts.source, plan) ? null : stopped());
    let lazy: ReturnType<QueryScanEngine['lazyRoot']>;
    try {
      lazy = this.lazyRoot(opts.source, i);
    } catch (err) {
      // the format's framing check (RecordBatch.checkFraming) rejects the record: malformed, skipped as any other
      if (err instanceof McpgwError && err.code === 'SYNTAX_ERROR') return fail(err);
      throw err;
    }
    if (!lazy || (query && !query.segments)) {
      const out = oversizedOutcome(batch);
      if (query && lazy) out.error = cannotWalk(query, lazy.root.byteLength, limits.maxRecordBytes);
      return fail(out.error!);
    }
    const resume = opts.resume?.record === i ? opts.resume : undefined;
    try {
      if (plan.kind === 'split' && plan.test && !testInParts((v) => plan.test!(v, evaluateOptions(plan)), plan.testReads, lazy.root, this.walkHost(epoch))) {
        // ruled out by the members the filter read: the rest of the record was not parsed
        result.addUnparsed(1);
        return null;
      }
      if (!query) {
        // the record itself is the node (a split without an inner query)
        if (resume && resume.node > 0) return null;
        if (!result.takeWalked(i, walkedUnit('/' + i, lazy.root), 0, () => [])) return stopped();
        // handed to the sink now, as a walk's units are (a scan on worker threads finishes without flushing again)
        await result.flush();
        return null;
      }
      const walk = new RecordWalk(this.walkHost(epoch), opts, result, lazy.source, i, plan.kind === 'split' ? '/' + i : '', query, plan.firstOnly, resume);
      const end = await walk.run(lazy.root);
      await result.flush();
      if (end === 'deadline') return result.finish(walk.stopAt, false);
      if (end === 'scan') return result.finish(null, true);
      return null;
    } catch (err) {
      const limit = err instanceof McpgwError ? err.limit?.name : undefined;
      if (err instanceof McpgwError && (err.code === 'SYNTAX_ERROR' || (err.code === 'RESOURCE_LIMIT_EXCEEDED' && (limit === 'maxDepth' || limit === 'maxRecordBytes' || limit === 'maxNodes' || limit === 'requestTimeoutMs')))) return fail(err);
      throw err;
    }
  }

  /** Whole-file evaluation of a small sequence file: the root is the array of its records. */
  private async materialize(opts: ScanQueryOptions, result: Collector): Promise<ScanResult> {
    const { source, query } = opts;
    const limits = this.options.limits();
    const records: unknown[] = [];
    for await (const batch of source.batches({ signal: opts.signal })) {
      for (let k = 0; k < batch.count; k++) {
        const i = batch.first + k;
        try {
          batch.checkFraming?.(k);
          records.push(parseRecord(batch.text(k), limits.maxDepth, () => {
            const loc = source.location(i);
            return { byteOffset: loc.byte_offset ?? 0, line: loc.line ?? 1, column: loc.column ?? 1, recordIndex: i, maxDepth: limits.maxDepth };
          }));
        } catch (err) {
          if (err instanceof McpgwError) {
            throw new McpgwError(err.code, `${err.message} The query reads the whole file, so every record must be valid.`, { location: err.location, limit: err.limit });
          }
          throw err;
        }
      }
    }
    const bounds = opts.deadline !== undefined ? { maxNodes: limits.maxNodes, deadline: opts.deadline, now: this.now, requestTimeoutMs: limits.requestTimeoutMs } : { maxNodes: limits.maxNodes };
    let nodes: ScanNode[] = query.evaluate(records, bounds).map((n) => {
      const m = /^\/(\d+)/.exec(n.path);
      return { record: m ? Number(m[1]) : -1, path: n.path, value: n.value };
    });
    if (opts.unit === 'records') {
      const seen = new Set<number>();
      nodes = nodes.filter((n) => (seen.has(n.record) ? false : (seen.add(n.record), true)));
    }
    // Node-list order is the query's here, not file order: the resume position counts nodes from the start.
    const start = opts.resume?.node ?? 0;
    const end = Math.min(nodes.length, start + (opts.limit ?? Number.POSITIVE_INFINITY));
    const r: ScanResult = {
      nodes: nodes.slice(start, end), next: end < nodes.length && !result.countsOnly ? { record: 0, node: end } : null, complete: true,
      skipped: result.skipped, firstSkipped: result.firstSkipped,
    };
    if (opts.countAll) r.total = Math.max(0, nodes.length - start);
    if (opts.sink) {
      await opts.sink(r.nodes);
      r.nodes = [];
    }
    return r;
  }
}

/** The page a nested scan belongs to (QueryScanEngine.scan): when it began (ms on the engine's clock), and whether it had advanced. */
interface PageState {
  epoch: number;
  advanced: boolean;
}

/** A single document larger than this is walked through lazy nodes rather than parsed whole (EngineOptions.lazyBytes). */
export const LAZY_DOCUMENT_BYTES = 4 * 1024 * 1024;

/**
 * An evaluation the request deadline stopped, as reported: the limit is requestTimeoutMs with its value (a query
 * language knows the deadline, not its length) and the hint fits a deadline.
 */
export function timedOut(err: McpgwError, requestTimeoutMs: number): McpgwError {
  return new McpgwError(err.code, err.message, {
    ...(err.location ? { location: err.location } : {}),
    limit: { name: 'requestTimeoutMs', limit: requestTimeoutMs },
    hint: 'Each page has requestTimeoutMs to evaluate a record or a value of a document whole: raise limits.requestTimeoutMs, or narrow the query so it reads less of it (names instead of wildcards, fewer descendant segments).',
  });
}

/**
 * UNSUPPORTED_QUERY_FEATURE for a whole-file query that does not distribute over the records of a file too large to
 * load whole, with a hint in the query's own language: the root itself (JSONPath `$`, the pointer `""`: one node
 * holding every record), or (JSONPath) a query whose first selector does not pick records on its own. `counting`: the
 * read only counts (the hint says how to count the records).
 */
function notDistributing(query: CompiledQuery, records: number, bytes: number, counting: boolean): McpgwError {
  const root = query.segments !== undefined && query.segments.length === 0;
  const text = JSON.stringify(clipText(query.text, 200));
  const message = root
    ? `The query ${text} selects the root of this ${bytes}-byte file: one node, the array of all its ${records} records, and files over ${MATERIALIZE_BYTES} bytes are not loaded whole.`
    : `The query ${text} does not distribute over the ${records} records of this ${bytes}-byte file, and files over ${MATERIALIZE_BYTES} bytes are not loaded whole.`;
  let hint: string;
  if (query.language === 'pointer') {
    hint = counting
      ? 'A JSON Pointer names one value: "/0" is record 0, "/17/name" a member of record 17. To count the records, use language "jsonpath" with the query $[*] and count: true.'
      : 'A JSON Pointer names one value: read a record by its index ("/0", "/17/name"), or every record in pages with language "jsonpath" and the query $[*].';
  } else if (query.language === 'jsonpath') {
    hint = root
      ? (counting ? 'To count the records, count $[*] (or $[?filter] for those that pass a filter).' : 'Read the records in pages with $[*] (or $[*].name, $[?filter] for parts of them).')
      : 'Start the query with a single selector that picks records ($[*]…, $[0]…, $[-1]…, $[1:3]…, $[?filter]…, $..name) and do not read $ inside filters; or query records one by one.';
  } else {
    hint = counting ? 'Count with a query whose first step picks records, one by one or all of them.' : 'Use a query whose first step picks records (one by one or all of them), read in pages.';
  }
  return new McpgwError('UNSUPPORTED_QUERY_FEATURE', message, { hint });
}

/**
 * The inner query of a split (`inner`: what runs inside each record) in a form that can be walked over a record too
 * long to parse: `inner` itself when it has segments; else, when the whole query has segments, the part of it a record
 * sees — segments 1… after a first segment that picks records (`$[0].tail` → `$.tail`, `/0/arr/5` → `/arr/5`), or
 * the whole query when its first segment is a descendant one (`$..name` runs on each record as it is). Null stays null
 * (the record itself is the node); a query without segments (a filter reading `$`) gives `inner` back, unwalkable.
 */
export function walkableInner(query: CompiledQuery, inner: CompiledQuery | null): CompiledQuery | null {
  if (!inner || inner.segments || !query.segments?.length || !query.rest) return inner;
  const walkable = query.segments[0]!.descendant ? query : query.rest(1);
  return walkable.segments ? walkable : inner;
}

/** RESOURCE_LIMIT_EXCEEDED for a query that cannot be walked over a value too long to parse. */
function cannotWalk(query: CompiledQuery, bytes: number, maxRecordBytes: number): McpgwError {
  return new McpgwError('RESOURCE_LIMIT_EXCEEDED',
    `The value this query reads is ${bytes} bytes, over maxRecordBytes ${maxRecordBytes}: it is not parsed whole, and the query ${JSON.stringify(query.text.slice(0, 200))} is not evaluated over its parts.`, {
      limit: { name: 'maxRecordBytes', limit: maxRecordBytes, value: bytes },
      hint: 'Read inside it with the explorer\'s get_value_at_path (open_file, then the path inside the record: it reads values of any size in parts), or raise limits.maxRecordBytes.',
    });
}

/** A record over maxRecordBytes that is not evaluated: the error its reading gives, reported (never passed over). */
export function oversizedOutcome(batch: RecordBatch): RecordOutcome {
  try {
    batch.text(0);
  } catch (err) {
    if (err instanceof McpgwError) return { record: batch.first, error: err };
    throw err;
  }
  return { record: batch.first, error: new McpgwError('RESOURCE_LIMIT_EXCEEDED', `Record ${batch.first} is over maxRecordBytes.`, { limit: { name: 'maxRecordBytes', limit: 0 } }) };
}

/** The engine's view of a RecordBatch (no copy). */
export function viewOf(batch: RecordBatch): BatchView {
  return { first: batch.first, count: batch.count, bytes: batch.bytes, base: 0, span: (k) => batch.span(k), recordAt: (o) => batch.recordAt(o), ...(batch.checkFraming ? { checkFraming: (k: number) => batch.checkFraming!(k) } : {}) };
}

/** Spans of every record of a batch, `[s0, e0, s1, e1, …]` (sent to worker threads with the bytes). */
export function spansOf(batch: RecordBatch): Float64Array {
  const spans = new Float64Array(batch.count * 2);
  for (let k = 0; k < batch.count; k++) {
    const [s, e] = batch.span(k);
    spans[2 * k] = s;
    spans[2 * k + 1] = e;
  }
  return spans;
}

/** Gathers units into a page, counts the total, remembers skipped records and where to continue. */
export class Collector {
  readonly nodes: ScanNode[] = [];
  total = 0;
  skipped = 0;
  /** Records the byte prefilter ruled out without parsing them (ScanResult.unparsed). */
  unparsed = 0;
  readonly firstSkipped: SkippedRecord[] = [];
  /** Resume: units of record `skipRecord` already returned. */
  skipUnits = 0;
  skipRecord = -1;
  /** The page is full; units seen after that only count. */
  full = false;
  /** First position not in the page (set when the page fills and more units exist). */
  private next: ScanPosition | null = null;
  /** Records passed over before `next` (those after it belong to the page that reaches them). */
  private skippedAtNext = 0;
  /** Records ruled out by the prefilter before `next`. */
  private unparsedAtNext = 0;
  private readonly limit: number;

  constructor(private readonly opts: ScanQueryOptions, private readonly requestTimeoutMs?: number) {
    this.limit = opts.limit ?? Number.POSITIVE_INFINITY;
    this.full = this.limit <= 0;
  }

  /** Adds one record's outcome. Returns false when the scan can stop. */
  take(out: RecordOutcome, source: RecordSource, plan: Plan): boolean {
    if (out.error) {
      // A deadline error from a language that does not know the request's length: it names the real limit.
      if (out.error.limit?.name === 'requestTimeoutMs' && !out.error.limit.limit && this.requestTimeoutMs !== undefined) out.error = timedOut(out.error, this.requestTimeoutMs);
      this.skipped++;
      // One document, or the one record of a single-document file too long to read: the answer is the error.
      if (plan.kind === 'document' || (!source.rootIsSequence && out.error.limit?.name === 'maxRecordBytes')) throw out.error;
      if (this.firstSkipped.length < 5) {
        const loc = out.error.location ?? {};
        let line = loc.line, byte_offset = loc.byte_offset;
        if (line === undefined) {
          try { const l = source.location(out.record); line = l.line; byte_offset = l.byte_offset; } catch { /* closed */ }
        }
        this.firstSkipped.push({ record_index: out.record, code: out.error.code, ...(out.error.limit ? { limit: out.error.limit.name } : {}), ...(line !== undefined ? { line } : {}), ...(byte_offset !== undefined ? { byte_offset } : {}), message: out.error.message });
      }
      return true;
    }
    let nodes = out.nodes!;
    if (out.lazy && !this.full) {
      // The page returns these values: parse now, so a malformed record is skipped rather than thrown later.
      try {
        for (const n of nodes) void n.value;
      } catch (err) {
        if (err instanceof McpgwError) return this.take({ record: out.record, error: err }, source, plan);
        throw err;
      }
    }
    if (out.record === this.skipRecord && this.skipUnits > 0) nodes = nodes.slice(this.skipUnits);
    const offset = out.record === this.skipRecord ? this.skipUnits : 0;
    for (let u = 0; u < nodes.length; u++) {
      if (!this.pushNode(out.record, nodes[u]!, offset + u)) return false;
    }
    return true;
  }

  private pushNode(record: number, n: QueryNode, unitIndex: number): boolean {
    if (this.refused) return false;
    this.total++;
    if (this.full) {
      // Count only: there is no page to continue, so no `next` (a deadline stop still sets one in finish()).
      if (this.next === null && !this.countsOnly) this.endAt({ record, node: unitIndex }, this.skipped, this.unparsed);
      return !!this.opts.countAll;
    }
    // The node object itself (fresh per evaluation) becomes the ScanNode: a lazily parsed value stays lazy.
    const node = n as ScanNode;
    node.record = record;
    node.position = { record, node: unitIndex };
    node.skippedBefore = this.skipped;
    node.unparsedBefore = this.unparsed;
    this.nodes.push(node);
    if (++this.collected >= this.limit) this.full = true;
    return true;
  }

  /** Units collected into the page (handed to the sink or kept in `nodes`). */
  private collected = 0;

  /**
   * One unit of a record walked in parts (walk.ts): `unit` is its index among the record's units, `at` the walk's
   * trail to it (asked for only when the unit becomes a position), `skippedBefore` the records passed over before it
   * and `unparsedBefore` those the prefilter ruled out before it (a nested scan's units: those of this scan before the
   * nested one began, plus the nested scan's own). Returns false when the scan can stop.
   */
  takeWalked(record: number, n: QueryNode, unit: number, at: () => number[], skippedBefore = this.skipped, unparsedBefore = this.unparsed): boolean {
    if (this.refused) return false;
    this.total++;
    if (this.full) {
      // As pushNode: a count-only scan has no page to continue, so no `next`.
      if (this.next === null && !this.countsOnly) this.endAt({ record, node: unit, at: at() }, skippedBefore, unparsedBefore);
      return !!this.opts.countAll;
    }
    const node = n as ScanNode;
    node.record = record;
    node.position = { record, node: unit, at: at() };
    node.skippedBefore = skippedBefore;
    node.unparsedBefore = unparsedBefore;
    this.nodes.push(node);
    if (++this.collected >= this.limit) this.full = true;
    return true;
  }

  /** Units the page still takes (0 once full; infinite without a limit). */
  get pageRoom(): number {
    return this.full ? 0 : this.limit - this.collected;
  }

  /** The first unit not in the page, found by a nested scan: the page is full. */
  setNext(position: ScanPosition): void {
    if (this.next === null) this.endAt(position, this.skipped, this.unparsed);
    this.full = true;
  }

  /** The page ends at `position`, with `skipped` records passed over and `unparsed` ruled out unparsed before it. */
  private endAt(position: ScanPosition, skipped: number, unparsed: number): void {
    this.next = position;
    this.skippedAtNext = skipped;
    this.unparsedAtNext = unparsed;
  }

  /** Records a nested scan passed over. */
  addSkipped(count: number, first: readonly SkippedRecord[]): void {
    this.skipped += count;
    for (const s of first) if (this.firstSkipped.length < 5) this.firstSkipped.push(s);
  }

  /** Records the byte prefilter ruled out without parsing them (in file order, before the records taken after). */
  addUnparsed(count: number): void {
    this.unparsed += count;
  }

  /** With `sink`: hands the nodes collected since the last flush to it, in order. */
  async flush(): Promise<void> {
    if (!this.opts.sink || this.nodes.length === 0 || this.refused) return;
    const batch = this.nodes.splice(0, this.nodes.length);
    const accepted = await this.opts.sink(batch);
    if (typeof accepted === 'number' && accepted < batch.length) {
      // the consumer ends the page before node `accepted`: the scan stops and continues there
      this.refused = true;
      this.full = true;
      const first = batch[accepted]!;
      this.endAt(first.position ?? { record: first.record, node: 0 }, first.skippedBefore ?? this.skipped, first.unparsedBefore ?? this.unparsed);
    }
  }

  /** The sink refused a node: nothing more is taken, not even counted. */
  private refused = false;

  /** True once the consumer ended the page (see ScanQueryOptions.sink). */
  get ended(): boolean {
    return this.refused;
  }

  /** `limit: 0` with `countAll`: the scan only counts. */
  get countsOnly(): boolean {
    return this.limit === 0 && !!this.opts.countAll;
  }

  /** True once only counting remains: the page is full and its next position known (workers then send counts). */
  get countOnly(): boolean {
    return this.full && (this.next !== null || this.countsOnly) && !!this.opts.countAll;
  }

  /** Units (and malformed records) counted by a worker for a count-only batch or past a batch's `room`. */
  addCount(units: number, skips = 0): void {
    this.total += units;
    this.skipped += skips;
  }

  /**
   * How many units records `first … end - 1` may hand over as nodes: what the page still takes, one more (the next
   * position), and the units of the resume record that are dropped; -1 without a limit. A batch evaluated elsewhere
   * (a worker thread) sends at most this many and only counts the rest, so no batch collects more than the page.
   */
  room(first: number, end: number): number {
    if (this.limit === Number.POSITIVE_INFINITY) return -1;
    if (this.next !== null || this.countsOnly) return 0;
    const dropped = this.skipRecord >= first && this.skipRecord < end ? this.skipUnits : 0;
    return Math.max(0, this.limit - this.collected) + 1 + dropped;
  }

  /** Materialized results: no per-record positions. */
  push(node: ScanNode): boolean {
    this.total++;
    if (this.full) return !!this.opts.countAll;
    this.nodes.push(node);
    if (++this.collected >= this.limit) this.full = true;
    return true;
  }

  nextPosition() {
    return this.next;
  }

  /**
   * The result. `stop` is where a deadline stopped the scan (complete false). `next` is the first unit not in the
   * page when one was seen, else the stop position. `skipped`/`firstSkipped` (and `unparsed`): the records passed over (ruled out by the prefilter) before `next`
   * (every one scanned when there is none; `firstSkipped` holds the first of them in file order, so a prefix of it is
   * the first of any earlier count).
   */
  finish(stop: { record: number; node: number } | null, complete: boolean): ScanResult {
    const next = this.next ?? (complete ? null : stop);
    // Records passed over after the page's end are not this page's: the page that reaches them reports them.
    const skipped = this.next !== null ? this.skippedAtNext : this.skipped;
    const unparsed = this.next !== null ? this.unparsedAtNext : this.unparsed;
    const r: ScanResult = { nodes: this.nodes, next, complete, skipped, firstSkipped: this.firstSkipped.slice(0, skipped), ...(unparsed > 0 ? { unparsed } : {}) };
    if (this.opts.countAll) r.total = this.total;
    return r;
  }
}

export type { CompiledQuery };

/** The query's prefilter literals: exact ones, else case-insensitive ones (`fold`), else none. */
export function prefilterLiterals(query: CompiledQuery): { texts: readonly string[] | null; fold: boolean } {
  if (query.requiredLiterals?.length) return { texts: query.requiredLiterals, fold: false };
  if (query.requiredCaselessLiterals?.length) return { texts: query.requiredCaselessLiterals, fold: true };
  return { texts: null, fold: false };
}
