import { chmodSync, closeSync, lstatSync, mkdirSync, openSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { MarkedText } from 'mcpgw/plugin-api';
import { codePointLength } from '../toolkit';

/** Bump when the tables or what is stored in them change: an older cache is emptied and rebuilt. */
const SCHEMA_VERSION = '5';

/** What is known of one indexed session file (for incremental updates: unchanged, grown, or replaced). */
export interface IndexedFile {
  path: string;
  dev: number;
  ino: number;
  size: number;
  mtimeMs: number;
  /** Change time (ctime), ms; absent in entries stored before it was kept (their files are compared without it). */
  ctimeMs?: number;
  /** Records read from it. */
  records: number;
  /** Byte offset where its last record starts (where reading resumes when it grew). */
  resumeOffset: number;
  /** CRC-32 of the bytes just before `resumeOffset` (up to 4 KiB): unchanged means the file only grew. */
  tailCrc: number;
  /** CRC-32 of the bytes before `resumeOffset` (sampled past 64 MiB: indexer.ts prefixCrc); absent in older entries. */
  prefixCrc?: number;
}

export interface IndexedSession {
  id: number;
  source: string;
  path: string;
  sessionId: string;
  projectName: string;
  projectPath: string | null;
  /** The first user prompt's preview and where its `…` marker is (previewOf). */
  firstPrompt: MarkedText | null;
  files: IndexedFile[];
  /** Record positions read (across files). */
  records: number;
  /** Entries seen so far (the next entry's index). */
  entries: number;
  modifiedMs: number;
  /** Read to the end of its files as they were (a trailing partial line is re-read when the file grows). */
  complete: boolean;
}

/** One indexed entry (an entry with text worth ranking). */
export interface IndexedEntry {
  id: number;
  session: number;
  idx: number;
  role: string;
  uuid: string | null;
  ts: string | null;
  /** The entry's preview and where its `…` marker is (previewOf). */
  preview: MarkedText;
}

/** The cache folder: config `sessions.cacheDir`, else `$XDG_CACHE_HOME/mcpgw`, else `~/.cache/mcpgw`. */
export function cacheFolder(configured: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  if (configured) return configured;
  const xdg = env.XDG_CACHE_HOME;
  return path.join(xdg && path.isAbsolute(xdg) ? xdg : path.join(os.homedir(), '.cache'), 'mcpgw');
}

/** The index's file name in the cache folder. */
export const INDEX_FILE = 'sessions-index.sqlite';

/** The files SQLite keeps beside a database in WAL mode. */
const COMPANIONS = ['', '-wal', '-shm', '-journal'];

/**
 * Error raised when the cache folder is open to other users and cannot be made private; `code` ACCESS_DENIED, with
 * a hint. The index holds first prompts, previews and paths of the user's sessions.
 */
export class CacheFolderError extends Error {
  readonly code = 'ACCESS_DENIED';
  constructor(message: string, readonly hint: string) {
    super(message);
  }
}

/**
 * Makes the cache folder private (0700): a folder that already exists with wider modes is tightened when it is the
 * user's own. @throws CacheFolderError when it is someone else's, or cannot be changed.
 */
export function privateFolder(folder: string): void {
  const st = lstatSync(folder);
  if (!st.isDirectory()) throw new CacheFolderError(`The cache folder ${folder} is not a folder.`, 'Set sessions.cacheDir to a folder of your own.');
  if ((st.mode & 0o077) === 0) return;
  const uid = process.getuid?.();
  if (uid !== undefined && st.uid !== uid) {
    throw new CacheFolderError(`The cache folder ${folder} belongs to another user and is open to others (mode ${modeOf(st.mode)}): the search index (first prompts, previews, paths) is not written there.`, 'Set sessions.cacheDir to a folder of your own.');
  }
  try {
    chmodSync(folder, 0o700);
  } catch (err) {
    throw new CacheFolderError(`The cache folder ${folder} is open to others (mode ${modeOf(st.mode)}) and could not be made private (${(err as { code?: string }).code ?? 'error'}): the search index is not written there.`, `Run chmod 700 on it, or set sessions.cacheDir to a folder of your own.`);
  }
}

/** Creates the index file (and makes it and SQLite's companion files, when present) 0600. */
export function privateFiles(file: string): void {
  closeSync(openSync(file, 'a', 0o600));
  for (const suffix of COMPANIONS) {
    const f = file + suffix;
    try {
      const st = lstatSync(f);
      if (st.isFile() && (st.mode & 0o077) !== 0) chmodSync(f, 0o600);
    } catch { /* absent */ }
  }
}

/** Removes the index file and SQLite's companion files. */
export function removeIndexFiles(file: string): void {
  for (const suffix of COMPANIONS) rmSync(file + suffix, { force: true });
}

function modeOf(mode: number): string {
  return `0${(mode & 0o777).toString(8)}`;
}

/** Whether an error says the index file is damaged (SQLITE_CORRUPT, SQLITE_NOTADB, FTS5 corruption). */
export function isDamaged(err: unknown): boolean {
  const e = err as { code?: unknown; errcode?: unknown; message?: unknown } | null;
  if (e && typeof e.errcode === 'number' && [11, 26].includes(e.errcode & 0xff)) return true;
  return typeof e?.message === 'string' && /database disk image is malformed|file is not a database|fts5: corruption/i.test(e.message);
}

/** node:sqlite, loaded on first use (its one-time ExperimentalWarning goes to the server's log, at debug level). */
function sqlite(): typeof import('node:sqlite') {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('node:sqlite');
}

/**
 * The persistent index of the session history: sessions and their files' identities, entries, a full-text table
 * (SQLite FTS5, BM25 ranking, porter stemming) and int8 paragraph vectors. One SQLite file in the cache folder;
 * `:memory:` when the folder cannot be written.
 */
export class IndexStore {
  readonly db: DatabaseSync;
  readonly file: string;
  /** Changes with every write, so readers can tell their in-memory copies are stale. */
  generation = 0;
  private readonly stmts = new Map<string, StatementSync>();

  constructor(folder: string | null, readonly embedder: string, readonly dimensions: number) {
    const { DatabaseSync } = sqlite();
    let file = ':memory:';
    if (folder) {
      let made = false;
      try {
        mkdirSync(folder, { recursive: true, mode: 0o700 });
        made = true;
      } catch { /* read-only: in memory */ }
      if (made) {
        privateFolder(folder);
        file = path.join(folder, INDEX_FILE);
        privateFiles(file);
      }
    }
    let db: DatabaseSync;
    try {
      db = new DatabaseSync(file);
    } catch {
      file = ':memory:';
      db = new DatabaseSync(file);
    }
    try {
      this.init(db);
    } catch (err) {
      if (file === ':memory:' || !isDamaged(err)) throw err;
      // A damaged index (not a database, a corrupt page) is thrown away and built again: it only caches the history.
      try { db.close(); } catch { /* closed */ }
      removeIndexFiles(file);
      privateFiles(file);
      db = new DatabaseSync(file);
      this.init(db);
      this.rebuilt = true;
    }
    this.db = db;
    this.file = file;
  }

  /** Whether this store was found damaged when opened and started again empty. */
  rebuilt = false;

  private init(db: DatabaseSync): void {
    db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = 5000;');
    db.exec('CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT)');
    const version = `${SCHEMA_VERSION}|${this.embedder}|${this.dimensions}`;
    const current = (db.prepare('SELECT value FROM meta WHERE key = ?').get('version') as { value?: string } | undefined)?.value;
    if (current !== version) {
      db.exec('DROP TABLE IF EXISTS sessions; DROP TABLE IF EXISTS entries; DROP TABLE IF EXISTS vectors; DROP TABLE IF EXISTS fts;');
      db.prepare('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)').run('version', version);
    }
    db.exec(`
      CREATE TABLE IF NOT EXISTS sessions (
        id INTEGER PRIMARY KEY, source TEXT NOT NULL, path TEXT NOT NULL UNIQUE, session_id TEXT NOT NULL,
        project_name TEXT NOT NULL, project_path TEXT, first_prompt TEXT, first_prompt_cut INTEGER NOT NULL DEFAULT 0, files TEXT NOT NULL,
        records INTEGER NOT NULL, entries INTEGER NOT NULL, modified_ms REAL NOT NULL, complete INTEGER NOT NULL DEFAULT 0
      );
      CREATE TABLE IF NOT EXISTS entries (
        id INTEGER PRIMARY KEY, session INTEGER NOT NULL, idx INTEGER NOT NULL, role TEXT NOT NULL,
        uuid TEXT, ts TEXT, preview TEXT NOT NULL, preview_cut INTEGER NOT NULL DEFAULT 0, words INTEGER NOT NULL DEFAULT 0
      );
      CREATE INDEX IF NOT EXISTS entries_session ON entries (session);
      CREATE TABLE IF NOT EXISTS vectors (entry INTEGER PRIMARY KEY, n INTEGER NOT NULL, v BLOB NOT NULL);
      CREATE VIRTUAL TABLE IF NOT EXISTS fts USING fts5 (body, content = '', contentless_delete = 1, tokenize = 'porter unicode61');
      CREATE VIRTUAL TABLE IF NOT EXISTS fts_terms USING fts5vocab (fts, 'row');
    `);
    // Fewer, larger full-text segments: the terms of up to 16 MiB of text are kept in memory before a segment is
    // written (the default, 1 MiB, wrote one small segment per 64 entries and merged them again and again).
    db.exec(`INSERT INTO fts (fts, rank) VALUES ('hashsize', ${16 << 20})`);
    // A quick look at the pages the queries use: a damaged file fails here, not on some later call.
    db.prepare('SELECT count(*) AS n FROM sessions').get();
    db.prepare('SELECT count(*) AS n FROM vectors').get();
  }

  private dataVersion: number | null = null;

  /**
   * Bumps `generation` when another connection (another process: `mcpgw sessions index`, a second server) committed
   * changes since the last look (SQLite's `PRAGMA data_version`), so in-memory copies are read again.
   */
  sync(): void {
    const v = (this.stmt('PRAGMA data_version').get() as { data_version: number }).data_version;
    if (this.dataVersion !== null && v !== this.dataVersion) this.generation++;
    this.dataVersion = v;
  }

  private stmt(sql: string): StatementSync {
    let s = this.stmts.get(sql);
    if (!s) this.stmts.set(sql, (s = this.db.prepare(sql)));
    return s;
  }

  sessions(): IndexedSession[] {
    return (this.stmt('SELECT * FROM sessions').all() as Record<string, unknown>[]).map(rowToSession);
  }

  session(p: string): IndexedSession | undefined {
    const row = this.stmt('SELECT * FROM sessions WHERE path = ?').get(p) as Record<string, unknown> | undefined;
    return row ? rowToSession(row) : undefined;
  }

  /** Creates or updates a session row (its entries are added separately). */
  saveSession(s: Omit<IndexedSession, 'id'> & { id?: number }): number {
    const files = JSON.stringify(s.files);
    if (s.id !== undefined) {
      this.stmt('UPDATE sessions SET source = ?, session_id = ?, project_name = ?, project_path = ?, first_prompt = ?, first_prompt_cut = ?, files = ?, records = ?, entries = ?, modified_ms = ?, complete = ? WHERE id = ?')
        .run(s.source, s.sessionId, s.projectName, s.projectPath, s.firstPrompt?.text ?? null, cutFlag(s.firstPrompt), files, s.records, s.entries, s.modifiedMs, s.complete ? 1 : 0, s.id);
      this.generation++;
      return s.id;
    }
    const r = this.stmt('INSERT INTO sessions (source, path, session_id, project_name, project_path, first_prompt, first_prompt_cut, files, records, entries, modified_ms, complete) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)')
      .run(s.source, s.path, s.sessionId, s.projectName, s.projectPath, s.firstPrompt?.text ?? null, cutFlag(s.firstPrompt), files, s.records, s.entries, s.modifiedMs, s.complete ? 1 : 0);
    this.generation++;
    return Number(r.lastInsertRowid);
  }

  /** Removes a session and everything indexed from it. */
  dropSession(id: number): void {
    this.dropEntries(id, 0);
    this.stmt('DELETE FROM sessions WHERE id = ?').run(id);
    this.generation++;
  }

  /** Removes a session's entries from entry index `from` on (what a failed read added), with their words and vectors. */
  dropEntries(id: number, from: number): void {
    const ids = (this.stmt('SELECT id FROM entries WHERE session = ? AND idx >= ?').all(id, from) as { id: number }[]).map((r) => r.id);
    const delFts = this.stmt('DELETE FROM fts WHERE rowid = ?');
    const delVec = this.stmt('DELETE FROM vectors WHERE entry = ?');
    for (const e of ids) { delFts.run(e); delVec.run(e); }
    this.stmt('DELETE FROM entries WHERE session = ? AND idx >= ?').run(id, from);
    this.generation++;
  }

  /**
   * Adds one entry: its row (with `words`, its count of content words: the ranking's length prior), its words for
   * BM25, its paragraph vectors (int8 + float32 scale each, all of them in one row).
   */
  addEntry(e: Omit<IndexedEntry, 'id'>, body: string, vectors: { q: Int8Array; scale: number }[], words = 0): number {
    const r = this.stmt('INSERT INTO entries (session, idx, role, uuid, ts, preview, preview_cut, words) VALUES (?, ?, ?, ?, ?, ?, ?, ?)').run(e.session, e.idx, e.role, e.uuid, e.ts, e.preview.text, cutFlag(e.preview), words);
    const id = Number(r.lastInsertRowid);
    if (body) this.stmt('INSERT INTO fts (rowid, body) VALUES (?, ?)').run(id, body);
    if (vectors.length) {
      const row = this.dimensions + 4;
      const blob = Buffer.alloc(vectors.length * row);
      vectors.forEach((v, i) => {
        blob.set(new Uint8Array(v.q.buffer, v.q.byteOffset, v.q.length), i * row);
        blob.writeFloatLE(v.scale, i * row + this.dimensions);
      });
      this.stmt('INSERT INTO vectors (entry, n, v) VALUES (?, ?, ?)').run(id, vectors.length, blob);
    }
    this.written++;
    this.generation++;
    return id;
  }

  /** A value kept in the index's meta table (null when absent). */
  meta(key: string): string | null {
    return (this.stmt('SELECT value FROM meta WHERE key = ?').get(key) as { value?: string } | undefined)?.value ?? null;
  }

  setMeta(key: string, value: string): void {
    this.stmt('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)').run(key, value);
  }

  /** Transactions open: `transaction` inside another (or inside a batch) joins it. */
  private depth = 0;

  /** Runs `fn` in one transaction (much faster for many inserts); inside another one, as part of it. */
  transaction<T>(fn: () => T): T {
    if (this.depth > 0) return fn();
    this.db.exec('BEGIN');
    this.depth++;
    try {
      const out = fn();
      this.depth--;
      this.db.exec('COMMIT');
      return out;
    } catch (err) {
      this.depth--;
      this.db.exec('ROLLBACK');
      throw err;
    }
  }

  /**
   * Starts a write batch that spans many `transaction` calls (the index's update: a commit per batch of sessions,
   * not per 64 entries); `endBatch` commits it (or rolls it back, after a failure).
   */
  beginBatch(): void {
    if (this.depth > 0) return;
    this.db.exec('BEGIN');
    this.depth = 1;
  }

  endBatch(commit = true): void {
    if (this.depth !== 1 || !this.db.isTransaction) { this.depth = 0; return; }
    this.written = 0;
    this.db.exec(commit ? 'COMMIT' : 'ROLLBACK');
    this.depth = 0;
  }

  /** Entries added since the batch began (the update commits when enough are). */
  written = 0;

  entries(ids: readonly number[]): Map<number, IndexedEntry> {
    const out = new Map<number, IndexedEntry>();
    const get = this.stmt('SELECT * FROM entries WHERE id = ?');
    for (const id of ids) {
      const row = get.get(id) as (Omit<IndexedEntry, 'preview'> & { preview: string; preview_cut: number }) | undefined;
      if (row) out.set(id, { id: row.id, session: row.session, idx: row.idx, role: row.role, uuid: row.uuid, ts: row.ts, preview: marked(row.preview, row.preview_cut) });
    }
    return out;
  }

  /** Paragraph vectors (rows) and the entries they belong to. */
  vectorCounts(): { rows: number; entries: number } {
    const r = this.stmt('SELECT coalesce(sum(n), 0) AS rows, count(*) AS entries FROM vectors').get() as { rows: number; entries: number };
    return { rows: r.rows, entries: r.entries };
  }

  /**
   * Calls `fn` with every paragraph vector in entry order (int8 values, then the float32 scale, little-endian),
   * streaming: no array of every row is built. The bytes are only valid during the call.
   */
  eachVector(fn: (entry: number, v: Uint8Array) => void): void {
    const row = this.dimensions + 4;
    const s = this.stmt('SELECT entry, n, v FROM vectors ORDER BY entry');
    const each = (r: { entry: number; n: number; v: Uint8Array }) => {
      for (let i = 0; i < r.n && (i + 1) * row <= r.v.length; i++) fn(r.entry, r.v.subarray(i * row, (i + 1) * row));
    };
    if (typeof s.iterate === 'function') for (const r of s.iterate() as Iterable<{ entry: number; n: number; v: Uint8Array }>) each(r);
    else for (const r of s.all() as { entry: number; n: number; v: Uint8Array }[]) each(r);
  }

  /** Entry ids of each session. */
  entrySessions(): Map<number, number> {
    const out = new Map<number, number>();
    for (const r of this.stmt('SELECT id, session FROM entries').all() as { id: number; session: number }[]) out.set(r.id, r.session);
    return out;
  }

  /** Calls `fn` with every entry's id, session and count of content words (the ranking's length prior), streaming. */
  eachEntry(fn: (id: number, session: number, words: number) => void): void {
    const s = this.stmt('SELECT id, session, words FROM entries');
    if (typeof s.iterate === 'function') for (const r of s.iterate() as Iterable<{ id: number; session: number; words: number }>) fn(r.id, r.session, r.words);
    else for (const r of s.all() as { id: number; session: number; words: number }[]) fn(r.id, r.session, r.words);
  }

  private counted: { generation: number; n: number } | null = null;

  /** Entries in the index (counted once per generation). */
  entryCount(): number {
    if (this.counted?.generation !== this.generation) this.counted = { generation: this.generation, n: (this.stmt('SELECT count(*) AS n FROM entries').get() as { n: number }).n };
    return this.counted.n;
  }

  /**
   * BM25 ranking (best first) of the entries matching any of `terms`, at most `limit`. Terms found in more than
   * `maxShare` of the entries are left out: BM25 gives them almost no weight, and ranking every entry that holds a
   * common word is what would make a query slow (when every term is that common, there is no lexical side).
   */
  lexical(terms: readonly string[], limit: number, maxShare = 0.05): number[] {
    return this.lexicalScored(terms, limit, maxShare).map((r) => r.id);
  }

  /** {@link lexical} with each entry's BM25 score (higher is better: SQLite's `bm25()` negated). */
  lexicalScored(terms: readonly string[], limit: number, maxShare = 0.05): { id: number; score: number }[] {
    if (terms.length === 0) return [];
    const total = this.entryCount();
    const df = this.stmt('SELECT doc FROM fts_terms WHERE term = ?');
    // The table stores porter stems; a query term is looked up by the stem the tokenizer gives it.
    const kept = terms.filter((t) => {
      const stem = porterStem(t);
      const row = df.get(stem) as { doc?: number } | undefined;
      return total < 200 || (row?.doc ?? 0) <= total * maxShare;
    });
    if (kept.length === 0) return [];
    const match = kept.map((t) => `"${t.replace(/"/g, '""')}"`).join(' OR ');
    try {
      return (this.stmt('SELECT rowid, bm25(fts) AS s FROM fts WHERE fts MATCH ? ORDER BY bm25(fts) LIMIT ?').all(match, limit) as { rowid: number; s: number }[]).map((r) => ({ id: r.rowid, score: -r.s }));
    } catch {
      return [];
    }
  }

  close(): void {
    try { this.db.close(); } catch { /* closed */ }
  }
}

/** The stem SQLite's porter tokenizer gives `word` (looked up once per word through a tiny scratch table). */
const stems = new Map<string, string>();
let stemDb: DatabaseSync | null = null;
function porterStem(word: string): string {
  let s = stems.get(word);
  if (s !== undefined) return s;
  if (!stemDb) {
    stemDb = new (sqlite().DatabaseSync)(':memory:');
    stemDb.exec("CREATE VIRTUAL TABLE s USING fts5 (t, tokenize = 'porter unicode61'); CREATE VIRTUAL TABLE sv USING fts5vocab (s, 'row');");
  }
  stemDb.exec('DELETE FROM s');
  stemDb.prepare('INSERT INTO s (t) VALUES (?)').run(word);
  s = (stemDb.prepare('SELECT term FROM sv LIMIT 1').get() as { term?: string } | undefined)?.term ?? word;
  if (stems.size > 10_000) stems.clear();
  stems.set(word, s);
  return s;
}

function rowToSession(r: Record<string, unknown>): IndexedSession {
  return {
    id: r.id as number,
    source: r.source as string,
    path: r.path as string,
    sessionId: r.session_id as string,
    projectName: r.project_name as string,
    projectPath: (r.project_path as string | null) ?? null,
    firstPrompt: r.first_prompt == null ? null : marked(r.first_prompt as string, r.first_prompt_cut as number),
    files: JSON.parse(r.files as string) as IndexedFile[],
    records: r.records as number,
    entries: r.entries as number,
    modifiedMs: r.modified_ms as number,
    complete: r.complete === 1,
  };
}

/** 1 when a previewOf text ends with its `…` marker (the only marker it may have), else 0. */
function cutFlag(p: MarkedText | null): number {
  return p && p.markers.length ? 1 : 0;
}

/** A stored preview back as MarkedText: its `…` marker the last character when `cut`. */
function marked(text: string, cut: number): MarkedText {
  return { text, markers: cut ? [codePointLength(text) - 1] : [] };
}
