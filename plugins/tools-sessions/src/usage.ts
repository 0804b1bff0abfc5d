import type { SessionTokens, SessionUsageRecord } from 'mcpgw/plugin-api';
import type { SessionSummary } from './session/summary';

/**
 * What a session contributes to usage statistics, kept small: its totals by model and UTC day, which a session that
 * shares its dedup scope with no other session adds as they are (see get_usage_stats); each response and tool call is
 * in its `StatsDetail`, kept beside it (on disk, read when needed).
 */
export interface SessionStats {
  entries: number;
  /** Responses (each once within the session) and tool calls (each once), as StatsDetail lists them. */
  responses: number;
  calls: number;
  /** The responses' totals by model and UTC day ('' when a response has no time): [model, day, input, output, cache read, cache write, responses]. */
  byModelDay: [string, string, number, number, number, number, number][];
  /** The calls by tool name and UTC day ('' when untimed): [name, day, calls]. */
  byToolDay: [string, string, number][];
  firstTimestamp: string | null;
  lastTimestamp: string | null;
  /** The session's model, for responses that do not name one. */
  model: string | null;
  /** The session id its records give, null when they give none: the scope of response keys and tool-call ids. */
  sessionId: string | null;
  skipped: number;
}

/** A session's responses and tool calls one by one, as columns (for dedup across sessions of one scope, and since/until). */
export interface StatsDetail {
  /** Responses, each once within the session (records repeating a response's key are merged: mergeResponses). */
  responses: {
    /** The response's key (unique within the session), null when it has none. */
    key: (string | null)[];
    /** Its model (the session's when it names none; `unknown` when neither does). */
    model: string[];
    time: (string | null)[];
    /** Responses each slot counts (a Copilot run's shutdown counts its requests). */
    count: number[];
    /** Input, output, cache read and cache write tokens: four numbers a slot. */
    tokens: number[];
  };
  /** Tool calls, each once within the session (a call recorded twice under one id is counted once). */
  calls: { id: string[]; name: string[]; time: (string | null)[] };
}

/** The stats of a complete summary, and its detail (StatsDetail as JSON text). */
export function statsOf(s: SessionSummary): { stats: SessionStats; detail: string } {
  return sessionStats({ entries: s.entries.length, usage: s.usage, toolUses: s.toolUses, firstTimestamp: s.firstTimestamp, lastTimestamp: s.lastTimestamp, model: s.hints.model ?? null, sessionId: s.hints.session_id ?? null, skipped: s.skipped });
}

/** What a session's records gave, as the summary keeps it (usage records and tool calls as read, in order). */
export interface SessionCounts {
  entries: number;
  usage: readonly SessionUsageRecord[];
  toolUses: readonly { id: string; name: string; timestamp: string | null }[];
  firstTimestamp: string | null;
  lastTimestamp: string | null;
  model: string | null;
  sessionId: string | null;
  skipped: number;
}

