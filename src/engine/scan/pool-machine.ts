import { isErrorCode, type ErrorCode } from '../../kernel/errors';

/**
 * A scan of records `from..to` on worker threads as a state machine (docs/architecture.md "Scans"). The main thread
 * reads record-aligned batches and posts them to threads, threads evaluate them, results are consumed in file order,
 * and past the deadline a grace period keeps what finished and says exactly where to continue.
 *
 * `step(state, event, now)` does no I/O and reads no clock: it changes `state` and returns the actions to perform
 * (`ThreadPool.run` performs them on the real threads and the pool's clock). The same state, event and time always
 * give the same transition. At most one action that produces a result (`read`, `consume`, `oversized`, `probe`,
 * `wait`) is outstanding; its result comes back as the matching event (`batchRead` / `sourceExhausted`, `consumed`,
 * `oversizedDone`, `probed`, `tick`). Other events (`ready`, `batchDone`, failures, `abort`) may arrive at any time.
 *
 * Phases: `starting` → `dispatching` ⇄ `waiting` → `consuming` → (`dispatching` | `grace` | `done`), `grace` → `done`,
 * any → `failed` | `cancelled`.
 */

/** How long a scan past its deadline waits for the batch in progress before it stops, ms. */
export const GRACE_MS = 200;
/** A wait at the deadline ends this long after it, ms (a timer may fire a little before the clock passes it). */
export const DEADLINE_SLACK_MS = 2;
/** A grace wait on a batch that is not the first of the page re-checks this often, ms. */
const GRACE_POLL_MS = 50;

export type Phase = 'starting' | 'dispatching' | 'waiting' | 'consuming' | 'grace' | 'done' | 'failed' | 'cancelled';

export interface PoolConfig {
  /** Records `from..to` (to exclusive). */
  from: number;
  to: number;
  /** Worker threads (slots). */
  threads: number;
  /** Threads post each record's results at once and report the record in evaluation (regular-expression queries). */
  immediate: boolean;
  /** When the scan started, ms since the epoch on the pool's clock. */
  epoch: number;
  /** Absolute deadline, ms since the epoch; none: the scan runs to the end. */
  deadline?: number;
  /**
   * A walk's nested scan (the elements of a streamed array): when its page began (ms since the epoch; a record is
   * stuck after half the page's time, not half of what was left when this scan began), and whether the page had
   * advanced before it (then its first record in evaluation at the deadline is retried by the next page too).
   */
  page?: { start: number; advanced: boolean };
}

/** What the machine knows of a batch just read. */
export interface BatchInfo {
  first: number;
  count: number;
  /** A record over maxRecordBytes: no bytes for a thread; evaluated on the main thread, in order. */
  oversized: boolean;
  /** Whether the record is inside the query's record range (an oversized record outside it is passed over). */
  inRange: boolean;
}

/** A batch posted to a slot. */
export interface InFlight {
  seq: number;
  first: number;
  count: number;
  slot: number;
  done: boolean;
}

export interface Position {
  record: number;
  node: number;
}

/** What to do once a grace-period consume went through. */
type After = { finish: Position; complete: boolean } | { stuck: number; ran: number };

export interface PoolState {
  phase: Phase;
  readonly config: Readonly<PoolConfig>;
  /** Batches in flight at most (2 per thread). */
  readonly maxInFlight: number;
  /** How long one record may run on a thread before it is skipped, ms (half the page's time, at least GRACE_MS). */
  readonly stuckAfter: number;
  /** The page's time, ms (deadline − epoch). */
  readonly budget: number;
  /** Slots that said they are ready. */
  ready: number;
  /** Sequence number of the next batch posted. */
  seq: number;
  /** Sequence number of the next batch to consume. */
  next: number;
  batches: Map<number, InFlight>;
  /** Per slot, the batches posted to it and not done, oldest first. */
  queues: number[][];
  exhausted: boolean;
  /** An oversized record read, waiting until every batch before it is consumed. */
  barrier: BatchInfo | null;
  /** The first record not yet posted. */
  dispatched: number;
  /** When the grace period ends, ms since the epoch. */
  graceEnd: number | null;
  after: After | null;
  /** The outstanding action whose result event is awaited, or null. */
  awaiting: 'read' | 'consume' | 'oversized' | 'probe' | 'wait' | null;
}

