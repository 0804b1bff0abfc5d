import { DEADLINE_SLACK_MS, GRACE_MS, initialState, step, type BatchInfo, type PoolAction, type PoolConfig, type PoolState } from '../../src/engine/scan/pool-machine';

/**
 * The worker pool's state machine, one test per transition, on fake slots (slot numbers) and times given by hand:
 * no threads, no sleeps. The real-thread behaviour is tested in scan-workers.test.ts and scan-deadline.test.ts.
 */
const T0 = 1_000_000;
const batch = (first: number, count: number, extra: Partial<BatchInfo> = {}): BatchInfo => ({ first, count, oversized: false, inRange: true, ...extra });

function machine(config: Partial<PoolConfig> = {}): PoolState {
  return initialState({ from: 0, to: 100, threads: 2, immediate: false, epoch: T0, deadline: T0 + 1000, ...config });
}

/** A machine past start-up: every slot ready, the first read asked for. */
function running(config: Partial<PoolConfig> = {}): PoolState {
  const s = machine(config);
  step(s, { type: 'start' }, T0);
  for (let i = 0; i < s.config.threads; i++) step(s, { type: 'ready' }, T0);
  expect(step(s, { type: 'tick' }, T0)).toEqual([{ type: 'read' }]);
  return s;
}

/** Reads `batches` in order (each answered by `batchRead`), collecting the actions. */
function readAll(s: PoolState, batches: BatchInfo[], now = T0): PoolAction[] {
  return batches.flatMap((b) => step(s, { type: 'batchRead', batch: b }, now));
}

describe('starting', () => {
  test('start: waits for the slots until just past the deadline', () => {
    const s = machine();
    expect(step(s, { type: 'start' }, T0)).toEqual([{ type: 'wait', until: T0 + 1000 + DEADLINE_SLACK_MS }]);
    expect(s.phase).toBe('starting');
  });

  test('without a deadline the wait has no end time', () => {
    const s = machine({ deadline: undefined });
    expect(step(s, { type: 'start' }, T0)).toEqual([{ type: 'wait' }]);
  });

  test('starting → dispatching once every slot is ready: the first read', () => {
    const s = machine();
    step(s, { type: 'start' }, T0);
    expect(step(s, { type: 'ready' }, T0)).toEqual([]);
    expect(step(s, { type: 'tick' }, T0 + 1)).toEqual([{ type: 'wait', until: T0 + 1002 }]);
    step(s, { type: 'ready' }, T0 + 2);
    expect(step(s, { type: 'tick' }, T0 + 2)).toEqual([{ type: 'read' }]);
    expect(s.phase).toBe('dispatching');
  });

  test('starting → dispatching at the deadline even if a slot is not ready (a page finishes a record)', () => {
    const s = machine();
    step(s, { type: 'start' }, T0);
    expect(step(s, { type: 'tick' }, T0 + 1002)).toEqual([{ type: 'read' }]);
  });

  test('starting → failed: a slot that cannot load the query language fails the scan with its code', () => {
    const s = machine();
    step(s, { type: 'start' }, T0);
    expect(step(s, { type: 'fatal', code: 'QUERY_SYNTAX_ERROR', message: 'bad' }, T0)).toEqual([{ type: 'fail', code: 'QUERY_SYNTAX_ERROR', message: 'bad' }]);
    expect(s.phase).toBe('failed');
    expect(step(s, { type: 'tick' }, T0)).toEqual([]);
  });

  test('a fatal message with a code outside the catalogue is INTERNAL_ERROR', () => {
    const s = machine();
    step(s, { type: 'start' }, T0);
    expect(step(s, { type: 'fatal', code: 'ERR_WHATEVER', message: 'x' }, T0)).toEqual([{ type: 'fail', code: 'INTERNAL_ERROR', message: 'x' }]);
  });
});

