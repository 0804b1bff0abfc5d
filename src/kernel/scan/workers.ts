import { isUtf8 } from 'node:buffer';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';
import type { RecordBatch } from '../contracts/format';
import type { CompiledQuery, QueryNode } from '../contracts/query';
import type { ScanQueryOptions, ScanResult } from '../contracts/scan';
import { McpgwError, isErrorCode } from '../errors';
import type { ParseSite } from '../records/parse';
import { parseRecord } from './fast-parse';
import type { Collector } from './engine';
import { oversizedOutcome, spansOf } from './engine';
import { inRange, lazyNode, type Plan } from './plan';
export { NODE_TEXT } from './plan';
import type { WorkerInit } from './worker';
import type { Clock } from '../contracts/clock';
import type { WorkerPlugin } from '../plugins/registry';

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
}

/** Files at least this large are scanned on worker threads (queries whose regular expressions may backtrack always are). */
export const WORKER_MIN_BYTES = 32 * 1024 * 1024;
/** How long a scan past its deadline waits for the batch in progress before terminating its thread, ms. */
const GRACE_MS = 200;


/** The compiled worker script: beside this file, or in dist/ when running from TypeScript sources (tests). */
function workerScript(): string {
  const here = path.join(__dirname, 'worker.js');
  if (fs.existsSync(here)) return here;
  return path.resolve(__dirname, '..', '..', '..', 'dist', 'kernel', 'scan', 'worker.js');
}

export interface ThreadPoolOptions {
  /** How a thread loads the plugin that registers query language `name` (Registry.queryLanguagePlugin), or undefined. */
  pluginOf(name: string): WorkerPlugin | undefined;
  /** The kernel's clock (deadlines are ms since the epoch on it); default the system clock. */
  clock?: Clock;
  /** Worker threads per scan (default: available parallelism, at least 1). */
  threads?: number;
  /** Size threshold, bytes (default WORKER_MIN_BYTES). */
  minBytes?: number;
}

interface Slot {
  worker: Worker;
  port: MessagePort;
  progress: Int32Array;
  queue: number[];
}

interface Pending {
  seq: number;
  first: number;
  count: number;
  slot: Slot;
  messages: WorkerMessage[];
  done: boolean;
  resolve?: () => void;
}

type WorkerMessage =
  | { type: 'nodes'; seq: number; record: number; lazy?: boolean; nodes: { path: string; text: string }[] }
  | { type: 'skip'; seq: number; record: number; code: string; message: string }
  | { type: 'many'; seq: number; messages: WorkerMessage[] }
  | { type: 'count'; seq: number; units: number; skips?: number; record?: number }
  | { type: 'done'; seq: number }
  | { type: 'ready' }
  | { type: 'fatal'; code: string; message: string };

/**
 * Worker threads started per scan (so a thread stuck in a regular expression is simply terminated) evaluating
 * record-aligned batches read by the main thread; results are consumed in file order.
 */
export class ThreadPool implements WorkerPool {
  constructor(private readonly options: ThreadPoolOptions) {}

  /**
   * Queries whose regular expressions may backtrack (`usesRegex`) always run on a thread (so they can be stopped); otherwise big files whose query the byte
   * prefilter cannot narrow (a prefiltered scan is bound by reading and `indexOf`, which the main thread does anyway).
   */
  wanted(bytes: number, query: CompiledQuery, narrowed = true): boolean {
    if (!query.language || !this.options.pluginOf(query.language)) return false;
    if (query.usesRegex) return true;
    const literals = narrowed && !!query.requiredLiterals && query.requiredLiterals.length > 0;
    return bytes >= (this.options.minBytes ?? WORKER_MIN_BYTES) && !(literals && (this.options.minBytes ?? WORKER_MIN_BYTES) > 0);
  }