export type PoolEvent =
  | { type: 'start' }
  | { type: 'ready' }
  | { type: 'fatal'; code: string; message: string; stack?: string }
  | { type: 'workerError'; message: string; stack?: string }
  | { type: 'abort' }
  | { type: 'batchRead'; batch: BatchInfo }
  | { type: 'sourceExhausted' }
  | { type: 'batchDone'; seq: number }
  | { type: 'consumed'; go: boolean }
  | { type: 'oversizedDone'; outcome: 'go' | 'answered' | 'full' }
  | { type: 'probed'; current: number; startedAt: number }
  | { type: 'tick' };

export type PoolAction =
  /** Read the next batch from the source (→ `batchRead` or `sourceExhausted`). */
  | { type: 'read' }
  /** Post the batch just read to `slot` as batch `seq`. */
  | { type: 'post'; seq: number; slot: number }
  /** Feed batch `seq`'s results (records before `upTo`) to the collector, then flush it when `flush` (→ `consumed`). */
  | { type: 'consume'; seq: number; upTo?: number; flush: boolean }
  /** Report `done` of `total` records. */
  | { type: 'progress'; done: number; total: number }
  /** Evaluate the held oversized record on this thread (→ `oversizedDone`). */
  | { type: 'oversized' }
  /** Read which record slot `slot` evaluates and since when, then deliver every message already sent (→ `probed`). */
  | { type: 'probe'; slot: number }
  /** Record `record` ran `ran` ms on a thread without finishing: take it as skipped (RESOURCE_LIMIT_EXCEEDED). */
  | { type: 'skipStuck'; record: number; ran: number; budget: number }
  /** Wait for an event, or until `until` (ms since the epoch) when given (→ `tick`). */
  | { type: 'wait'; until?: number }
  /** The answer: the collector's result from `position` (null: none), flushed before or after, or not at all. */
  | { type: 'finish'; position: Position | null; complete: boolean; flush: 'before' | 'after' | 'none' }
  /** The answer the oversized record's evaluation gave. */
  | { type: 'answer' }
  /** The scan fails with this catalogue error. */
  | { type: 'fail'; code: ErrorCode; message: string; stack?: string };

export function initialState(config: PoolConfig): PoolState {
  const budget = config.deadline !== undefined ? Math.max(0, config.deadline - (config.page?.start ?? config.epoch)) : 0;
  return {
    phase: 'starting',
    config,
    maxInFlight: config.threads * 2,
    stuckAfter: Math.max(GRACE_MS, Math.round(budget / 2)),
    budget,
    ready: 0,
    seq: 0,
    next: 0,
    batches: new Map(),
    queues: Array.from({ length: config.threads }, () => []),
    exhausted: false,
    barrier: null,
    dispatched: config.from,
    graceEnd: null,
    after: null,
    awaiting: null,
  };
}

const terminal = (s: PoolState) => s.phase === 'done' || s.phase === 'failed' || s.phase === 'cancelled';

