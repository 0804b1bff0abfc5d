import * as path from 'node:path';
import type { NormalizedRecord, SessionProject, SessionRef, SessionSource } from 'mcpgw/plugin-api';
import type { Projection } from '../session/skim';
import { arr, blocksText, count, entry, filesIn, firstStringMember, headText, obj, projectName, resultText, str, subdirs, tokens, toolInput, unknownEntry } from './common';

/**
 * Gemini CLI: `<home>/tmp/<project hash>/chats/session-*.json` before 0.39, ONE JSON document per session
 * (`{sessionId, projectHash, startTime, lastUpdated, messages: [...]}`), and `session-*.jsonl` since, JSON Lines
 * appended as the session goes: a first record with the session's metadata (`{sessionId, projectHash, startTime,
 * lastUpdated, kind?, directories?}`), message records (`{id, timestamp, type, content, toolCalls?, thoughts?,
 * tokens?, model?}` — a message is written again under its id each time its tokens or tool calls change, the last
 * version counts), `{$set: {...}}` metadata updates (`lastUpdated`, `summary`, …) and `{$rewindTo: id}` (that message
 * and every later one were taken back). A `.json` session resumed by a newer CLI is copied whole into a `.jsonl` of
 * the same name, which is then the session. Subagents' logs (`chats/<parent session id>/<id>.jsonl`, `kind:
 * "subagent"`) are sessions linked to that parent. A message's `tokens` are `{input (promptTokenCount, cached content
 * included), output, cached, thoughts, tool (toolUsePromptTokenCount, not in input), total}`: input is input − cached
 * + tool, output is output + thoughts. A `$set` of `summary` is the session's title. Source: google-gemini/gemini-cli
 * `packages/core/src/services/chatRecordingService.ts` (recordMessageTokens, initialize, rewindTo, saveSummary).
 * The hash (SHA-256 of the folder) cannot be turned back into the folder; a `.project_root` file next to `chats/`,
 * when present, names it.
 */
export const geminiSource: SessionSource = {
  name: 'gemini',
  title: 'Gemini CLI',
  defaultHome: (userHome) => path.join(userHome, '.gemini'),
  sessionsRoot: (home) => path.join(home, 'tmp'),
  layout: { kind: 'document', entriesPointer: '/messages', hints: { session_id: '/sessionId', timestamp: '/startTime', title: '/summary' } },
  processNames: ['gemini'],
  async discover(home) {
    const projects: SessionProject[] = [];
    for (const dir of subdirs(path.join(home, 'tmp'))) {
      const all = filesIn(path.join(dir, 'chats'), (n) => n.endsWith('.json') || n.endsWith('.jsonl'));
      const lines = new Set(all.filter((f) => f.endsWith('.jsonl')));
      const files = all.filter((f) => !(f.endsWith('.json') && lines.has(`${f}l`)));
      const sessions: SessionRef[] = files.map((f) => ({ id: firstStringMember(headText(f, 4096), 'sessionId') ?? path.basename(f).replace(/\.jsonl?$/, ''), path: f }));
      for (const sub of subdirs(path.join(dir, 'chats'))) {
        for (const f of filesIn(sub, (n) => n.endsWith('.jsonl'))) {
          sessions.push({ id: firstStringMember(headText(f, 4096), 'sessionId') ?? path.basename(f, '.jsonl'), path: f, parent_id: path.basename(sub) });
        }
      }
      if (sessions.length === 0) continue;
      const id = path.basename(dir);
      const root = headText(path.join(dir, '.project_root'), 4096).trim() || null;
      projects.push({ id, name: projectName(root, id.slice(0, 12)), path: root, sessions });
    }
    return projects;
  },
  normalize: normalizeGemini,
};

/**
 * What normalizeGemini (and geminiSuperseded) read of a message record for a session's digest (session/skim.ts): its
 * kind, id, time, model, tokens and tool call ids and names, and the metadata, `$set` and `$rewindTo` records. Contents,
 * thoughts and tool arguments and results are not read for it. `geminiDocumentDigest`: a `.json` session (the hints
 * its layout names, and the messages).
 */
export const geminiDigest: Projection = {
  $set: { summary: true }, $rewindTo: true, id: true, sessionId: true, projectHash: true, startTime: true, type: true, timestamp: true, model: true,
  tokens: true, toolCalls: [{ id: true, name: true }],
};
export const geminiDocumentMessages: Projection = [geminiDigest];
export const geminiDocumentDigest: Projection = { sessionId: true, startTime: true, summary: true, messages: geminiDocumentMessages };