  async run(job: WorkerJob): Promise<ScanResult> {
    const { opts, plan, from, to, collector } = job;
    const { source, query } = opts;
    const plugin = this.options.pluginOf(query.language!)!;
    const threads = Math.max(1, this.options.threads ?? Math.min(4, os.availableParallelism?.() ?? 2));
    const immediate = !!query.usesRegex;
    /** Threads time each record from this instant (ms): progress[1] is when the record in progress[0] started. */
    const epoch = Date.now();
    const slots: Slot[] = [];
    const pending = new Map<number, Pending>();
    let failure: McpgwError | null = null;
    let wake: (() => void) | null = null;
    const poke = () => { const w = wake; wake = null; w?.(); };

    const route = (m: WorkerMessage) => {
      if (m.type === 'fatal') {
        failure ??= new McpgwError(isErrorCode(m.code) ? m.code : 'INTERNAL_ERROR', m.message);
        poke();
        return;
      }
      if (m.type === 'ready') return;
      const p = pending.get(m.seq);
      if (!p) return;
      if (m.type === 'done') {
        p.done = true;
        p.slot.queue.shift();
        p.resolve?.();
        poke();
      } else if (m.type === 'many') {
        // One by one: a batch may hold many messages, too many for the arguments of one push (a stack overflow).
        for (const x of m.messages) p.messages.push(x);
      } else p.messages.push(m);
    };

    const init: Omit<WorkerInit, 'port' | 'progress'> = {
      plugin, language: query.language!, text: query.text, maxDepth: plan.maxDepth, immediate, epoch,
      plan: {
        kind: plan.kind, start: plan.start, end: plan.end, step: plan.step, slashEscape: plan.slashEscape,
        maxDepth: plan.maxDepth, maxNodes: plan.maxNodes, firstOnly: plan.firstOnly,
        literals: plan.literals ? plan.literals.map((b) => b.toString('utf8')) : null,
      },
    };
    const ready: Promise<void>[] = [];
    for (let t = 0; t < threads; t++) {
      const { port1, port2 } = new MessageChannel();
      const progress = new Int32Array(new SharedArrayBuffer(8));
      progress[0] = -1;
      const worker = new Worker(workerScript(), { workerData: { ...init, port: port2, progress }, transferList: [port2] });
      const slot: Slot = { worker, port: port1, progress, queue: [] };
      slots.push(slot);
      ready.push(new Promise((resolve) => {
        const first = (m: WorkerMessage) => { if (m.type === 'ready' || m.type === 'fatal') { port1.off('message', first); route(m); resolve(); } };
        port1.on('message', first);
      }));
      port1.on('message', (m: WorkerMessage) => { if (m.type !== 'ready' && m.type !== 'fatal') route(m); });
      worker.on('error', (err) => { failure ??= new McpgwError('INTERNAL_ERROR', `A scan worker failed: ${err.message}`); poke(); });
      worker.unref();
    }
    const stopAll = () => { for (const s of slots) void s.worker.terminate(); };
    const onAbort = () => poke();
    opts.signal?.addEventListener('abort', onAbort);
    const timer = opts.deadline !== undefined ? setTimeout(poke, Math.max(0, opts.deadline - Date.now())) : undefined;
    const expired = () => opts.deadline !== undefined && Date.now() > opts.deadline;
    /** The page's time, ms, and how long one record may run before it counts as one that cannot be evaluated. */
    const budget = opts.deadline !== undefined ? Math.max(0, opts.deadline - epoch) : 0;
    const stuckAfter = Math.max(GRACE_MS, Math.round(budget / 2));
    /** Resolves when p finishes, on another wake-up, or after `ms`. */
    const pause = (p: Pending, ms: number) => new Promise<void>((r) => {
      const t = setTimeout(done, Math.max(1, ms));
      function done() { clearTimeout(t); r(); }
      wake = done;
      p.resolve = done;
    });
    /**
     * Resolves when woken (a batch finished, a failure, cancellation) or once the deadline has passed. A timer can
     * fire a millisecond before Date.now() passes the deadline (timers run on the monotonic clock); one wake-up
     * from the single deadline timer was then spent while expired() was still false and a scan with a stuck
     * thread waited forever. Every wait therefore carries its own timer to just past the deadline.
     */
    const sleep = (p?: Pending) => new Promise<void>((r) => {
      let t: NodeJS.Timeout | undefined;
      const done = () => { if (t) clearTimeout(t); r(); };
      wake = done;
      if (p) p.resolve = done;
      if (opts.deadline !== undefined) { t = setTimeout(done, Math.max(0, opts.deadline - Date.now()) + 2); t.unref(); }
    });

    try {
      await Promise.race([Promise.all(ready), sleep()]);
      if (failure) throw failure;
      let seq = 0;
      let nextToConsume = 0;
      const total = to - from;
      const maxInFlight = threads * 2;

      /** Feeds a finished batch's results to the collector in order. Returns false when the scan can stop. */
      const consume = (p: Pending, upTo = Number.POSITIVE_INFINITY): boolean => {
        for (const m of p.messages) {
          if (m.type === 'nodes') {
            if (m.record >= upTo) break;
            if (!collector.take({ record: m.record, ...(m.lazy ? { lazy: true } : {}), nodes: m.nodes.map((n) => workerNode(n, m.record, job.site, plan.maxDepth)) }, source, plan)) return false;
          } else if (m.type === 'count') {
            if (m.record !== undefined && m.record >= upTo) break;
            collector.addCount(m.units, m.skips ?? 0);
          } else if (m.type === 'skip') {
            if (m.record >= upTo) break;
            const error = collector.firstSkipped.length < 5 || plan.kind === 'document' ? this.recreate(source, m) : new McpgwError(isErrorCode(m.code) ? m.code : 'SYNTAX_ERROR', m.message);
            if (!collector.take({ record: m.record, error }, source, plan)) return false;
          }
        }
        return true;
      };

      /** Waits for the next batch in order (or the deadline / a failure / cancellation). */
      const waitNext = async (): Promise<'ok' | 'stop'> => {
        for (;;) {
          if (failure) throw failure;
          if (opts.signal?.aborted) throw new McpgwError('CANCELLED', 'The request was cancelled.');
          const p = pending.get(nextToConsume)!;
          if (p.done) return 'ok';
          if (expired()) return 'stop';
          await sleep(p);
        }
      };

      /**
       * The deadline passed: keep what finished in order, then report exactly where to continue. A record still in
       * evaluation is not lost: the next page starts with it. Two rules keep a walk of pages finite: a page finishes
       * at least one record before it stops (evaluation without regular expressions always ends), and a record whose
       * evaluation alone has run for `stuckAfter` ms is skipped as RESOURCE_LIMIT_EXCEEDED (the next page would give
       * it no more time than this one did).
       */
      const stopAtDeadline = async (): Promise<ScanResult> => {
        const graceEnd = Date.now() + GRACE_MS;
        for (;;) {
          if (failure) throw failure;
          if (opts.signal?.aborted) throw new McpgwError('CANCELLED', 'The request was cancelled.');
          const p = pending.get(nextToConsume);
          if (!p) return collector.finish({ record: nextRecord(), node: 0 }, false);
          // The record in evaluation is read before the messages are drained: a thread posts a record's results
          // before it moves on, so every record before `current` then has its results here (read after the drain,
          // `current` could pass a record whose results were posted between the two and lose them).
          const current = Atomics.load(p.slot.progress, 0);
          const startedAt = Atomics.load(p.slot.progress, 1);
          for (const s of slots) for (let m = receiveMessageOnPort(s.port); m; m = receiveMessageOnPort(s.port)) route(m.message as WorkerMessage);
          if (p.done) {
            if (!consume(p)) return collector.finish(null, true);
            return collector.finish({ record: p.first + p.count, node: 0 }, p.first + p.count >= to);
          }
          const now = Date.now();
          // Batches before p were consumed: this page has finished records.
          const progressed = p.first > from;
          if (immediate && p.slot.queue[0] === p.seq) {
            // The thread is on record `current` of p; the results of p's records before it were posted at once.
            if (current >= p.first && current < p.first + p.count) {
              const ran = now - epoch - startedAt;
              if (ran >= stuckAfter) {
                if (!consume(p, current)) return collector.finish(null, true);
                collector.take({ record: current, error: new McpgwError('RESOURCE_LIMIT_EXCEEDED', `Record ${current} could not be evaluated: match()/search() ran for ${ran} ms on it without finishing and was stopped (a page may take requestTimeoutMs); the record was skipped.`, { limit: { name: 'requestTimeoutMs', limit: budget, value: ran }, location: { record_index: current } }) }, source, { ...plan, kind: 'split' });
                return collector.finish({ record: current + 1, node: 0 }, false);
              }
              if (now >= graceEnd && (progressed || current > from)) {
                // Retried by the next page, from this very record.
                if (!consume(p, current)) return collector.finish(null, true);
                return collector.finish({ record: current, node: 0 }, false);
              }
              await pause(p, Math.min(stuckAfter - ran, now < graceEnd ? graceEnd - now : Number.POSITIVE_INFINITY));
              continue;
            }
          }
          if (now >= graceEnd && progressed) return collector.finish({ record: p.first, node: 0 }, false);
          await pause(p, now < graceEnd ? graceEnd - now : 50);
        }
      };
      let dispatched = from;
      const nextRecord = () => { const p = pending.get(nextToConsume); return p ? p.first : dispatched; };

      const it = source.scan({ from, to, signal: opts.signal })[Symbol.asyncIterator]();
      let exhausted = false;
      /** A record over maxRecordBytes waiting until every batch before it is consumed (then this thread takes it). */
      let barrier: RecordBatch | null = null;
      while (!exhausted || nextToConsume < seq || barrier) {
        if (barrier && nextToConsume >= seq) {
          const b: RecordBatch = barrier;
          barrier = null;
          if (expired()) return collector.finish({ record: b.first, node: 0 }, false);
          if (inRange(plan, b.first)) {
            if (job.oversized) {
              const r = await job.oversized(b);
              if (r) return r;
            } else if (!collector.take(oversizedOutcome(b), source, plan)) return (await collector.flush(), collector.finish(null, true));
          }
          dispatched = b.first + 1;
          continue;
        }
        // dispatch while there is room
        while (!exhausted && !barrier && seq - nextToConsume < maxInFlight) {
          if (expired() && seq > 0) break; // the first batch goes out in any case: a page finishes a record
          const r = await it.next();
          if (r.done) { exhausted = true; break; }
          const batch = r.value;
          if (batch.oversized) {
            // Not for a thread: the record has no bytes here. It is evaluated here, in order.
            barrier = batch;
            break;
          }
          const spans = spansOf(batch);
          const bytes = new Uint8Array(batch.bytes.length);
          bytes.set(batch.bytes);
          const slot = slots.reduce((a, b) => (b.queue.length < a.queue.length ? b : a));
          const p: Pending = { seq, first: batch.first, count: batch.count, slot, messages: [], done: false };
          pending.set(seq, p);
          slot.queue.push(seq);
          const cap = collector.room(batch.first, batch.first + batch.count);
          slot.port.postMessage({ type: 'batch', wantValues: !collector.full, countOnly: collector.countOnly, countAll: !!opts.countAll, cap, seq, first: batch.first, count: batch.count, bytes, spans, utf8Ok: isUtf8(batch.bytes) }, [bytes.buffer, spans.buffer as ArrayBuffer]);
          seq++;
          dispatched = batch.first + batch.count;
        }
        if (nextToConsume >= seq) {
          if (expired() && !exhausted && !barrier) return collector.finish({ record: dispatched, node: 0 }, false);
          continue;
        }
        if ((await waitNext()) === 'stop') {
          const r = await stopAtDeadline();
          await collector.flush();
          return r;
        }
        const p = pending.get(nextToConsume)!;
        const go = consume(p);
        await collector.flush();
        if (!go) return collector.finish(null, true);
        pending.delete(nextToConsume);
        nextToConsume++;
        opts.onProgress?.(Math.min(p.first + p.count - from, total), total);
      }
      return collector.finish(null, true);
    } finally {
      if (timer) clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      stopAll();
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
