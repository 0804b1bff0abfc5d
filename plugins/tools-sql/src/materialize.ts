import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { ResolvedFiles } from './sources';

/**
 * Materialised tables: a configured table loaded once into a DuckDB database file in a cache folder beside the
 * persistent index (`$XDG_CACHE_HOME/mcpgw/sql`, else `~/.cache/mcpgw/sql`), keyed as the index is — by each file's
 * real path, size, modification time and inode — so a file rewritten or replaced is loaded again and its old entry
 * removed; the folder is capped in bytes (least recently used entries removed first).
 */
export interface MaterializeOptions {
  /** Configured tables to materialise. */
  tables: readonly string[];
  /** The cache folder's bound, bytes. */
  maxBytes: number;
  /** The folder (default beside the persistent index). */
  dir?: string;
}

export function defaultCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CACHE_HOME && path.isAbsolute(env.XDG_CACHE_HOME) ? env.XDG_CACHE_HOME : path.join(os.homedir(), '.cache');
  return path.join(base, 'mcpgw', 'sql');
}

/** The entry of one loaded table: `<key>.duckdb` and its note `<key>.json`. */
export interface Entry {
  key: string;
  file: string;
  table: string;
}

/** Schema of the entries; a change makes every old entry a miss. */
const FORMAT = 1;

export class MaterializedCache {
  readonly dir: string;
  private readonly loading = new Map<string, Promise<void>>();

  constructor(private readonly options: MaterializeOptions) {
    this.dir = options.dir ?? defaultCacheDir();
  }

  wants(table: string): boolean {
    return this.options.tables.includes(table);
  }

  entryFor(table: string, files: ResolvedFiles): Entry {
    const key = createHash('sha256').update(JSON.stringify([FORMAT, table, files.real, files.stamps.map((s) => [s.size, s.mtimeMs, s.ino])])).digest('hex').slice(0, 32);
    return { key, table, file: path.join(this.dir, `${key}.duckdb`) };
  }

  /** True when the entry is there (and marks it used). */
  has(entry: Entry): boolean {
    try {
      const now = new Date();
      fs.utimesSync(entry.file, now, now);
      return true;
    } catch {
      return false;
    }
  }

  /**
   * Loads the entry once (concurrent callers share the load): `load(tmpFile)` writes the database; it is renamed into
   * place, other entries of the same table are removed, and the folder is trimmed to its bound. An entry larger than
   * the bound is not kept. @returns false when the entry could not be kept.
   */
  async ensure(entry: Entry, load: (tmpFile: string) => Promise<void>): Promise<boolean> {
    if (this.has(entry)) return true;
    let p = this.loading.get(entry.key);
    if (!p) {
      p = this.load(entry, load).finally(() => this.loading.delete(entry.key));
      this.loading.set(entry.key, p);
    }
    await p;
    return this.has(entry);
  }

  private async load(entry: Entry, load: (tmpFile: string) => Promise<void>): Promise<void> {
    fs.mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const tmp = path.join(this.dir, `${entry.key}.${process.pid}.tmp.duckdb`);
    try {
      await load(tmp);
      const size = fs.statSync(tmp).size;
      if (size > this.options.maxBytes) return;
      fs.renameSync(tmp, entry.file);
      fs.writeFileSync(path.join(this.dir, `${entry.key}.json`), JSON.stringify({ table: entry.table, bytes: size }));
      this.removeOthers(entry);
      this.trim(entry.key);
    } finally {
      for (const f of [tmp, `${tmp}.wal`, `${tmp}.wal.checkpoint`]) fs.rmSync(f, { force: true });
    }
  }

  /** Older entries of the same table (its files changed since): removed. */
  private removeOthers(entry: Entry): void {
    for (const name of fs.readdirSync(this.dir)) {
      if (!name.endsWith('.json') || name.startsWith(entry.key)) continue;
      try {
        const note = JSON.parse(fs.readFileSync(path.join(this.dir, name), 'utf8')) as { table?: string };
        if (note.table === entry.table) this.remove(name.slice(0, -'.json'.length));
      } catch { /* not ours */ }
    }
  }

  private remove(key: string): void {
    for (const f of [`${key}.duckdb`, `${key}.duckdb.wal`, `${key}.json`]) fs.rmSync(path.join(this.dir, f), { force: true });
  }

  /** Least recently used entries removed until the folder is within its bound (the newest entry stays). */
  private trim(keep: string): void {
    const entries = fs.readdirSync(this.dir).filter((n) => n.endsWith('.duckdb') && !n.includes('.tmp.')).map((n) => {
      const st = fs.statSync(path.join(this.dir, n));
      return { key: n.slice(0, -'.duckdb'.length), size: st.size, used: st.mtimeMs };
    }).sort((a, b) => a.used - b.used);
    let total = entries.reduce((s, e) => s + e.size, 0);
    for (const e of entries) {
      if (total <= this.options.maxBytes) break;
      if (e.key === keep) continue;
      this.remove(e.key);
      total -= e.size;
    }
  }
}
