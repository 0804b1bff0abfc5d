import * as path from 'node:path';
import type { NormalizedRecord, SessionProject, SessionSource, SessionToolResult, SessionToolUse } from 'mcpgw/plugin-api';
import { binarySummary } from '../text';
import { arr, count, entry, filesIn, firstStringMember, headText, obj, projectName, resultText, str, subdirs, tokens, toolInput, unknownEntry } from './common';

/**
 * Qwen Code: `<home>/projects/<encoded cwd>/chats/<session id>.jsonl`, one ChatRecord a line:
 * `{uuid, parentUuid, sessionId, timestamp, type: user|assistant|tool_result|system, cwd, gitBranch, message: {role,
 * parts}, usageMetadata?, model?}`; parts as in the Gemini API (`text`, `thought`, `functionCall`, `functionResponse`).
 */
export const qwenSource: SessionSource = {
  name: 'qwen',
  title: 'Qwen Code',
  defaultHome: (userHome) => path.join(userHome, '.qwen'),
  sessionsRoot: (home) => path.join(home, 'projects'),
  layout: { kind: 'lines' },
  processNames: ['qwen'],
  async discover(home) {
    const projects: SessionProject[] = [];
    for (const dir of subdirs(path.join(home, 'projects'))) {
      const files = filesIn(path.join(dir, 'chats'), (n) => n.endsWith('.jsonl'));
      if (files.length === 0) continue;
      let cwd: string | undefined;
      for (const f of files) {
        cwd = firstStringMember(headText(f), 'cwd');
        if (cwd) break;
      }
      const id = path.basename(dir);
      projects.push({ id, name: projectName(cwd ?? null, id), path: cwd ?? null, sessions: files.map((f) => ({ id: path.basename(f, '.jsonl'), path: f })) });
    }
    return projects;
  },
  normalize: normalizeQwen,
};

export function normalizeQwen(record: unknown): NormalizedRecord | null {
  const r = obj(record);
  if (!r) return null;
  const type = str(r.type);
  const timestamp = str(r.timestamp) ?? null;
  const model = str(r.model) ?? null;
  const hints = {
    ...(str(r.sessionId) ? { session_id: str(r.sessionId) } : {}),
    ...(str(r.cwd) ? { cwd: str(r.cwd) } : {}),
    ...(str(r.gitBranch) ? { git_branch: str(r.gitBranch) } : {}),
    ...(model ? { model } : {}),
    ...(timestamp ? { timestamp } : {}),
  };
  const base = { uuid: str(r.uuid) ?? null, timestamp, model };
  const parts = arr(obj(r.message)?.parts).map((p) => obj(p) ?? {});
  const texts: string[] = [];
  const thoughts: string[] = [];
  const uses: SessionToolUse[] = [];
  const results: SessionToolResult[] = [];
  for (const p of parts) {
    if (typeof p.text === 'string') (p.thought === true ? thoughts : texts).push(p.text);
    const call = obj(p.functionCall);
    if (call) uses.push({ id: str(call.id) ?? '', name: str(call.name) ?? '', input: toolInput(call.args) });
    const response = obj(p.functionResponse);
    if (response) {
      const body = obj(response.response);
      results.push({ tool_use_id: str(response.id) ?? '', result: typeof body?.output === 'string' ? body.output : resultText(body ?? response.response), is_error: typeof body?.error === 'string' });
    }
    const inline = obj(p.inlineData);
    if (inline) texts.push(binarySummary('attachment', inline.mimeType, inline.data));
  }
  const u = obj(r.usageMetadata);
  const usage = u ? tokens(count(u.promptTokenCount) - count(u.cachedContentTokenCount), count(u.candidatesTokenCount) + count(u.thoughtsTokenCount), count(u.cachedContentTokenCount), 0) : null;
  const fields = { ...base, text: texts.join('\n\n'), thinking: thoughts.length ? thoughts.join('\n\n') : null, tool_uses: uses, tool_results: results, usage };
  let out: NormalizedRecord;
  switch (type) {
    case 'user': out = { hints, entry: entry(results.length && !texts.length ? 'tool' : 'user', fields) }; break;
    case 'assistant': out = { hints, entry: entry('assistant', fields) }; break;
    case 'tool_result': out = { hints, entry: entry('tool', fields) }; break;
    case 'system': out = { hints, entry: entry('system', { ...fields, text: fields.text || `[${str(r.subtype) ?? 'system'}]` }) }; break;
    default: return { hints, entry: { ...unknownEntry(type, r, timestamp ?? undefined), uuid: base.uuid } };
  }
  if (usage && type === 'assistant') out.usage = { ...(base.uuid ? { key: base.uuid } : {}), ...(model ? { model } : {}), tokens: usage, ...(timestamp ? { timestamp } : {}) };
  return out;
}
