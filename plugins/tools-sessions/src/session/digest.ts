import { readSync } from 'node:fs';
import { isUtf8 } from 'node:buffer';
import type { MarkedText, SessionHints, SessionSource, SessionUsageRecord } from 'mcpgw/plugin-api';
import { charLength, previewCut } from '../text';
import { sessionStats, statsOf, type SessionStats } from '../usage';
import { mergeHints, safeNormalize, sessionStart, usageList, type SessionSummary } from './summary';
import type { Replay } from './files';
import { NOT_JSON, skimRecord, wellFormed, type Projection } from './skim';
import { claudeDigest, claudeSource } from '../sources/claude';
import { codexDigest, codexSource, codexSuperseded } from '../sources/codex';
import { copilotDigest, copilotSource } from '../sources/copilot';
import { geminiDigest, geminiDocumentDigest, geminiDocumentMessages, geminiSource, geminiSuperseded } from '../sources/gemini';
import { kimiDigest, kimiSource } from '../sources/kimi';
import { qwenDigest, qwenSource } from '../sources/qwen';

/**
 * A session's digest: what get_usage_stats and list_sessions need of it — its usage statistics, when it started, its
 * title and its first prompt — without the per-entry summary (no previews, no entry list).
 *
 * `digestSession` reads the files of a built-in source's session straight from descriptors (`FileAccess.openRaw`,
 * checked by the kernel as an open is; on an engine thread or here), with no index and no exact parse: each record is
 * checked as the kernel's exact parse checks it — at most maxRecordBytes, strict UTF-8, JSON syntax, nesting at most
 * maxDepth: what it refuses is a skipped record — by one walk over its bytes (session/skim.ts) that builds only what
 * the source's normalize reads for the digest (its projection, beside the normalize: ids, kinds, times, models,
 * token counts, tool names; never texts, tool inputs or results), and normalize runs on that. Until the first prompt
 * is found, a record that may hold it is read whole. Numbers come back as doubles (the exact parse keeps the lexeme of
 * a number a double does not hold): what the digest takes of them — token counts, and Codex's response key — is the
 * same either way; escaped lone surrogates become U+FFFD as there. The digest equals the one of the full summary
 * (`digestOfSummary`), which a test checks for every source; where it could not be (a document session that does not
 * parse whole, a document over maxRecordBytes, a file over maxFileBytes), `digestSession` gives null and the caller
 * reads the summary.
 */
export interface SessionDigest extends SessionStats {
  /** When the session started (`sessionStart`), null when its records say nothing. */
  start: string | null;
  /** The title its records give (`hints.title`), null when none. */
  title: string | null;
  /** The first thing the person typed, as the summary's description (500 characters, a `…` marker when cut). */
  description: MarkedText | null;
}

/** Characters of the description (as the summary's). */
const DESCRIPTION_CHARS = 500;

/** A digest and its detail (StatsDetail as JSON text: usage.ts). */
export interface DigestRead {
  digest: SessionDigest;
  detail: string;
}

/** The digest of a complete summary. */
export function digestOfSummary(s: SessionSummary): DigestRead {
  const { stats, detail } = statsOf(s);
  return { digest: { ...stats, start: sessionStart(s), title: s.hints.title ?? null, description: s.description }, detail };
}

/** The built-in sources the digest reads: what their normalize reads of a record for it, and their replays. */
const READERS = new Map<string, { source: SessionSource; projection: Projection; document?: { projection: Projection; entries: Projection }; replay?: Replay }>([
  [claudeSource.name, { source: claudeSource, projection: claudeDigest }],
  [codexSource.name, { source: codexSource, projection: codexDigest, replay: codexSuperseded }],
  [copilotSource.name, { source: copilotSource, projection: copilotDigest }],
  [geminiSource.name, { source: geminiSource, projection: geminiDigest, document: { projection: geminiDocumentDigest, entries: geminiDocumentMessages }, replay: geminiSuperseded }],
  [qwenSource.name, { source: qwenSource, projection: qwenDigest }],
  [kimiSource.name, { source: kimiSource, projection: kimiDigest }],
]);

/** Whether `digestSession` reads sessions of this source (the built-in ones). */
export function digestReads(source: SessionSource): boolean {
  return READERS.get(source.name)?.source === source;
}

/** One session to digest: its files (open descriptors and their sizes at the open), and the files beside it (Kimi's wire). */
export interface DigestJob {
  source: string;
  /** Its files' paths end in `.jsonl` (a document source's session written as lines) . */
  lines: boolean;
  files: { fd: number; size: number }[];
  /** Files beside the session that add usage and times (`USAGE_FILES` in service.ts); null: one could not be opened. */
  extra: ({ fd: number; size: number } | null)[];
  limits: { maxRecordBytes: number; maxDepth: number; maxFileBytes?: number };
}