/** A UTC time of day in the form most session files write (`T12:34:56.789Z`): its day is its date's. */
const UTC_TIME = /^T(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d(?:\.\d{1,9})?Z$/;
const days = new Map<string, string>();

/** The UTC day (YYYY-MM-DD) of an RFC 3339 time (as Date.parse reads it), '' when it is none. */
export function utcDay(t: string | null | undefined): string {
  if (!t) return '';
  if (t.length > 10 && UTC_TIME.test(t.slice(10))) {
    // Within one UTC day: the day of its date at midnight (computed once a date).
    const date = t.slice(0, 10);
    let day = days.get(date);
    if (day === undefined) {
      if (days.size > 10_000) days.clear();
      days.set(date, (day = dayOf(`${date}T00:00:00Z`)));
    }
    return day;
  }
  return dayOf(t);
}

function dayOf(t: string): string {
  const ms = Date.parse(t);
  return Number.isNaN(ms) ? '' : new Date(ms).toISOString().slice(0, 10);
}

/**
 * A session's stats from what its records gave: responses merged by key, calls once per id, totals by model and day;
 * and its detail (StatsDetail as JSON text).
 */
export function sessionStats(c: SessionCounts): { stats: SessionStats; detail: string } {
  const responses: StatsDetail['responses'] = { key: [], model: [], time: [], count: [], tokens: [] };
  const groups = new Map<string, SessionStats['byModelDay'][number]>();
  for (const u of mergeResponses(c.usage)) {
    const model = u.model ?? c.model ?? 'unknown';
    const n = u.responses ?? 1;
    const k = u.tokens;
    responses.key.push(u.key ?? null);
    responses.model.push(model);
    responses.time.push(u.timestamp ?? null);
    responses.count.push(n);
    responses.tokens.push(k.input_tokens, k.output_tokens, k.cache_read_tokens, k.cache_write_tokens);
    const day = utcDay(u.timestamp);
    const gk = `${model}\n${day}`;
    let g = groups.get(gk);
    if (!g) groups.set(gk, (g = [model, day, 0, 0, 0, 0, 0]));
    g[2] += k.input_tokens; g[3] += k.output_tokens; g[4] += k.cache_read_tokens; g[5] += k.cache_write_tokens; g[6] += n;
  }
  const ids = new Set<string>();
  const calls: StatsDetail['calls'] = { id: [], name: [], time: [] };
  const tools = new Map<string, SessionStats['byToolDay'][number]>();
  for (const t of c.toolUses) {
    if (t.id) {
      if (ids.has(t.id)) continue;
      ids.add(t.id);
    }
    const name = t.name || '(unnamed)';
    calls.id.push(t.id);
    calls.name.push(name);
    calls.time.push(t.timestamp);
    const day = utcDay(t.timestamp);
    const tk = `${name}\n${day}`;
    let g = tools.get(tk);
    if (!g) tools.set(tk, (g = [name, day, 0]));
    g[2]++;
  }
  const detail: StatsDetail = { responses, calls };
  return {
    stats: {
      entries: c.entries, responses: responses.key.length, calls: calls.id.length, byModelDay: [...groups.values()], byToolDay: [...tools.values()],
      firstTimestamp: c.firstTimestamp, lastTimestamp: c.lastTimestamp, model: c.model, sessionId: c.sessionId, skipped: c.skipped,
    },
    detail: JSON.stringify(detail),
  };
}

/**
 * One usage record per response: records of one key are one response (Claude writes a streamed response as one line
 * per content block, each repeating its usage; the first lines carry a partial output count, the last the final one),
 * merged by the largest value of each token field, at the place of the key's first record. A key's refinement (after a
 * NUL: Claude's request id) splits its records only when every record of the key has one (a line of the response
 * written without its request id is not another response). Records without a key are each a response.
 */
export function mergeResponses(records: readonly SessionUsageRecord[]): SessionUsageRecord[] {
  const byKey = new Map<string, SessionUsageRecord[]>();
  // Each key's base (before its NUL), once a record.
  const bases: (string | undefined)[] = new Array(records.length);
  for (let i = 0; i < records.length; i++) {
    const u = records[i]!;
    if (u.key === undefined) continue;
    const nul = u.key.indexOf('\u0000');
    const base = (bases[i] = nul < 0 ? u.key : u.key.slice(0, nul));
    let group = byKey.get(base);
    if (!group) byKey.set(base, (group = []));
    group.push(u);
  }
  const out: SessionUsageRecord[] = [];
  const done = new Set<string>();
  for (let i = 0; i < records.length; i++) {
    const u = records[i]!;
    if (u.key === undefined) { out.push(u); continue; }
    const base = bases[i]!;
    if (done.has(base)) continue;
    done.add(base);
    const group = byKey.get(base)!;
    const refined = group.every((g) => g.key!.length > base.length + 1);
    if (!refined) { out.push(merged(base, group)); continue; }
    const parts = new Map<string, SessionUsageRecord[]>();
    for (const g of group) {
      let p = parts.get(g.key!);
      if (!p) parts.set(g.key!, (p = []));
      p.push(g);
    }
    for (const [key, p] of parts) out.push(merged(key, p));
  }
  return out;
}

function merged(key: string, group: readonly SessionUsageRecord[]): SessionUsageRecord {
  const first = group[0]!;
  if (group.length === 1) return { ...first, key };
  const t = { ...first.tokens };
  let model = first.model;
  for (const g of group) {
    t.input_tokens = Math.max(t.input_tokens, g.tokens.input_tokens);
    t.output_tokens = Math.max(t.output_tokens, g.tokens.output_tokens);
    t.cache_read_tokens = Math.max(t.cache_read_tokens, g.tokens.cache_read_tokens);
    t.cache_write_tokens = Math.max(t.cache_write_tokens, g.tokens.cache_write_tokens);
    model ??= g.model;
  }
  return { ...first, key, tokens: t, ...(model ? { model } : {}) };
}

export interface TokenTotals {
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  /** All four added up: input + output + cache read + cache write (cache reads are most of it for a long session). */
  total_tokens: number;
  /** Model responses counted (each once). */
  responses: number;
}

export function zeroTotals(): TokenTotals {
  return { input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0, total_tokens: 0, responses: 0 };
}

export function addTokens(t: TokenTotals, k: SessionTokens, responses = 1): void {
  t.input_tokens += k.input_tokens;
  t.output_tokens += k.output_tokens;
  t.cache_read_tokens += k.cache_read_tokens;
  t.cache_write_tokens += k.cache_write_tokens;
  t.total_tokens += k.input_tokens + k.output_tokens + k.cache_read_tokens + k.cache_write_tokens;
  t.responses += responses;
}

/** Whether an RFC 3339 time lies in [since, until) (ms); a record without a time counts only when no bound is set. */
export function inRange(timestamp: string | null | undefined, since: number | null, until: number | null): boolean {
  if (since === null && until === null) return true;
  const t = timestamp ? Date.parse(timestamp) : NaN;
  if (Number.isNaN(t)) return false;
  return (since === null || t >= since) && (until === null || t < until);
}
