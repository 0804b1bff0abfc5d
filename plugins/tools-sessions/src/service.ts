import { realpathSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { availableParallelism } from 'node:os';
import type { FileAccess, RawFile, SessionSource, ToolContext } from 'mcpgw/plugin-api';
import { catalogOf, discover, type Catalog, type CatalogSession, type Discovery } from './catalog';
import { registeredSources, sourceHomes, type SessionsOptions, type SourceHome } from './homes';
import { SessionFiles, type Replay, type StartAt } from './session/files';
import { codexSource, codexSuperseded } from './sources/codex';
import { geminiSource, geminiSuperseded } from './sources/gemini';
import { kimiSource, kimiUsageFiles } from './sources/kimi';
import { mergeHints, safeNormalize, usageList } from './session/summary';
import { emptySummary, extendSummary, type SessionSummary } from './session/summary';
import type { StatsDetail } from './usage';
import { digestBuffer, digestOfSummary, digestReads, digestSession, type DigestJob, type DigestRead, type SessionDigest } from './session/digest';
import { DigestThreads } from './session/digest-threads';
import type { SemanticIndex } from './semantic/service';
import { sessionPathError } from './os-error';
import { shownText } from './text';
import { StatsStore } from './stats-store';
import { cacheFolder } from './semantic/store';

/**
 * A discovery (the sources' folder listing) is reused while the folders it looked into keep their modification times
 * — a session file created, removed or renamed changes its folder's — and listed again when one changed, on demand
 * (`forgetCatalog`), or after CATALOG_MAX_AGE_MS (what only files' contents say, such as a project's folder read from
 * its sessions' first lines). A folder modified less than RACY_MS before its listing began may have changed again
 * within the same tick of its file system's clock, unseen: such a listing is reused for CATALOG_TTL_MS at most.
 */
const CATALOG_TTL_MS = 2000;
const RACY_MS = 2000;
const CATALOG_MAX_AGE_MS = 60_000;
/** Entries kept in summaries across sessions (about 250 bytes each). */
const SUMMARY_BUDGET = 400_000;

/** Characters of digests' details kept in memory (the rest is read from disk when a call needs it). */
const DETAIL_BUDGET = 8_000_000;

/** Sessions to read ahead from which the digest reader takes engine threads (fewer are read here). */
const READ_AHEAD_THREADED = 8;
/** Sessions and bytes of one batch sent to a digest thread (at least one session). */
const BATCH_SESSIONS = 24;
const BATCH_BYTES = 4 * 1024 * 1024;

/** A session's digest job and the files it opened. */
interface OpenedDigest {
  job: DigestJob;
  files: RawFile[];
}

/** A session's digest keys (see SessionsService.digestKeys). */
interface DigestKeys {
  id: string;
  key: string;
  diskKey: string;
  /** Files beside the session that add to its usage. */
  extra: string[];
}

/** Built-in sources that keep token usage in files beside a session's own (Kimi: `wire.jsonl`). */
const USAGE_FILES = new Map<SessionSource, (sessionPath: string) => string[]>([[kimiSource, kimiUsageFiles]]);

/** Built-in sources whose records can replace earlier ones, and how (see `Replay`). */
const REPLAYS = new Map<SessionSource, Replay>([[geminiSource, geminiSuperseded], [codexSource, codexSuperseded]]);

/** A session located from a `path` argument. */
export interface Located {
  session: CatalogSession;
  home: SourceHome;
  source: SessionSource;
}

/**
 * The bundle's state shared by its tools (server-wide: the history is the user's, not the connection's): the homes,
 * a short-lived discovery cache, and per-session summaries keyed by the files' identities (a changed file is read again).
 */
export class SessionsService {
  private discovery: DiscoveryEntry | null = null;
  private readonly summaries = new Map<string, { key: string; summary: SessionSummary }>();
  private summaryWeight = 0;
  /** Digests per session (small: one item per response and tool call), kept while the files are unchanged. */
  private readonly stats = new Map<string, { key: string; stats: SessionDigest }>();
  /** Recently read digests' details (StatsDetail as JSON text), the oldest dropped past DETAIL_BUDGET characters. */
  private readonly details = new Map<string, { key: string; detail: string }>();
  private detailChars = 0;
  /** Sessions (id and key) the digest reader cannot read: their summary gives their digest. */
  private readonly declined = new Set<string>();
  /** The digest reader's buffer on this thread (when no engine thread reads). */
  private scratch: { buf: Buffer } | undefined;

  private readonly indexes = new Map<string, SemanticIndex>();
  /** Usage statistics kept on disk between server processes (undefined: not opened yet; null: off). */
  private statsDisk: StatsStore | null | undefined;
  /** Sessions whose stats were read from their files, and taken from the disk store, since the last `finishStats`. */
  private counts = { read: 0, kept: 0 };
  /** Replaced record positions of sessions read whole, by the files' identity (see `open`). */
  private readonly replaced = new Map<string, ReadonlySet<number>>();

  constructor(readonly options: SessionsOptions, private readonly env: NodeJS.ProcessEnv = process.env) {}

  /** The semantic index of the configured embedder (opened in the cache folder on first use). */
  semantic(ctx: Pick<ToolContext, 'registry' | 'error'>): SemanticIndex {
    // The semantic index (its engine, store and ranking) is loaded on first use, not at start-up.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { semanticIndexFor } = require('./semantic/service') as typeof import('./semantic/service');
    return semanticIndexFor(ctx, this.options.cacheDir, this.options.embedder, this.indexes);
  }

  /** Runs `fn` on the semantic index; a damaged index file is thrown away and built again (`fn` runs once more). */
  withSemantic<T>(ctx: Pick<ToolContext, 'registry' | 'error' | 'log'>, fn: (index: SemanticIndex) => Promise<T>): Promise<T> {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { withSemanticIndex } = require('./semantic/service') as typeof import('./semantic/service');
    return withSemanticIndex(ctx, this.options.cacheDir, this.options.embedder, this.indexes, fn);
  }

  /** The enabled sources with their homes. */
  homes(ctx: Pick<ToolContext, 'registry'>): SourceHome[] {
    return sourceHomes(registeredSources(ctx), this.options, this.env);
  }

  /** File access confined to the available homes. @throws INTERNAL_ERROR on a kernel without `FileAccess.within`. */
  files(ctx: Pick<ToolContext, 'files' | 'error'>, homes: readonly SourceHome[]): FileAccess {
    // The homes as configured: a session listed under a home that is a symbolic link (~/.claude linked to a dotfiles
    // folder) is routed by that path; each wall still decides on real paths.
    return ctx.files.within(homes.filter((h) => h.available).map((h) => h.home));
  }

  /**
   * Every project and session, the files looked at now; the sources' folder listing is reused while its folders are
   * unchanged (see CATALOG_TTL_MS).
   */
  async catalog(ctx: Pick<ToolContext, 'registry' | 'signal' | 'log' | 'clock'>, homes = this.homes(ctx)): Promise<Catalog> {
    const key = homes.map((h) => `${h.source.name}=${h.realHome ?? ''}`).join('\n');
    const now = ctx.clock.now();
    if (!this.discovery || this.discovery.key !== key || !(await this.reusable(this.discovery, now))) {
      const found = discover(homes, { signal: ctx.signal, log: ctx.log });
      const entry: DiscoveryEntry = { key, at: now, found, folders: null, settled: false };
      this.discovery = entry;
      found.then((d) => {
        entry.folders = folderTimes(d);
        entry.settled = [...entry.folders.values()].every((mtime) => mtime < entry.at - RACY_MS);
      }, () => { if (this.discovery === entry) this.discovery = null; });
    }
    return catalogOf(await this.discovery.found);
  }

  /** Whether a discovery may be reused at `now`: young enough, and the folders it looked into as they were. */
  private async reusable(d: DiscoveryEntry, now: number): Promise<boolean> {
    await d.found.catch(() => undefined);
    if (!d.folders) return false;
    const age = now - d.at;
    if (age < 0 || age >= CATALOG_MAX_AGE_MS || (!d.settled && age >= CATALOG_TTL_MS)) return false;
    for (const [folder, mtime] of d.folders) if (mtimeOf(folder) !== mtime) return false;
    return true;
  }

  /** Forgets the folder listing (after a session file was not found where the listing put it). */
  forgetCatalog(): void {
    this.discovery = null;
  }

  /**
   * The session a `path` argument names: the file must lie inside an available home (ACCESS_DENIED otherwise, without
   * saying whether it exists) and be a file of a listed session (any of its files). Any other file under a home — the
   * prompt history, settings, a `.env` — is never opened: ACCESS_DENIED (the session tools read only session files).
   * @throws McpgwError ACCESS_DENIED, NOT_FOUND, INVALID_ARGUMENT
   */
  async locate(ctx: ToolContext, input: string): Promise<Located> {
    const homes = this.homes(ctx).filter((h) => h.available);
    const real = resolveInHomes(ctx, homes, input);
    const home = homes.find((h) => inside(real, h.realHome!))!;
    for (let attempt = 0; attempt < 2; attempt++) {
      const catalog = await this.catalog(ctx);
      for (const p of catalog.projects) {
        if (p.source !== home.source.name) continue;
        for (const s of p.sessions) {
          if (s.files.some((f) => f === input || f === real || realOf(f) === real)) return { session: s, home, source: home.source };
        }
      }
      if (attempt === 0) this.forgetCatalog();
    }
    let st;
    try {
      st = statSync(real);
    } catch (err) {
      throw sessionPathError(ctx, err, cut(input));
    }
    if (!st.isFile()) throw ctx.error('INVALID_ARGUMENT', `${cut(input)} is not a file.`, { hint: 'Give a session file path as list_sessions returns it.' });
    throw ctx.error('ACCESS_DENIED', `${cut(input)} is not a session file of ${home.source.name}: the session tools read only session files.`, {
      hint: 'list_sessions gives the session paths.',
    });
  }

  /**
   * Opens a session's files through the kernel (from a resume point: only what follows it is read). For a source whose
   * records can replace earlier ones, the replaced positions found by a whole read are kept while the files are
   * unchanged, so that a later open does not read the session twice.
   */
  async open(ctx: ToolContext, located: Located, startAt?: StartAt): Promise<SessionFiles> {
    const replay = REPLAYS.get(located.source);
    const key = replay ? `${located.source.name}\n${identityKey(located.session)}` : '';
    const known = replay ? this.replaced.get(key) : undefined;
    const files = await SessionFiles.open(this.files(ctx, [located.home]), located.session.files, located.source.layout, ctx.signal, startAt, known ?? replay);
    if (replay && !known && !startAt) {
      if (this.replaced.size >= 2000) this.replaced.delete(this.replaced.keys().next().value!);
      this.replaced.set(key, files.replaced);
    }
    return files;
  }

  /**
   * The session's summary, read once and kept while its files are unchanged; a build stopped by the deadline is kept
   * and continued by the next call (`complete: false` until then).
   */
  async summary(ctx: ToolContext, located: Located, deadline = ctx.deadline): Promise<SessionSummary> {
    const extra = USAGE_FILES.get(located.source)?.(located.session.path) ?? [];
    const key = identityKey(located.session) + extra.map((f) => `|${f}:${statKey(f)}`).join('');
    const id = `${located.source.name}\n${located.session.path}`;
    const cached = this.summaries.get(id);
    if (cached && cached.key === key && cached.summary.complete) {
      this.summaries.delete(id);
      this.summaries.set(id, cached); // most recently used last
      return cached.summary;
    }
    const summary = cached && cached.key === key ? cached.summary : emptySummary();
    if (cached) { this.summaries.delete(id); this.summaryWeight -= cached.summary.weight; }
    const files = await this.open(ctx, located);
    try {
      await extendSummary(summary, files, located.source, deadline, () => ctx.clock.now(), ctx.signal);
    } finally {
      files.close();
    }
    if (summary.complete) for (const f of extra) await this.addUsageFrom(ctx, located, f, summary);
    this.summaries.set(id, { key, summary });
    this.summaryWeight += summary.weight;
    while (this.summaryWeight > SUMMARY_BUDGET && this.summaries.size > 1) {
      const [oldest, entry] = this.summaries.entries().next().value!;
      this.summaries.delete(oldest);
      this.summaryWeight -= entry.summary.weight;
    }
    return summary;
  }

  /**
   * The session's digest (its usage statistics, start, title and first prompt): from the kept ones, else read now — by
   * the digest reader (session/digest.ts) for a built-in source, else from its summary (until `deadline`); undefined
   * when the summary is not complete by then (the next call continues it).
   */
  async sessionStats(ctx: ToolContext, located: Located, deadline: number): Promise<SessionDigest | undefined> {
    const keys = this.digestKeys(located);
    const kept = this.keptDigest(ctx, keys);
    if (kept) return kept;
    return (await this.readSession(ctx, located, keys, deadline))?.digest;
  }

  /**
   * The session's digest read now by the digest reader, here (not kept): what sessionStats keeps for a built-in source;
   * undefined when the reader cannot give it (then its summary does: `digestOfSummary`).
   */
  digestNow(ctx: ToolContext, located: Located): Promise<DigestRead | undefined> {
    return this.readDigest(ctx, located);
  }

  /** The session's digest when kept (in memory or on disk), without reading the session. */
  keptStats(ctx: Pick<ToolContext, 'log'>, located: Located): SessionDigest | undefined {
    return this.keptDigest(ctx, this.digestKeys(located));
  }

  /**
   * The session's responses and tool calls one by one (its stats' detail): kept in memory, else on disk, else read
   * again; undefined when its summary is not complete by `deadline`.
   */
  async statsDetail(ctx: ToolContext, located: Located, deadline: number): Promise<StatsDetail | undefined> {
    const keys = this.digestKeys(located);
    const inMemory = this.details.get(keys.id);
    let text = inMemory && inMemory.key === keys.key ? inMemory.detail : undefined;
    if (text === undefined && this.keptDigest(ctx, keys)) text = this.statsDiskStore(ctx)?.detail(keys.id, keys.diskKey);
    text ??= (await this.readSession(ctx, located, keys, deadline))?.detail;
    return text === undefined ? undefined : (JSON.parse(text) as StatsDetail);
  }

  /** A session read now: by the digest reader for a built-in source, else from its summary (until `deadline`); kept. */
  private async readSession(ctx: ToolContext, located: Located, keys: DigestKeys, deadline: number): Promise<DigestRead | undefined> {
    if (!this.declined.has(`${keys.id}\n${keys.key}`) && digestReads(located.source)) {
      const read = await this.readDigest(ctx, located);
      if (read) return this.keepDigest(ctx, keys, read);
    }
    const summary = await this.summary(ctx, located, deadline);
    if (!summary.complete) return undefined;
    return this.keepDigest(ctx, keys, digestOfSummary(summary));
  }

  /**
   * Reads ahead the digests of `sessions` not kept yet, on the engine's threads where it has them (both cores), until
   * `deadline` or the end; what is read is kept as sessionStats keeps it (and written to disk), so that the calls
   * that follow find it. Sessions the digest reader cannot read are left to sessionStats. `progress`: sessions whose
   * digest is kept (of `sessions`).
   */
  async readAhead(ctx: ToolContext, sessions: readonly Located[], deadline: number, progress?: (done: number) => void, started: DigestThreads | null = null): Promise<void> {
    const todo: { located: Located; keys: DigestKeys }[] = [];
    for (const located of sessions) {
      if (!digestReads(located.source)) continue;
      const keys = this.digestKeys(located);
      if (this.declined.has(`${keys.id}\n${keys.key}`) || this.keptDigest(ctx, keys)) continue;
      todo.push({ located, keys });
    }
    if (!todo.length) {
      started?.close();
      return;
    }
    const threads = started ?? (todo.length >= READ_AHEAD_THREADED ? this.digestThreads(ctx) : null);
    let finished = sessions.length - todo.length;
    const more = () => ctx.clock.now() < deadline && !ctx.signal.aborted;
    // One confined file access a home for the whole read (not one a session).
    const access = new Map<SourceHome, FileAccess>();
    const accessOf = (home: SourceHome) => {
      let a = access.get(home);
      if (!a) access.set(home, (a = this.files(ctx, [home])));
      return a;
    };
    const done = (keys: DigestKeys, read: DigestRead | undefined) => {
      if (read) this.keepDigest(ctx, keys, read);
      progress?.(++finished);
    };
    try {
      if (!threads) {
        for (const { located, keys } of todo) {
          if (!more()) break;
          done(keys, await this.readDigest(ctx, located, accessOf(located.home)));
          await new Promise((r) => setImmediate(r));
        }
        return;
      }
      // Largest sessions first, so that the last batches are small and neither thread waits long for the other; a
      // batch is several sessions, one message each way.
      todo.sort((a, b) => b.located.session.size - a.located.session.size);
      let next = 0;
      const lane = async () => {
        while (next < todo.length && more()) {
          const batch: typeof todo = [];
          let bytes = 0;
          while (next < todo.length && batch.length < BATCH_SESSIONS && (batch.length === 0 || bytes + todo[next]!.located.session.size <= BATCH_BYTES)) {
            bytes += todo[next]!.located.session.size;
            batch.push(todo[next++]!);
          }
          const opened = batch.map(({ located, keys }) => this.openDigest(ctx, located, keys, accessOf(located.home)));
          const sent = opened.filter((o): o is OpenedDigest => o !== undefined);
          const answers = sent.length ? await threads.digest(sent.map((o) => o.job), sent.flatMap((o) => o.files)) : [];
          let k = 0;
          batch.forEach(({ keys }, i) => done(keys, opened[i] ? this.settleDigest(keys, answers[k++]) : undefined));
        }
      };
      // Two batches in hand per thread, so that none waits for the next while the main thread takes an answer.
      await Promise.all(Array.from({ length: threads.size * 2 }, lane));
    } finally {
      threads?.close();
      try {
        this.statsDisk?.flush();
      } catch (err) {
        this.statsOff(ctx, err);
      }
    }
  }

  /**
   * Digest threads taken now, before the sessions are listed, when nothing is kept yet (no digest in memory, none on
   * disk: the first read of a history), so that they start while the main thread lists; null otherwise (readAhead takes
   * them when it has enough to read). Give them to readAhead, or `close()` them.
   */
  digestThreadsEarly(ctx: ToolContext): DigestThreads | null {
    if (this.stats.size > 0 || (this.statsDiskStore(ctx)?.size ?? 0) > 0) return null;
    return this.digestThreads(ctx);
  }

  private digestThreads(ctx: ToolContext): DigestThreads | null {
    return DigestThreads.start(ctx.scan, Math.min(2, availableParallelism()));
  }

  /** The memory and disk keys of a session's digest: its files' identities (and the files beside it). */
  private digestKeys(located: Located): DigestKeys {
    const extra = USAGE_FILES.get(located.source)?.(located.session.path) ?? [];
    const key = identityKey(located.session) + extra.map((f) => `|${f}:${statKey(f)}`).join('');
    const id = `${located.source.name}\n${located.session.path}`;
    // On disk, the key also holds each file's change time (a rewrite that puts size and modification time back).
    const diskKey = `${key}|${(located.session.fileStats ?? []).map((f) => `${f.dev}:${f.ino}:${f.ctimeMs}`).join(',')}`;
    return { id, key, diskKey, extra };
  }

  /** The digest kept in memory, else on disk (then kept in memory too), or undefined. */
  private keptDigest(ctx: Pick<ToolContext, 'log'>, keys: DigestKeys): SessionDigest | undefined {
    const kept = this.stats.get(keys.id);
    if (kept && kept.key === keys.key) return kept.stats;
    const stored = this.statsDiskStore(ctx)?.get(keys.id, keys.diskKey);
    if (!stored) return undefined;
    this.stats.set(keys.id, { key: keys.key, stats: stored });
    this.counts.kept++;
    return stored;
  }

  private keepDigest(ctx: Pick<ToolContext, 'log'>, keys: DigestKeys, read: DigestRead): DigestRead {
    this.stats.set(keys.id, { key: keys.key, stats: read.digest });
    this.details.delete(keys.id);
    this.details.set(keys.id, { key: keys.key, detail: read.detail });
    this.detailChars += read.detail.length;
    while (this.detailChars > DETAIL_BUDGET && this.details.size > 1) {
      const [oldest, entry] = this.details.entries().next().value!;
      this.details.delete(oldest);
      this.detailChars -= entry.detail.length;
    }
    this.counts.read++;
    try {
      this.statsDiskStore(ctx)?.set(keys.id, keys.diskKey, read.digest, read.detail);
    } catch (err) {
      this.statsOff(ctx, err);
    }
    return read;
  }

  /**
   * A session's digest read by the digest reader, here. Undefined when it cannot be read so (a file the kernel will not
   * open raw, a read that failed, a session only its summary can give: remembered, so that it is not tried again while
   * unchanged).
   */
  private async readDigest(ctx: ToolContext, located: Located, access = this.files(ctx, [located.home])): Promise<DigestRead | undefined> {
    const keys = this.digestKeys(located);
    const opened = this.openDigest(ctx, located, keys, access);
    if (!opened) return undefined;
    let digest: DigestRead | null | undefined;
    try {
      digest = digestSession(opened.job, (this.scratch ??= digestBuffer()));
    } catch {
      digest = undefined;
    } finally {
      for (const f of opened.files) f.close();
    }
    return this.settleDigest(keys, digest);
  }

  /** A session's digest job with its files opened raw (`files`: to close once read), or undefined when one cannot be. */
  private openDigest(ctx: ToolContext, located: Located, keys: DigestKeys, access: FileAccess): OpenedDigest | undefined {
    if (!access.openRaw) return undefined;
    const opened: RawFile[] = [];
    let extra: (RawFile | null)[];
    try {
      for (const f of located.session.files) opened.push(access.openRaw(f));
      extra = keys.extra.map((f) => { try { return access.openRaw!(f); } catch { return null; } });
    } catch {
      for (const f of opened) f.close();
      return undefined;
    }
    const job: DigestJob = {
      source: located.source.name,
      lines: /\.jsonl$/i.test(located.session.files[0] ?? ''),
      files: opened.map((f) => ({ fd: f.fd, size: f.size })),
      extra: extra.map((f) => (f ? { fd: f.fd, size: f.size } : null)),
      limits: { maxRecordBytes: ctx.limits.maxRecordBytes, maxDepth: ctx.limits.maxDepth, ...(typeof ctx.limits.maxFileBytes === 'number' ? { maxFileBytes: ctx.limits.maxFileBytes } : {}) },
    };
    return { job, files: [...opened, ...extra.filter((f): f is RawFile => f !== null)] };
  }

  /** A digest reader's answer: null (only the summary can give it) is remembered; undefined when there is none. */
  private settleDigest(keys: DigestKeys, digest: DigestRead | null | undefined): DigestRead | undefined {
    if (digest === null) {
      if (this.declined.size >= 10_000) this.declined.clear();
      this.declined.add(`${keys.id}\n${keys.key}`);
    }
    return digest ?? undefined;
  }

  /** The disk store of usage statistics (opened on first use in the cache folder), or null when off. */
  private statsDiskStore(ctx: Pick<ToolContext, 'log'>): StatsStore | null {
    if (this.statsDisk === undefined) this.statsDisk = StatsStore.open(cacheFolder(this.options.cacheDir), ctx.log);
    return this.statsDisk;
  }

  private statsOff(ctx: Pick<ToolContext, 'log'>, err: unknown): void {
    ctx.log.debug('usage: the statistics cache failed and is off for this process', { error: String(err) });
    this.statsDisk?.close();
    this.statsDisk = null;
  }

  /**
   * Writes the statistics read since the last call to disk; with `listed` (the ids of every session of every
   * available source), drops the kept ones of sessions no longer there. Returns and resets the counts of sessions
   * read from their files and taken from the disk store.
   */
  finishStats(ctx: Pick<ToolContext, 'log'>, listed?: ReadonlySet<string>): { read: number; kept: number } {
    try {
      this.statsDisk?.flush();
      if (listed) this.statsDisk?.prune(listed);
    } catch (err) {
      this.statsOff(ctx, err);
    }
    const out = this.counts;
    this.counts = { read: 0, kept: 0 };
    return out;
  }

  /**
   * Adds what a file beside the session says (Kimi's `wire.jsonl`: each response's usage and the session's times) to
   * its summary: usage records (merged by key with the session's own, see mergeResponses), the start time when the
   * session's records have none, and the time span. A file that cannot be read adds nothing (logged at debug level).
   */
  private async addUsageFrom(ctx: ToolContext, located: Located, file: string, summary: SessionSummary): Promise<void> {
    let files: SessionFiles;
    try {
      files = await SessionFiles.open(this.files(ctx, [located.home]), [file], { kind: 'lines' }, ctx.signal);
    } catch (err) {
      if ((err as { code?: string }).code === 'CANCELLED') throw err;
      ctx.log.debug('usage: a file beside a session could not be read', { path: file, error: String(err) });
      return;
    }
    try {
      for await (const item of files.records(0, ctx.signal)) {
        if (item.error !== undefined) continue;
        const n = safeNormalize(located.source, item.value);
        if (n instanceof Error || !n) continue;
        if (n.hints) mergeHints(summary.hints, n.hints);
        for (const u of usageList(n)) { summary.usage.push(u); summary.weight++; }
        const t = n.hints?.timestamp;
        if (t) {
          if (summary.firstTimestamp === null || t < summary.firstTimestamp) summary.firstTimestamp = t;
          if (summary.lastTimestamp === null || t > summary.lastTimestamp) summary.lastTimestamp = t;
        }
      }
    } finally {
      files.close();
    }
  }

  /** Subagents' sessions the located session started (from the listing). */
  async subagentCount(ctx: ToolContext, located: Located): Promise<number> {
    const catalog = await this.catalog(ctx);
    let n = 0;
    for (const p of catalog.projects) {
      if (p.source !== located.source.name) continue;
      for (const s of p.sessions) if (s.parentId === located.session.id) n++;
    }
    return n;
  }

  /** A summary already in memory for this session as it is now, or undefined (never reads). */
  cachedSummary(located: Pick<Located, 'session' | 'source'>): SessionSummary | undefined {
    const cached = this.summaries.get(`${located.source.name}\n${located.session.path}`);
    const extra = USAGE_FILES.get(located.source)?.(located.session.path) ?? [];
    const key = identityKey(located.session) + extra.map((f) => `|${f}:${statKey(f)}`).join('');
    return cached && cached.key === key ? cached.summary : undefined;
  }
}

/** A discovery kept by `SessionsService.catalog`. */
interface DiscoveryEntry {
  key: string;
  /** When it began, ms (the kernel's clock). */
  at: number;
  found: Promise<Discovery>;
  /** Modification times of the folders it looked into (once it is done). */
  folders: Map<string, number> | null;
  /** Every folder was last modified more than RACY_MS before it began. */
  settled: boolean;
}

/**
 * Modification times of the folders a discovery looked into: each sessions root, each session file's folder and every
 * folder between the two (a new day's folder under a month's changes the month's), and the home itself.
 */
function folderTimes(d: Discovery): Map<string, number> {
  const out = new Map<string, number>();
  const add = (dir: string) => { if (!out.has(dir)) out.set(dir, mtimeOf(dir)); };
  for (const { home, projects } of d.found) {
    add(home.home);
    add(home.basePath);
    const base = home.basePath.endsWith(path.sep) ? home.basePath : home.basePath + path.sep;
    for (const p of projects) for (const s of p.sessions) for (const f of s.files ?? [s.path]) {
      let dir = path.dirname(f);
      if (out.has(dir)) continue;
      add(dir);
      // Up to the sessions root, when the file lies under it.
      if (!dir.startsWith(base)) continue;
      for (let up = path.dirname(dir); up.length >= base.length - 1 && up !== dir && !out.has(up); dir = up, up = path.dirname(up)) add(up);
    }
  }
  return out;
}

function statKey(p: string): string {
  try {
    const st = statSync(p);
    return `${st.size}:${st.mtimeMs}:${st.ctimeMs}`;
  } catch {
    return '-';
  }
}

function mtimeOf(p: string): number {
  try {
    return statSync(p).mtimeMs;
  } catch {
    return -1;
  }
}

/** A session's files' identity as listed: path, size and modification time of each. */
export function identityKey(s: CatalogSession): string {
  return `${s.files.join('\n')}|${s.size}|${s.mtimeMs}`;
}

function inside(p: string, folder: string): boolean {
  const rel = path.relative(folder, p);
  return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
}

function realOf(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}

/**
 * The real path of `input` when it lies inside an available home, decided as the kernel's sandbox decides (files are
 * then opened through the kernel, which checks again): lexically inside a home, and its real path inside that home's
 * real path. Outside: ACCESS_DENIED without saying whether the path exists.
 * @throws McpgwError ACCESS_DENIED, NOT_FOUND, INVALID_ARGUMENT
 */
export function resolveInHomes(ctx: Pick<ToolContext, 'error'>, homes: readonly SourceHome[], input: string): string {
  if (input.includes('\0')) throw ctx.error('INVALID_ARGUMENT', 'The path contains a NUL byte.');
  if (!path.isAbsolute(input)) throw ctx.error('INVALID_ARGUMENT', `${cut(input)} is not an absolute path.`, { hint: 'Give the full session path, as list_sessions returns it.' });
  const denied = () => ctx.error('ACCESS_DENIED', `${cut(input)} is outside the session folders.`, {
    hint: homes.length ? `Session paths lie under: ${homes.map((h) => h.realHome).join(', ')}.` : 'No session source is available.',
  });
  const lexical = path.resolve(input);
  const home = homes.find((h) => inside(lexical, h.home) || inside(lexical, h.realHome!));
  if (!home) throw denied();
  let real: string;
  try {
    real = realpathSync(lexical);
  } catch (err) {
    throw sessionPathError(ctx, err, cut(input));
  }
  if (!homes.some((h) => inside(real, h.realHome!))) throw denied();
  return real;
}

function cut(s: string): string {
  return shownText(s, 200);
}
