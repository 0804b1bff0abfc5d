import { FakeClock } from '../../src/kernel/fake-clock';

/**
 * A FakeClock on which every reading of the time is `tick` ms after the one before (timers due on the way fire, as
 * with `advance`): a deadline passes after a number of readings, not of real milliseconds, so a page stops at the
 * same place on a fast machine as on a loaded one. Worker threads (scan and aggregate) read the time their pool last
 * read here, published in a shared cell (src/engine/scan/workers.ts, aggregate-threads.ts); only the main thread's
 * readings move it.
 */
export class TickingClock extends FakeClock {
  constructor(private readonly tick = 1, start?: number) {
    super(start);
  }

  override now(): number {
    this.advance(this.tick);
    return super.now();
  }
}
