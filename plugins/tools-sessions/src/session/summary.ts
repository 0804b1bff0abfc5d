import { markedField } from '../toolkit';
import type { MarkedText, NormalizedRecord, SessionEntryDraft, SessionHints, SessionRole, SessionSource, SessionUsageRecord } from 'mcpgw/plugin-api';
import { charLength, previewOf } from '../text';
import type { SessionFiles } from './files';

/** Characters in an entry summary's preview. */
export const PREVIEW_CHARS = 120;

/** What is kept of one entry to list, filter and page a session without reading it again. */
export interface EntrySummary {
  /** Record position across the session's files. */
  pos: number;
  uuid: string | null;
  role: SessionRole;
  timestamp: string | null;
  /** Characters of the entry's text. */
  content_length: number;
  has_thinking: boolean;
  has_tool_use: boolean;
  has_tool_result: boolean;
  preview: string;
  /** Only when `preview` holds a `…` of the entry's own: where its `…` marker is ([] when not shortened). */
  preview_markers?: number[];
  /** Only when set: the assistant wrote this entry, not the person (see SessionEntryDraft.injected). */
  injected?: true;
}

/** A session read once, kept small: one EntrySummary per entry plus totals. Built resumably (see `complete`). */
export interface SessionSummary {
  entries: EntrySummary[];
  /** Record positions read so far. */
  records: number;
  /** Malformed records skipped (a partial last line, broken JSON). */
  skipped: number;
  firstSkipped: { pos: number; message: string }[];
  hints: SessionHints;
  /** The first user entry's text (first 500 characters, then a `…` marker), the session's description. */
  description: MarkedText | null;
  roleCounts: Partial<Record<SessionRole, number>>;
  /** UTF-8 bytes of every entry's text. */
  contentBytes: number;
  usage: SessionUsageRecord[];
  toolUses: { id: string; name: string; timestamp: string | null }[];
  firstTimestamp: string | null;
  lastTimestamp: string | null;
  /** False while the session has records not read yet (a build stopped at the deadline). */
  complete: boolean;
  /** Summary and usage held, in entries (for the cache's bound). */
  weight: number;
}

export function emptySummary(): SessionSummary {
  return {
    entries: [], records: 0, skipped: 0, firstSkipped: [], hints: {}, description: null, roleCounts: {}, contentBytes: 0,
    usage: [], toolUses: [], firstTimestamp: null, lastTimestamp: null, complete: false, weight: 0,
  };
}

/** Characters of the description. */
const DESCRIPTION_CHARS = 500;

/** The summary line of an entry. */
export function summarize(pos: number, e: SessionEntryDraft): EntrySummary {
  let preview = previewOf(e.text, PREVIEW_CHARS);
  if (!preview.text && e.tool_uses.length) preview = previewOf(e.tool_uses.map((t) => `[${t.name}] ${JSON.stringify(t.input)}`).join(' '), PREVIEW_CHARS);
  if (!preview.text && e.tool_results.length) preview = previewOf(e.tool_results.map((r) => r.result).join(' '), PREVIEW_CHARS);
  if (!preview.text && e.thinking) preview = previewOf(e.thinking, PREVIEW_CHARS);
  return {
    pos,
    uuid: e.uuid,
    role: e.role,
    timestamp: e.timestamp,
    content_length: charLength(e.text),
    has_thinking: !!e.thinking,
    has_tool_use: e.tool_uses.length > 0,
    has_tool_result: e.tool_results.length > 0,
    ...markedField('preview', preview),
    ...(e.injected ? { injected: true as const } : {}),
  };
}

/** The usage records of a normalized record, as a list. */
export function usageList(n: Pick<NormalizedRecord, 'usage'> | null | undefined): readonly SessionUsageRecord[] {
  const u = n?.usage;
  if (!u) return [];
  return Array.isArray(u) ? u : [u as SessionUsageRecord];
}