/** Bytes read at a time. */
const CHUNK = 4 * 1024 * 1024;

/** A read buffer for `digestSession` (reused across sessions on one thread). */
export function digestBuffer(): { buf: Buffer } {
  return { buf: Buffer.allocUnsafeSlow(CHUNK + 64).subarray(64) };
}

/** A record: its value, or MALFORMED. */
const MALFORMED = Symbol('malformed');
type Parsed = unknown | typeof MALFORMED;

/**
 * The digest of one session, or null when only the summary can give it (see SessionDigest). @throws Error on a
 * read that fails (the caller then reads the summary, which reports it).
 */
export function digestSession(job: DigestJob, scratch: { buf: Buffer }): DigestRead | null {
  const reader = READERS.get(job.source);
  if (!reader) return null;
  const { maxFileBytes } = job.limits;
  if (maxFileBytes !== undefined && [...job.files, ...job.extra].some((f) => f && f.size > maxFileBytes)) return null;
  const { source, projection } = reader;
  const fold = new Fold(source);
  const layout = source.layout;
  if (layout.kind === 'document' && !job.lines) {
    // As SessionFiles reads a document session: its hints at their pointers, its entries the array at entriesPointer.
    if (job.files.length !== 1 || !reader.document) return null;
    const doc = readDocument(job.files[0]!, job.limits, scratch, reader.document);
    if (!doc) return null;
    const hints: SessionHints = {};
    for (const [key, pointer] of Object.entries(layout.hints ?? {})) {
      const v = atPointer(doc.value, pointer!);
      if (typeof v === 'string' && v) (hints as Record<string, string>)[key] = v;
    }
    mergeHints(fold.hints, hints);
    const entries = atPointer(doc.value, layout.entriesPointer);
    if (Array.isArray(entries)) entries.forEach((value, k) => fold.add(value, false, () => parseRecord(doc.bytes, doc.ranges[2 * k]!, doc.ranges[2 * k + 1]!, job.limits)));
  } else if (reader.replay) {
    // Records later ones replace: the replay needs them all first (as SessionFiles.open gives it them); a record read
    // whole later (see Fold.add) is read again from its file.
    const items: { pos: number; value: unknown }[] = [];
    const all: { value: Parsed; file: number; at: number; length: number }[] = [];
    job.files.forEach((f, file) => forEachRecord(f, job.limits, scratch, projection, (value, _b, _s, _e, at, length) => {
      if (value !== MALFORMED) items.push({ pos: all.length, value });
      all.push({ value, file, at, length });
    }));
    const superseded = reader.replay(items);
    all.forEach((r, i) => fold.add(r.value, superseded.has(i), () => reread(job.files[r.file]!, r.at, r.length, job.limits)));
  } else {
    for (const f of job.files) forEachRecord(f, job.limits, scratch, projection, (value, b, s, e) => fold.add(value, false, () => parseRecord(b, s, e, job.limits)));
  }
  for (const f of job.extra) if (f) forEachRecord(f, job.limits, scratch, projection, (value) => fold.addBeside(value));
  return fold.digest();
}

/** Record bytes `[at, at + length)` of `file` read again and parsed whole. */
function reread(file: { fd: number }, at: number, length: number, limits: DigestJob['limits']): Parsed {
  const buf = Buffer.allocUnsafe(length);
  let got = 0;
  while (got < length) {
    const n = readSync(file.fd, buf, got, length - got, at + got);
    if (n === 0) return MALFORMED;
    got += n;
  }
  return parseRecord(buf, 0, length, limits);
}

/**
 * What the summary keeps that the digest needs, built as extendSummary and addRecord build it (see summary.ts), and
 * taken as statsOf takes it (usage.ts).
 */
class Fold {
  readonly hints: SessionHints = {};
  private readonly usage: SessionUsageRecord[] = [];
  private readonly toolUses: { id: string; name: string; timestamp: string | null }[] = [];
  private entries = 0;
  private skipped = 0;
  private first: string | null = null;
  private last: string | null = null;
  private description: MarkedText | null = null;

  constructor(private readonly source: SessionSource) {}