describe('dispatching', () => {
  test('each batch goes to the least loaded slot, until two batches per slot are in flight', () => {
    const s = running();
    const actions = readAll(s, [batch(0, 10), batch(10, 10), batch(20, 10), batch(30, 10)]);
    expect(actions).toEqual([
      { type: 'post', seq: 0, slot: 0 }, { type: 'read' },
      { type: 'post', seq: 1, slot: 1 }, { type: 'read' },
      { type: 'post', seq: 2, slot: 0 }, { type: 'read' },
      { type: 'post', seq: 3, slot: 1 }, { type: 'wait', until: T0 + 1002 },
    ]);
    expect(s.phase).toBe('waiting');
    expect(s.queues).toEqual([[0, 2], [1, 3]]);
    expect(s.dispatched).toBe(40);
  });

  test('sourceExhausted: no more reads; the batches in flight are waited for', () => {
    const s = running();
    readAll(s, [batch(0, 10)]);
    expect(step(s, { type: 'sourceExhausted' }, T0)).toEqual([{ type: 'wait', until: T0 + 1002 }]);
    expect(s.exhausted).toBe(true);
  });

  test('an empty source finishes complete at once', () => {
    const s = running();
    expect(step(s, { type: 'sourceExhausted' }, T0)).toEqual([{ type: 'finish', position: null, complete: true, flush: 'none' }]);
    expect(s.phase).toBe('done');
  });

  test('past the deadline no further batch is read; with none in flight the page ends where dispatch stopped', () => {
    const s = running();
    readAll(s, [batch(0, 10), batch(10, 10), batch(20, 10), batch(30, 10)]);
    for (let seq = 0; seq < 4; seq++) step(s, { type: 'batchDone', seq }, T0);
    expect(step(s, { type: 'tick' }, T0)).toEqual([{ type: 'consume', seq: 0, flush: true }]);
    const late = T0 + 1001;
    expect(step(s, { type: 'consumed', go: true }, late)).toEqual([{ type: 'progress', done: 10, total: 100 }, { type: 'consume', seq: 1, flush: true }]);
    step(s, { type: 'consumed', go: true }, late);
    step(s, { type: 'consumed', go: true }, late);
    expect(step(s, { type: 'consumed', go: true }, late)).toEqual([
      { type: 'progress', done: 40, total: 100 },
      { type: 'finish', position: { record: 40, node: 0 }, complete: false, flush: 'none' },
    ]);
  });
});

describe('waiting → consuming', () => {
  test('batchDone on the next batch in order: consumed (and flushed) after the wait ends', () => {
    const s = running();
    readAll(s, [batch(0, 10), batch(10, 10), batch(20, 10), batch(30, 10)]);
    expect(step(s, { type: 'batchDone', seq: 0 }, T0)).toEqual([]);
    expect(s.queues[0]).toEqual([2]);
    expect(step(s, { type: 'tick' }, T0)).toEqual([{ type: 'consume', seq: 0, flush: true }]);
    expect(s.phase).toBe('consuming');
  });

  test('a later batch done first is not consumed before the one before it (file order)', () => {
    const s = running();
    readAll(s, [batch(0, 10), batch(10, 10), batch(20, 10), batch(30, 10)]);
    step(s, { type: 'batchDone', seq: 1 }, T0);
    expect(step(s, { type: 'tick' }, T0)).toEqual([{ type: 'wait', until: T0 + 1002 }]);
  });

  test('consumed: progress, then the next batch is read while there is room', () => {
    const s = running();
    readAll(s, [batch(0, 10), batch(10, 10), batch(20, 10), batch(30, 10)]);
    step(s, { type: 'batchDone', seq: 0 }, T0);
    step(s, { type: 'tick' }, T0);
    expect(step(s, { type: 'consumed', go: true }, T0)).toEqual([{ type: 'progress', done: 10, total: 100 }, { type: 'read' }]);
    expect(s.next).toBe(1);
    expect(s.batches.has(0)).toBe(false);
  });

  test('consumed with go false (the page is full): finish complete, nothing more read', () => {
    const s = running();
    readAll(s, [batch(0, 10)]);
    step(s, { type: 'batchDone', seq: 0 }, T0);
    expect(step(s, { type: 'batchRead', batch: batch(10, 10) }, T0)).toEqual([{ type: 'post', seq: 1, slot: 0 }, { type: 'read' }]); // slot 0 is free again
    expect(step(s, { type: 'sourceExhausted' }, T0)).toEqual([{ type: 'consume', seq: 0, flush: true }]);
    expect(step(s, { type: 'consumed', go: false }, T0)).toEqual([{ type: 'finish', position: null, complete: true, flush: 'none' }]);
    expect(s.phase).toBe('done');
  });

  test('consumed → done: every batch consumed and the source exhausted finishes complete', () => {
    const s = running();
    readAll(s, [batch(0, 10)]);
    step(s, { type: 'sourceExhausted' }, T0);
    step(s, { type: 'batchDone', seq: 0 }, T0);
    expect(step(s, { type: 'tick' }, T0)).toEqual([{ type: 'consume', seq: 0, flush: true }]);
    expect(step(s, { type: 'consumed', go: true }, T0)).toEqual([
      { type: 'progress', done: 10, total: 100 },
      { type: 'finish', position: null, complete: true, flush: 'none' },
    ]);
  });
});

