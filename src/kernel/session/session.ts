import type { HandleTable, HandleTableOptions, SessionStore } from '../contracts/tool';
import { IdleHandleTable } from './handle-table';

/** Per-connection state: handle tables and bundle-owned values. `end()` evicts everything. */
export class Session implements SessionStore {
  private readonly tables = new Map<string, IdleHandleTable<unknown>>();
  private readonly values = new Map<string, unknown>();

  handles<T>(name: string, options: HandleTableOptions<T>): HandleTable<T> {
    let table = this.tables.get(name);
    if (!table) {
      table = new IdleHandleTable<T>(options) as IdleHandleTable<unknown>;
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
