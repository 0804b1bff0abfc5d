/**
 * Aggregates on worker threads: the main thread reads record-aligned batches and hands them in slices (SLICE_BYTES
 * of records) to the least busy thread, on the batches' own shared bytes (the kernel's read buffers are
 * SharedArrayBuffers; three take turns, see READS) with their records' extents read from the index: this thread
 * copies none of the bytes and reads none but a few per slice.
 * - Without regular expressions in `where`, each thread keeps one table for all its slices (aggregate-worker.ts) and
 *   posts it when asked: at the end, or at the deadline after the slices sent (they always finish) — then every
 *   record before `stoppedAt` is in the merged tables and none after. Tables merge in any order (a group's key and
 *   extremes keep the earliest record's).
 * - A `where` with regular expressions goes in slices of {@link REGEX_SLICE} records, each slice's table posted with
 *   it and merged in file order: at the deadline nothing after the first unfinished slice is merged, and `stoppedAt`
 *   is its first record; a slice whose thread has been on one record for half the page's time has that record
 *   reported as stuck (never evaluated again), so that a walk of pages always ends.
 * - With `job.keep`, each thread keeps the whole table of its records (within `keep.threadBytes`, else the job fails
 *   with aggregateGroupBytes) and, once every slice is done, hands it over one hash part at a time: the part's tables
 *   from every thread are merged and given to `keep.onPart` (at the deadline, the whole tables merge into the job's).
 *   Those tables are compact (aggregate/compact.ts) unless `count_distinct` is asked, and the threads split the keys
 *   between them over a port for each pair (given with the job): compact.ts splitKeys, aggregate-worker.ts.
 * Threads come from the engine's pool, kept between jobs and shared with scans (engine-threads.ts): each gets the job on a port of its own, with the
 * record check compiled here (a WebAssembly.Module, instantiated there), and its first slices right after (they queue
 * while a new thread starts). At the end a thread with every slice answered goes back to the pool; one still at work
 * (a page stopped mid-slice, a cancel, a stuck regular expression) or failed is terminated. A thread that exits or
 * fails during the aggregate makes it INTERNAL_ERROR: never a wait without end, never a partial table taken as whole.
 */
import { MessageChannel, type Worker, type MessagePort } from 'node:worker_threads';
import type { RecordBatch } from '../../kernel/contracts/format';
import type { SkippedRecord } from '../../kernel/contracts/scan';
import { McpgwError, isErrorCode } from '../../kernel/errors';
import type { Clock, ClockTimer } from '../../kernel/contracts/clock';
import { poolClock } from './thread-clock';
import { mergeTable, newTable, type Compiled, type TableData } from '../aggregate/table';
import { CompactTable, isCompactData, type CompactData } from '../aggregate/compact';
import { addStats, skip, type BatchStats, type WhereTest } from './aggregate-batch';
import type { AggregateJob, AggregatePool } from './aggregate';
import { recreate } from './aggregate';
import { oversizedOutcome } from './engine';
import type { AggregateWorkerInit } from './aggregate-worker';
import type { Logger } from '../../kernel/contracts/plugin';
import type { WorkerPlugin } from '../../kernel/contracts/engine';
import { WORKER_MIN_BYTES } from './workers';
import { checkedKey, checkedMarks } from './checked';
import { framingFaults } from './plan';
import { slotPlan } from '../aggregate/extract';
import { SimdRecordCheck } from '../aggregate/check-simd';
import type { IdleWorkers } from './idle-workers';
import { defaultThreads, engineThreads, startHostThread } from './engine-threads';
import { IndexedRecordSource, type KernelBatch } from '../records/source';

/** Records per message when `where` uses regular expressions. */
export const REGEX_SLICE = 64;
/** How long a stopped page waits for the slice in progress, ms. */
const GRACE_MS = 200;