describe('oversized records', () => {
  test('an oversized record waits until every batch before it is consumed, then is evaluated here', () => {
    const s = running();
    expect(readAll(s, [batch(0, 10), batch(10, 1, { oversized: true })])).toEqual([
      { type: 'post', seq: 0, slot: 0 }, { type: 'read' },
      { type: 'wait', until: T0 + 1002 },
    ]);
    step(s, { type: 'batchDone', seq: 0 }, T0);
    step(s, { type: 'tick' }, T0);
    expect(step(s, { type: 'consumed', go: true }, T0)).toEqual([{ type: 'progress', done: 10, total: 100 }, { type: 'oversized' }]);
    expect(step(s, { type: 'oversizedDone', outcome: 'go' }, T0)).toEqual([{ type: 'read' }]);
    expect(s.dispatched).toBe(11);
  });

  test('the oversized evaluation answered: that answer is the result', () => {
    const s = running();
    readAll(s, [batch(0, 1, { oversized: true })]);
    expect(step(s, { type: 'oversizedDone', outcome: 'answered' }, T0)).toEqual([{ type: 'answer' }]);
    expect(s.phase).toBe('done');
  });

  test('the collector refused the oversized record: flushed, then finished complete', () => {
    const s = running();
    readAll(s, [batch(0, 1, { oversized: true })]);
    expect(step(s, { type: 'oversizedDone', outcome: 'full' }, T0)).toEqual([{ type: 'finish', position: null, complete: true, flush: 'before' }]);
  });

  test('an oversized record outside the query range is passed over', () => {
    const s = running();
    expect(readAll(s, [batch(0, 1, { oversized: true, inRange: false })])).toEqual([{ type: 'read' }]);
    expect(s.dispatched).toBe(1);
  });

  test('an oversized record reached after the deadline: the page ends at it', () => {
    const s = running();
    expect(readAll(s, [batch(0, 1, { oversized: true })], T0 + 1001)).toEqual([{ type: 'finish', position: { record: 0, node: 0 }, complete: false, flush: 'none' }]);
  });
});

