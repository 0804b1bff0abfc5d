import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { crc32 } from 'node:zlib';
import type { Embedder } from 'mcpgw/plugin-api';
import type { FileStat } from '../catalog';
import type { SessionFiles } from '../session/files';
import { safeNormalize } from '../session/summary';
import { previewOf } from '../text';
import { paragraphs, quantize } from './rank';
import type { IndexedFile, IndexedSession, IndexStore } from './store';
import { isContentWord, words } from './tokens';
import type { SessionSource } from 'mcpgw/plugin-api';

/** Roles whose entries are ranked by semantic_search (tool output and bookkeeping are not). */
export const INDEXED_ROLES: ReadonlySet<string> = new Set(['user', 'assistant', 'summary']);
/** Bytes before the resume offset whose checksum tells that a file only grew. */
const TAIL_BYTES = 4096;

/** What the index knows of a session as listed now. */
export interface SessionToIndex {
  source: SessionSource;
  path: string;
  files: string[];
  sessionId: string;
  projectName: string;
  projectPath: string | null;
  modifiedMs: number;
}

/** CRC-32 of `[max(0, end - TAIL_BYTES), end)` of a file, or -1 when it cannot be read. */
export function tailCrc(file: string, end: number): number {
  let fd: number;
  try { fd = openSync(file, 'r'); } catch { return -1; }
  try {
    const from = Math.max(0, end - TAIL_BYTES);
    const buf = Buffer.alloc(end - from);
    let done = 0;
    while (done < buf.length) {
      const got = readSync(fd, buf, done, buf.length - done, from + done);
      if (got === 0) return -1;
      done += got;
    }
    return crc32(buf);
  } catch {
    return -1;
  } finally {
    closeSync(fd);
  }
}

/** Up to this many bytes before the resume offset are checksummed whole; past it, windows of it (see prefixCrc). */
const PREFIX_WHOLE_BYTES = 64 * 1024 * 1024;
const PREFIX_WINDOWS = 256;
const PREFIX_WINDOW_BYTES = 64 * 1024;

/**
 * CRC-32 of `[0, end)` of a file when `end` ≤ 64 MiB; beyond, of 256 windows of 64 KiB spread evenly over it (a
 * sample: 16 MiB read). -1 when it cannot be read. A rewrite in place can keep a file's first and last 4 KiB (field
 * case C37), so growth is told by the bytes already read, not by their ends (docs/decisions.md, "A stored or extended
 * index is checked against the file by its record separator"). Read in 1 MiB steps, CRC-32 at about 1 GB/s.
 * `known`: the checksum of `[0, known.end)` of this file, already checked against it (the file grew since): only the
 * bytes from `known.end` to `end` are read, the CRC carried on from it (whole checksums only: both ends ≤ 64 MiB).
 */
export function prefixCrc(file: string, end: number, known?: { end: number; crc: number }): number {
  const carry = known !== undefined && known.crc >= 0 && known.end <= end && end <= PREFIX_WHOLE_BYTES ? known : undefined;
  let fd: number;
  try { fd = openSync(file, 'r'); } catch { return -1; }
  try {
    const buf = Buffer.alloc(Math.max(1, Math.min(end - (carry?.end ?? 0), 1 << 20)));
    let crc = carry?.crc ?? 0;
    const span = (from: number, to: number): boolean => {
      for (let at = from; at < to;) {
        const want = Math.min(buf.length, to - at);
        const got = readSync(fd, buf, 0, want, at);
        if (got === 0) return false;
        crc = crc32(buf.subarray(0, got), crc);
        at += got;
      }
      return true;
    };
    if (end <= PREFIX_WHOLE_BYTES) return span(carry?.end ?? 0, end) ? crc : -1;
    const step = (end - PREFIX_WINDOW_BYTES) / (PREFIX_WINDOWS - 1);
    for (let k = 0; k < PREFIX_WINDOWS; k++) {
      const from = Math.floor(k * step);
      if (!span(from, from + PREFIX_WINDOW_BYTES)) return -1;
    }
    return crc;
  } catch {
    return -1;
  } finally {
    closeSync(fd);
  }
}

/** How a stored session relates to its files now. */
export type Change = { kind: 'same' } | { kind: 'grown'; from: number } | { kind: 'new' };

/**
 * Unchanged (every file has the identity it had), grown (the same files, each before the last unchanged, the last
 * one larger with the checksums of the bytes before its resume offset equal — the last 4 KiB and the whole of them
 * ({@link prefixCrc}) — or new continuation files after it),
 * or anything else: new (read again from the start). `listed`: the files' stats as the listing just took them
 * (else each file is looked at here).
 */
