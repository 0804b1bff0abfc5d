/**
 * The scan engine on a worker thread: a scan job comes to one of the engine's threads (thread-host.ts,
 * engine-threads.ts) as `{ type: 'job', kind: 'scan', init }`. It loads the query language's plugin again (the kernel's kernel/plugins/worker-language.ts, through host-loader.ts: the kernel's
 * loader, the plugin's options as configured), takes the language by name, compiles the same query text, and evaluates batches
 * of record bytes sent by the engine. Protocol (all messages on `init.port`):
 *   in  { type: 'batch', seq, first, count, bytes: Uint8Array, spans: Float64Array, faults: Uint8Array | null, utf8Ok, wantValues, countOnly }
 *   out { type: 'nodes', seq, record, nodes: [{ path, text }] }      (per record with nodes, before `progress` moves past it)
 *   out { type: 'skip', seq, record, code, message }
 *   out { type: 'many', seq, messages: [nodes | skip …] }                 (a batch's messages at once, non-regex queries)
 *   out { type: 'count', seq, units, skips?, record? }   (units past `cap`, or every unit of a countOnly batch; skips:
 *                                        malformed records past the first few of the batch, counted only, in file order
 *                                        before the next message; `record`: the one record whose units or skip these
 *                                        are, posted at once in `immediate` mode)
 * `cap` (-1: none) is how many units the batch may send as nodes: past it, units are only counted (countAll) or the
 * batch stops (the page is full), so one batch never holds more than the page needs.
 *   out { type: 'done', seq }
 *   out { type: 'ready' } | { type: 'fatal', code, message, stack? } | { type: 'log', level, message, fields? } (the plugin's log)
 * `init.progress` (Int32Array on a SharedArrayBuffer) holds the record being evaluated in [0] and when its
 * evaluation started in [1] (ms since `epoch`), so at the deadline the engine can tell a record still in evaluation
 * (retried by the next page) from one a regular expression is stuck on (skipped), and name it.
 */
import 'reflect-metadata';
import type { MessagePort } from 'node:worker_threads';
import type { CompiledQuery } from '../../kernel/contracts/query';
import { McpgwError } from '../../kernel/errors';
import type { WorkerPlugin } from '../../kernel/contracts/engine';
import { fatalMessage, languageOnThread } from './host-loader';
import { candidates, evaluateRecord, inRange, NODE_TEXT, spansView, type Plan } from './plan';
import { threadNow } from './thread-clock';

export interface WorkerInit {
  port: MessagePort;
  progress: Int32Array;
  /** The plugin that registers `language`, loaded here as configured (host-loader.ts). */
  plugin: WorkerPlugin;
  language: string;
  text: string;
  maxDepth: number;
  /** Post each record's nodes at once (regex queries, so a terminated thread loses nothing); else once per batch. */
  immediate: boolean;
  /** ms since the epoch from which record start times in progress[1] count. */
  epoch: number;
  /**
   * The time source when the pool runs on a clock other than the system clock (a test's fake clock): the pool clock's
   * time, ms since `epoch`, as the main thread last read it (Int32Array on a SharedArrayBuffer). Absent: Date.now().
   */
  time?: Int32Array;
  /** Plan without functions and buffers: rebuilt here from the compiled query. */
  plan: Omit<Plan, 'query' | 'test' | 'testReads' | 'literals'> & { literals: string[] | null };
}

/** Malformed records of a batch sent with their message (the engine reports the first few); the rest are counted. */
const SKIPS_SENT = 8;

function planFor(init: WorkerInit, query: CompiledQuery): Plan {
  const base: Plan = { ...init.plan, literals: init.plan.literals ? init.plan.literals.map((l) => Buffer.from(l)) : null, query };
  if (base.kind !== 'split') return base;
  const split = query.split!;
  return { ...base, query: split.inner, ...(split.test ? { test: split.test.bind(split) } : {}), ...(split.testReads ? { testReads: split.testReads } : {}) };
}