describe('waiting → grace → done (the deadline)', () => {
  /** Two batches in flight (records 0..19) on slot 0 and 1, none done; the deadline passed. */
  function atDeadline(config: Partial<PoolConfig> = {}) {
    const s = running(config);
    readAll(s, [batch(0, 10), batch(10, 10)]);
    step(s, { type: 'sourceExhausted' }, T0);
    return s;
  }

  test('tick past the deadline → grace: probe the slot of the next batch', () => {
    const s = atDeadline();
    expect(step(s, { type: 'tick' }, T0 + 1002)).toEqual([{ type: 'probe', slot: 0 }]);
    expect(s.phase).toBe('grace');
    expect(s.graceEnd).toBe(T0 + 1002 + GRACE_MS);
  });

  test('grace: the next batch finished meanwhile → consumed without flush, finish after it, flushed after', () => {
    const s = atDeadline();
    step(s, { type: 'tick' }, T0 + 1002);
    step(s, { type: 'batchDone', seq: 0 }, T0 + 1002);
    expect(step(s, { type: 'probed', current: -1, startedAt: 0 }, T0 + 1002)).toEqual([{ type: 'consume', seq: 0, flush: false }]);
    expect(step(s, { type: 'consumed', go: true }, T0 + 1003)).toEqual([{ type: 'finish', position: { record: 10, node: 0 }, complete: false, flush: 'after' }]);
  });

  test('grace: the last batch finished → the answer is complete', () => {
    const s = running({ to: 10 });
    readAll(s, [batch(0, 10)]);
    step(s, { type: 'sourceExhausted' }, T0);
    step(s, { type: 'tick' }, T0 + 1002);
    step(s, { type: 'batchDone', seq: 0 }, T0 + 1002);
    step(s, { type: 'probed', current: -1, startedAt: 0 }, T0 + 1002);
    expect(step(s, { type: 'consumed', go: true }, T0 + 1003)).toEqual([{ type: 'finish', position: { record: 10, node: 0 }, complete: true, flush: 'after' }]);
  });

  test('grace: the first batch of the page not done → wait out the grace period', () => {
    const s = atDeadline();
    step(s, { type: 'tick' }, T0 + 1002);
    expect(step(s, { type: 'probed', current: -1, startedAt: 0 }, T0 + 1002)).toEqual([{ type: 'wait', until: T0 + 1002 + GRACE_MS }]);
    // after the grace period a page that finished nothing keeps waiting (in 50 ms steps): it must finish a record
    expect(step(s, { type: 'tick' }, T0 + 1202)).toEqual([{ type: 'probe', slot: 0 }]);
    expect(step(s, { type: 'probed', current: -1, startedAt: 0 }, T0 + 1202)).toEqual([{ type: 'wait', until: T0 + 1252 }]);
  });

  test('grace: a page that finished batches stops at the unfinished one once the grace period is over', () => {
    const s = atDeadline();
    step(s, { type: 'batchDone', seq: 0 }, T0);
    step(s, { type: 'tick' }, T0);
    step(s, { type: 'consumed', go: true }, T0 + 1002); // progress; past the deadline: grace on batch 1
    expect(s.phase).toBe('grace');
    expect(step(s, { type: 'tick' }, T0 + 1300)).toEqual([]); // not awaited: the probe is
    expect(step(s, { type: 'probed', current: -1, startedAt: 0 }, T0 + 1300)).toEqual([{ type: 'finish', position: { record: 10, node: 0 }, complete: false, flush: 'after' }]);
  });

  test('grace, regular expressions: a record that ran half the page is skipped and the page goes on after it', () => {
    const s = atDeadline({ immediate: true });
    step(s, { type: 'tick' }, T0 + 1002);
    // slot 0 is on record 3 since 100 ms after the epoch: it ran 902 ms ≥ stuckAfter (500)
    expect(step(s, { type: 'probed', current: 3, startedAt: 100 }, T0 + 1002)).toEqual([{ type: 'consume', seq: 0, upTo: 3, flush: false }]);
    expect(step(s, { type: 'consumed', go: true }, T0 + 1002)).toEqual([
      { type: 'skipStuck', record: 3, ran: 902, budget: 1000 },
      { type: 'finish', position: { record: 4, node: 0 }, complete: false, flush: 'after' },
    ]);
  });

  test('grace, regular expressions: a record not yet stuck waits until it would be, or the grace period ends', () => {
    const s = atDeadline({ immediate: true });
    step(s, { type: 'tick' }, T0 + 1002);
    // on record 3 since 900 ms: ran 102 ms; stuck at 500 → 398 ms away; grace ends in 200 ms
    expect(step(s, { type: 'probed', current: 3, startedAt: 900 }, T0 + 1002)).toEqual([{ type: 'wait', until: T0 + 1002 + 200 }]);
  });

  test('grace over, regular expressions: the page stops at the record in evaluation, which the next page retries', () => {
    const s = atDeadline({ immediate: true });
    step(s, { type: 'tick' }, T0 + 1002);
    step(s, { type: 'probed', current: 3, startedAt: 900 }, T0 + 1002);
    step(s, { type: 'tick' }, T0 + 1202);
    expect(step(s, { type: 'probed', current: 3, startedAt: 900 }, T0 + 1202)).toEqual([{ type: 'consume', seq: 0, upTo: 3, flush: false }]);
    expect(step(s, { type: 'consumed', go: true }, T0 + 1202)).toEqual([{ type: 'finish', position: { record: 3, node: 0 }, complete: false, flush: 'after' }]);
  });

  test('grace, regular expressions, first record of the page: it is not retried (a page finishes a record), it is waited for', () => {
    const s = atDeadline({ immediate: true });
    step(s, { type: 'tick' }, T0 + 1002);
    step(s, { type: 'probed', current: 0, startedAt: 900 }, T0 + 1002);
    step(s, { type: 'tick' }, T0 + 1202);
    // ran 302 ms, not stuck; current is the page's first record: wait until it would be stuck (198 ms)
    expect(step(s, { type: 'probed', current: 0, startedAt: 900 }, T0 + 1202)).toEqual([{ type: 'wait', until: T0 + 1400 }]);
  });
});

