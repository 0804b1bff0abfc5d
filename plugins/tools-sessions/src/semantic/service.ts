import type { Embedder, ToolContext } from 'mcpgw/plugin-api';
import type { CatalogSession } from '../catalog';
import type { SourceHome } from '../homes';
import type { Located, SessionsService } from '../service';
import { SemanticEngine } from './engine';
import { gloveSifEmbedder } from './glove';
import { changeOf, indexSession, startOf } from './indexer';
import { cacheFolder, CacheFolderError, IndexStore, isDamaged, removeIndexFiles, type IndexedSession } from './store';
import { reason } from '../os-error';

/** The default embedder's name. */
export const DEFAULT_EMBEDDER = gloveSifEmbedder.name;

/**
 * Entries written between two commits of an update: one transaction per batch of sessions, not per 64 entries (a
 * commit per 64 entries wrote a small full-text segment each and was a third of the build's time).
 */
const COMMIT_ENTRIES = 20_000;

/** Outcome of bringing the index up to date. */
export interface UpdateReport {
  /** Sessions in the index now (read to their end). */
  indexed: number;
  /** Sessions read (or continued) by this update. */
  updated: number;
  /** Sessions not (completely) read before the deadline. */
  pending: number;
  /** Sessions that could not be read, with why. */
  failed: { path: string; message: string }[];
}

/**
 * The persistent search index of the history and its query engine: one per embedder, opened on first use in the
 * cache folder. Updates are incremental: an unchanged session is not read, a grown one is read from where it
 * stopped, anything else is read again.
 */
/** Where a background build stands (see `SemanticIndex.refresh`). */
export interface BuildReport extends UpdateReport {
  /** The build finished before the call's deadline (else it goes on after the call). */
  finished: boolean;
  /** Sessions looked at so far, of `total`. */
  done: number;
  total: number;
  /** Estimated ms until the build finishes (from its pace so far, by bytes); null when finished or not known yet. */
  remainingMs: number | null;
}

/** A build that outlives the call that started it. */
interface Build {
  promise: Promise<UpdateReport>;
  live: UpdateReport;
  controller: AbortController;
  /** The progress callbacks of the calls waiting for it now. */
  waiters: Set<ToolContext['progress']>;
  done: number;
  total: number;
  startedAt: number;
  /** Bytes of the sessions looked at so far, and of all of them (for the estimate). */
  bytesDone: number;
  bytesTotal: number;
}

export class SemanticIndex {
  readonly store: IndexStore;
  readonly engine: SemanticEngine;
  private updating: Promise<UpdateReport> | null = null;
  private build: Build | null = null;

  constructor(readonly embedder: Embedder, cacheDir: string | null) {
    this.store = new IndexStore(cacheDir, embedder.name, embedder.dimensions);
    this.engine = new SemanticEngine(this.store, embedder);
  }

  /**
   * Indexes what changed among `sessions` (newest first) until `deadline`, reporting progress (sessions done of
   * sessions to check); sessions no longer listed are removed. Concurrent calls share one update.
   */
  update(ctx: ToolContext, service: SessionsService, homes: readonly SourceHome[], sessions: readonly CatalogSession[], deadline: number, prune = true, report?: UpdateReport): Promise<UpdateReport> {
    this.updating ??= this.run(ctx, service, homes, sessions, deadline, prune, report).finally(() => { this.updating = null; });
    return this.updating;
  }

