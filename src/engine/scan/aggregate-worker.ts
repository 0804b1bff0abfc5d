/**
 * The engine's aggregates on a worker thread. A thread lives in the engine's pool (engine-threads.ts) and runs one
 * job at a time: an aggregate job comes on the thread's parent port as `{ type: 'job', kind: 'aggregate', init }`
 * (thread-host.ts) with a port of its own (`init.port`). For a job it compiles `where` again from its text (the language's plugin module, as worker.ts
 * does), instantiates the record check the engine compiled (`init.check`, a WebAssembly.Module: check-simd.ts), then
 * aggregates the slices of record bytes it is sent. With `hold` (no regular expression in `where`) every slice goes
 * into one table the thread keeps, posted when it grows past FLUSH_BYTES and when the engine asks (a flush comes after
 * the slices sent before it, so it covers them all); otherwise each slice's table is posted with its `done`, for the
 * engine to merge in file order. Protocol (on the job's port):
 *   in  { type: 'batch', seq, first, count, sab: SharedArrayBuffer, offset, length, spans: Float64Array, extents, checked: Uint8Array | null, faults: Uint8Array | null }
 *       (the slice's bytes: `length` bytes at `offset` in sab, which is reused once the slice is done; spans: of
 *       records first…, relative to `offset`, on a SharedArrayBuffer reused likewise: its first 2 × count entries are
 *       this slice's spans, or with `extents` its first count + 1 entries their extents' boundaries, trimmed here of
 *       `init.padding`; checked: their marks, checked.ts)
 *   in  { type: 'flush', part?, parts? }  (with `keep`: the groups of hash part `part` of `parts`, which leave a table of
 *       objects; a compact one's are copied out and transferred)
 *   in  { type: 'end' }  (the job is over: the thread drops its state and closes the port; it may get another job)
 *   out { type: 'done', seq, stats, table?, held?, checked? } | { type: 'table', table, final } | { type: 'over', bytes } | { type: 'ready' } | { type: 'fatal', code, message, stack? } | { type: 'log', level, message, fields? }
 * With `init.peers` (a port to each other thread of the job), the threads split the keys of their compact tables:
 *   peer { type: 'keys', o } (an outbox of keys of this thread's part: counted, then sent back as { type: 'back', o })
 *   peer { type: 'fin' }     (the sender's last outbox came before it; a flush waits for every other thread's)
 * `init.progress` (Int32Array on a SharedArrayBuffer): the record being evaluated in [0] and when its
 * evaluation started in [1] (ms since `epoch`), so the engine can name a record a regular expression is stuck on.
 */
import { isUtf8 } from 'node:buffer';
import { receiveMessageOnPort, type MessagePort } from 'node:worker_threads';
import type { AggregateSpecData } from '../aggregate/spec';
import { compileSpec, newTable, takePart, type TableData } from '../aggregate/table';
import { CompactTable, compactable, outboxTransfer, type OutboxData } from '../aggregate/compact';
import { slotPlan } from '../aggregate/extract';
import { SimdRecordCheck } from '../aggregate/check-simd';
import { aggregateBatch, batchContext, exactParser, newStats, type WhereTest } from './aggregate-batch';
import type { WorkerPlugin } from '../../kernel/contracts/engine';
import { spansView, trimmedSpans } from './plan';
import { threadNow } from './thread-clock';

export interface AggregateWorkerInit {
  port: MessagePort;
  progress: Int32Array;
  /** ms since the epoch (on the job's clock) from which record start times in progress[1] count. */
  epoch: number;
  /**
   * On a clock other than the system clock: that clock's time, ms since `epoch`, as the main thread last read it
   * (Int32Array on a SharedArrayBuffer). Absent: Date.now().
   */
  time?: Int32Array;
  spec: AggregateSpecData;
  maxDepth: number;
  /** Records never evaluated (reported by an earlier page). */
  skip: number[];
  where: { plugin: WorkerPlugin; language: string; text: string; as: 'filter' | 'select' } | null;
  /** The source's padding bytes (IndexedRecordSource.padding), for slices sent with their records' extents. */
  padding: Uint8Array | null;
  /** Keep one table across slices (posted on flush); false: a table per slice, with its `done`. */
  hold: boolean;
  /**
   * With `hold`: keep the whole table on this thread (never posted before a flush) while it holds at most this many
   * (estimated) bytes, and post `{ type: 'over' }` once past it; a flush then asks for one hash part of the groups
   * (`part` of `parts`), which leave the table, or for the whole table. Each `done` says the table's bytes (`held`).
   * Null: the table is posted past FLUSH_BYTES and whole on a flush.
   */
  keep: number | null;
  /**
   * With `keep`: a port to each other thread of the job (null at this thread's place, `me`), over which the threads
   * split the keys of a compact table (compact.ts splitKeys); null: no split.
   */
  peers: (MessagePort | null)[] | null;
  me: number;
  /**
   * The plan's record check compiled by the engine (SimdRecordCheck.module), instantiated here; null: none (no
   * WebAssembly SIMD, or a plan it does not serve).
   */
  check: unknown;
}

