import * as path from 'node:path';
import type { NormalizedRecord, SessionProject, SessionSource } from 'mcpgw/plugin-api';
import { arr, blocksText, count, entry, filesIn, firstStringMember, headText, obj, projectName, resultText, str, subdirs, tokens, toolInput, unknownEntry } from './common';

/**
 * Gemini CLI: `<home>/tmp/<project hash>/chats/<session>.json`, ONE JSON document per session:
 * `{sessionId, projectHash, startTime, lastUpdated, messages: [...]}`. The hash (SHA-256 of the folder) cannot be
 * turned back into the folder; a `.project_root` file next to `chats/`, when present, names it.
 */
export const geminiSource: SessionSource = {
  name: 'gemini',
  title: 'Gemini CLI',
  defaultHome: (userHome) => path.join(userHome, '.gemini'),
  sessionsRoot: (home) => path.join(home, 'tmp'),
  layout: { kind: 'document', entriesPointer: '/messages', hints: { session_id: '/sessionId', timestamp: '/startTime' } },
  processNames: ['gemini'],
  async discover(home) {
    const projects: SessionProject[] = [];
    for (const dir of subdirs(path.join(home, 'tmp'))) {
      const files = filesIn(path.join(dir, 'chats'), (n) => n.endsWith('.json'));
      if (files.length === 0) continue;
      const id = path.basename(dir);
      const root = headText(path.join(dir, '.project_root'), 4096).trim() || null;
      projects.push({
        id,
        name: projectName(root, id.slice(0, 12)),
        path: root,
        sessions: files.map((f) => ({ id: firstStringMember(headText(f, 4096), 'sessionId') ?? path.basename(f, '.json'), path: f })),
      });
    }
    return projects;
  },
  normalize: normalizeGemini,
};

export function normalizeGemini(record: unknown): NormalizedRecord | null {
  const m = obj(record);
  if (!m) return null;
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
  const usage = t ? tokens(count(t.input) - count(t.cached), count(t.output) + count(t.thoughts), count(t.cached), 0) : null;
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

/** A tool call's recorded result: `[{functionResponse: {response: {output}}}]`, or text. */
function functionResponseText(result: unknown): string {
  const parts = arr(result).map((p) => {
    const response = obj(obj(obj(p)?.functionResponse)?.response);
    if (response) return typeof response.output === 'string' ? response.output : typeof response.error === 'string' ? response.error : JSON.stringify(response);
    return resultText(p);
  });
  return parts.length ? parts.join('\n') : resultText(result);
}
