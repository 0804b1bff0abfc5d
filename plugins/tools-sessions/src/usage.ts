import type { SessionTokens, SessionUsageRecord } from 'mcpgw/plugin-api';
import type { SessionSummary } from './session/summary';

/** What a session contributes to usage statistics, kept small (one item per response and per tool call). */
export interface SessionStats {
  entries: number;
  /** Responses, each once within the session (records repeating a response's key are dropped). */
  usage: SessionUsageRecord[];
  /** Tool calls, each once within the session (a call recorded twice under one id is counted once). */
  toolUses: { id: string; name: string; timestamp: string | null }[];
  firstTimestamp: string | null;
  lastTimestamp: string | null;
  /** The session's model, for responses that do not name one. */
  model: string | null;
  /** The session id its records give, null when they give none: the scope of response keys and tool-call ids. */
  sessionId: string | null;
  skipped: number;
}

/** The stats of a complete summary. */
export function statsOf(s: SessionSummary): SessionStats {
  const keys = new Set<string>();
  const usage: SessionUsageRecord[] = [];
  for (const u of s.usage) {
    if (u.key !== undefined) {
      if (keys.has(u.key)) continue;
      keys.add(u.key);
    }
    usage.push(u);
  }
  const ids = new Set<string>();
  const toolUses: SessionStats['toolUses'] = [];
  for (const t of s.toolUses) {
    if (t.id) {
      if (ids.has(t.id)) continue;
      ids.add(t.id);
    }
    toolUses.push({ id: t.id, name: t.name || '(unnamed)', timestamp: t.timestamp });
  }
  return { entries: s.entries.length, usage, toolUses, firstTimestamp: s.firstTimestamp, lastTimestamp: s.lastTimestamp, model: s.hints.model ?? null, sessionId: s.hints.session_id ?? null, skipped: s.skipped };
}

export interface TokenTotals {
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  /** All four added up. */
  total_tokens: number;
  /** Model responses counted (each once). */
  responses: number;
}

export function zeroTotals(): TokenTotals {
  return { input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0, total_tokens: 0, responses: 0 };
}

export function addTokens(t: TokenTotals, k: SessionTokens): void {
  t.input_tokens += k.input_tokens;
  t.output_tokens += k.output_tokens;
  t.cache_read_tokens += k.cache_read_tokens;
  t.cache_write_tokens += k.cache_write_tokens;
  t.total_tokens += k.input_tokens + k.output_tokens + k.cache_read_tokens + k.cache_write_tokens;
  t.responses++;
}

/** Whether an RFC 3339 time lies in [since, until) (ms); a record without a time counts only when no bound is set. */
export function inRange(timestamp: string | null | undefined, since: number | null, until: number | null): boolean {
  if (since === null && until === null) return true;
  const t = timestamp ? Date.parse(timestamp) : NaN;
  if (Number.isNaN(t)) return false;
  return (since === null || t >= since) && (until === null || t < until);
}