/** Applies `event` at time `now` (ms since the epoch) and returns the actions to perform, in order. */
export function step(s: PoolState, event: PoolEvent, now: number): PoolAction[] {
  if (terminal(s)) return [];
  switch (event.type) {
    case 'fatal':
      s.phase = 'failed';
      return [{ type: 'fail', code: isErrorCode(event.code) ? event.code : 'INTERNAL_ERROR', message: event.message, ...(event.stack !== undefined ? { stack: event.stack } : {}) }];
    case 'workerError':
      s.phase = 'failed';
      return [{ type: 'fail', code: 'INTERNAL_ERROR', message: `A scan worker failed: ${event.message}`, ...(event.stack !== undefined ? { stack: event.stack } : {}) }];
    case 'abort':
      s.phase = 'cancelled';
      return [{ type: 'fail', code: 'CANCELLED', message: 'The request was cancelled.' }];
    case 'ready':
      s.ready++;
      return [];
    case 'batchDone': {
      const b = s.batches.get(event.seq);
      if (b && !b.done) {
        b.done = true;
        s.queues[b.slot]!.shift();
      }
      return [];
    }
    case 'start':
      return decide(s, now);
    case 'tick':
      return resumed(s, 'wait') ? decide(s, now) : [];
    case 'sourceExhausted':
      if (!resumed(s, 'read')) return [];
      s.exhausted = true;
      return decide(s, now);
    case 'batchRead': {
      if (!resumed(s, 'read')) return [];
      const b = event.batch;
      if (b.oversized) {
        s.barrier = b;
        return decide(s, now);
      }
      let slot = 0;
      for (let i = 1; i < s.queues.length; i++) if (s.queues[i]!.length < s.queues[slot]!.length) slot = i;
      const seq = s.seq++;
      s.batches.set(seq, { seq, first: b.first, count: b.count, slot, done: false });
      s.queues[slot]!.push(seq);
      s.dispatched = b.first + b.count;
      return [{ type: 'post', seq, slot }, ...decide(s, now)];
    }
    case 'oversizedDone': {
      if (!resumed(s, 'oversized')) return [];
      if (event.outcome === 'answered') return done(s, { type: 'answer' });
      if (event.outcome === 'full') return done(s, { type: 'finish', position: null, complete: true, flush: 'before' });
      return decide(s, now);
    }
    case 'consumed': {
      if (!resumed(s, 'consume')) return [];
      const after = s.after;
      s.after = null;
      const grace = s.phase === 'grace';
      if (!event.go) return done(s, { type: 'finish', position: null, complete: true, flush: grace ? 'after' : 'none' });
      if (after && 'stuck' in after) {
        s.phase = 'done';
        return [
          { type: 'skipStuck', record: after.stuck, ran: after.ran, budget: s.budget },
          { type: 'finish', position: { record: after.stuck + 1, node: 0 }, complete: false, flush: 'after' },
        ];
      }
      if (after) return done(s, { type: 'finish', position: after.finish, complete: after.complete, flush: 'after' });
      const p = s.batches.get(s.next)!;
      s.batches.delete(s.next);
      s.next++;
      const total = s.config.to - s.config.from;
      return [{ type: 'progress', done: Math.min(p.first + p.count - s.config.from, total), total }, ...decide(s, now)];
    }
    case 'probed':
      if (!resumed(s, 'probe')) return [];
      return graceProbed(s, event.current, event.startedAt, now);
  }
}

/** The awaited action's result arrived: true when it was the one awaited. */
function resumed(s: PoolState, action: NonNullable<PoolState['awaiting']>): boolean {
  if (s.awaiting !== action) return false;
  s.awaiting = null;
  return true;
}

function done(s: PoolState, action: PoolAction): PoolAction[] {
  s.phase = 'done';
  return [action];
}

function awaitAction(s: PoolState, action: PoolAction & { type: NonNullable<PoolState['awaiting']> }): PoolAction[] {
  s.awaiting = action.type;
  return [action];
}