export function changeOf(stored: IndexedSession | undefined, files: readonly string[], listed?: readonly FileStat[]): Change {
  if (!stored) return { kind: 'new' };
  const now = listed && listed.length === files.length ? listed : files.map((f) => { try { return statSync(f); } catch { return null; } });
  if (now.some((s) => s === null)) return { kind: 'new' };
  const old = stored.files;
  if (old.length > files.length || old.length === 0) return { kind: 'new' };
  for (let i = 0; i < old.length; i++) {
    const o = old[i]!, n = now[i]!;
    if (o.path !== files[i] || o.dev !== n.dev || o.ino !== n.ino) return { kind: 'new' };
    const last = i === old.length - 1;
    // the change time too: a rewrite in place can put the size and the modification time back, never it
    const unchanged = o.size === n.size && o.mtimeMs === n.mtimeMs && (o.ctimeMs === undefined || o.ctimeMs === n.ctimeMs);
    if (!last && !unchanged) return { kind: 'new' };
    if (last) {
      if (n.size < o.size) return { kind: 'new' };
      if (unchanged && files.length === old.length) return { kind: 'same' };
      if (n.size === o.size && !unchanged) return { kind: 'new' }; // rewritten, not grown
      if (tailCrc(files[i]!, o.resumeOffset) !== o.tailCrc) return { kind: 'new' };
      // The bytes already read, whole (sampled past 64 MiB): a rewrite that kept both ends is not growth (C37).
      if (o.prefixCrc !== undefined && prefixCrc(files[i]!, o.resumeOffset) !== o.prefixCrc) return { kind: 'new' };
    }
  }
  return { kind: 'grown', from: stored.records };
}

/** Options of one session's indexing. */
export interface IndexOptions {
  embedder: Embedder;
  /** ms since the epoch: stop between records past it (the session is kept as far as read, and resumed later). */
  deadline: number;
  /** The clock `deadline` is on (the tool's `ctx.clock.now`). */
  now: () => number;
  signal?: AbortSignal;
}

/**
 * Reads a session's records from `from` on into the store: entries of indexed roles get their words (BM25) and their
 * paragraph vectors; the session row remembers how far it got and each file's identity, so the next update reads only
 * what is new. Returns true when the session was read to its end (a trailing partial line — a session being written —
 * is not an entry yet: reading resumes at it once the file grows).
 */
export async function indexSession(store: IndexStore, s: SessionToIndex, files: SessionFiles, stored: IndexedSession | undefined, from: number, o: IndexOptions): Promise<boolean> {
  let entries = from > 0 && stored ? stored.entries : 0;
  let firstPrompt = from > 0 && stored ? stored.firstPrompt : null;
  let records = from;
  /** Position of the first of the trailing malformed records (re-read next time: a line being written). */
  let trailingBad: number | null = null;
  const id = store.saveSession({
    ...(stored && from > 0 ? { id: stored.id } : {}),
    source: s.source.name, path: s.path, sessionId: s.sessionId, projectName: s.projectName, projectPath: s.projectPath,
    firstPrompt, files: stored && from > 0 ? stored.files : [], records: from, entries, modifiedMs: s.modifiedMs, complete: false,
  });
  let complete = true;
  let batch: EntryDraft[] = [];
  const flush = async () => {
    await addEntries(store, id, batch, o.embedder, o.signal);
    batch = [];
  };
  let n = 0;
  try {
    for await (const item of files.records(from, o.signal)) {
      records = item.pos + 1;
      if (item.error !== undefined) {
        trailingBad ??= item.pos;
        continue;
      }
      trailingBad = null;
      if (item.superseded) continue;
      const normalized = safeNormalize(s.source, item.value);
      const e = normalized instanceof Error ? undefined : normalized?.entry;
      if (!e) continue;
      const idx = entries++;
      if (firstPrompt === null && e.role === 'user' && !e.injected && e.text.trim()) firstPrompt = previewOf(e.text, 300);
      const d = draftOf(e, idx);
      if (d) batch.push(d);
      if (batch.length >= 64) await flush();
      if ((++n & 63) === 0 && o.now() > o.deadline) { complete = false; break; }
    }
    await flush();
  } catch (err) {
    // What this read added is taken back (the update commits in batches of sessions, a failed one included): the
    // session stays as it was stored, or is gone when it was new, and is read again next time.
    store.dropEntries(id, from > 0 && stored ? stored.entries : 0);
    if (stored && from > 0) store.saveSession(stored);
    else store.dropSession(id);
    throw err;
  }
  if (complete) records = files.count;
  const resumeAt = trailingBad ?? records;
  store.saveSession({
    id, source: s.source.name, path: s.path, sessionId: s.sessionId, projectName: s.projectName, projectPath: s.projectPath,
    firstPrompt, files: fileStates(files, s.files, resumeAt, stored && from > 0 ? stored.files : []), records: resumeAt, entries, modifiedMs: s.modifiedMs, complete,
  });
  return complete;
}

