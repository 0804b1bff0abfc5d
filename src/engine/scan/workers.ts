import { isUtf8 } from 'node:buffer';
import { MessageChannel, receiveMessageOnPort, type Worker } from 'node:worker_threads';
import type { RecordBatch } from '../../kernel/contracts/format';
import type { CompiledQuery, QueryNode } from '../../kernel/contracts/query';
import type { ScanQueryOptions, ScanResult } from '../../kernel/contracts/scan';
import { McpgwError, isErrorCode } from '../../kernel/errors';
import type { ParseSite } from '../records/parse';
import { parseRecord } from './fast-parse';
import type { Collector } from './engine';
import { oversizedOutcome, spansOf } from './engine';
import { framingFaults, inRange, inRangeCount, lazyNode, type Plan } from './plan';
export { NODE_TEXT } from './plan';
import type { WorkerInit } from './worker';
import type { Clock } from '../../kernel/contracts/clock';
import { systemClock } from '../../kernel/clock';
import { poolClock } from './thread-clock';
import type { WorkerPlugin } from '../../kernel/contracts/engine';
import { initialState, step, type PoolEvent } from './pool-machine';
import { defaultThreads, engineThreads } from './engine-threads';
import type { IdleWorkers } from './idle-workers';
import type { Logger } from '../../kernel/contracts/plugin';

/** Runs scans over record ranges on worker threads. */
export interface WorkerPool {
  /** Whether a scan of a `bytes`-byte file with this query should use workers. */
  /**
   * Whether a scan of a `bytes`-byte file with this query should use workers. `narrowed` false: the query's byte
   * prefilter is known not to narrow the records (the engine saw most of a batch pass it), so it does not count.
   */
  wanted(bytes: number, query: CompiledQuery, narrowed?: boolean): boolean;
  run(job: WorkerJob): Promise<ScanResult>;
}

export interface WorkerJob {
  opts: ScanQueryOptions;
  plan: Plan;
  from: number;
  to: number;
  site: (i: number) => ParseSite;
  collector: Collector;
  /**
   * A record over maxRecordBytes met in order (it has no bytes for a thread): evaluated on this thread once every
   * batch before it is consumed. Returns the scan's result when it must stop there, else null.
   */
  oversized?: (batch: RecordBatch) => Promise<ScanResult | null>;
  /** A walk's nested scan: its page's start (ms on the pool's clock) and whether the page had advanced (PoolConfig.page). */
  page?: { start: number; advanced: boolean };
}

/** Files at least this large are scanned on worker threads (queries whose regular expressions may backtrack always are). */
export const WORKER_MIN_BYTES = 32 * 1024 * 1024;


export interface ThreadPoolOptions {
  /** How a thread loads the plugin that registers query language `name` (Registry.queryLanguagePlugin), or undefined. */
  pluginOf(name: string): WorkerPlugin | undefined;
  /**
   * The kernel's clock (deadlines are ms since the epoch on it); default the system clock. Any other clock (a test's
   * fake clock) is the threads' time source too: they time each record on it (ThreadPool.run publishes its readings).
   */
  clock?: Clock;
  /** Worker threads per scan (default: available parallelism, at least 1). */
  threads?: number;
  /** Size threshold, bytes (default WORKER_MIN_BYTES). */
  minBytes?: number;
  /** Starts a slot; default a thread of `threadPool` (tests give fake slots). */
  startSlot?: SlotStarter;
  /** The engine's threads, shared with aggregates (engine-threads.ts); default a pool of this scan pool's own that keeps none. */
  threadPool?: IdleWorkers<Worker>;
  /** The server's log: a plugin's log lines on a thread are written here (tagged `thread: true`); default: dropped. */
  log?: Logger;
}

/** One worker thread as the pool drives it (tests give fake ones). */
export interface PoolSlot {
  /** Posts a batch message, transferring `transfer`. */
  post(message: BatchMessage, transfer: ArrayBuffer[]): void;
  /** The messages the thread already sent that were not delivered yet (delivered now, in order). */
  drain(): WorkerMessage[];
  /** The record the thread evaluates (-1: none) and when it started, ms after the scan's epoch. */
  progress(): { current: number; startedAt: number };
  terminate(): void;
  /** The scan left the slot clean (every batch answered, no failure): its thread goes back to the pool. */
  release?(): void;
}

