import * as path from 'node:path';
import type { NormalizedRecord, SessionProject, SessionSource } from 'mcpgw/plugin-api';
import type { Projection } from '../session/skim';
import { arr, count, entry, filesIn, headRecordsUntil, headText, obj, projectName, resultText, str, subdirs, tokens, toolInput, unknownEntry, type Obj } from './common';

/**
 * GitHub Copilot CLI (closed source; the github/copilot-cli issue tracker on persisted usage and `/new`, and the
 * readers of getagentseal/codeburn and kenn-io/agentsview): `<home>/session-state/<uuid>/events.jsonl`, events `{type, data, id,
 * timestamp, parentId}`. `session.start` names the working folder (the project). Token usage is written once per run
 * of the session, when it ends: `session.shutdown` `data.modelMetrics` `{<model>: {requests: {count}, usage:
 * {inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens, reasoningTokens}}}` — a resumed session adds one
 * shutdown per run; `inputTokens` includes the cache reads and writes. A run that ended without a shutdown (a crash,
 * `/new`) left no totals. The per-call `assistant.usage` events are not written to disk. The title is the `name` (else
 * the generated `summary`) of the session folder's `workspace.yaml`.
 */
export const copilotSource: SessionSource = {
  name: 'copilot',
  title: 'GitHub Copilot CLI',
  defaultHome: (userHome) => path.join(userHome, '.copilot'),
  sessionsRoot: (home) => path.join(home, 'session-state'),
  layout: { kind: 'lines' },
  processNames: ['copilot'],
  async discover(home) {
    const byCwd = new Map<string, SessionProject>();
    for (const dir of subdirs(path.join(home, 'session-state'))) {
      const file = filesIn(dir, (n) => n === 'events.jsonl')[0];
      if (!file) continue;
      const isStart = (r: Obj) => r.type === 'session.start';
      const start = headRecordsUntil(file, 8, (rs) => rs.some(isStart)).find(isStart);
      const data = obj(start?.data);
      const cwd = str(obj(data?.context)?.cwd) ?? str(data?.cwd) ?? null;
      const key = cwd ?? '(unknown)';
      let project = byCwd.get(key);
      if (!project) byCwd.set(key, (project = { id: key, name: projectName(cwd, 'unknown'), path: cwd, sessions: [] }));
      const title = workspaceTitle(path.join(dir, 'workspace.yaml'));
      project.sessions.push({ id: str(data?.sessionId) ?? path.basename(dir), path: file, ...(title ? { title } : {}) });
    }
    return [...byCwd.values()];
  },
  normalize: normalizeCopilot,
};

/**
 * The session's title from the CLI's `workspace.yaml` beside the events: `name` (the person's name for the session)
 * else `summary` (the CLI's generated title). Flat `key: value` lines; a quoted value is unquoted.
 */
function workspaceTitle(file: string): string | undefined {
  const text = headText(file, 64 * 1024);
  if (!text) return undefined;
  const value = (key: string) => {
    const m = new RegExp(`^${key}:[ \\t]*(.*)$`, 'm').exec(text);
    let v = m?.[1]?.trim();
    if (!v) return undefined;
    if (v.startsWith('"')) { try { v = JSON.parse(v) as string; } catch { return undefined; } }
    else if (v.startsWith("'") && v.endsWith("'") && v.length > 1) v = v.slice(1, -1).replace(/''/g, "'");
    return typeof v === 'string' && v ? v : undefined;
  };
  return value('name') ?? value('summary');
}

/**
 * What normalizeCopilot reads of an event for a session's digest (session/skim.ts): kinds, ids, times, the session's
 * start, models, tool call ids and names, and the shutdown's model metrics. Contents, arguments and results are not
 * read for it.
 */
export const copilotDigest: Projection = {
  type: true, timestamp: true, id: true,
  data: {
    sessionId: true, context: { cwd: true, branch: true }, cwd: true, selectedModel: true, model: true, currentModel: true, toolCallId: true, toolName: true,
    modelMetrics: true, toolRequests: [{ toolCallId: true, id: true, name: true, toolName: true }],
  },
};

export function normalizeCopilot(record: unknown): NormalizedRecord | null {
  const r = obj(record);
  if (!r) return null;
  const type = str(r.type);
  const timestamp = str(r.timestamp) ?? null;
  const data = obj(r.data) ?? {};
  const base = { uuid: str(r.id) ?? null, timestamp };
  switch (type) {
    case 'session.start': {
      const context = obj(data.context);
      return {
        hints: {
          ...(str(data.sessionId) ? { session_id: str(data.sessionId) } : {}),
          ...(str(context?.cwd) ?? str(data.cwd) ? { cwd: str(context?.cwd) ?? str(data.cwd) } : {}),
          ...(str(context?.branch) ? { git_branch: str(context?.branch) } : {}),
          ...(str(data.selectedModel) ?? str(data.model) ? { model: str(data.selectedModel) ?? str(data.model) } : {}),
          ...(timestamp ? { timestamp } : {}),
        },
      };
    }
    case 'user.message':
      return { entry: entry('user', { ...base, text: resultText(data.content) }) };
    case 'assistant.message': {
      const uses = arr(data.toolRequests).map((t) => {
        const o = obj(t) ?? {};
        return { id: str(o.toolCallId) ?? str(o.id) ?? '', name: str(o.name) ?? str(o.toolName) ?? '', input: toolInput(o.arguments) };
      });
      return { entry: entry('assistant', { ...base, text: resultText(data.content), thinking: str(data.reasoningText) ?? null, tool_uses: uses, model: str(data.model) ?? null }) };
    }
    case 'assistant.reasoning':
      return { entry: entry('assistant', { ...base, thinking: str(data.content) ?? null }) };
    case 'tool.execution_start':
      // The call as executed; the same id as the assistant message's tool request, so counts stay per call id.
      return { entry: entry('assistant', { ...base, tool_uses: [{ id: str(data.toolCallId) ?? '', name: str(data.toolName) ?? '', input: toolInput(data.arguments) }] }) };
    case 'tool.execution_complete': {
      const result = obj(data.result);
      const text = resultText(result?.content ?? data.result ?? data.error);
      return { entry: entry('tool', { ...base, tool_results: [{ tool_use_id: str(data.toolCallId) ?? '', result: text, is_error: data.success === false }] }) };
    }
    case 'assistant.usage': {
      // Live only (the CLI does not write it to disk); should one be found, the run's shutdown totals already hold it.
      const model = str(data.model);
      return model ? { hints: { model } } : null;
    }
    case 'session.shutdown': {
      // The run's totals per model: input without the cache reads and writes it includes; requests.count responses.
      const usage = [];
      const metrics = obj(data.modelMetrics) ?? {};
      for (const [model, m] of Object.entries(metrics)) {
        const u = obj(obj(m)?.usage);
        if (!u) continue;
        const read = count(u.cacheReadTokens), write = count(u.cacheWriteTokens);
        usage.push({
          key: `shutdown:${str(r.id) ?? timestamp ?? ''}:${model}`,
          model,
          responses: count(obj(obj(m)?.requests)?.count),
          tokens: tokens(Math.max(0, count(u.inputTokens) - read - write), count(u.outputTokens), read, write),
          ...(timestamp ? { timestamp } : {}),
        });
      }
      const current = str(data.currentModel);
      return { usage, ...(current ? { hints: { model: current } } : {}) };
    }
    default:
      return { entry: { ...unknownEntry(type, data, timestamp ?? undefined), uuid: base.uuid } };
  }
}