  /**
   * A record of the session as its projection built it (`superseded`: replaced by a later one: only its usage counts).
   * While the session's first prompt is not found, a record that may be it (an entry not the assistant's: the
   * projection keeps what decides roles but the person's text) is read whole by `whole` and taken as read so.
   */
  add(value: Parsed, superseded: boolean, whole: () => Parsed): void {
    if (value === MALFORMED) { this.skipped++; return; }
    let n = safeNormalize(this.source, value);
    if (n instanceof Error) { this.skipped++; return; }
    if (!n) return;
    if (superseded) {
      for (const u of usageList(n)) this.usage.push(u);
      return;
    }
    if (this.description === null && n.entry && n.entry.role !== 'assistant') {
      const full = whole();
      const again = full === MALFORMED ? n : safeNormalize(this.source, full);
      if (again instanceof Error) { this.skipped++; return; }
      if (!again) return;
      n = again;
    }
    if (n.hints) mergeHints(this.hints, n.hints);
    for (const u of usageList(n)) this.usage.push(u);
    const e = n.entry;
    if (!e) return;
    this.entries++;
    for (const t of e.tool_uses) this.toolUses.push({ id: t.id, name: t.name, timestamp: e.timestamp });
    if (this.description === null && e.role === 'user' && !e.injected && e.text.trim()) {
      const { text, truncated } = previewCut(e.text, DESCRIPTION_CHARS);
      this.description = truncated ? { text: `${text}…`, markers: [charLength(text)] } : { text, markers: [] };
    }
    this.time(e.timestamp);
  }

  /** A record of a file beside the session (as SessionsService.addUsageFrom adds it): malformed ones add nothing. */
  addBeside(value: Parsed): void {
    if (value === MALFORMED) return;
    const n = safeNormalize(this.source, value);
    if (n instanceof Error || !n) return;
    if (n.hints) mergeHints(this.hints, n.hints);
    for (const u of usageList(n)) this.usage.push(u);
    this.time(n.hints?.timestamp);
  }

  private time(t: string | null | undefined): void {
    if (!t) return;
    if (this.first === null || t < this.first) this.first = t;
    if (this.last === null || t > this.last) this.last = t;
  }

  digest(): DigestRead {
    const { stats, detail } = sessionStats({
      entries: this.entries, usage: this.usage, toolUses: this.toolUses, firstTimestamp: this.first, lastTimestamp: this.last,
      model: this.hints.model ?? null, sessionId: this.hints.session_id ?? null, skipped: this.skipped,
    });
    return { digest: { ...stats, start: sessionStart({ hints: this.hints, firstTimestamp: this.first }), title: this.hints.title ?? null, description: this.description }, detail };
  }
}

const LF = 0x0a, CR = 0x0d, SP = 0x20, TAB = 0x09;

/**
 * Each record of a JSON Lines file to `onRecord` in order, built by `projection` (see `skimRecord`; MALFORMED where the
 * kernel's exact parse fails), with its bytes `b[s, e)` (valid until `onRecord` returns) and where it lies in the file:
 * a record is a line holding a byte other than space, tab and CR (the JSON Lines format's framing: blank lines are no
 * records, a UTF-8 BOM at the start is skipped, a last line without its newline is a record). A line longer than
 * maxRecordBytes is MALFORMED without being held.
 */
function forEachRecord(file: { fd: number; size: number }, limits: DigestJob['limits'], scratch: { buf: Buffer }, projection: Projection,
  onRecord: (v: Parsed, b: Buffer, s: number, e: number, at: number, length: number) => void): void {
  let buf = scratch.buf;
  let held = 0; // bytes at buf[0, held) of the line in progress
  let at = 0; // file offset of the next read
  let base = 0; // file offset of buf[0]
  let oversized = false; // the line in progress passed maxRecordBytes: its bytes are dropped until its newline
  let first = true;
  let utf8 = false; // the lines of the chunk in hand are valid UTF-8 (checked at once)
  const line = (s: number, e: number): void => {
    if (first) {
      first = false;
      if (e - s >= 3 && buf[s] === 0xef && buf[s + 1] === 0xbb && buf[s + 2] === 0xbf) s += 3;
    }
    while (s < e && (buf[s] === SP || buf[s] === TAB || buf[s] === CR)) s++;
    if (s === e) return;
    while (buf[e - 1] === SP || buf[e - 1] === TAB || buf[e - 1] === CR) e--;
    onRecord(skimmed(buf, s, e, limits, projection, utf8), buf, s, e, base + s, e - s);
  };
  while (at < file.size) {
    if (held === buf.length) {
      // One line fills the buffer: a larger one (up to maxRecordBytes and a margin for padding), else it is oversized.
      if (buf.length < limits.maxRecordBytes + 64) {
        const bigger = Buffer.allocUnsafe(Math.min(buf.length * 2, limits.maxRecordBytes + 64 + CHUNK));
        buf.copy(bigger, 0, 0, held);
        buf = bigger;
      } else {
        oversized = true;
        first = false;
        held = 0;
      }
    }
    const n = readSync(file.fd, buf, held, Math.min(buf.length - held, file.size - at), at);
    if (n === 0) break; // the file ended before its size at the open: what is there is read
    base = at - held;
    at += n;
    const end = held + n;
    // Every complete line of the chunk checked as UTF-8 at once (a newline is never inside a character's bytes).
    const lastNl = buf.lastIndexOf(LF, end - 1);
    utf8 = lastNl >= 0 && isUtf8(buf.subarray(0, lastNl));
    let s = 0;
    for (let nl = buf.indexOf(LF, held); nl !== -1 && nl < end; nl = buf.indexOf(LF, s)) {
      if (oversized) { oversized = false; onRecord(MALFORMED, buf, s, s, base + s, 0); } else line(s, nl);
      s = nl + 1;
    }
    if (oversized) { held = 0; continue; }
    held = end - s;
    if (s > 0 && held > 0) buf.copy(buf, 0, s, end);
  }
  utf8 = false;
  if (oversized) onRecord(MALFORMED, buf, 0, 0, base, 0);
  else if (held > 0) line(0, held);
}