export interface AggregateThreadsOptions {
  /** The plugin module file that registers query language `name`, or undefined. */
  pluginOf(name: string): WorkerPlugin | undefined;
  threads?: number;
  minBytes?: number;
  /** The clock idle threads are let go on (default the system clock). */
  clock?: Clock;
  /** How long threads are kept after an aggregate, ms (default IDLE_MS). */
  idleMs?: number;
  /**
   * Called once the idle threads are gone (default: a full collection soon, memory.ts releaseSoon). What the
   * aggregates left on this thread (their slice and read buffers, garbage) is freed only by a collection, and with the
   * threads gone nothing allocates enough to run one: ~22 MiB stayed resident between calls.
   */
  onIdleDown?: () => void;
  /** The engine's threads, shared with scans (engine-threads.ts); default a pool of this one's own ({@link spawn}). */
  threadPool?: IdleWorkers<Worker>;
  /** The server's log: a `where` language plugin's log lines on a thread are written here; default: dropped. */
  log?: Logger;
}

interface Slot {
  worker: Worker;
  port: MessagePort;
  progress: Int32Array;
  busy: number;
  /** With job.keep: the bytes of the thread's table (its latest `done`), and of its own keys' groups (compact.ts `owned`). */
  held: number;
  owned: number;
}

interface Pending {
  first: number;
  count: number;
  slot: Slot | null;
  done: boolean;
  /** What holds the slice's bytes (its `users` drop by one when it is done). */
  holder?: { users: number };
  /** The slice's spans (back to the free ones when it is done). */
  spans?: Float64Array;
  table?: TableData;
  stats?: BatchStats;
}

/**
 * Slices go to the threads on SharedArrayBuffers, reused (so that a slice allocates nothing a thread must collect:
 * per-slice arrays made a thread's memory grow by tens of MiB between its rare collections). A batch read into shared
 * memory (the kernel's read buffers are) is sent where it is, slice by slice (a {@link BatchHold}); another one (a
 * record longer than a read buffer, a source whose bytes are not shared) is copied slice by slice into a
 * {@link CopyBuffer}. Each slice's extents (or spans) go in a Float64Array of their own, on a SharedArrayBuffer too,
 * back to the free ones when the slice is done.
 */
interface CopyBuffer {
  sab: SharedArrayBuffer | null;
  /** 1 while its slice is in flight. */
  users: number;
}

/** A batch handed out by the source; `users`: its slices sent on its own bytes and not done yet. */
interface BatchHold {
  users: number;
}

/**
 * Batches whose bytes stay valid at once (KernelBatchOptions.reads, records/source.ts): the threads work on one
 * batch's slices while the next is dispatched and the one after is read. Each is a read buffer (CHUNK_BYTES) from the
 * kernel's spares.
 */
export const READS = 3;

/** Bytes of records one message carries (at least one record). */
export const SLICE_BYTES = 1024 * 1024;

/** The end (exclusive) of the slice of `batch` from record k0: SLICE_BYTES of records, or REGEX_SLICE records. */
function sliceEnd(batch: RecordBatch, k0: number, regex: boolean): number {
  if (regex) return Math.min(batch.count, k0 + REGEX_SLICE);
  const limit = batch.span(k0)[0] + SLICE_BYTES;
  let lo = k0 + 1, hi = batch.count;
  while (lo < hi) { // the last k1 whose records end within the limit
    const mid = (lo + hi + 1) >>> 1;
    if (batch.span(mid - 1)[1] <= limit) lo = mid; else hi = mid - 1;
  }
  return lo;
}

/** Whether `bytes` lie on a SharedArrayBuffer (threads read them there). */
function isShared(bytes: Buffer): boolean {
  return bytes.buffer instanceof SharedArrayBuffer;
}

/**
 * Where the threads read records [k0, k1) of a batch: on the batch's own shared bytes (`copy` null), or copied into
 * `copy` (grown when they are larger). Writes where the records are, relative to the slice's first byte, into
 * `spans`: a kernel source's (`kernel`) batch's k1 − k0 + 1 extent boundaries (`extents`: the thread trims their padding, so that this
 * thread reads none of the bytes: trimmedSpans), another's 2 × (k1 − k0) spans.
 */