/** Starts one slot for a scan; `onMessage` gets every message the thread sends, `onError` its crash. */
export type SlotStarter = (init: Omit<WorkerInit, 'port' | 'progress'>, onMessage: (m: WorkerMessage) => void, onError: (err: Error) => void) => PoolSlot;

/** A batch for a thread: the records' bytes and their spans, and what to report. */
export interface BatchMessage {
  type: 'batch';
  wantValues: boolean;
  countOnly: boolean;
  countAll: boolean;
  cap: number;
  seq: number;
  first: number;
  count: number;
  bytes: Uint8Array;
  spans: Uint32Array | Float64Array;
  /** Records the format's framing check rejects (framingFaults in plan.ts), or null. */
  faults: Uint8Array | null;
  utf8Ok: boolean;
}

export type WorkerMessage =
  | { type: 'nodes'; seq: number; record: number; lazy?: boolean; nodes: { path: string; text: string }[]; ruledOut?: number[] }
  | { type: 'skip'; seq: number; record: number; code: string; message: string; ruledOut?: number[] }
  | { type: 'many'; seq: number; messages: WorkerMessage[] }
  | { type: 'count'; seq: number; units: number; skips?: number; record?: number; ruledOut?: number[] }
  /** The batch's records the prefilter let through (batch-relative, ascending), sent before its other results. */
  | { type: 'candidates'; seq: number; first: number; count: number; list: number[] }
  | { type: 'done'; seq: number }
  | { type: 'ready' }
  | { type: 'fatal'; code: string; message: string; stack?: string }
  /** A line of the plugin's log on the thread (host-loader.ts portLogger): written to the server's log. */
  | { type: 'log'; level: 'error' | 'warn' | 'info' | 'debug'; message: string; fields?: Record<string, unknown> };

/** A slot on a thread of `pool` (engine-threads.ts): the scan job goes to it on a port of its own (worker.ts). */
const threadSlot = (pool: IdleWorkers<Worker>): SlotStarter => (init, onMessage, onError) => {
  const { port1, port2 } = new MessageChannel();
  const progress = new Int32Array(new SharedArrayBuffer(8));
  progress[0] = -1;
  const [worker] = pool.take(1) as [Worker];
  const onExit = (code: number) => onError(new Error(`the thread stopped (exit code ${code})`));
  port1.on('message', onMessage);
  worker.on('error', onError);
  worker.on('exit', onExit);
  worker.postMessage({ type: 'job', kind: 'scan', init: { ...init, port: port2, progress } }, [port2]);
  const detach = () => {
    worker.off('error', onError);
    worker.off('exit', onExit);
    port1.close();
  };
  return {
    post: (message, transfer) => port1.postMessage(message, transfer),
    drain: () => {
      const out: WorkerMessage[] = [];
      for (let m = receiveMessageOnPort(port1); m; m = receiveMessageOnPort(port1)) out.push(m.message as WorkerMessage);
      return out;
    },
    progress: () => ({ current: Atomics.load(progress, 0), startedAt: Atomics.load(progress, 1) }),
    terminate: () => { detach(); pool.discard(worker); },
    release: () => { port1.postMessage({ type: 'end' }); detach(); pool.give(worker); },
  };
};

/**
 * Scans on the engine's worker threads (kept between jobs, shared with aggregates; a thread stuck in a regular
 * expression is terminated, not given back) evaluating record-aligned batches read by the main thread; results are
 * consumed in file order.
 */
export class ThreadPool implements WorkerPool {
  private ownThreads: IdleWorkers<Worker> | null = null;

  constructor(private readonly options: ThreadPoolOptions) {}

  /** A plugin's log line from a thread, into the server's log (its fields carry the plugin already). */
  private threadLog(m: { level: 'error' | 'warn' | 'info' | 'debug'; message: string; fields?: Record<string, unknown> }): void {
    const log = this.options.log;
    if (log && typeof log[m.level] === 'function') log[m.level](m.message, { ...m.fields, thread: true });
  }

