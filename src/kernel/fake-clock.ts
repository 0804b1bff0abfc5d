import type { Clock, ClockTimer } from './contracts/clock';

interface Pending { due: number; seq: number; fn: () => void; every: number | null; live: boolean }

/**
 * A clock that moves only when a test moves it (register it under `Tokens.Clock`, or pass it where a `Clock` is
 * taken): `advance(ms)` fires every timer due by then, earliest first (equal times in the order they were set), each
 * seeing `now()` equal to its own due time. No real time passes, so deadline and expiry tests take milliseconds.
 */
export class FakeClock implements Clock {
  private time: number;
  private seq = 0;
  private readonly timers: Pending[] = [];

  /** `start`: the first `now()`, ms since the epoch (default 2026-01-01T00:00:00Z). */
  constructor(start = Date.UTC(2026, 0, 1)) {
    this.time = start;
  }

  now(): number {
    return this.time;
  }

  setTimeout(fn: () => void, ms: number): ClockTimer {
    return this.add(fn, Math.max(0, ms), null);
  }

  setInterval(fn: () => void, ms: number): ClockTimer {
    return this.add(fn, Math.max(1, ms), Math.max(1, ms));
  }

  /** Timers set and not yet fired or cancelled. */
  get pending(): number {
    return this.timers.filter((t) => t.live).length;
  }

  /** Moves time forward by `ms` (≥ 0), firing the timers due on the way, synchronously. */
  advance(ms: number): void {
    const target = this.time + Math.max(0, ms);
    for (let t = this.next(target); t; t = this.next(target)) this.fire(t);
    this.time = target;
  }

  /**
   * As `advance`, but lets promise callbacks and I/O callbacks run after each timer (a `setImmediate` turn), so code
   * that awaits between timers proceeds as it would in real time.
   */
  async advanceAsync(ms: number): Promise<void> {
    const target = this.time + Math.max(0, ms);
    await turn();
    for (let t = this.next(target); t; t = this.next(target)) {
      this.fire(t);
      await turn();
    }
    this.time = target;
    await turn();
  }

  private add(fn: () => void, ms: number, every: number | null): ClockTimer {
    const t: Pending = { due: this.time + ms, seq: this.seq++, fn, every, live: true };
    this.timers.push(t);
    return { cancel: () => { t.live = false; } };
  }

  private next(target: number): Pending | undefined {
    for (let i = this.timers.length - 1; i >= 0; i--) if (!this.timers[i]!.live) this.timers.splice(i, 1);
    let best: Pending | undefined;
    for (const t of this.timers) if (t.due <= target && (!best || t.due < best.due || (t.due === best.due && t.seq < best.seq))) best = t;
    return best;
  }

  private fire(t: Pending): void {
    this.time = Math.max(this.time, t.due);
    if (t.every === null) t.live = false;
    else { t.due += t.every; t.seq = this.seq++; }
    t.fn();
  }
}

const turn = () => new Promise<void>((r) => setImmediate(r));
