import * as path from 'node:path';
import type { NormalizedRecord, SessionProject, SessionSource } from 'mcpgw/plugin-api';
import type { Projection } from '../session/skim';
import { isRaw } from '../text';
import { arr, blocksText, count, entry, headRecords, headRecordsUntil, headText, num, obj, projectName, resultText, str, tokens, toolInput, unknownEntry, walkFiles, type Obj } from './common';

/**
 * OpenAI Codex CLI (openai/codex, codex-rs: `protocol/src/protocol.rs` RolloutLine / SessionMeta / EventMsg,
 * `core/src/rollout/`): `<home>/sessions/YYYY/MM/DD/rollout-*.jsonl` and, once archived, `<home>/archived_sessions/
 * rollout-*.jsonl`; lines `{timestamp, type, payload}`. The first line (`session_meta`) names the session id, the
 * working folder (the project), `forked_from_id` for a fork and `source.subagent.thread_spawn.parent_thread_id` for a
 * subagent's thread. A fork copies its parent's rollout after its own `session_meta` (the parent's `session_meta`, its
 * messages and its `token_count` events, times rewritten): its usage and tool calls are deduplicated in the scope of
 * the session it descends from, so the copy is not counted again (get_usage_stats). The conversation is in
 * `response_item` messages, echoed by `event_msg` `user_message` / `agent_message` / `agent_reasoning`; a rollout
 * written without response items keeps its conversation in those events, which are then its entries (see
 * `codexSuperseded`). User-role messages Codex injects — `# AGENTS.md instructions for …`, `<user_instructions>`,
 * `<environment_context>`, `<permissions instructions>` and the like — and developer messages are `injected` system
 * entries. A thread's name is its title: the newest of `<home>/session_index.jsonl` (`{id, thread_name, updated_at}`),
 * else the rollout's last `event_msg` `thread_name_updated` (also a summary entry, so that a search finds it).
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
    const names = threadNames(home);
    const rollout = (n: string) => n.startsWith('rollout-') && n.endsWith('.jsonl');
    const found = [
      ...walkFiles(path.join(home, 'sessions'), rollout).map((file) => ({ file, archived: false })),
      ...walkFiles(path.join(home, 'archived_sessions'), rollout).map((file) => ({ file, archived: true })),
    ];
    for (const { file, archived } of found) {
      const isMeta = (r: Obj) => r.type === 'session_meta';
      const meta = headRecordsUntil(file, 8, (rs) => rs.some(isMeta)).find(isMeta);
      const payload = obj(meta?.payload);
      const cwd = str(payload?.cwd) ?? null;
      const key = cwd ?? '(unknown)';
      let project = byCwd.get(key);
      if (!project) byCwd.set(key, (project = { id: key, name: projectName(cwd, 'unknown'), path: cwd, sessions: [] }));
      const fromName = /([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$/i.exec(file)?.[1];
      const { parent, forkedFrom } = lineage(payload);
      const id = str(payload?.id) ?? fromName ?? path.basename(file, '.jsonl');
      project.sessions.push({
        id,
        path: file,
        ...(names.get(id) ? { title: names.get(id) } : {}),
        ...(parent ? { parent_id: parent } : {}),
        ...(forkedFrom ? { forked_from: forkedFrom } : {}),
        ...(archived ? { archived: true } : {}),
      });
    }
    return [...byCwd.values()];
  },
  normalize: normalizeCodex,
};

/**
 * Thread names from `<home>/session_index.jsonl` (codex-rs `core/src/rollout/session_index.rs`: an append-only
 * `{id, thread_name, updated_at}` a line, the newest entry of an id wins); read up to 16 MiB.
 */
function threadNames(home: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const r of headRecords(headText(path.join(home, 'session_index.jsonl'), 16 * 1024 * 1024), 1_000_000)) {
    const id = str(r.id), name = str(r.thread_name);
    if (id && name) out.set(id, name);
  }
  return out;
}

/** A session_meta payload's parent (a subagent's thread) and the session it was forked from. */
function lineage(payload: Obj | null): { parent?: string; forkedFrom?: string } {
  const spawn = obj(obj(obj(payload?.source)?.subagent)?.thread_spawn);
  const parent = str(spawn?.parent_thread_id) ?? str(payload?.parent_thread_id);
  const forked = str(payload?.forked_from_id);
  return { ...(parent ? { parent } : {}), ...(forked && forked !== parent ? { forkedFrom: forked } : {}) };
}