  /**
   * Brings the index up to date for a tool call. The update runs in the background, one at a time and not bound to
   * the call: a call that returns before it is done leaves it running (its work is committed in batches), so the
   * next call finds it further on instead of starting again. The call waits for it until `deadline` (or until the
   * call is cancelled), receiving its progress notifications; the report says whether it finished and, if not, where
   * it stands and about how long it needs.
   */
  async refresh(ctx: ToolContext, service: SessionsService, homes: readonly SourceHome[], sessions: readonly CatalogSession[], deadline: number): Promise<BuildReport> {
    let b = this.build;
    if (!b) {
      const controller = new AbortController();
      const bytesOf = (s: CatalogSession) => (s.fileStats ?? []).reduce((n, f) => n + f.size, 0);
      const built: Build = {
        promise: Promise.resolve(null as never), live: { indexed: 0, updated: 0, pending: 0, failed: [] }, controller, waiters: new Set(),
        done: 0, total: sessions.length, startedAt: ctx.clock.now(), bytesDone: 0, bytesTotal: sessions.reduce((n, s) => n + bytesOf(s), 0),
      };
      const progress: ToolContext['progress'] = (done, total, message) => {
        if (done > built.done && done <= sessions.length) for (let i = built.done; i < done; i++) built.bytesDone += bytesOf(sessions[i]!);
        built.done = done;
        built.total = total ?? built.total;
        for (const w of built.waiters) w(done, total, message);
      };
      // Not the call's signal, deadline or progress: the build belongs to the index, not to the call.
      const detached: ToolContext = { ...ctx, signal: controller.signal, deadline: Number.POSITIVE_INFINITY, progress };
      built.promise = this.update(detached, service, homes, sessions, Number.POSITIVE_INFINITY, true, built.live);
      built.promise.then(() => { if (this.build === built) this.build = null; }, (err) => {
        if (this.build === built) this.build = null;
        ctx.log.debug('semantic index: the background build stopped', { error: String(err) });
      });
      this.build = b = built;
    }
    const build = b;
    build.waiters.add(ctx.progress);
    ctx.progress(build.done, build.total, 'indexing sessions');
    let timer: { cancel(): void } | null = null;
    let onAbort: (() => void) | null = null;
    try {
      const waited = await Promise.race([
        build.promise.then((r) => ({ finished: true as const, report: r })),
        new Promise<{ finished: false }>((resolve) => {
          timer = ctx.clock.setTimeout(() => resolve({ finished: false }), Math.max(0, deadline - ctx.clock.now()));
          onAbort = () => resolve({ finished: false });
          ctx.signal.addEventListener('abort', onAbort, { once: true });
        }),
      ]);
      if (waited.finished) return { ...waited.report, finished: true, done: build.total, total: build.total, remainingMs: null };
    } finally {
      build.waiters.delete(ctx.progress);
      (timer as { cancel(): void } | null)?.cancel();
      if (onAbort) ctx.signal.removeEventListener('abort', onAbort);
    }
    const live = build.live;
    const elapsed = ctx.clock.now() - build.startedAt;
    const remainingMs = build.bytesDone > 0 && elapsed > 0 ? Math.round((elapsed * (build.bytesTotal - build.bytesDone)) / build.bytesDone) : null;
    return { ...live, failed: [...live.failed], pending: Math.max(0, build.total - live.indexed - live.failed.length), finished: false, done: build.done, total: build.total, remainingMs };
  }

  /** `prune`: `sessions` is the whole history, so stored sessions not in it are dropped. `report`: filled as it goes. */
  private async run(ctx: ToolContext, service: SessionsService, homes: readonly SourceHome[], sessions: readonly CatalogSession[], deadline: number, prune: boolean, report: UpdateReport = { indexed: 0, updated: 0, pending: 0, failed: [] }): Promise<UpdateReport> {
    this.store.sync();
    const stored = new Map(this.storedSessions().map((s) => [s.path, s]));
    const listed = new Set(sessions.map((s) => s.path));
    this.store.beginBatch();
    let failed = true;
    try {
      if (prune) for (const [p, s] of stored) if (!listed.has(p)) { this.store.dropSession(s.id); stored.delete(p); }
      await this.each(ctx, service, homes, sessions, deadline, stored, report);
      failed = false;
    } finally {
      // Committed after a failure too (a cancelled call): a session whose reading failed took back what it had
      // written (indexSession), so what the batch holds is whole sessions.
      try {
        this.store.endBatch(true);
      } catch (err) {
        this.store.endBatch(false);
        if (!failed) throw err;
      }
    }
    ctx.progress(sessions.length, sessions.length, 'indexed');
    return report;
  }

