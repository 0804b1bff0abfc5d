import * as path from 'node:path';
import type { NormalizedRecord, SessionProject, SessionSource } from 'mcpgw/plugin-api';
import { arr, blocksText, count, entry, headRecords, headText, obj, projectName, resultText, str, tokens, toolInput, unknownEntry, walkFiles } from './common';

/**
 * OpenAI Codex CLI: `<home>/sessions/YYYY/MM/DD/rollout-*.jsonl`, lines `{timestamp, type, payload}`. The first line
 * (`session_meta`) names the session id and the working folder, which is the project.
 */
export const codexSource: SessionSource = {
  name: 'codex',
  title: 'Codex CLI',
  defaultHome: (userHome) => path.join(userHome, '.codex'),
  sessionsRoot: (home) => path.join(home, 'sessions'),
  layout: { kind: 'lines' },
  processNames: ['codex'],
  async discover(home) {
    const byCwd = new Map<string, SessionProject>();
    for (const file of walkFiles(path.join(home, 'sessions'), (n) => n.startsWith('rollout-') && n.endsWith('.jsonl'))) {
      const meta = headRecords(headText(file), 8).find((r) => r.type === 'session_meta');
      const payload = obj(meta?.payload);
      const cwd = str(payload?.cwd) ?? null;
      const key = cwd ?? '(unknown)';
      let project = byCwd.get(key);
      if (!project) byCwd.set(key, (project = { id: key, name: projectName(cwd, 'unknown'), path: cwd, sessions: [] }));
      const fromName = /([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$/i.exec(file)?.[1];
      project.sessions.push({ id: str(payload?.id) ?? fromName ?? path.basename(file, '.jsonl'), path: file });
    }
    return [...byCwd.values()];
  },
  normalize: normalizeCodex,
};

/** event_msg payload types that repeat a response_item (the conversation is read from the response items). */
const ECHOES = new Set(['user_message', 'agent_message', 'agent_reasoning', 'agent_reasoning_raw_content', 'token_count']);

export function normalizeCodex(record: unknown): NormalizedRecord | null {
  const r = obj(record);
  if (!r) return null;
  const type = str(r.type);
  const timestamp = str(r.timestamp) ?? null;
  const p = obj(r.payload) ?? {};
  const ptype = str(p.type);
  switch (type) {
    case 'session_meta': {
      const git = obj(p.git);
      // The session's own start (payload.timestamp), else when the line was written.
      const started = str(p.timestamp) ?? timestamp;
      return {
        hints: {
          ...(str(p.id) ? { session_id: str(p.id) } : {}),
          ...(str(p.cwd) ? { cwd: str(p.cwd) } : {}),
          ...(str(git?.branch) ? { git_branch: str(git?.branch) } : {}),
          ...(str(p.model) ? { model: str(p.model) } : {}),
          ...(started ? { timestamp: started } : {}),
        },
      };
    }
    case 'turn_context':
      return str(p.model) ? { hints: { model: str(p.model) } } : null;
    case 'response_item': {
      const base = { uuid: str(p.id) ?? null, timestamp };
      switch (ptype) {
        case 'message': {
          const role = str(p.role);
          const mapped = role === 'user' ? 'user' : role === 'assistant' ? 'assistant' : 'system';
          return { entry: entry(mapped, { ...base, text: blocksText(p.content) }) };
        }
        case 'reasoning': {
          const summary = arr(p.summary).map((s) => str(obj(s)?.text)).filter((t): t is string => !!t);
          const content = arr(p.content).map((s) => str(obj(s)?.text)).filter((t): t is string => !!t);
          const thinking = [...summary, ...content].join('\n\n');
          return { entry: entry('assistant', { ...base, thinking: thinking || null }) };
        }
        case 'function_call':
        case 'custom_tool_call':
        case 'local_shell_call': {
          const input = ptype === 'custom_tool_call' ? { input: p.input } : ptype === 'local_shell_call' ? (obj(p.action) ?? {}) : p.arguments;
          const name = str(p.name) ?? (ptype === 'local_shell_call' ? 'local_shell' : '');
          return { entry: entry('assistant', { ...base, tool_uses: [{ id: str(p.call_id) ?? str(p.id) ?? '', name, input: toolInput(input) }] }) };
        }
        case 'function_call_output':
        case 'custom_tool_call_output': {
          const { text, isError } = outputOf(p.output);
          return { entry: entry('tool', { ...base, tool_results: [{ tool_use_id: str(p.call_id) ?? '', result: text, is_error: isError }] }) };
        }
        default:
          return { entry: unknownEntry(`response_item:${ptype ?? '?'}`, p, timestamp ?? undefined) };
      }
    }
    case 'event_msg': {
      if (ptype === 'token_count') {
        const info = obj(p.info);
        const last = obj(info?.last_token_usage);
        if (!last) return null;
        const cached = count(last.cached_input_tokens);
        const total = obj(info?.total_token_usage);
        // A token_count event is repeated with the same running total; the total identifies the response.
        return {
          usage: {
            ...(total ? { key: `total:${JSON.stringify(total)}` } : {}),
            tokens: tokens(count(last.input_tokens) - cached, count(last.output_tokens), cached, 0),
            ...(timestamp ? { timestamp } : {}),
          },
        };
      }
      if (ptype && ECHOES.has(ptype)) return null;
      return { entry: entry('system', { timestamp, text: str(p.message) ?? `[${ptype ?? 'event'}]` }) };
    }
    case 'compacted':
      return { entry: entry('summary', { timestamp, text: str(p.message) ?? '' }) };
    default:
      return { entry: unknownEntry(type, r, timestamp ?? undefined) };
  }
}

/** A tool output: plain text, or JSON `{output, metadata: {exit_code}}` (a non-zero exit code is an error). */
function outputOf(output: unknown): { text: string; isError: boolean } {
  if (typeof output === 'string') {
    try {
      const parsed = obj(JSON.parse(output));
      if (parsed && typeof parsed.output === 'string') {
        const code = obj(parsed.metadata)?.exit_code;
        return { text: parsed.output, isError: typeof code === 'number' && code !== 0 };
      }
    } catch { /* plain text */ }
    return { text: resultText(output), isError: false };
  }
  const o = obj(output);
  return { text: resultText(output), isError: o?.success === false };
}