/** Text Codex writes as a user-role message that the person did not type. */
const INJECTED = /^\s*(# AGENTS\.md instructions for |<user_instructions>|<environment_context>|<permissions instructions>|<collaboration_mode>|<turn_aborted>|<subagent_notification>|<user_shell_command>|<skill>|<codex_internal_context[ >]|<goal_context>)/;

/**
 * The records of a Codex rollout that repeat others: the `event_msg` echoes of the conversation (`user_message`,
 * `agent_message`, `agent_reasoning`) when the rollout holds the same kind of `response_item` (a person's message, an
 * assistant's message, reasoning). A rollout written without response items keeps its events as its conversation.
 */
export function codexSuperseded(records: Iterable<{ pos: number; value?: unknown }>): Set<number> {
  const echoes: Record<'user' | 'assistant' | 'reasoning', number[]> = { user: [], assistant: [], reasoning: [] };
  const has = { user: false, assistant: false, reasoning: false };
  for (const { pos, value } of records) {
    const r = obj(value);
    const p = obj(r?.payload);
    if (!r || !p) continue;
    if (r.type === 'response_item') {
      if (p.type === 'reasoning') has.reasoning = true;
      else if (p.type === 'message' && p.role === 'assistant') has.assistant = true;
      else if (p.type === 'message' && p.role === 'user' && !INJECTED.test(blocksText(p.content))) has.user = true;
    } else if (r.type === 'event_msg') {
      if (p.type === 'user_message') echoes.user.push(pos);
      else if (p.type === 'agent_message') echoes.assistant.push(pos);
      else if (p.type === 'agent_reasoning' || p.type === 'agent_reasoning_raw_content') echoes.reasoning.push(pos);
    }
  }
  const out = new Set<number>();
  for (const k of ['user', 'assistant', 'reasoning'] as const) if (has[k]) for (const pos of echoes[k]) out.add(pos);
  return out;
}


/**
 * What normalizeCodex (and codexSuperseded) read of a line for a session's digest (session/skim.ts): the kinds, ids,
 * times, lineage, models, token counts and tool names, and a message's content (whether a user message is injected
 * decides which echoes are replaced). Tool arguments and outputs, reasoning and event texts are not read for it.
 */
export const codexDigest: Projection = {
  timestamp: true, type: true,
  payload: {
    type: true, role: true, id: true, cwd: true, model: true, timestamp: true, forked_from_id: true, parent_thread_id: true, source: true,
    git: { branch: true }, call_id: true, name: true, thread_name: true, info: true, content: true,
  },
};

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
      const { parent, forkedFrom } = lineage(p);
      return {
        hints: {
          ...(str(p.id) ? { session_id: str(p.id) } : {}),
          ...(parent ? { parent_session_id: parent } : {}),
          ...(forkedFrom ? { forked_from: forkedFrom } : {}),
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
          const text = blocksText(p.content);
          if (role === 'assistant') return { entry: entry('assistant', { ...base, text }) };
          if (role === 'user' && !INJECTED.test(text)) return { entry: entry('user', { ...base, text }) };
          // developer / system messages and the context Codex injects as user messages
          return { entry: entry('system', { ...base, text, injected: true }) };
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
        // A token_count event is repeated with the same running total; the total identifies the response (its numbers
        // by value: a total spelled 1000 or 1e3 is one total, whether the record was parsed exactly or not).
        return {
          usage: {
            ...(total ? { key: `total:${JSON.stringify(total, (_k, v: unknown) => (isRaw(v) ? num(v) ?? null : v))}` } : {}),
            tokens: tokens(count(last.input_tokens) - cached, count(last.output_tokens), cached, 0),
            ...(timestamp ? { timestamp } : {}),
          },
        };
      }
      switch (ptype) {
        case 'user_message': {
          // The conversation's echo (superseded when the rollout has response items), else the conversation itself.
          const text = str(p.message) ?? '';
          return { entry: entry(INJECTED.test(text) ? 'system' : 'user', { timestamp, text, ...(INJECTED.test(text) ? { injected: true } : {}) }) };
        }
        case 'agent_message':
          return { entry: entry('assistant', { timestamp, text: str(p.message) ?? '' }) };
        case 'agent_reasoning':
        case 'agent_reasoning_raw_content':
          return { entry: entry('assistant', { timestamp, thinking: str(p.text) ?? null }) };
        case 'thread_name_updated': {
          // The thread's name: its title, and a summary entry so that a search finds it.
          const name = str(p.thread_name) ?? str(p.name);
          return name ? { hints: { title: name, title_source: 'user' }, entry: entry('summary', { timestamp, text: name, injected: true }) } : null;
        }
      }
      return { entry: entry('system', { timestamp, text: str(p.message) ?? `[${ptype ?? 'event'}]` }) };
    }
    case 'compacted':
      return { entry: entry('summary', { timestamp, text: str(p.message) ?? '', injected: true }) };
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
