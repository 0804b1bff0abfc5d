import { FakeClock } from '../../src/kernel/fake-clock';

/**
 * A FakeClock on which every reading of the time is `tick` ms after the one before (timers due on the way fire, as
 * with `advance`): a deadline passes after a number of readings, not of real milliseconds, so a page stops at the
 * same place on a fast machine as on a loaded one. For code on the main thread only: worker threads time records on
 * real time.
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