describe('a walk\'s nested scan (PoolConfig.page): the page began before it', () => {
  function atDeadline(config: Partial<PoolConfig>) {
    const s = running(config);
    readAll(s, [batch(0, 10), batch(10, 10)]);
    step(s, { type: 'sourceExhausted' }, T0);
    return s;
  }

  test('a stuck record is one that ran half the page\'s time, counted from the page\'s start, not the nested scan\'s', () => {
    const s = machine({ immediate: true, epoch: T0 + 800, deadline: T0 + 1000, page: { start: T0, advanced: true } });
    expect(s.budget).toBe(1000);
    expect(s.stuckAfter).toBe(500);
  });

  test('regular expressions: the first record in evaluation is retried by the next page once the grace period is over', () => {
    const s = atDeadline({ immediate: true, page: { start: T0, advanced: true } });
    step(s, { type: 'tick' }, T0 + 1002);
    expect(step(s, { type: 'probed', current: 0, startedAt: 900 }, T0 + 1002)).toEqual([{ type: 'wait', until: T0 + 1002 + GRACE_MS }]);
    step(s, { type: 'tick' }, T0 + 1002 + GRACE_MS);
    expect(step(s, { type: 'probed', current: 0, startedAt: 900 }, T0 + 1002 + GRACE_MS)).toEqual([{ type: 'consume', seq: 0, upTo: 0, flush: false }]);
    expect(step(s, { type: 'consumed', go: true }, T0 + 1002 + GRACE_MS)).toEqual([{ type: 'finish', position: { record: 0, node: 0 }, complete: false, flush: 'after' }]);
  });

  test('without regular expressions: the page stops at the first batch, unfinished, once the grace period is over', () => {
    const s = atDeadline({ page: { start: T0, advanced: true } });
    step(s, { type: 'tick' }, T0 + 1002);
    step(s, { type: 'probed', current: -1, startedAt: 0 }, T0 + 1002);
    step(s, { type: 'tick' }, T0 + 1002 + GRACE_MS);
    expect(step(s, { type: 'probed', current: -1, startedAt: 0 }, T0 + 1002 + GRACE_MS)).toEqual([{ type: 'finish', position: { record: 0, node: 0 }, complete: false, flush: 'after' }]);
  });

  test('a page that began at the nested scan (not advanced) still finishes a record first', () => {
    const s = atDeadline({ immediate: true, page: { start: T0, advanced: false } });
    step(s, { type: 'tick' }, T0 + 1002);
    step(s, { type: 'probed', current: 0, startedAt: 900 }, T0 + 1002);
    step(s, { type: 'tick' }, T0 + 1202);
    expect(step(s, { type: 'probed', current: 0, startedAt: 900 }, T0 + 1202)).toEqual([{ type: 'wait', until: T0 + 1400 }]);
  });
});

