import type { Clock } from '../../kernel/contracts/clock';
import { systemClock } from '../../kernel/clock';

/**
 * A pool's clock as its worker threads read it. Threads time each record (when its evaluation started, so a record a
 * regular expression is stuck on can be named) in ms since `epoch`. On the system clock they read Date.now(); on any
 * other clock (a test's FakeClock or TickingClock, which a thread cannot call) every reading the pool takes through
 * `now()` is published in `time`, an Int32 cell on a SharedArrayBuffer, and threads read that (see {@link threadNow}).
 */
export interface PoolClock {
  /** ms since the Unix epoch on the clock, when the job started. */
  readonly epoch: number;
  /** The cell threads read (ms since `epoch`); null on the system clock. Pass it to the threads with `epoch`. */
  readonly time: Int32Array | null;
  /** Reads the clock (ms since the Unix epoch) and publishes the reading to the threads. */
  now(): number;
}

/** A job's {@link PoolClock} on `clock`, its epoch read now. */
export function poolClock(clock: Clock): PoolClock {
  const epoch = clock.now();
  const time = clock === systemClock ? null : new Int32Array(new SharedArrayBuffer(4));
  return {
    epoch,
    time,
    now(): number {
      const t = clock.now();
      if (time) Atomics.store(time, 0, t - epoch);
      return t;
    },
  };
}

/** On a worker thread: a reader of the pool's time, ms since `epoch` (the published cell when given, else Date.now()). */
export function threadNow(epoch: number, time: Int32Array | undefined): () => number {
  return time ? () => Atomics.load(time, 0) : () => Date.now() - epoch;
}