export function normalizeGemini(record: unknown): NormalizedRecord | null {
  const m = obj(record);
  if (!m) return null;
  // JSON Lines bookkeeping: the session's metadata, updates of it, and a rewind.
  const set = obj(m.$set);
  if (set) {
    const summary = str(set.summary);
    return summary ? { hints: { title: summary, title_source: 'assistant' }, entry: entry('summary', { text: summary, injected: true }) } : null;
  }
  const rewind = str(m.$rewindTo);
  if (rewind !== undefined) return { entry: entry('checkpoint', { text: `[rewound: message ${rewind} and the later ones were taken back]` }) };
  if (m.id === undefined && typeof m.sessionId === 'string' && typeof m.projectHash === 'string') {
    const hints: NormalizedRecord['hints'] = { session_id: m.sessionId };
    const start = str(m.startTime);
    if (start) hints.timestamp = start;
    return { hints };
  }
  const type = str(m.type);
  const base = { uuid: str(m.id) ?? null, timestamp: str(m.timestamp) ?? null, model: str(m.model) ?? null };
  const role = type === 'user' ? 'user' : type === 'gemini' || type === 'model' ? 'assistant' : null;
  if (!role) {
    if (type === 'info' || type === 'error' || type === 'warning') return { entry: entry('system', { ...base, text: blocksText(m.content) || `[${type}]` }) };
    return { entry: { ...unknownEntry(type, m, base.timestamp ?? undefined), uuid: base.uuid } };
  }
  const calls = arr(m.toolCalls).map((c) => obj(c) ?? {});
  const thoughts = arr(m.thoughts).map((t) => {
    const o = obj(t) ?? {};
    return [str(o.subject), str(o.description)].filter(Boolean).join(': ');
  }).filter(Boolean);
  const t = obj(m.tokens);
  // tokens: {input: promptTokenCount (cached content included), output: candidates, cached, thoughts, tool:
  // toolUsePromptTokenCount (the prompt of tool use, not in input), total} — chatRecordingService.recordMessageTokens.
  const usage = t ? tokens(count(t.input) - count(t.cached) + count(t.tool), count(t.output) + count(t.thoughts), count(t.cached), 0) : null;
  const out: NormalizedRecord = {
    entry: entry(role, {
      ...base,
      text: blocksText(m.content),
      thinking: thoughts.length ? thoughts.join('\n\n') : null,
      tool_uses: calls.map((c) => ({ id: str(c.id) ?? '', name: str(c.name) ?? '', input: toolInput(c.args) })),
      tool_results: calls.filter((c) => c.result !== undefined).map((c) => ({ tool_use_id: str(c.id) ?? '', result: functionResponseText(c.result), is_error: c.status === 'error' })),
      usage,
    }),
  };
  if (base.model) out.hints = { model: base.model };
  if (usage) out.usage = { ...(base.uuid ? { key: base.uuid } : {}), ...(base.model ? { model: base.model } : {}), tokens: usage, ...(base.timestamp ? { timestamp: base.timestamp } : {}) };
  return out;
}

/**
 * Positions of the records of a Gemini JSON Lines session that a later record replaced: earlier versions of a
 * message written again under its id, and messages taken back by `$rewindTo` (the message named and every message
 * first written after it; an unknown id takes back all). The same replay as the CLI's own loader.
 */
export function geminiSuperseded(records: Iterable<{ pos: number; value?: unknown }>): Set<number> {
  const live = new Map<string, number>(); // message id → position of its latest version, in first-written order
  const superseded = new Set<number>();
  for (const { pos, value } of records) {
    const r = obj(value);
    if (!r) continue;
    const rewind = str(r.$rewindTo);
    if (rewind !== undefined) {
      let found = !live.has(rewind);
      for (const [id, at] of live) {
        if (id === rewind) found = true;
        if (found) { superseded.add(at); live.delete(id); }
      }
      continue;
    }
    const id = str(r.id);
    if (id === undefined || r.$set !== undefined) continue;
    const before = live.get(id);
    if (before !== undefined) superseded.add(before);
    live.set(id, pos);
  }
  return superseded;
}

/** A tool call's recorded result: `[{functionResponse: {response: {output}}}]`, or text. */
function functionResponseText(result: unknown): string {
  const parts = arr(result).map((p) => {
    const response = obj(obj(obj(p)?.functionResponse)?.response);
    if (response) return typeof response.output === 'string' ? response.output : typeof response.error === 'string' ? response.error : JSON.stringify(response);
    return resultText(p);
  });
  return parts.length ? parts.join('\n') : resultText(result);
}