/** A held table past this many (estimated) bytes is posted and a new one started. */
export const FLUSH_BYTES = 8 * 1024 * 1024;

type JobMessage = { type: 'batch' | 'flush' | 'end'; part?: number; parts?: number; seq: number; first: number; count: number; sab: SharedArrayBuffer; offset: number; length: number; extents: boolean; spans: Float64Array; checked: Uint8Array | null; faults: Uint8Array | null };

/** Runs one aggregate job on this thread (thread-host.ts hands it over). */
export async function runAggregateJob(init: AggregateWorkerInit): Promise<void> {
  const port = init.port;
  let where: WhereTest | null = null;
  try {
    if (init.where) {
      // Loaded only for a `where` (the plugin loader and its container are most of a thread's start-up).
      const { languageOnThread } = require('./host-loader') as typeof import('./host-loader');
      const language = await languageOnThread(init.where.plugin, init.where.language, port);
      const query = language.compile(init.where.text, { maxDepth: init.maxDepth });
      const split = query.split;
      where = init.where.as === 'select' ? { as: 'select', query } : {
        as: 'filter', query,
        ...(split?.test ? { test: split.test.bind(split) } : {}),
        ...(split?.test && split.testReads ? { testReads: split.testReads } : {}),
      };
    }
  } catch (err) {
    port.postMessage((require('./host-loader') as typeof import('./host-loader')).fatalMessage(err));
    return;
  }
  const compiled = compileSpec(init.spec);
  const site = (i: number) => ({ byteOffset: 0, line: 1, column: 1, recordIndex: i, maxDepth: init.maxDepth });
  const simd = SimdRecordCheck.create(slotPlan(init.spec.slots, init.maxDepth), (init.check ?? null) as Parameters<typeof SimdRecordCheck.create>[1]);
  const ctx = batchContext(compiled, where, init.maxDepth, new Set(init.skip), site, simd);
  const parse = exactParser(init.maxDepth);
  /** ms since the job's epoch, on the job's clock. */
  const now = threadNow(init.epoch, init.time);
  // Where a regular expression may run, the record in evaluation is published (the engine names a stuck one).
  const onRecord = init.hold ? undefined : (i: number) => {
    // The time first: a reader that sees record i then reads its start time or a later one.
    Atomics.store(init.progress, 1, now());
    Atomics.store(init.progress, 0, i);
  };
  // With `keep` the thread's whole table is compact (compact.ts) where the spec allows: a group costs ~50 bytes, not ~470.
  const compact = init.keep !== null && compactable(compiled);
  let held: TableData | CompactTable = compact ? new CompactTable(compiled) : newTable();
  /**
   * Split keys: a key of another thread's part goes to it in an outbox (sent back once counted); a flush waits until
   * every other thread has sent its last outbox and said so (`fin`), so that the table holds every unit of its keys.
   */
  const peers = compact && init.peers ? init.peers : null;
  const peerCount = peers ? peers.filter((p) => p !== null).length : 0;
  let finSent = false, fins = 0;
  const waiting: JobMessage[] = [];
  type PeerMessage = { type: 'keys' | 'back' | 'fin'; o?: OutboxData };
  const onPeer = (p: MessagePort, m: PeerMessage) => {
    if (m.type === 'keys') {
      (held as CompactTable).receive(m.o!);
      p.postMessage({ type: 'back', o: m.o }, outboxTransfer(m.o!));
    } else if (m.type === 'back') (held as CompactTable).recycle(m.o!);
    else if (++fins === peerCount) for (const w of waiting.splice(0)) onJob(w);
  };
  /** Takes what the other threads sent, now (before each slice: a port's messages otherwise wait for the slices queued before them). */
  const drainPeers = () => {
    for (const p of peers ?? []) {
      if (!p) continue;
      for (let r = receiveMessageOnPort(p); r !== undefined; r = receiveMessageOnPort(p)) onPeer(p, r.message as PeerMessage);
    }
  };
  if (peers) {
    (held as CompactTable).splitKeys(peers.length, init.me, (owner, o) => peers[owner]!.postMessage({ type: 'keys', o }, outboxTransfer(o)));
    for (const p of peers) {
      p?.on('message', (m: PeerMessage) => {
        try {
          onPeer(p, m);
        } catch (err) {
          port.postMessage((require('./host-loader') as typeof import('./host-loader')).fatalMessage(err));
        }
      });
    }
  }
  /** `keep`: the table passed it (said once). */
  let over = false;
  /** Spans trimmed here from a slice's extents (reused). */
  let trimmed: Float64Array = new Float64Array(8192);
  const asciiPadding = !!init.padding && init.padding.every((v, b) => v === 0 || b < 0x80);
  const onJob = (m: JobMessage) => {
    try {
      if (m.type === 'end') {
        port.close();
        for (const p of peers ?? []) p?.close();
        return;
      }
      if (m.type === 'flush' && peers) {
        if (!finSent) {
          finSent = true;
          (held as CompactTable).sendAll();
          for (const p of peers) p?.postMessage({ type: 'fin' });
        }
        if (fins < peerCount) { waiting.push(m); return; }
      }
      if (m.type === 'flush') {
        if (m.parts !== undefined) {
          if (held instanceof CompactTable) {
            const data = held.take(m.part!, m.parts);
            port.postMessage({ type: 'table', table: data, final: true }, CompactTable.transfer(data));
          } else port.postMessage({ type: 'table', table: takePart(held, m.part!, m.parts), final: true });
          return;
        }
        port.postMessage({ type: 'table', table: held instanceof CompactTable ? held.toTable() : held, final: true });
        held = compact ? new CompactTable(compiled) : newTable();
        return;
      }
      if (peers) drainPeers();
      const bytes = Buffer.from(m.sab, m.offset, m.length);
      // With extents, the slice is its records and the padding between them (ASCII): it is valid UTF-8 when its records
      // are. Checked first, in one pass over the slice, which also brings the bytes close for the trimming after
      // (record by record from memory, the trimming alone took about as long as the rest).
      const utf8 = m.extents && asciiPadding ? isUtf8(bytes) : undefined;
      const spans: Float64Array = m.extents ? (trimmed = trimmedSpans(m.spans, m.count, bytes, init.padding!, trimmed)) : m.spans;
      const view = spansView(m.first, m.count, bytes, spans, m.faults);
      const table = init.hold ? held : newTable();
      const stats = newStats();
      const checked = m.checked ? { marks: m.checked, first: m.first } : null;
      aggregateBatch(view, 0, m.count, ctx, table, stats, parse, onRecord, spans, checked, utf8);
      // The slice's marks go back with its `done` (those it set included).
      const back = m.checked ? { checked: m.checked } : {};
      const moved = m.checked ? [m.checked.buffer as ArrayBuffer] : [];
      if (!init.hold) { port.postMessage({ type: 'done', seq: m.seq, table, stats, ...back }, moved); return; }
      if (init.keep !== null) {
        // The bound is on what the table holds (a compact one's arrays); `held` is the estimate the engine's choices use.
        if (!over && held.bytes > init.keep) { over = true; port.postMessage({ type: 'over', bytes: held.bytes }); }
      } else if (held.bytes > FLUSH_BYTES) {
        port.postMessage({ type: 'table', table: held, final: false });
        held = newTable();
      }
      port.postMessage({ type: 'done', seq: m.seq, stats, ...(init.keep !== null ? { held: held instanceof CompactTable ? held.estimate : held.bytes, owned: held instanceof CompactTable ? held.owned : 0 } : {}), ...back }, moved);
    } catch (err) {
      port.postMessage((require('./host-loader') as typeof import('./host-loader')).fatalMessage(err));
    }
  };
  port.on('message', onJob);
  port.postMessage({ type: 'ready' });
}