/** An entry to index: its index in the session, role, text, uuid and time. */
export interface EntryDraft {
  idx: number;
  role: string;
  text: string;
  uuid: string | null;
  timestamp: string | null;
}

function draftOf(e: { role: string; text: string; uuid: string | null; timestamp: string | null; injected?: boolean }, idx: number): EntryDraft | null {
  // Injected context (instructions, command wrappers, compaction summaries, generated titles) is not what the person
  // or the assistant said in the conversation: it is not indexed.
  if (e.injected || !INDEXED_ROLES.has(e.role) || !e.text.trim()) return null;
  return { idx, role: e.role, text: e.text, uuid: e.uuid, timestamp: e.timestamp };
}

/** Adds entries of session row `session` to the store: words for BM25, one int8 vector per paragraph (embedded in one call). */
export async function addEntries(store: IndexStore, session: number, drafts: readonly EntryDraft[], embedder: Embedder, signal?: AbortSignal): Promise<void> {
  if (!drafts.length) return;
  const texts = drafts.flatMap((d) => paragraphs(d.text).map((p) => ({ d, p })));
  const vecs = texts.length ? await embedder.embed(texts.map((t) => t.p), { signal }) : [];
  const byEntry = new Map<EntryDraft, { q: Int8Array; scale: number }[]>();
  texts.forEach((t, i) => {
    let list = byEntry.get(t.d);
    if (!list) byEntry.set(t.d, (list = []));
    list.push(quantize(vecs[i]!));
  });
  store.transaction(() => {
    for (const d of drafts) {
      const ws = words(d.text);
      let content = 0;
      for (const w of ws) if (isContentWord(w)) content++;
      store.addEntry({ session, idx: d.idx, role: d.role, uuid: d.uuid, ts: d.timestamp, preview: previewOf(d.text, 160) }, ws.join(' '), byEntry.get(d) ?? [], content);
    }
  });
}

/** Each file's identity and, for the one holding record `resumeAt`, where reading resumes and the checksum before it. */
function fileStates(files: SessionFiles, paths: readonly string[], resumeAt: number, before: readonly IndexedFile[]): IndexedFile[] {
  const opened = files.identities();
  const first = opened[0]?.file ?? 0;
  // Files before the first one opened (a resumed read) are as they were.
  return [...before.slice(0, first), ...opened.map((f, i, all) => {
    const { identity, base, count } = f;
    const path = paths[f.file] ?? f.realPath;
    const holds = resumeAt >= base && (resumeAt < base + count || i === all.length - 1);
    const resumeOffset = holds ? (resumeAt < base + count ? files.byteOffset(resumeAt) : identity.size) : identity.size;
    // The file as stored before this read (a resumed read: changeOf checked its bytes up to the old resume offset, or
    // they are the ones checksummed then): its checksum carried on over the new bytes, not the old ones read again.
    const old = before[f.file];
    const known = old && old.path === path && old.dev === identity.dev && old.ino === identity.inode && old.prefixCrc !== undefined ? { end: old.resumeOffset, crc: old.prefixCrc } : undefined;
    return { path, dev: identity.dev, ino: identity.inode, size: identity.size, mtimeMs: identity.mtimeMs, ctimeMs: identity.ctimeMs, records: count, resumeOffset, tailCrc: tailCrc(path, resumeOffset), prefixCrc: prefixCrc(path, resumeOffset, known) };
  })];
}

/**
 * Where to resume reading a stored session: the file holding its resume position (the first whose resume offset is
 * short of its size, else the last stored file), at that offset, position `records`.
 */
export function startOf(stored: IndexedSession): { file: number; byte: number; pos: number } {
  let file = stored.files.findIndex((f) => f.resumeOffset < f.size);
  if (file === -1) file = stored.files.length - 1;
  return { file: Math.max(0, file), byte: stored.files[file]?.resumeOffset ?? 0, pos: stored.records };
}