function load(batch: RecordBatch, kernel: boolean, k0: number, k1: number, copy: CopyBuffer | null, spans: Float64Array): { sab: SharedArrayBuffer; offset: number; length: number; extents: boolean } {
  let lo: number, hi: number;
  const extents = kernel && !!(batch as Partial<KernelBatch>).extentsInto;
  if (extents) {
    (batch as KernelBatch).extentsInto(k0, k0, spans, 0);
    lo = spans[0]!;
    (batch as KernelBatch).extentsInto(k0, k1, spans, lo);
    hi = lo + spans[k1 - k0]!;
  } else {
    lo = batch.span(k0)[0];
    hi = batch.span(k1 - 1)[1];
    for (let k = k0; k < k1; k++) {
      const [s, e] = batch.span(k);
      spans[2 * (k - k0)] = s - lo;
      spans[2 * (k - k0) + 1] = e - lo;
    }
  }
  if (!copy) return { sab: batch.bytes.buffer as SharedArrayBuffer, offset: batch.bytes.byteOffset + lo, length: hi - lo, extents };
  if (!copy.sab || copy.sab.byteLength < hi - lo) copy.sab = new SharedArrayBuffer(Math.max(hi - lo, 64 * 1024));
  batch.bytes.copy(new Uint8Array(copy.sab), 0, lo, hi);
  return { sab: copy.sab, offset: 0, length: hi - lo, extents };
}

/** `t` (a thread's part: compact data, or a table of objects) merged into `into` (null: none yet); returns the merged table. */
function mergeInto(into: TableData | CompactTable | null, t: TableData | CompactData, c: Compiled): TableData | CompactTable {
  const b = isCompactData(t) ? CompactTable.from(c, t) : t;
  if (into === null) return b;
  if (into instanceof CompactTable) {
    if (b instanceof CompactTable) into.merge(b); else into.mergeTable(b);
    return into;
  }
  if (b instanceof CompactTable) { b.mergeTable(into); return b; }
  mergeTable(into, b, c);
  return into;
}

/** A skipped record's entry with the location (line, byte offset) and message of its error read on this thread. */
function located(err: McpgwError, x: SkippedRecord): SkippedRecord {
  const loc = err.location ?? {};
  return {
    record_index: x.record_index, code: err.code,
    ...(loc.line !== undefined ? { line: loc.line } : {}),
    ...(loc.byte_offset !== undefined ? { byte_offset: loc.byte_offset } : {}),
    message: err.message,
  };
}

export class AggregateThreads implements AggregatePool {
  /** Threads kept between aggregates (idle-workers.ts). */
  readonly pool: IdleWorkers<Worker>;
  private readonly threads: number;

  constructor(private readonly options: AggregateThreadsOptions) {
    this.threads = Math.max(1, options.threads ?? defaultThreads());
    this.pool = options.threadPool ?? engineThreads({
      spawn: () => this.spawn(), ...(options.clock ? { clock: options.clock } : {}), ...(options.idleMs !== undefined ? { idleMs: options.idleMs } : {}),
      keep: this.threads, ...(options.onIdleDown ? { onIdleDown: options.onIdleDown } : {}),
    });
  }

  /** Starts one engine thread (engine-threads.ts; its young generation kept small: a slice's garbage is collected often and quickly). */
  protected spawn(): Worker {
    return startHostThread();
  }

  wanted(bytes: number, where: WhereTest | null): boolean {
    if (where && (!where.query.language || !this.options.pluginOf(where.query.language))) return false;
    if (where?.query.usesRegex) return true;
    return bytes >= (this.options.minBytes ?? WORKER_MIN_BYTES);
  }