  /** The threads scans run on: the engine's shared pool, or one of this scan pool's own. */
  get threadPool(): IdleWorkers<Worker> {
    // A scan pool of its own keeps no thread (each scan's threads end with it); the shared pool keeps them.
    return this.options.threadPool ?? (this.ownThreads ??= engineThreads({ ...(this.options.clock ? { clock: this.options.clock } : {}), keep: 0 }));
  }

  private get threads(): number {
    return Math.max(1, this.options.threads ?? defaultThreads());
  }

  /**
   * Queries whose regular expressions may backtrack (`usesRegex`) always run on a thread (so they can be stopped); otherwise big files whose query the byte
   * prefilter cannot narrow (a prefiltered scan is bound by reading and `indexOf`, which the main thread does anyway).
   */
  wanted(bytes: number, query: CompiledQuery, narrowed = true): boolean {
    if (!query.language || !this.options.pluginOf(query.language)) return false;
    if (query.usesRegex) return true;
    const literals = narrowed && (!!query.requiredLiterals?.length || !!query.requiredCaselessLiterals?.length);
    return bytes >= (this.options.minBytes ?? WORKER_MIN_BYTES) && !(literals && (this.options.minBytes ?? WORKER_MIN_BYTES) > 0);
  }

  /**
   * Scans `job.from..job.to` on worker threads: `ThreadPool` performs what the pool's state machine
   * (pool-machine.ts) decides — reading and posting batches, consuming results in file order, waiting on the clock,
   * answering at the deadline — and feeds it what happens (threads ready, batches done, failures, cancellation).
   */
  async run(job: WorkerJob): Promise<ScanResult> {
    const { opts, plan, from, to, collector } = job;
    const { source, query } = opts;
    const plugin = this.options.pluginOf(query.language!)!;
    const threads = this.threads;
    const clock = this.options.clock ?? systemClock;
    const immediate = !!query.usesRegex;
    /** Threads time each record from its epoch (progress().startedAt is relative to it), on this clock. */
    const { epoch, time, now } = poolClock(clock);
    const state = initialState({ from, to, threads, immediate, epoch, ...(opts.deadline !== undefined ? { deadline: opts.deadline } : {}), ...(job.page ? { page: job.page } : {}) });

    /** Events for the machine, in arrival order; `wake` ends the current wait. */
    const inbox: PoolEvent[] = [];
    let wake: (() => void) | null = null;
    const deliver = (e: PoolEvent) => {
      inbox.push(e);
      const w = wake;
      wake = null;
      w?.();
    };
    /** The results threads sent for each batch in flight, in order. */
    const results = new Map<number, WorkerMessage[]>();
    const route = (m: WorkerMessage) => {
      if (m.type === 'log') this.threadLog(m);
      else if (m.type === 'fatal') deliver({ type: 'fatal', code: m.code, message: m.message, ...(m.stack !== undefined ? { stack: m.stack } : {}) });
      else if (m.type === 'ready') deliver({ type: 'ready' });
      else if (m.type === 'done') deliver({ type: 'batchDone', seq: m.seq });
      else {
        const list = results.get(m.seq);
        if (!list) return;
        // One by one: a batch may hold many messages, too many for the arguments of one push (a stack overflow).
        if (m.type === 'many') for (const x of m.messages) list.push(x);
        else list.push(m);
      }
    };

    const init: Omit<WorkerInit, 'port' | 'progress'> = {
      plugin, language: query.language!, text: query.text, maxDepth: plan.maxDepth, immediate, epoch, ...(time ? { time } : {}),
      plan: {
        kind: plan.kind, start: plan.start, end: plan.end, step: plan.step, slashEscape: plan.slashEscape, ...(plan.fold ? { fold: true } : {}),
        maxDepth: plan.maxDepth, maxNodes: plan.maxNodes, firstOnly: plan.firstOnly,
        literals: plan.literals ? plan.literals.map((b) => b.toString('utf8')) : null,
      },
    };
    const start = this.options.startSlot ?? threadSlot(this.threadPool);
    const slots: PoolSlot[] = [];
    const onAbort = () => deliver({ type: 'abort' });
    opts.signal?.addEventListener('abort', onAbort);

    /**
     * Feeds a batch's results (records before `upTo`) to the collector in order. Returns false when the scan can stop.
     * A prefiltered batch's `candidates` come first: the records the prefilter ruled out are counted (unparsed) as
     * the results after them are taken, and up to the batch's end (or `upTo`) once they all are.
     */
    const consume = (messages: WorkerMessage[], upTo = Number.POSITIVE_INFINITY): boolean => {
      let ruled: { list: number[]; first: number; end: number; at: number; j: number } | null = null;
      /** Counts the records of `ruled.at … to - 1` the prefilter ruled out. */
      const ruledOutTo = (to: number) => {
        if (!ruled || to <= ruled.at) return;
        let through = 0;
        while (ruled.j < ruled.list.length && ruled.first + ruled.list[ruled.j]! < to) {
          if (inRange(plan, ruled.first + ruled.list[ruled.j]!)) through++;
          ruled.j++;
        }
        collector.addUnparsed(inRangeCount(plan, ruled.at, to) - through);
        ruled.at = to;
      };
      for (const m of messages) {
        // records before this message's that the filter ruled out on the members it read (each before `upTo` is this page's)
        if ('ruledOut' in m && m.ruledOut) collector.addUnparsed(upTo === Number.POSITIVE_INFINITY ? m.ruledOut.length : m.ruledOut.filter((r) => r < upTo).length);
        if (m.type === 'candidates') {
          ruled = { list: m.list, first: m.first, end: m.first + m.count, at: m.first, j: 0 };
        } else if (m.type === 'nodes') {
          if (m.record >= upTo) break;
          ruledOutTo(m.record);
          if (!collector.take({ record: m.record, ...(m.lazy ? { lazy: true } : {}), nodes: m.nodes.map((n) => workerNode(n, m.record, job.site, plan.maxDepth)) }, source, plan)) return false;
        } else if (m.type === 'count') {
          if (m.record !== undefined && m.record >= upTo) break;
          if (m.record !== undefined) ruledOutTo(m.record);
          collector.addCount(m.units, m.skips ?? 0);
        } else if (m.type === 'skip') {
          if (m.record >= upTo) break;
          ruledOutTo(m.record);
          const error = collector.firstSkipped.length < 5 || plan.kind === 'document' ? this.recreate(source, m) : new McpgwError(isErrorCode(m.code) ? m.code : 'SYNTAX_ERROR', m.message);
          if (!collector.take({ record: m.record, error }, source, plan)) return false;
        }
      }
      if (ruled) ruledOutTo(Math.min(upTo, ruled.end));
      return true;
    };

    try {
      for (let t = 0; t < threads; t++) slots.push(start(init, route, (err) => deliver({ type: 'workerError', message: err.message, ...(typeof err.stack === 'string' ? { stack: err.stack } : {}) })));
      if (opts.signal?.aborted) deliver({ type: 'abort' });
      const it = source.batches({ from, to, signal: opts.signal })[Symbol.asyncIterator]();
      /** The batch last read (posted, or held as the oversized record the machine evaluates here). */
      let held: RecordBatch | null = null;
      let answer: ScanResult | null = null;
      let actions = step(state, { type: 'start' }, now());
      for (;;) {
        let result: PoolEvent | null = null;
        for (const a of actions) {
          switch (a.type) {
            case 'read': {
              const r = await it.next();
              if (r.done) result = { type: 'sourceExhausted' };
              else {
                held = r.value;
                result = { type: 'batchRead', batch: { first: held.first, count: held.count, oversized: !!held.oversized, inRange: inRange(plan, held.first) } };
              }
              break;
            }
            case 'post': {
              const batch = held!;
              const spans = spansOf(batch);
              const bytes = new Uint8Array(batch.bytes.length);
              bytes.set(batch.bytes);
              results.set(a.seq, []);
              const cap = collector.room(batch.first, batch.first + batch.count);
              slots[a.slot]!.post({ type: 'batch', wantValues: !collector.full, countOnly: collector.countOnly, countAll: !!opts.countAll, cap, seq: a.seq, first: batch.first, count: batch.count, bytes, spans, faults: framingFaults(batch), utf8Ok: isUtf8(batch.bytes) }, [bytes.buffer, spans.buffer as ArrayBuffer]);
              break;
            }
            case 'consume': {
              const go = consume(results.get(a.seq) ?? [], a.upTo);
              if (a.flush) await collector.flush();
              if (a.upTo === undefined) results.delete(a.seq);
              result = { type: 'consumed', go };
              break;
            }
            case 'progress':
              opts.onProgress?.(a.done, a.total);
              break;
            case 'oversized': {
              // Not for a thread: the record has no bytes here. It is evaluated here, in order.
              const b = held!;
              if (job.oversized) {
                answer = await job.oversized(b);
                result = { type: 'oversizedDone', outcome: answer ? 'answered' : 'go' };
              } else result = { type: 'oversizedDone', outcome: collector.take(oversizedOutcome(b), source, plan) ? 'go' : 'full' };
              break;
            }
            case 'probe': {
              // The record in evaluation is read before the messages are delivered: a thread posts a record's results
              // before it moves on, so every record before `current` then has its results here (read after, `current`
              // could pass a record whose results were posted between the two and lose them).
              const { current, startedAt } = slots[a.slot]!.progress();
              for (const s of slots) for (const m of s.drain()) route(m);
              result = { type: 'probed', current, startedAt };
              break;
            }
            case 'skipStuck':
              collector.take({ record: a.record, error: new McpgwError('RESOURCE_LIMIT_EXCEEDED', `Record ${a.record} could not be evaluated: match()/search() ran for ${a.ran} ms on it without finishing and was stopped (a page may take requestTimeoutMs); the record was skipped.`, { limit: { name: 'requestTimeoutMs', limit: a.budget, value: a.ran }, location: { record_index: a.record } }) }, source, { ...plan, kind: 'split' });
              break;
            case 'wait':
              await new Promise<void>((resolve) => {
                if (inbox.length > 0) return resolve();
                const timer = a.until === undefined ? undefined : clock.setTimeout(() => ended(), Math.max(0, a.until - now()));
                function ended() {
                  timer?.cancel();
                  wake = null;
                  resolve();
                }
                wake = ended;
              });
              result = { type: 'tick' };
              break;
            case 'finish': {
              if (a.flush === 'before') await collector.flush();
              const r = collector.finish(a.position, a.complete);
              if (a.flush === 'after') await collector.flush();
              return r;
            }
            case 'answer':
              return answer!;
            case 'fail': {
              const failure = new McpgwError(a.code, a.message);
              if (a.stack !== undefined) failure.stack = a.stack; // the thread's: the main thread blames the plugin on it
              throw failure;
            }
          }
        }
        actions = [];
        for (const e of inbox.splice(0)) actions.push(...step(state, e, now()));
        if (result) actions.push(...step(state, result, now()));
        if (actions.length === 0 && inbox.length === 0) throw new McpgwError('INTERNAL_ERROR', `The worker pool stalled in phase ${state.phase}.`);
      }
    } finally {
      opts.signal?.removeEventListener('abort', onAbort);
      // Threads left clean (the scan done, every batch answered) go back to the pool; the others are terminated (a
      // page that stopped with batches in flight, a regular expression stuck on a record, a cancel, a failure).
      const clean = state.phase === 'done' && [...state.batches.values()].every((b) => b.done);
      for (const s of slots) if (clean && s.release) s.release(); else s.terminate();
    }
  }

  /** A skipped record's error with its real location (re-read on this thread for the first few only). */
  private recreate(source: ScanQueryOptions['source'], m: { record: number; code: string; message: string }): McpgwError {
    try {
      source.value(m.record);
    } catch (err) {
      if (err instanceof McpgwError) return err;
    }
    return new McpgwError(isErrorCode(m.code) ? m.code : 'SYNTAX_ERROR', m.message, { location: { record_index: m.record } });
  }
}

/** A node whose value is parsed (exactly) from the worker's JSON text on first access. */
function workerNode(n: { path: string; text: string }, record: number, site: (i: number) => ParseSite, maxDepth: number): QueryNode {
  return lazyNode(n.path, n.text, () => parseRecord(n.text, maxDepth, () => site(record)));
}