/** Adds one normalized record to a summary. */
export function addRecord(s: SessionSummary, pos: number, n: NormalizedRecord | null): void {
  if (!n) return;
  if (n.hints) mergeHints(s.hints, n.hints);
  for (const u of usageList(n)) { s.usage.push(u); s.weight++; }
  const e = n.entry;
  if (!e) return;
  s.entries.push(summarize(pos, e));
  s.weight++;
  s.roleCounts[e.role] = (s.roleCounts[e.role] ?? 0) + 1;
  s.contentBytes += Buffer.byteLength(e.text);
  for (const t of e.tool_uses) s.toolUses.push({ id: t.id, name: t.name, timestamp: e.timestamp });
  if (s.description === null && e.role === 'user' && !e.injected && e.text.trim()) s.description = previewOf(e.text, DESCRIPTION_CHARS);
  if (e.timestamp) {
    if (s.firstTimestamp === null || e.timestamp < s.firstTimestamp) s.firstTimestamp = e.timestamp;
    if (s.lastTimestamp === null || e.timestamp > s.lastTimestamp) s.lastTimestamp = e.timestamp;
  }
}

/**
 * When the session started (ISO 8601, UTC): the earlier of what the source's own session record says
 * (`hints.timestamp`: Codex's session_meta, Copilot's session.start, Gemini's startTime; Claude's and Qwen's first
 * timed line) and the earliest entry's time (a record before the first timed line, e.g. Claude's file-history
 * snapshot); null when neither is a time (the caller falls back on the file's).
 */
export function sessionStart(s: Pick<SessionSummary, 'hints' | 'firstTimestamp'>): string | null {
  let best = NaN;
  for (const t of [s.hints.timestamp, s.firstTimestamp]) {
    const ms = t ? Date.parse(t) : NaN;
    if (!Number.isNaN(ms) && !(ms >= best)) best = ms;
  }
  return Number.isNaN(best) ? null : new Date(best).toISOString();
}

/**
 * First value wins, except the model (the latest one names what the session ran on last) and the title: a title the
 * person gave (`title_source: user`) wins over a generated one, and among titles of one kind the latest wins.
 */
export function mergeHints(into: SessionHints, from: SessionHints): void {
  // for…in over own members (normalize gives plain objects): no array of pairs a record, as Object.entries would make.
  for (const k in from) {
    if (!Object.prototype.hasOwnProperty.call(from, k)) continue;
    const v = (from as Record<string, string | undefined>)[k];
    if (v === undefined || v === '' || k === 'title_source') continue;
    if (k === 'title') {
      const kind = from.title_source ?? 'assistant';
      if (into.title === undefined || kind === 'user' || into.title_source !== 'user') {
        into.title = v;
        into.title_source = kind;
      }
      continue;
    }
    if (k === 'model' || (into as Record<string, string | undefined>)[k] === undefined) (into as Record<string, string>)[k] = v;
  }
}

/** `source.normalize` that never throws (a source bug costs one record, counted as skipped, not the session). */
export function safeNormalize(source: SessionSource, record: unknown): NormalizedRecord | null | Error {
  try {
    return source.normalize(record);
  } catch (err) {
    return err instanceof Error ? err : new Error(String(err));
  }
}

/**
 * Reads the session's records from `s.records` on, adding them to `s`, until the end (then `complete`) or until
 * `deadline` (ms since the epoch, read on `now`: the tool's `ctx.clock.now`) passes between records.
 */
export async function extendSummary(s: SessionSummary, files: SessionFiles, source: SessionSource, deadline: number, now: () => number, signal?: AbortSignal): Promise<void> {
  if (s.records === 0) mergeHints(s.hints, files.documentHints());
  let n = 0;
  for await (const item of files.records(s.records, signal)) {
    if (item.error !== undefined) skip(s, item.pos, item.error);
    else {
      const normalized = safeNormalize(source, item.value);
      if (normalized instanceof Error) skip(s, item.pos, `the ${source.name} source could not read it: ${normalized.message}`);
      else if (!item.superseded) addRecord(s, item.pos, normalized);
      else if (normalized?.usage) addRecord(s, item.pos, { usage: normalized.usage });
    }
    s.records = item.pos + 1;
    if ((++n & 63) === 0 && now() > deadline) return;
  }
  s.records = files.count;
  s.complete = true;
}

function skip(s: SessionSummary, pos: number, message: string): void {
  s.skipped++;
  if (s.firstSkipped.length < 5) s.firstSkipped.push({ pos, message });
}
