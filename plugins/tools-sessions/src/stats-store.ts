import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { SessionDigest } from './session/digest';
import { isDamaged, privateFiles, privateFolder, removeIndexFiles } from './semantic/store';

/** The file beside the search index that keeps each session's usage statistics between server processes. */
export const STATS_FILE = 'sessions-stats.sqlite';

/**
 * Each session's digest (usage statistics, start, title, first prompt: session/digest.ts) kept on disk (`sessions-stats.sqlite` in the cache folder, 0600 in the 0700 folder),
 * so that a new server — every conversation of a stdio client starts one — answers `get_usage_stats` and
 * `list_sessions` from what an
 * earlier one read: a session is read again only when its files changed (path, size, modification and change time)
 * or when the code that reads sessions changed (a fingerprint of the plugin's built files is part of every key).
 * Every row but its detail (each response and call, read when a call needs them) is read into memory at the first
 * look (one query); a failure of the store costs the cache, never the
 * answer (logged, then the store is off for the process). A damaged file is removed and started again.
 */
export class StatsStore {
  private readonly db: DatabaseSync;
  private rows: Map<string, { key: string; data: string }> | null = null;
  private put: StatementSync | null = null;
  private getDetail: StatementSync | null = null;
  private pending = 0;
  private checkpoint: NodeJS.Timeout | null = null;

  private constructor(db: DatabaseSync, readonly file: string, private readonly code: string) {
    this.db = db;
  }

  /** Opens (or creates) the store in `folder`; null when it cannot be (a read-only folder: the cache is then off). */
  static open(folder: string, log: { debug(msg: string, data?: Record<string, unknown>): void }): StatsStore | null {
    const file = path.join(folder, STATS_FILE);
    try {
      mkdirSync(folder, { recursive: true, mode: 0o700 });
      privateFolder(folder);
      privateFiles(file);
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { DatabaseSync } = require('node:sqlite') as typeof import('node:sqlite');
      const init = () => {
        const db = new DatabaseSync(file);
        // Pages of 16 KiB (a new file's: most rows' detail spans several 4 KiB pages); WAL commits without a sync, and
        // the checkpoint (which syncs) runs after the call that wrote, not within it (see `flush`).
        db.exec('PRAGMA page_size = 16384; PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = 5000; PRAGMA wal_autocheckpoint = 0;');
        db.exec('DROP TABLE IF EXISTS stats; CREATE TABLE IF NOT EXISTS digests (id TEXT PRIMARY KEY, key TEXT NOT NULL, data TEXT NOT NULL, detail TEXT NOT NULL)');
        db.prepare('SELECT count(*) AS n FROM digests').get();
        return db;
      };
      let db: DatabaseSync;
      try {
        db = init();
      } catch (err) {
        if (!isDamaged(err)) throw err;
        removeIndexFiles(file);
        privateFiles(file);
        db = init();
      }
      const store = new StatsStore(db, file, codeFingerprint());
      // A log a process left when it ended before its checkpoint: moved into the file a moment after this open.
      if ((statSync(`${file}-wal`, { throwIfNoEntry: false })?.size ?? 0) > 0) store.checkpointLater();
      return store;
    } catch (err) {
      log.debug('usage: the statistics cache is off', { file, error: String(err) });
      return null;
    }
  }

  /** Rows kept (of any code or key). */
  get size(): number {
    this.rows ??= this.readAll();
    return this.rows.size;
  }

  /** The kept stats of session `id` when kept under `key` (and this code), else undefined. */
  get(id: string, key: string): SessionDigest | undefined {
    this.rows ??= this.readAll();
    const row = this.rows.get(id);
    if (!row || row.key !== `${this.code}|${key}`) return undefined;
    try {
      return JSON.parse(row.data) as SessionDigest;
    } catch {
      return undefined;
    }
  }