/** The main loop: dispatch while there is room, then consume the next batch in order, or wait for it. */
function decide(s: PoolState, now: number): PoolAction[] {
  const { deadline } = s.config;
  const expired = deadline !== undefined && now > deadline;
  const waitUntilDeadline = (): PoolAction => ({ type: 'wait', ...(deadline !== undefined ? { until: deadline + DEADLINE_SLACK_MS } : {}) });
  if (s.phase === 'starting') {
    if (s.ready < s.config.threads && !expired) return awaitAction(s, waitUntilDeadline() as PoolAction & { type: 'wait' });
    s.phase = 'dispatching';
  }
  if (s.phase === 'grace') return graceProbe(s);
  for (;;) {
    if (s.exhausted && s.next >= s.seq && !s.barrier) return done(s, { type: 'finish', position: null, complete: true, flush: 'none' });
    if (s.barrier && s.next >= s.seq) {
      const b = s.barrier;
      s.barrier = null;
      if (expired) return done(s, { type: 'finish', position: { record: b.first, node: 0 }, complete: false, flush: 'none' });
      s.dispatched = b.first + 1;
      if (b.inRange) {
        s.phase = 'consuming';
        return awaitAction(s, { type: 'oversized' });
      }
      continue;
    }
    // The first batch goes out in any case: a page finishes a record.
    if (!s.exhausted && !s.barrier && s.seq - s.next < s.maxInFlight && !(expired && s.seq > 0)) {
      s.phase = 'dispatching';
      return awaitAction(s, { type: 'read' });
    }
    if (s.next >= s.seq) {
      if (expired && !s.exhausted && !s.barrier) return done(s, { type: 'finish', position: { record: s.dispatched, node: 0 }, complete: false, flush: 'none' });
      continue;
    }
    const p = s.batches.get(s.next)!;
    if (p.done) {
      s.phase = 'consuming';
      return awaitAction(s, { type: 'consume', seq: p.seq, flush: true });
    }
    if (expired) {
      s.phase = 'grace';
      s.graceEnd = now + GRACE_MS;
      return graceProbe(s);
    }
    s.phase = 'waiting';
    return awaitAction(s, waitUntilDeadline() as PoolAction & { type: 'wait' });
  }
}

/** Grace: look at the next batch in order (after delivering what threads already sent). */
function graceProbe(s: PoolState): PoolAction[] {
  const p = s.batches.get(s.next);
  if (!p) return done(s, { type: 'finish', position: { record: s.dispatched, node: 0 }, complete: false, flush: 'after' });
  return awaitAction(s, { type: 'probe', slot: p.slot });
}

/**
 * The deadline passed: keep what finished in order, then report exactly where to continue. A record still in
 * evaluation is not lost: the next page starts with it. Two rules keep a walk of pages finite: a page finishes at
 * least one record before it stops (evaluation without regular expressions always ends), and a record whose
 * evaluation alone has run for `stuckAfter` ms is skipped as RESOURCE_LIMIT_EXCEEDED (the next page would give it no
 * more time than this one did). `current` / `startedAt`: the record the batch's slot evaluates and when it started
 * (ms after the epoch), read before the slot's messages were delivered, so every record before `current` has its
 * results delivered.
 */
function graceProbed(s: PoolState, current: number, startedAt: number, now: number): PoolAction[] {
  const p = s.batches.get(s.next)!;
  const { from, to, epoch, immediate } = s.config;
  const graceEnd = s.graceEnd!;
  if (p.done) {
    s.after = { finish: { record: p.first + p.count, node: 0 }, complete: p.first + p.count >= to };
    return awaitAction(s, { type: 'consume', seq: p.seq, flush: false });
  }
  // Batches before p were consumed: this page has finished records (or, for a walk's nested scan, had advanced before).
  const progressed = p.first > from || s.config.page?.advanced === true;
  if (immediate && s.queues[p.slot]![0] === p.seq && current >= p.first && current < p.first + p.count) {
    const ran = now - epoch - startedAt;
    if (ran >= s.stuckAfter) {
      s.after = { stuck: current, ran };
      return awaitAction(s, { type: 'consume', seq: p.seq, upTo: current, flush: false });
    }
    if (now >= graceEnd && (progressed || current > from)) {
      // Retried by the next page, from this very record.
      s.after = { finish: { record: current, node: 0 }, complete: false };
      return awaitAction(s, { type: 'consume', seq: p.seq, upTo: current, flush: false });
    }
    const ms = Math.min(s.stuckAfter - ran, now < graceEnd ? graceEnd - now : Number.POSITIVE_INFINITY);
    return awaitAction(s, { type: 'wait', until: now + Math.max(1, ms) });
  }
  if (now >= graceEnd && progressed) return done(s, { type: 'finish', position: { record: p.first, node: 0 }, complete: false, flush: 'after' });
  return awaitAction(s, { type: 'wait', until: now + Math.max(1, now < graceEnd ? graceEnd - now : GRACE_POLL_MS) });
}
