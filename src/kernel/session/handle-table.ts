import { randomBytes } from 'node:crypto';
import type { HandleTable, HandleTableOptions } from '../contracts/tool';
import { McpgwError } from '../errors';
import type { Clock, ClockTimer } from '../contracts/clock';
import { systemClock } from '../clock';

interface Entry<T> { value: T; lastUsed: number }

/**
 * Opaque ids → values with idle expiry and a cap (full: refuse, or drop the least recently used). Expired ids are remembered (up to 4,096) so a
 * late caller hears HANDLE_EXPIRED rather than NOT_FOUND. Expiry is checked lazily on each access
 * and by an unref'd sweep timer, so an idle server holds no expired files open.
 */
export class IdleHandleTable<T> implements HandleTable<T> {
  private readonly live = new Map<string, Entry<T>>();
  private readonly expired = new Set<string>();
  /** Ids dropped to make room (`whenFull: 'evict'`, up to 4,096), so a late caller hears why. */
  private readonly dropped = new Set<string>();
  /** Single-use ids already used (up to 4,096), so a second use hears so rather than "unknown". */
  private readonly used = new Set<string>();
  private counter = 0;
  private timer: ClockTimer | null = null;

  /** `clock`: idle times and the sweep run on it (default the system clock). */
  constructor(private readonly options: HandleTableOptions<T>, private readonly clock: Clock = systemClock) {}

  private now(): number {
    return this.clock.now();
  }

  add(value: T): string {
    this.sweep();
    if (this.live.size >= this.options.max && this.options.whenFull === 'evict') {
      // The least recently used: `live` is kept in order of use (get moves an entry to the end).
      const [oldest, entry] = this.live.entries().next().value!;
      this.live.delete(oldest);
      this.dropped.add(oldest);
      if (this.dropped.size > 4096) this.dropped.delete(this.dropped.values().next().value!);
      this.evict(oldest, entry.value);
    }
    if (this.live.size >= this.options.max) {
      throw new McpgwError('RESOURCE_LIMIT_EXCEEDED', `Too many open ${this.options.noun}s: the limit is ${this.options.max}.`, {
        limit: { name: this.options.limit, limit: this.options.max, value: this.live.size },
        hint: this.options.fullHint ?? `Close ${article(this.options.noun)} ${this.options.noun} you no longer need.`,
      });
    }
    const id = this.options.style === 'counter' ? `${this.options.prefix}${++this.counter}` : `${this.options.prefix}${randomBytes(8).toString('hex')}`;
    this.live.set(id, { value, lastUsed: this.now() });
    this.arm();
    return id;
  }

  get(id: string): T {
    this.sweep();
    const entry = this.live.get(id);
    if (!entry) {
      if (this.dropped.has(id)) {
        const hint = this.options.expiredHint ?? 'Open the file again.';
        throw new McpgwError('HANDLE_EXPIRED', `The ${this.options.noun} ${id} was dropped to make room: ${this.options.max} ${this.options.noun}s (${this.options.limit}) were open and it was the least recently used. ${hint}`, { hint, limit: { name: this.options.limit, limit: this.options.max } });
      }
      if (this.expired.has(id)) {
        const hint = this.options.expiredHint ?? 'Open the file again.';
        throw new McpgwError('HANDLE_EXPIRED', `The ${this.options.noun} ${id} expired after ${Math.round(this.options.idleMs / 1000)} s unused. ${hint}`, { hint });
      }
      if (this.used.has(id)) {
        throw new McpgwError('NOT_FOUND', `The ${this.options.noun} ${id} was already used — continue from the latest next_cursor.`, { hint: this.options.usedHint ?? 'Continue from the latest id returned.' });
      }
      // An unknown id is most often one of an earlier session or server process: the remedy is the expired one's.
      const hint = `Pass ${article(this.options.noun)} ${this.options.noun} this server returned in this session (ids end with the session and with a restart). ${this.options.expiredHint ?? 'Open the file again.'}`;
      throw new McpgwError('NOT_FOUND', `Unknown ${this.options.noun} ${JSON.stringify(id)}.`, { hint });
    }
    entry.lastUsed = this.now();
    if (this.options.whenFull === 'evict') { this.live.delete(id); this.live.set(id, entry); } // most recently used last
    return entry.value;
  }

  delete(id: string): boolean {
    return this.live.delete(id);
  }

  consume(id: string): boolean {
    if (!this.live.delete(id)) return false;
    this.used.add(id);
    if (this.used.size > 4096) this.used.delete(this.used.values().next().value!);
    return true;
  }

  get size(): number {
    return this.live.size;
  }

  entries(): IterableIterator<[string, T]> {
    const it = [...this.live.entries()].map(([k, e]) => [k, e.value] as [string, T]);
    return it[Symbol.iterator]();
  }

  /** Evicts every entry (session end). */
  clear(): void {
    for (const [id, e] of this.live) this.evict(id, e.value);
    this.live.clear();
    this.timer?.cancel();
    this.timer = null;
  }

  private sweep(): void {
    const cutoff = this.now() - this.options.idleMs;
    for (const [id, e] of this.live) {
      if (e.lastUsed < cutoff) {
        this.live.delete(id);
        this.expired.add(id);
        if (this.expired.size > 4096) this.expired.delete(this.expired.values().next().value!);
        this.evict(id, e.value);
      }
    }
  }

  private evict(id: string, value: T): void {
    try { this.options.onEvict?.(value, id); } catch { /* eviction must not throw */ }
  }

  private arm(): void {
    if (this.timer) return;
    const every = Math.max(1000, Math.min(60_000, this.options.idleMs / 2));
    this.timer = this.clock.setInterval(() => {
      this.sweep();
      if (this.live.size === 0 && this.timer) { this.timer.cancel(); this.timer = null; }
    }, every, { unref: true });
  }
}

/** The indefinite article before `noun` ("an aggregate cursor", "a file handle"), by its first letter. */
function article(noun: string): 'a' | 'an' {
  return /^[aeiou]/i.test(noun) ? 'an' : 'a';
}