  private async each(ctx: ToolContext, service: SessionsService, homes: readonly SourceHome[], sessions: readonly CatalogSession[], deadline: number, stored: Map<string, IndexedSession>, report: UpdateReport): Promise<void> {
    let done = 0;
    for (const s of sessions) {
      if (this.store.written >= COMMIT_ENTRIES) { this.store.endBatch(true); this.store.beginBatch(); }
      ctx.progress(done++, sessions.length, 'indexing sessions');
      const old = stored.get(s.path);
      const change = changeOf(old, s.files, s.fileStats);
      if (change.kind === 'same' && old?.complete) { report.indexed++; continue; }
      if (ctx.clock.now() > deadline || ctx.signal.aborted) { report.pending++; continue; }
      const home = homes.find((h) => h.source.name === s.source);
      if (!home) continue;
      const located: Located = { session: s, home, source: home.source };
      let from = change.kind === 'grown' || (change.kind === 'same' && old) ? old!.records : 0;
      if (change.kind === 'new' && old) { this.store.dropSession(old.id); from = 0; }
      try {
        const files = await service.open(ctx, located, from > 0 && old ? startOf(old) : undefined);
        try {
          const finished = await indexSession(this.store, {
            source: home.source, path: s.path, files: s.files, sessionId: s.id, projectName: s.projectName, projectPath: s.projectPath, modifiedMs: s.mtimeMs,
          }, files, from > 0 ? old : undefined, from, { embedder: this.embedder, deadline, now: () => ctx.clock.now(), signal: ctx.signal });
          report.updated++;
          if (finished) report.indexed++; else report.pending++;
        } finally {
          files.close();
        }
      } catch (err) {
        if ((err as { code?: string }).code === 'CANCELLED') throw err;
        report.failed.push({ path: s.path, message: reason(err) });
        ctx.log.debug('semantic index: a session could not be read', { path: s.path, error: String(err) });
      }
    }
  }

  private rows: { generation: number; all: IndexedSession[] } | null = null;

  /** The stored sessions (read once per store generation; another process's writes are seen after `invalidate`). */
  private storedSessions(): IndexedSession[] {
    if (!this.rows || this.rows.generation !== this.store.generation) this.rows = { generation: this.store.generation, all: this.store.sessions() };
    return this.rows.all;
  }

  /** Stored sessions by row id, restricted to the paths listed now. */
  sessionsByRow(paths: ReadonlySet<string>): Map<number, IndexedSession> {
    return new Map(this.storedSessions().filter((s) => paths.has(s.path)).map((s) => [s.id, s]));
  }

  /** Stops a background build (it ends at its next record) and closes the store. */
  close(): void {
    this.build?.controller.abort();
    this.build = null;
    this.store.close();
  }
}

/** The extension point embedders are provided to (`context.provide('embedder', embedder)`). */
export const EMBEDDER_POINT = 'embedder';

/** The index for the configured embedder, opened once per plugin instance. @throws when the embedder is unknown. */
export function semanticIndexFor(ctx: Pick<ToolContext, 'registry' | 'error'>, cacheDir: string | undefined, embedderName: string | undefined, cache: Map<string, SemanticIndex>): SemanticIndex {
  const name = embedderName ?? DEFAULT_EMBEDDER;
  let embedder: Embedder | undefined = ctx.registry.extensions<Embedder>(EMBEDDER_POINT).get(name);
  if (!embedder && name === DEFAULT_EMBEDDER) embedder = gloveSifEmbedder;
  if (!embedder) {
    const known = ctx.registry.extensions<Embedder>(EMBEDDER_POINT).list().map((e) => e.name).join(', ') || DEFAULT_EMBEDDER;
    throw ctx.error('INVALID_ARGUMENT', `The configured embedder ${JSON.stringify(name)} is not registered.`, { hint: `Registered embedders: ${known}. Set sessions.embedder in the config.` });
  }
  let index = cache.get(name);
  if (!index) {
    try {
      index = new SemanticIndex(embedder, cacheFolder(cacheDir));
    } catch (err) {
      if (err instanceof CacheFolderError) throw ctx.error('ACCESS_DENIED', err.message, { hint: err.hint });
      throw err;
    }
    cache.set(name, index);
  }
  return index;
}

/**
 * Runs `fn` on the configured index; when the index file turns out damaged on the way (a corrupt page, a file that
 * is not a database), it is thrown away and `fn` runs once more on a new, empty index (it only caches the history).
 */
export async function withSemanticIndex<T>(ctx: Pick<ToolContext, 'registry' | 'error' | 'log'>, cacheDir: string | undefined, embedderName: string | undefined, cache: Map<string, SemanticIndex>, fn: (index: SemanticIndex) => Promise<T>): Promise<T> {
  const index = semanticIndexFor(ctx, cacheDir, embedderName, cache);
  try {
    return await fn(index);
  } catch (err) {
    if (!isDamaged(err)) throw err;
    ctx.log.warn('the session search index is damaged: it is built again', { file: index.store.file });
    index.close();
    for (const [k, v] of cache) if (v === index) cache.delete(k);
    if (index.store.file !== ':memory:') removeIndexFiles(index.store.file);
    return fn(semanticIndexFor(ctx, cacheDir, embedderName, cache));
  }
}
