import { McpgwError } from '../../kernel/errors';
import type { Clock } from '../../kernel/contracts/clock';
import { systemClock } from '../../kernel/clock';

/**
 * Server-wide scan slots (Limits.maxConcurrentScans). A scan that finds no free slot waits in FIFO order until
 * one frees, its deadline passes (RESOURCE_LIMIT_EXCEEDED, limit `maxConcurrentScans`) or its signal fires (CANCELLED).
 */
export class Semaphore {
  private active = 0;
  private readonly waiting: { grant: () => void }[] = [];

  /** `clock`: where deadlines are read and waited for (default the system clock). */
  constructor(private readonly max: () => number, private readonly clock: Clock = systemClock) {}

  get inUse(): number {
    return this.active;
  }

  async acquire(deadline: number | undefined, signal: AbortSignal | undefined): Promise<() => void> {
    if (this.active < this.max() && this.waiting.length === 0) {
      this.active++;
      return this.releaser();
    }
    return new Promise((resolve, reject) => {
      const entry = {
        grant: () => {
          cleanup();
          this.active++;
          resolve(this.releaser());
        },
      };
      const fail = (err: McpgwError) => {
        const i = this.waiting.indexOf(entry);
        if (i !== -1) this.waiting.splice(i, 1);
        cleanup();
        reject(err);
      };
      const onAbort = () => fail(new McpgwError('CANCELLED', 'The request was cancelled.'));
      const wait = deadline === undefined ? undefined : Math.max(0, deadline - this.clock.now());
      const timedOut = () => new McpgwError('RESOURCE_LIMIT_EXCEEDED',
        `All ${this.max()} scan slots stayed busy until the request deadline.`, {
          limit: { name: 'maxConcurrentScans', limit: this.max() },
          hint: 'Retry when the other scans have finished, or raise limits.maxConcurrentScans.',
        });
      const timer = wait === undefined || wait === 0 ? undefined : this.clock.setTimeout(() => fail(timedOut()), wait);
      const cleanup = () => {
        timer?.cancel();
        signal?.removeEventListener('abort', onAbort);
      };
      if (signal?.aborted) return onAbort();
      if (deadline !== undefined && this.clock.now() >= deadline) return fail(timedOut()); // past already: no timer to wait for
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(entry);
    });
  }

  private releaser(): () => void {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.active--;
      const next = this.waiting.shift();
      if (next) next.grant();
    };
  }
}
