/**
 * Worker threads kept between scans, so that a scan does not pay a thread's start-up (bootstrap, module loading,
 * JIT warm-up: tens of ms of CPU each) when one ran shortly before it. A scan takes threads ({@link take}: idle ones
 * first, the rest started), and gives back those it left clean ({@link give}: every message it sent answered, no
 * failure) or throws away those it did not ({@link discard}: terminated). Idle threads are terminated together
 * {@link IdleWorkers.idleMs} after the last one came back (the pool idles down to no thread, so a server that is not
 * scanning holds none of their memory; `onIdleDown` then lets the owner free its own), and at most `keep` are kept. A
 * thread that exits while idle leaves the pool.
 * Time is the kernel's clock (a test drives the idle-down with a fake one).
 */
import type { Clock, ClockTimer } from '../../kernel/contracts/clock';

/** What the pool needs of a thread (node:worker_threads' Worker; a fake in tests). */
export interface PoolThread {
  terminate(): unknown;
  once(event: 'exit', listener: (code: number) => void): unknown;
  on(event: 'error', listener: (err: Error) => void): unknown;
}

export interface IdleWorkersOptions<W extends PoolThread> {
  /** Starts a thread. */
  spawn: () => W;
  clock: Clock;
  /** How long idle threads are kept after the last one came back, ms. */
  idleMs: number;
  /** Most threads kept idle. */
  keep: number;
  /**
   * Called when the idle threads have just been terminated by the idle-down (not by {@link IdleWorkers.close}): what
   * the scans left on this thread for a collection to free (their shared buffers) can go now.
   */
  onIdleDown?: () => void;
}

/** Default {@link IdleWorkersOptions.idleMs}: long enough for the next call of a conversation, short for memory. */
export const IDLE_MS = 5000;

export class IdleWorkers<W extends PoolThread> {
  private readonly idle: W[] = [];
  private readonly exited = new WeakSet<W>();
  private timer: ClockTimer | null = null;
  /** Threads started so far (for tests and the bench's accounting). */
  spawned = 0;

  constructor(private readonly options: IdleWorkersOptions<W>) {}

  get idleMs(): number {
    return this.options.idleMs;
  }

  /** Threads idle now. */
  get size(): number {
    return this.idle.length;
  }

  /** `n` threads for a scan: the most recently used idle ones first (their code is the warmest), then new ones. */
  take(n: number): W[] {
    const out: W[] = [];
    while (out.length < n && this.idle.length) {
      const w = this.idle.pop()!;
      if (!this.exited.has(w)) out.push(w);
    }
    if (!this.idle.length) this.cancelTimer();
    while (out.length < n) out.push(this.start());
    return out;
  }

  /** Starts threads ahead of a scan, up to `n` idle (they idle down as any other). */
  prestart(n: number): void {
    const want = Math.min(n, this.options.keep) - this.idle.length;
    for (let k = 0; k < want; k++) this.idle.push(this.start());
    if (want > 0) this.arm();
  }

  /** A thread a scan left clean: kept for the next scan (beyond `keep`, or exited: terminated). */
  give(w: W): void {
    if (this.exited.has(w)) return;
    if (this.idle.length >= this.options.keep) { void w.terminate(); return; }
    this.idle.push(w);
    this.arm();
  }

  /** A thread a scan did not leave clean (work in flight, a failure): terminated, never reused. */
  discard(w: W): void {
    void w.terminate();
  }

  /** Terminates every idle thread now. */
  close(): void {
    this.cancelTimer();
    for (const w of this.idle.splice(0)) void w.terminate();
  }

  private start(): W {
    const w = this.options.spawn();
    this.spawned++;
    // A thread's uncaught error is its scan's failure (the scan listens too); never the server's: an idle thread that
    // fails just exits and leaves the pool.
    w.on('error', () => undefined);
    w.once('exit', () => {
      this.exited.add(w);
      const at = this.idle.indexOf(w);
      if (at >= 0) this.idle.splice(at, 1);
      if (!this.idle.length) this.cancelTimer();
    });
    return w;
  }

  /** (Re)starts the idle-down timer: the idle threads go {@link idleMs} after the last came back. */
  private arm(): void {
    this.cancelTimer();
    this.timer = this.options.clock.setTimeout(() => {
      this.timer = null;
      this.close();
      this.options.onIdleDown?.();
    }, this.options.idleMs, { unref: true });
  }

  private cancelTimer(): void {
    this.timer?.cancel();
    this.timer = null;
  }
}