/** Runs one scan job on this thread until `{ type: 'end' }` on its port (then the thread may get another job). */
export async function runScanJob(init: WorkerInit): Promise<void> {
  const port = init.port;
  let plan: Plan;
  try {
    const language = await languageOnThread(init.plugin, init.language, port);
    plan = planFor(init, language.compile(init.text, { maxDepth: init.maxDepth }));
  } catch (err) {
    port.postMessage(fatalMessage(err));
    return;
  }
  const site = (i: number) => ({ byteOffset: 0, line: 1, column: 1, recordIndex: i, maxDepth: plan.maxDepth });
  /** ms since the scan's epoch, on the pool's clock. */
  const now = threadNow(init.epoch, init.time);
  port.on('message', (m: { type: 'batch' | 'end'; wantValues: boolean; countOnly: boolean; countAll: boolean; cap: number; seq: number; first: number; count: number; bytes: Uint8Array; spans: Float64Array; faults: Uint8Array | null; utf8Ok: boolean }) => {
    if (m.type === 'end') { port.close(); return; }
    const bytes = Buffer.from(m.bytes.buffer, m.bytes.byteOffset, m.bytes.byteLength);
    const view = spansView(m.first, m.count, bytes, m.spans, m.faults);
    try {
      const held: unknown[] = [];
      let units = 0;
      let skips = 0;
      let skipsSent = 0;
      let room = m.countOnly ? 0 : m.cap < 0 ? Number.POSITIVE_INFINITY : m.cap;
      /** Records the filter ruled out on the members it read (not parsed), sent with the next message, in file order. */
      let ruledOut: number[] = [];
      const send = (msg: Record<string, unknown>) => {
        if (ruledOut.length) {
          msg.ruledOut = ruledOut;
          ruledOut = [];
        }
        if (init.immediate) port.postMessage(msg);
        else held.push(msg);
      };
      const list = candidates(view, plan, 0, m.count);
      // The records the prefilter let through, first: the engine counts the others as ruled out, in file order.
      if (list) send({ type: 'candidates', seq: m.seq, first: m.first, count: m.count, list });
      const n = list ? list.length : m.count;
      for (let j = 0; j < n; j++) {
        const k = list ? list[j]! : j;
        const i = m.first + k;
        if (!inRange(plan, i)) continue;
        if (room <= 0 && !m.countAll) break; // the page is full and nothing is counted: the engine stops here
        // The time first: a reader that sees record i then reads its start time or a later one (never an earlier one).
        Atomics.store(init.progress, 1, now());
        Atomics.store(init.progress, 0, i);
        const out = evaluateRecord(view, k, plan, m.utf8Ok, site, m.wantValues && room > 0);
        if (!out) continue;
        if (out.unparsed) {
          ruledOut.push(i);
          continue;
        }
        if (out.error && skipsSent >= SKIPS_SENT) {
          // Posted at once (regex queries) with its record, so a deadline that stops inside this batch counts it only
          // when the page reaches it; else counted with the next message (file order keeps it before later nodes).
          if (init.immediate) send({ type: 'count', seq: m.seq, units: 0, skips: 1, record: i });
          else skips++;
          continue;
        }
        if (!out.error && room <= 0) {
          // Posted at once (regex queries): a count the deadline stops inside this batch keeps the records before it.
          if (init.immediate) send({ type: 'count', seq: m.seq, units: out.nodes!.length, record: i });
          else units += out.nodes!.length;
          continue;
        }
        if (!out.error && out.nodes!.length > room) {
          units += out.nodes!.length - room;
          out.nodes = out.nodes!.slice(0, room);
        }
        if (out.lazy && m.wantValues && !out.error) {
          // Validate the selected record here (the main thread then prints its text without parsing it).
          try {
            for (const x of out.nodes!) void x.value;
            out.lazy = false;
          } catch (err) {
            if (!(err instanceof McpgwError)) throw err;
            out.error = err;
          }
        }
        if (skips) { send({ type: 'count', seq: m.seq, units: 0, skips }); skips = 0; } // in file order
        if (out.error) {
          skipsSent++;
          send({ type: 'skip', seq: m.seq, record: i, code: out.error.code, message: out.error.message });
        } else {
          room -= out.nodes!.length;
          send({ type: 'nodes', seq: m.seq, record: i, ...(out.lazy ? { lazy: true } : {}), nodes: out.nodes!.map((x) => ({ path: x.path, text: (x as { [NODE_TEXT]?: string })[NODE_TEXT] ?? JSON.stringify(x.value) })) });
        }
      }
      if (units || skips || ruledOut.length) send({ type: 'count', seq: m.seq, units, ...(skips ? { skips } : {}) });
      if (held.length) port.postMessage({ type: 'many', seq: m.seq, messages: held });
      port.postMessage({ type: 'done', seq: m.seq });
    } catch (err) {
      port.postMessage(fatalMessage(err));
    }
  });
  port.postMessage({ type: 'ready' });
}
