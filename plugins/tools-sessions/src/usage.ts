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
  const usage = mergeResponses(s.usage);
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

/**
 * One usage record per response: records of one key are one response (Claude writes a streamed response as one line
 * per content block, each repeating its usage; the first lines carry a partial output count, the last the final one),
 * merged by the largest value of each token field, at the place of the key's first record. A key's refinement (after a
 * NUL: Claude's request id) splits its records only when every record of the key has one (a line of the response
 * written without its request id is not another response). Records without a key are each a response.
 */
export function mergeResponses(records: readonly SessionUsageRecord[]): SessionUsageRecord[] {
  const byKey = new Map<string, SessionUsageRecord[]>();
  for (const u of records) {
    if (u.key === undefined) continue;
    const base = u.key.split('\u0000', 1)[0]!;
    let group = byKey.get(base);
    if (!group) byKey.set(base, (group = []));
    group.push(u);
  }
  const out: SessionUsageRecord[] = [];
  const done = new Set<string>();
  for (const u of records) {
    if (u.key === undefined) { out.push(u); continue; }
    const base = u.key.split('\u0000', 1)[0]!;
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