describe('any phase → failed | cancelled', () => {
  test.each(['starting', 'waiting', 'grace'] as const)('abort while %s → cancelled', (phase) => {
    const s = phase === 'starting' ? machine() : running();
    if (phase === 'starting') step(s, { type: 'start' }, T0);
    else {
      readAll(s, [batch(0, 10)]);
      step(s, { type: 'sourceExhausted' }, T0);
      if (phase === 'grace') step(s, { type: 'tick' }, T0 + 1002);
    }
    expect(s.phase).toBe(phase);
    expect(step(s, { type: 'abort' }, T0)).toEqual([{ type: 'fail', code: 'CANCELLED', message: 'The request was cancelled.' }]);
    expect(s.phase).toBe('cancelled');
  });

  test('a thread that crashes while batches are in flight fails the scan (INTERNAL_ERROR), nothing more is done', () => {
    const s = running();
    readAll(s, [batch(0, 10)]);
    expect(step(s, { type: 'workerError', message: 'out of memory' }, T0)).toEqual([{ type: 'fail', code: 'INTERNAL_ERROR', message: 'A scan worker failed: out of memory' }]);
    expect(step(s, { type: 'batchDone', seq: 0 }, T0)).toEqual([]);
    expect(step(s, { type: 'tick' }, T0)).toEqual([]);
  });

  test('a fatal message during a batch fails the scan instead of leaving the batch unfinished', () => {
    const s = running({ deadline: undefined });
    readAll(s, [batch(0, 10)]);
    step(s, { type: 'sourceExhausted' }, T0);
    expect(step(s, { type: 'fatal', code: 'RESOURCE_LIMIT_EXCEEDED', message: 'too deep' }, T0)).toEqual([{ type: 'fail', code: 'RESOURCE_LIMIT_EXCEEDED', message: 'too deep' }]);
  });

  test('a result event that is not the awaited one is ignored', () => {
    const s = running();
    expect(step(s, { type: 'consumed', go: true }, T0)).toEqual([]);
    expect(step(s, { type: 'probed', current: 0, startedAt: 0 }, T0)).toEqual([]);
    expect(s.awaiting).toBe('read');
  });
});

/**
 * ThreadPool.run performs the machine's actions: here on fake slots (no threads) and a fake clock (no waiting), so the
 * deadline path runs in milliseconds and its result is exact.
 */