/** A record's bytes checked as the kernel's exact parse checks them and built by `projection`; MALFORMED when it fails. */
function skimmed(b: Buffer, s: number, e: number, limits: DigestJob['limits'], projection: Projection, utf8: boolean): Parsed {
  if (e - s > limits.maxRecordBytes) return MALFORMED;
  if (!utf8 && !isUtf8(b.subarray(s, e))) return MALFORMED;
  const v = skimRecord(b, s, e, projection, limits.maxDepth);
  return v === NOT_JSON ? MALFORMED : v;
}

/**
 * A JSON document read whole (at most maxRecordBytes) and built by the document projection, with the byte ranges of
 * its entries' elements (to read one whole); null when it is not one JSON text (the summary then reports it).
 */
function readDocument(file: { fd: number; size: number }, limits: DigestJob['limits'], scratch: { buf: Buffer }, document: { projection: Projection; entries: Projection }): { value: unknown; bytes: Buffer; ranges: number[] } | null {
  if (file.size > limits.maxRecordBytes) return null;
  const buf = file.size <= scratch.buf.length ? scratch.buf : Buffer.allocUnsafe(file.size);
  let got = 0;
  while (got < file.size) {
    const n = readSync(file.fd, buf, got, file.size - got, got);
    if (n === 0) return null;
    got += n;
  }
  if (buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) return null; // the JSON format's own rules decide
  if (!isUtf8(buf.subarray(0, got))) return null;
  const ranges: number[] = [];
  const value = skimRecord(buf, 0, got, document.projection, limits.maxDepth, { projection: document.entries, ranges });
  return value === NOT_JSON ? null : { value, bytes: buf, ranges };
}

/** The value at RFC 6901 `pointer` in a parsed value, or undefined. */
function atPointer(value: unknown, pointer: string): unknown {
  if (pointer === '') return value;
  let v = value;
  for (const raw of pointer.slice(1).split('/')) {
    const token = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(v)) {
      if (!/^(0|[1-9]\d*)$/.test(token)) return undefined;
      v = v[Number(token)];
    } else if (v !== null && typeof v === 'object' && Object.prototype.hasOwnProperty.call(v, token)) v = (v as Record<string, unknown>)[token];
    else return undefined;
  }
  return v;
}

/** An escaped UTF-16 surrogate (the only way a lone surrogate can enter a parsed value). */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;

/**
 * One record's bytes parsed, with the kernel's verdicts (records/parse.ts parseExact): longer than maxRecordBytes,
 * invalid UTF-8, not JSON, or nested deeper than maxDepth: MALFORMED. Lone surrogates become U+FFFD.
 */
export function parseRecord(buf: Buffer, s: number, e: number, limits: DigestJob['limits']): Parsed {
  if (e - s > limits.maxRecordBytes) return MALFORMED;
  if (!isUtf8(buf.subarray(s, e))) return MALFORMED;
  const text = buf.toString('utf8', s, e);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return MALFORMED;
  }
  // Nesting d takes at least 2d characters: only longer texts can pass maxDepth.
  if (text.length > 2 * limits.maxDepth + 1 && deeperThan(value, limits.maxDepth)) return MALFORMED;
  if (SURROGATE_ESCAPE.test(text)) value = wellFormed(value);
  return value;
}

/** Whether arrays and objects in `value` nest deeper than `max` (a container is one level). Iterative. */
function deeperThan(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length) {
    const [v, d] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (d > max) return true;
    for (const c of Array.isArray(v) ? v : Object.values(v)) if (c !== null && typeof c === 'object') stack.push([c, d + 1]);
  }
  return false;
}