  /** The kept detail (StatsDetail as JSON text) of session `id` when kept under `key` (and this code), else undefined. */
  detail(id: string, key: string): string | undefined {
    const row = (this.getDetail ??= this.db.prepare('SELECT key, detail FROM digests WHERE id = ?')).get(id) as { key: string; detail: string } | undefined;
    return row && row.key === `${this.code}|${key}` ? row.detail : undefined;
  }

  /** Keeps `stats` and its `detail` for session `id` under `key` (written in one transaction per call: see `flush`). */
  set(id: string, key: string, stats: SessionDigest, detail: string): void {
    const full = `${this.code}|${key}`;
    const data = JSON.stringify(stats);
    this.rows ??= this.readAll();
    this.rows.set(id, { key: full, data });
    if (this.pending === 0) this.db.exec('BEGIN');
    (this.put ??= this.db.prepare('INSERT OR REPLACE INTO digests (id, key, data, detail) VALUES (?, ?, ?, ?)')).run(id, full, data, detail);
    this.pending++;
  }

  /**
   * Commits what `set` wrote since the last flush (to the write-ahead log: no sync), and moves the log into the file a
   * moment later (CHECKPOINT_DELAY_MS, off the call's path: it reads back and syncs what was written); closing does it
   * too, and a log left by a process that ended first is read by the next one.
   */
  flush(): void {
    if (this.pending === 0) return;
    this.pending = 0;
    this.db.exec('COMMIT');
    this.checkpointLater();
  }

  /** Moves the write-ahead log into the file CHECKPOINT_DELAY_MS from now (a later ask moves that time on). */
  private checkpointLater(): void {
    if (this.checkpoint) clearTimeout(this.checkpoint);
    this.checkpoint = setTimeout(() => {
      this.checkpoint = null;
      try { this.db.exec('PRAGMA wal_checkpoint(PASSIVE)'); } catch { /* the next one, or closing, moves it */ }
    }, CHECKPOINT_DELAY_MS);
    this.checkpoint.unref();
  }

  /** Drops the rows of sessions not in `ids` (sessions gone from the history). */
  prune(ids: ReadonlySet<string>): void {
    this.rows ??= this.readAll();
    const gone = [...this.rows.keys()].filter((id) => !ids.has(id));
    if (!gone.length) return;
    const del = this.db.prepare('DELETE FROM digests WHERE id = ?');
    this.db.exec('BEGIN');
    for (const id of gone) { del.run(id); this.rows.delete(id); }
    this.db.exec('COMMIT');
    this.checkpointLater();
  }

  close(): void {
    try {
      this.flush();
      if (this.checkpoint) clearTimeout(this.checkpoint);
      this.checkpoint = null;
      this.db.close();
    } catch { /* closed */ }
  }

  private readAll(): Map<string, { key: string; data: string }> {
    const out = new Map<string, { key: string; data: string }>();
    for (const r of this.db.prepare('SELECT id, key, data FROM digests').all() as { id: string; key: string; data: string }[]) out.set(r.id, { key: r.key, data: r.data });
    return out;
  }
}

/** How long after a commit the write-ahead log is moved into the file. */
const CHECKPOINT_DELAY_MS = 1000;

let fingerprint: string | undefined;

/**
 * A fingerprint of the code that turns session files into statistics: the plugin's built files (its sources,
 * summaries and usage counting), so an upgrade that reads sessions differently never answers from older results.
 */
export function codeFingerprint(): string {
  if (fingerprint !== undefined) return fingerprint;
  const h = createHash('sha256');
  const walk = (dir: string) => {
    let names: string[];
    try { names = readdirSync(dir).sort(); } catch { return; }
    for (const n of names) {
      const p = path.join(dir, n);
      if (n.endsWith('.js')) { h.update(n); h.update(readFileSync(p)); } else if (!n.includes('.')) walk(p);
    }
  };
  walk(__dirname);
  fingerprint = h.digest('base64url').slice(0, 16);
  return fingerprint;
}