describe('ThreadPool.run on fake slots and a fake clock', () => {
  /* eslint-disable @typescript-eslint/no-require-imports */
  const fs = require('node:fs') as typeof import('node:fs');
  const os = require('node:os') as typeof import('node:os');
  const path = require('node:path') as typeof import('node:path');
  const { QueryScanEngine, ThreadPool } = require('../../src/engine/scan') as typeof import('../../src/engine/scan');
  const { FakeClock } = require('../../src/kernel/fake-clock') as typeof import('../../src/kernel/fake-clock');
  const { DEFAULT_LIMITS } = require('../../src/kernel/config/defaults') as typeof import('../../src/kernel/config/defaults');
  const { fileService, formatsOf } = require('../helpers/formats') as typeof import('../helpers/formats');
  const { jsonpath } = require('../helpers/query') as typeof import('../helpers/query');
  const jsonl = (require('../../plugins/format-jsonl/src/index') as { default: import('../../src/kernel/contracts').Plugin }).default;
  type Slot = import('../../src/engine/scan/workers').PoolSlot;
  type Message = import('../../src/engine/scan/workers').WorkerMessage;
  type Batch = import('../../src/engine/scan/workers').BatchMessage;

  class FakeSlot implements Slot {
    posted: Batch[] = [];
    terminated = false;
    current = -1;
    startedAt = 0;
    constructor(readonly send: (m: Message) => void) { setImmediate(() => send({ type: 'ready' })); }
    post(m: Batch) { this.posted.push(m); changed(); }
    drain() { return []; }
    progress() { return { current: this.current, startedAt: this.startedAt }; }
    terminate() { this.terminated = true; }
  }

  /** The fake clock, telling `until` when the pool sets a timer on it (it waits). */
  class WatchedClock extends FakeClock {
    override setTimeout(fn: () => void, ms: number) {
      const t = super.setTimeout(fn, ms);
      changed();
      return t;
    }
  }

  /**
   * Resolves once `cond` holds, re-checked each time the pool posts a batch to a fake slot or sets a timer: no bound
   * in event-loop turns or milliseconds (the file reads between are real I/O, slow on a loaded machine); a state that
   * never comes is the test's timeout.
   */
  let changed = () => {};
  const until = (cond: () => boolean) => new Promise<void>((resolve) => {
    if (cond()) return resolve();
    changed = () => { if (cond()) { changed = () => {}; resolve(); } };
  });
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-poolfake-'));
    fs.writeFileSync(path.join(dir, 'a.jsonl'), Array.from({ length: 50 }, (_, i) => JSON.stringify({ id: i, s: `x${i}` })).join('\n') + '\n');
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  async function setup() {
    const clock = new WatchedClock(Date.now());
    const slots: FakeSlot[] = [];
    const pool = new ThreadPool({ pluginOf: () => ({ entry: '/unused.js', options: {} }), threads: 1, minBytes: 0, clock, startSlot: (_init, send) => { const s = new FakeSlot(send); slots.push(s); return s; } });
    const eng = new QueryScanEngine({ limits: () => DEFAULT_LIMITS, workers: pool });
    const opened = await fileService(dir, await formatsOf(jsonl)).open('a.jsonl');
    const query = (await jsonpath()).compile("$[?match(@.s, 'x.*')]");
    return { clock, slots, eng, opened, query };
  }

  test('a record stuck on its thread past half the page is skipped at the deadline, the page continues after it', async () => {
    const { clock, slots, eng, opened, query } = await setup();
    const start = clock.now();
    const run = eng.run({ source: opened.source, query, addressing: 'record', deadline: start + 1000 });
    // The batch posted and the pool waiting for it on the fake clock (before that, advancing would fire nothing).
    await until(() => slots[0]?.posted.length === 1 && clock.pending === 1);
    expect(slots[0]!.posted.map((b) => [b.seq, b.first, b.count])).toEqual([[0, 0, 50]]);
    slots[0]!.current = 0; // evaluating record 0 since the epoch, never finishing
    clock.advance(1000 + 2); // the wait ends just past the deadline: grace, probe, record 0 ran 1002 ms ≥ 500
    const r = await run;
    expect({ complete: r.complete, next: r.next, nodes: r.nodes.length, skipped: r.skipped, first: r.firstSkipped.map((x) => [x.record_index, x.code]) })
      .toEqual({ complete: false, next: { record: 1, node: 0 }, nodes: 0, skipped: 1, first: [[0, 'RESOURCE_LIMIT_EXCEEDED']] });
    expect(slots[0]!.terminated).toBe(true);
    expect(clock.pending).toBe(0);
    opened.close();
  });

  test('a batch answered in time: results in order, complete, progress to the total', async () => {
    const { slots, eng, opened, query } = await setup();
    const progress: number[][] = [];
    const run = eng.run({ source: opened.source, query, addressing: 'record', onProgress: (done, total) => progress.push([done, total]) });
    await until(() => slots[0]?.posted.length === 1);
    const b = slots[0]!.posted[0]!;
    slots[0]!.send({ type: 'nodes', seq: b.seq, record: 3, nodes: [{ path: '', text: '{"id":3,"s":"x3"}' }] });
    slots[0]!.send({ type: 'nodes', seq: b.seq, record: 7, nodes: [{ path: '', text: '{"id":7,"s":"x7"}' }] });
    slots[0]!.send({ type: 'done', seq: b.seq });
    const r = await run;
    expect({ complete: r.complete, next: r.next, nodes: r.nodes.map((n) => [n.record, n.value]) })
      .toEqual({ complete: true, next: null, nodes: [[3, { id: 3, s: 'x3' }], [7, { id: 7, s: 'x7' }]] });
    expect(progress).toEqual([[50, 50]]);
    expect(slots[0]!.terminated).toBe(true);
    opened.close();
  });

  test('cancellation while a batch is in flight: CANCELLED, the slots terminated', async () => {
    const { slots, eng, opened, query } = await setup();
    const ac = new AbortController();
    const run = eng.run({ source: opened.source, query, addressing: 'record', signal: ac.signal });
    await until(() => slots[0]?.posted.length === 1);
    ac.abort();
    await expect(run).rejects.toMatchObject({ code: 'CANCELLED' });
    expect(slots[0]!.terminated).toBe(true);
    opened.close();
  });
});
