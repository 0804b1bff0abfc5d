import * as path from 'node:path';
import type { NormalizedRecord, SessionProject, SessionRef, SessionSource, SessionToolResult, SessionToolUse } from 'mcpgw/plugin-api';
import type { Projection } from '../session/skim';
import { binarySummary } from '../text';
import { arr, count, entry, filesIn, firstStringMember, headRecordsUntil, headText, obj, projectName, resultText, str, subdirs, tokens, toolInput, unknownEntry, type Obj } from './common';

/**
 * Qwen Code (QwenLM/qwen-code `packages/core/src/services/chatRecordingService.ts`, ChatRecord):
 * `<home>/projects/<encoded cwd>/chats/<session id>.jsonl`, one ChatRecord a line: `{uuid, parentUuid, sessionId,
 * timestamp, type: user|assistant|tool_result|system, subtype?, provenance?, cwd, gitBranch, message: {role, parts},
 * usageMetadata?, model?, systemPayload?, forkedFrom?}`; parts as in the Gemini API (`text`, `thought`, `functionCall`,
 * `functionResponse`). A user record whose `provenance` is not `real_user` (goal control, system notices) or whose
 * subtype is `notification` is an `injected` system entry; a `chat_compression` record is an injected summary. The
 * title is the last `custom_title` record's `systemPayload.customTitle` (`titleSource` `manual` — or absent — is the
 * person's rename). A sub-session names its parent in a `parent_session` record (`systemPayload.parentSessionId`); a
 * session made by `/branch` copies its source's records verbatim (same uuids) with `forkedFrom: {sessionId}` on each, so
 * its usage counts in the scope of that session.
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
      const sessions: SessionRef[] = files.map((f) => {
        const parentOf = (r: Obj) => str(obj(r.systemPayload)?.parentSessionId);
        const head = headRecordsUntil(f, 64, (rs) => rs.some(parentOf));
        const parent = head.map(parentOf).find(Boolean);
        const forked = head.map((r) => str(obj(r.forkedFrom)?.sessionId)).find(Boolean);
        return { id: path.basename(f, '.jsonl'), path: f, ...(parent ? { parent_id: parent } : forked ? { forked_from: forked } : {}) };
      });
      projects.push({ id, name: projectName(cwd ?? null, id), path: cwd ?? null, sessions });
    }
    return projects;
  },
  normalize: normalizeQwen,
};

/**
 * What normalizeQwen reads of a ChatRecord for a session's digest (session/skim.ts): kind, subtype, provenance, ids,
 * times, model, usage, lineage, the title and the function calls' ids and names. Texts and function responses are not
 * read for it.
 */
export const qwenDigest: Projection = {
  uuid: true, sessionId: true, timestamp: true, type: true, subtype: true, provenance: true, model: true,
  forkedFrom: { sessionId: true }, systemPayload: { customTitle: true, titleSource: true, parentSessionId: true }, usageMetadata: true,
  message: { parts: [{ functionCall: { id: true, name: true } }] },
};

export function normalizeQwen(record: unknown): NormalizedRecord | null {
  const r = obj(record);
  if (!r) return null;
  const type = str(r.type);
  const timestamp = str(r.timestamp) ?? null;
  const model = str(r.model) ?? null;
  const payload = obj(r.systemPayload);
  const forked = str(obj(r.forkedFrom)?.sessionId);
  const hints: NormalizedRecord['hints'] = {
    ...(str(r.sessionId) ? { session_id: str(r.sessionId) } : {}),
    ...(forked ? { forked_from: forked } : {}),
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
  if (type === 'system' && r.subtype === 'custom_title') {
    const title = str(payload?.customTitle);
    return title ? { hints: { ...hints, title, title_source: payload?.titleSource === 'auto' ? 'assistant' : 'user' }, entry: entry('summary', { ...fields, text: title, injected: true }) } : { hints };
  }
  if (type === 'system' && r.subtype === 'parent_session') {
    const parent = str(payload?.parentSessionId);
    return { hints: { ...hints, ...(parent ? { parent_session_id: parent } : {}) } };
  }
  if (type === 'system' && r.subtype === 'chat_compression') {
    const summary = arr(payload?.compressedHistory).map((c) => arr(obj(c)?.parts).map((p) => str(obj(p)?.text) ?? '').join('')).filter(Boolean)[0];
    return { hints, entry: entry('summary', { ...fields, text: summary ?? '[chat compression]', injected: true }) };
  }
  const notTyped = type === 'user' && ((typeof r.provenance === 'string' && r.provenance !== 'real_user') || r.subtype === 'notification');
  switch (type) {
    case 'user': out = { hints, entry: results.length && !texts.length ? entry('tool', fields) : notTyped ? entry('system', { ...fields, injected: true }) : entry('user', fields) }; break;
    case 'assistant': out = { hints, entry: entry('assistant', fields) }; break;
    case 'tool_result': out = { hints, entry: entry('tool', fields) }; break;
    case 'system': out = { hints, entry: entry('system', { ...fields, text: fields.text || `[${str(r.subtype) ?? 'system'}]` }) }; break;
    default: return { hints, entry: { ...unknownEntry(type, r, timestamp ?? undefined), uuid: base.uuid } };
  }
  if (usage && type === 'assistant') out.usage = { ...(base.uuid ? { key: base.uuid } : {}), ...(model ? { model } : {}), tokens: usage, ...(timestamp ? { timestamp } : {}) };
  return out;
}
