import type { HandleTable, HandleTableOptions, SessionScope } from '../contracts/tool';
import type { Clock } from '../contracts/clock';
import { systemClock } from '../clock';
import { IdleHandleTable } from './handle-table';

/** One bundle's handle tables and values (`ToolContext.session`). */
class Scope implements SessionScope {
  private readonly tables = new Map<string, IdleHandleTable<unknown>>();
  private readonly values = new Map<string, unknown>();

  constructor(private readonly clock: Clock) {}

  handles<T>(name: string, options: HandleTableOptions<T>): HandleTable<T> {
    let table = this.tables.get(name);
    if (!table) {
      table = new IdleHandleTable<T>(options, this.clock) as IdleHandleTable<unknown>;
      this.tables.set(name, table);
    }
    return table as unknown as HandleTable<T>;
  }

  get<T>(key: string, create: () => T): T {
    if (!this.values.has(key)) this.values.set(key, create());
    return this.values.get(key) as T;
  }

  end(): void {
    for (const t of this.tables.values()) t.clear();
    this.tables.clear();
    this.values.clear();
  }
}

/**
 * The state of one MCP session (a stdio connection, a 2025-era HTTP session, a 2026-era principal): one scope per
 * tool bundle (or plugin command), so no bundle sees another's handles, cursors or values. `end()` evicts everything.
 */
export class Session {
  private readonly scopes = new Map<string, Scope>();

  /** `clock`: idle expiry of every handle table runs on it (default the system clock). */
  constructor(private readonly clock: Clock = systemClock) {}

  /** The scope of bundle (or plugin command) `owner`, created on first use. */
  scope(owner: string): SessionScope {
    let s = this.scopes.get(owner);
    if (!s) {
      s = new Scope(this.clock);
      this.scopes.set(owner, s);
    }
    return s;
  }

  end(): void {
    for (const s of this.scopes.values()) s.end();
    this.scopes.clear();
  }
}