  async run(job: AggregateJob): Promise<{ stoppedAt: number | null; stuck: number[] }> {
    const { opts, where, from, to } = job;
    const { source } = opts;
    const threads = this.threads;
    const regex = !!where?.query.usesRegex;
    const { clock } = job;
    /** Threads time each record from its epoch (progress[1] is relative to it), on the job's clock. */
    const { epoch, time, now } = poolClock(clock);
    const slots: Slot[] = [];
    const pending = new Map<number, Pending>();
    /** Spans of slices done, for the next slices. */
    const freeSpans: Float64Array[] = [];
    let failure: McpgwError | null = null;
    let wake: (() => void) | null = null;
    const poke = () => { const w = wake; wake = null; w?.(); };
    /** Tables posted by threads that hold theirs (no regex), to merge; threads that have answered the flush. */
    const posted: (TableData | CompactData)[] = [];
    let flushed = 0;
    const hold = !regex;
    /** Threads keep their whole tables and hand them over in hash parts at the end (job.keep; never with regex). */
    const keep = hold ? job.keep ?? null : null;
    // Records earlier aggregates checked: each slice carries its records' marks, and brings back those it set.
    const plan = slotPlan(job.compiled.spec.slots, job.maxDepth);
    const marks = checkedMarks(source, checkedKey(plan.tops, job.maxDepth));
    const init: Omit<AggregateWorkerInit, 'port' | 'progress' | 'peers' | 'me'> = {
      epoch, ...(time ? { time } : {}), spec: job.compiled.spec, maxDepth: job.maxDepth, skip: [...job.skipRecords], hold, keep: keep ? keep.threadBytes : null,
      padding: source instanceof IndexedRecordSource ? source.padding : null,
      // compiled once here, instantiated by each thread
      check: plan.negative ? null : SimdRecordCheck.module(plan),
      where: where ? { plugin: this.options.pluginOf(where.query.language!)!, language: where.query.language!, text: where.query.text, as: where.as } : null,
    };
    /** Threads that failed or stopped during this job (never given back to the pool). */
    const broken = new Set<Worker>();
    const onError = (worker: Worker) => (err: Error) => {
      broken.add(worker);
      failure ??= new McpgwError('INTERNAL_ERROR', `An aggregate worker failed: ${err.message}`);
      poke();
    };
    const onExit = (worker: Worker) => (code: number) => {
      broken.add(worker);
      failure ??= new McpgwError('INTERNAL_ERROR', `An aggregate worker stopped (exit code ${code}) before it finished its records.`);
      poke();
    };
    const listeners: { worker: Worker; error: (err: Error) => void; exit: (code: number) => void }[] = [];
    // The job goes to each thread at once; slices follow without waiting for the threads to be ready (they queue on
    // the job's port), so reading the file overlaps a new thread's start-up.
    const workers = this.pool.take(threads);
    // With `keep`, the threads split the keys between them (compact.ts splitKeys): a port for each pair of threads.
    const peers: (MessagePort | null)[][] = workers.map(() => workers.map(() => null));
    if (keep && workers.length > 1) {
      for (let i = 0; i < workers.length; i++) for (let j = i + 1; j < workers.length; j++) {
        const { port1, port2 } = new MessageChannel();
        peers[i]![j] = port1;
        peers[j]![i] = port2;
      }
    }
    for (const [w, worker] of workers.entries()) {
      const { port1, port2 } = new MessageChannel();
      const progress = new Int32Array(new SharedArrayBuffer(8));
      progress[0] = -1;
      const l = { worker, error: onError(worker), exit: onExit(worker) };
      worker.on('error', l.error);
      worker.on('exit', l.exit);
      listeners.push(l);
      const mine = peers[w]!;
      const peerPorts = mine.filter((p): p is MessagePort => p !== null);
      worker.postMessage({ type: 'job', kind: 'aggregate', init: { ...init, port: port2, progress, peers: peerPorts.length ? mine : null, me: w } }, [port2, ...peerPorts]);
      const slot: Slot = { worker, port: port1, progress, busy: 0, held: 0, owned: 0 };
      slots.push(slot);
      port1.on('message', (m: { type: string; seq?: number; held?: number; owned?: number; table?: TableData | CompactData; stats?: BatchStats; checked?: Uint8Array; final?: boolean; code?: string; message?: string; stack?: string; level?: keyof Logger; fields?: Record<string, unknown> }) => {
        if (m.type === 'ready') return;
        if (m.type === 'log') {
          const log = this.options.log;
          if (log && m.level && typeof log[m.level] === 'function') log[m.level](m.message ?? '', { ...m.fields, thread: true });
          return;
        }
        if (m.type === 'over') {
          failure ??= new McpgwError('RESOURCE_LIMIT_EXCEEDED', 'A thread\'s groups passed the aggregate\'s memory bound.', {
            limit: { name: 'aggregateGroupBytes', limit: keep?.threadBytes ?? 0, value: (m as { bytes?: number }).bytes ?? 0 },
          });
          poke();
          return;
        }
        if (m.type === 'table') {
          posted.push(m.table!);
          if (m.final) flushed++;
          poke();
          return;
        }
        if (m.type === 'fatal') {
          broken.add(worker);
          if (!failure) {
            failure = new McpgwError(isErrorCode(m.code ?? '') ? m.code as never : 'INTERNAL_ERROR', m.message ?? 'A worker failed.');
            if (m.stack !== undefined) failure.stack = m.stack; // the thread's: the main thread blames the plugin on it
          }
          poke();
          return;
        }
        const p = pending.get(m.seq!);
        if (!p) return;
        p.done = true;
        if (p.holder) p.holder.users--;
        if (p.spans) freeSpans.push(p.spans);
        if (m.table) p.table = m.table as TableData;
        p.stats = m.stats!;
        if (marks && m.checked) marks.set(m.checked, p.first);
        slot.busy--;
        if (m.held !== undefined) slot.held = m.held;
        if (m.owned !== undefined) slot.owned = m.owned;
        poke();
      });
    }
    const onAbort = () => poke();
    opts.signal?.addEventListener('abort', onAbort);
    const expired = () => opts.deadline !== undefined && now() > opts.deadline;
    const budget = opts.deadline !== undefined ? Math.max(0, opts.deadline - now()) : 0;
    const stuckAfter = Math.max(GRACE_MS, Math.round(budget / 2));
    /**
     * Resolves on a wake-up or after `ms` on the clock (and always just past the deadline); at once after a failure or
     * a cancel (its wake-up may have come while this thread was reading, when nothing slept).
     */
    const sleep = (ms?: number) => new Promise<void>((r) => {
      if (failure || opts.signal?.aborted) { r(); return; }
      let t: ClockTimer | undefined;
      const done = () => { t?.cancel(); r(); };
      wake = done;
      const wait = ms ?? (opts.deadline !== undefined && !expired() ? opts.deadline - now() + 2 : undefined);
      if (wait !== undefined) t = clock.setTimeout(done, Math.max(1, wait), { unref: true });
    });
    const stuck: number[] = [];
    const total = to - from;
    try {
      if (failure) throw failure;
      let seq = 0, next = 0;
      let dispatched = from;
      let consumedAny = false;
      // In flight at most: slices on the batches' own bytes (READS − 1 batches, the read buffers bound them), or
      // `copies` slices copied.
      const maxInFlight = threads * 8;
      // The kernel's sources keep READS batches' bytes valid at once, on shared memory: their slices go as they are.
      const kernel = source instanceof IndexedRecordSource;
      const it = (kernel ? source.batches({ from, to, signal: opts.signal, reads: READS }) : source.batches({ from, to, signal: opts.signal }))[Symbol.asyncIterator]();
      let exhausted = false;
      const copies: CopyBuffer[] = Array.from({ length: threads * (regex ? 8 : 2) }, () => ({ sab: null, users: 0 }));
      /** The batches handed out, latest last (their read buffers take turns: see `holds`). */
      let holds: BatchHold[] = [];
      /** Asking for a batch starts a read into the buffer of the READS − 1-th batch before it: that one must be done. */
      const mayRead = () => {
        const keep = Math.max(0, holds.length - (READS - 2));
        for (let k = 0; k < keep; k++) if (holds[k]!.users > 0) return false;
        holds = holds.slice(keep);
        return true;
      };
      /** The batch being dispatched, its first record not yet sent, and its hold when its slices go on its own bytes. */
      let queue: { batch: RecordBatch; k: number; faults: Uint8Array | null; own: BatchHold | null } | null = null;
      const takeSpans = (n: number): Float64Array => {
        for (let k = freeSpans.length - 1; k >= 0; k--) if (freeSpans[k]!.length >= n) return freeSpans.splice(k, 1)[0]!;
        freeSpans.pop(); // too small: let one go, so that the free ones stay as many as the slices in flight before
        return new Float64Array(new SharedArrayBuffer(Math.max(n, 8192) * 8));
      };

      const consume = (p: Pending) => {
        if (p.table) mergeTable(job.table, p.table, job.compiled);
        if (p.stats) {
          if (!source.rootIsSequence && p.stats.skipped > 0) throw recreate(opts, 0);
          // A thread knows no lines: the first few malformed records are read again here for their real place.
          const room = 5 - job.stats.firstSkipped.length;
          p.stats.firstSkipped = p.stats.firstSkipped.map((x, k) => (k < room && x.code === 'SYNTAX_ERROR' ? located(recreate(opts, x.record_index), x) : x));
          addStats(job.stats, p.stats);
        }
        job.checkMemory();
        consumedAny = true;
        opts.onProgress?.(p.first + p.count - from, total);
      };

      /** Merges the tables threads have posted so far. */
      const mergePosted = () => {
        while (posted.length) {
          const t = posted.shift()!;
          mergeTable(job.table, isCompactData(t) ? CompactTable.from(job.compiled, t).toTable() : t, job.compiled);
          job.checkMemory();
        }
      };
      /** Threads that hold tables: asks each for its table (after the slices already sent) and merges them all. */
      const flushAll = async () => {
        for (const s of slots) s.port.postMessage({ type: 'flush' });
        while (flushed < slots.length) {
          if (failure) throw failure;
          if (opts.signal?.aborted) throw new McpgwError('CANCELLED', 'The request was cancelled.');
          mergePosted();
          await sleep(1000);
        }
        mergePosted();
        while (next < seq && pending.get(next)!.done) { consume(pending.get(next)!); pending.delete(next); next++; }
      };

      /**
       * job.keep: every slice is done and each thread holds the table of its records; asks the threads for the groups
       * of one hash part at a time (as many parts as `partsFor` says), merges that part's tables (from every thread)
       * and hands them to `onPart`, so that this thread holds one part's groups at once.
       */
      const handOverParts = async (p: NonNullable<AggregateJob['keep']>) => {
        // At least this many bytes of distinct groups: the largest table's, or the threads' own keys' all told.
        const least = Math.max(slots.reduce((n, s) => Math.max(n, s.held), 0), slots.reduce((n, s) => n + s.owned, 0));
        const count = p.partsFor(slots.reduce((n, s) => n + s.held, 0), least);
        for (let part = 0; part < count; part++) {
          flushed = 0;
          for (const s of slots) s.port.postMessage({ type: 'flush', part, parts: count });
          let merged: TableData | CompactTable | null = null;
          for (;;) {
            if (failure) throw failure;
            if (opts.signal?.aborted) throw new McpgwError('CANCELLED', 'The request was cancelled.');
            while (posted.length) merged = mergeInto(merged, posted.shift()!, job.compiled);
            if (flushed >= slots.length) break;
            await sleep(1000);
          }
          p.onPart(merged ?? newTable(), part, count);
        }
      };

      for (;;) {
        if (failure) throw failure;
        if (opts.signal?.aborted) throw new McpgwError('CANCELLED', 'The request was cancelled.');
        if (hold) mergePosted();
        // Dispatch while there is room (nothing new once the deadline passed, but a page always finishes a slice).
        while (seq - next < maxInFlight && !(expired() && seq > 0)) {
          if (!queue) {
            if (exhausted || !mayRead()) break; // (a batch in flight would be read over: wait for it)
            const r = await it.next();
            if (r.done) { exhausted = true; break; }
            const batch = r.value;
            if (batch.oversized) {
              const err = oversizedOutcome(batch).error!;
              if (!source.rootIsSequence) throw err;
              const stats: BatchStats = { scanned: 1, matched: 0, units: 0, skipped: 0, firstSkipped: [], loneSurrogates: 0 };
              skip(stats, batch.first, err);
              pending.set(seq++, { first: batch.first, count: 1, slot: null, done: true, stats });
              dispatched = batch.first + 1;
              continue;
            }
            const held: BatchHold = { users: 0 };
            holds.push(held);
            queue = { batch, k: 0, faults: framingFaults(batch), own: kernel && isShared(batch.bytes) ? held : null };
          }
          const { batch, faults: batchFaults, own } = queue;
          const copy = own ? null : copies.find((b) => b.users === 0);
          if (copy === undefined) break; // every copy is in flight: wait for a slice to finish
          const holder = own ?? copy!;
          const k0 = queue.k;
          const k1 = sliceEnd(batch, k0, regex);
          queue.k = k1;
          if (k1 >= batch.count) queue = null;
          const spans = takeSpans((k1 - k0) * 2);
          const at = load(batch, kernel, k0, k1, copy, spans);
          const slot = slots.reduce((a, b) => (b.busy < a.busy ? b : a));
          slot.busy++;
          holder.users++;
          pending.set(seq, { first: batch.first + k0, count: k1 - k0, slot, done: false, holder, spans });
          const checked = marks ? marks.slice(batch.first + k0, batch.first + k1) : null;
          const faults = batchFaults ? batchFaults.slice(k0, k1) : null;
          slot.port.postMessage({ type: 'batch', seq, first: batch.first + k0, count: k1 - k0, ...at, spans, checked, faults }, checked ? [checked.buffer as ArrayBuffer] : []);
          seq++;
          dispatched = batch.first + k1;
        }
        // Merge what finished, in order.
        while (next < seq && pending.get(next)!.done) {
          consume(pending.get(next)!);
          pending.delete(next);
          next++;
        }
        if (keep && next >= seq && exhausted && !queue) {
          await handOverParts(keep);
          while (next < seq && pending.get(next)!.done) { consume(pending.get(next)!); pending.delete(next); next++; }
          return { stoppedAt: null, stuck };
        }
        if (hold && ((next >= seq && exhausted && !queue) || (expired() && seq > 0))) {
          // The end, or the deadline: every slice sent finishes, then the threads' tables hold exactly those.
          await flushAll();
          return { stoppedAt: exhausted && !queue ? null : dispatched, stuck };
        }
        if (next >= seq && exhausted && !queue) return { stoppedAt: null, stuck };
        if (next >= seq) {
          if (expired() && consumedAny) return { stoppedAt: dispatched, stuck };
          continue;
        }
        if (expired() && consumedAny) {
          // Wait a little for the slice in progress, then stop before it.
          const graceEnd = now() + GRACE_MS;
          while (!pending.get(next)!.done && now() < graceEnd && !failure && !opts.signal?.aborted) await sleep(graceEnd - now());
          if (pending.get(next)!.done) continue;
          const p = pending.get(next)!;
          if (regex && p.slot) this.noteStuck(p, now() - epoch, budget, stuckAfter, job, stuck);
          return { stoppedAt: p.first, stuck };
        }
        if (expired() && regex) {
          // Nothing merged yet: a record a regular expression is stuck on must not stall every page.
          const p = pending.get(next)!;
          if (p.slot && this.noteStuck(p, now() - epoch, budget, stuckAfter, job, stuck)) return { stoppedAt: p.first, stuck };
          await sleep(50);
          continue;
        }
        await sleep();
      }
    } finally {
      opts.signal?.removeEventListener('abort', onAbort);
      for (const l of listeners) { l.worker.off('error', l.error); l.worker.off('exit', l.exit); }
      // A thread with every slice answered goes back to the pool (its job ended); one still at work (a page stopped
      // before its slice finished, a cancel, a failure) is terminated.
      for (const s of slots) {
        s.port.postMessage({ type: 'end' });
        s.port.close();
        if (s.busy === 0 && !broken.has(s.worker) && !failure) this.pool.give(s.worker); else this.pool.discard(s.worker);
      }
    }
  }

  /**
   * Reports the record slice `p`'s thread is on when it has run for `stuckAfter` ms; true when it did. `elapsed`: ms
   * since the job's epoch, now.
   */
  private noteStuck(p: Pending, elapsed: number, budget: number, stuckAfter: number, job: AggregateJob, stuck: number[]): boolean {
    const current = Atomics.load(p.slot!.progress, 0);
    if (current < p.first || current >= p.first + p.count) return false;
    const ran = elapsed - Atomics.load(p.slot!.progress, 1);
    if (ran < stuckAfter) return false;
    stuck.push(current);
    skip(job.stats, current, new McpgwError('RESOURCE_LIMIT_EXCEEDED', `Record ${current} could not be evaluated: match()/search() ran for ${ran} ms on it without finishing and was stopped (a page may take requestTimeoutMs); the record was skipped.`, {
      limit: { name: 'requestTimeoutMs', limit: budget, value: ran }, location: { record_index: current },
    }));
    return true;
  }
}
