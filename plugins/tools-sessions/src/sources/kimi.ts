import { createHash } from 'node:crypto';
import * as path from 'node:path';
import type { NormalizedRecord, SessionProject, SessionRef, SessionSource } from 'mcpgw/plugin-api';
import type { Projection } from '../session/skim';
import { lstatSync } from 'node:fs';
import { arr, blocksText, count, entry, filesIn, headText, num, obj, projectName, resultText, str, subdirs, tokens, toolInput } from './common';

/**
 * Kimi CLI (MoonshotAI/kimi-cli: `src/kimi_cli/session.py`, `soul/context.py`, `utils/path.py`
 * next_available_rotation, `tools/multiagent/task.py`, `subagents/store.py`, `wire/`):
 * `<home>/sessions/<md5 of work dir>/<session uuid>/context.jsonl`. `/clear` (and a checkpoint revert) rotates the
 * context to `context_1.jsonl`, `context_2.jsonl`, … (the history before it): read first, in numeric order, as the
 * session's earlier records. A subagent's transcript is a session of its own linked to its parent: older versions'
 * `context_sub_N.jsonl` beside the context (the Task tool's rotation of `context_sub.jsonl`), newer ones'
 * `subagents/<agent id>/context.jsonl` (with its own `wire.jsonl` and `meta.json`). Lines are chat messages `{role,
 * content, tool_calls?, tool_call_id?}` and bookkeeping (`_checkpoint`, `_usage`). `<home>/kimi.json` lists the work
 * dirs (`work_dirs: [{path}]`); a folder's MD5 names its sessions folder. The context files hold no times and no
 * per-response tokens: both are in the session folder's `wire.jsonl` (the CLI's event log: a `{type: "metadata",
 * protocol_version}` first line, then `{timestamp: <epoch seconds>, message: {type, payload}}`): its first time is the
 * session's start, and each `StatusUpdate` carries one response's `token_usage {input_other, output, input_cache_read,
 * input_cache_creation}` and its `message_id` — also when wrapped in a `SubagentEvent` (an older subagent's responses,
 * counted in the parent's session). Read beside the session (`kimiUsageFiles`). The session folder's `state.json`
 * (`session_state.py`; older: `metadata.json`) holds its title (`custom_title`) and whether it is archived.
 */
export const kimiSource: SessionSource = {
  name: 'kimi',
  title: 'Kimi CLI',
  defaultHome: (userHome) => path.join(userHome, '.kimi'),
  sessionsRoot: (home) => path.join(home, 'sessions'),
  layout: { kind: 'lines' },
  processNames: ['kimi'],
  async discover(home) {
    const workDirs = new Map<string, string>();
    try {
      const config = obj(JSON.parse(headText(path.join(home, 'kimi.json'), 4 * 1024 * 1024)));
      for (const w of arr(config?.work_dirs)) {
        const p = str(obj(w)?.path);
        if (p) workDirs.set(createHash('md5').update(p).digest('hex'), p);
      }
    } catch { /* no or unreadable kimi.json: folders stay unknown */ }
    const projects: SessionProject[] = [];
    for (const dir of subdirs(path.join(home, 'sessions'))) {
      const id = path.basename(dir);
      const sessions: SessionRef[] = [];
      for (const sdir of subdirs(dir)) {
        const sid = path.basename(sdir);
        const files = filesIn(sdir, (n) => /^context(_\d+|_sub_\d+)?\.jsonl$/.test(n));
        const main = files.find((f) => path.basename(f) === 'context.jsonl');
        if (!main) continue;
        const rotated = files.filter((f) => /^context_\d+\.jsonl$/.test(path.basename(f))).sort((a, b) => rotation(a) - rotation(b));
        const state = sessionState(sdir);
        sessions.push({ id: sid, path: main, ...(rotated.length ? { files: [...rotated, main] } : {}), ...(state.title ? { title: state.title } : {}), ...(state.archived ? { archived: true } : {}) });
        for (const sub of files.filter((f) => /^context_sub_\d+\.jsonl$/.test(path.basename(f))).sort((a, b) => rotation(a) - rotation(b))) {
          sessions.push({ id: `${sid}/${path.basename(sub, '.jsonl')}`, path: sub, parent_id: sid });
        }
        for (const adir of subdirs(path.join(sdir, 'subagents'))) {
          const ctx = filesIn(adir, (n) => n === 'context.jsonl')[0];
          if (ctx) sessions.push({ id: path.basename(adir), path: ctx, parent_id: sid });
        }
      }
      if (sessions.length === 0) continue;
      const folder = workDirs.get(id) ?? null;
      projects.push({ id, name: projectName(folder, id.slice(0, 12)), path: folder, sessions });
    }
    return projects;
  },
  normalize: normalizeKimi,
};

/**
 * A session's title and archive flag from its `state.json` (`custom_title`, `archived`: kimi-cli `session_state.py`),
 * else from the older `metadata.json` (`title` unless "Untitled", `archived`).
 */
function sessionState(dir: string): { title?: string; archived?: boolean } {
  for (const [file, key] of [['state.json', 'custom_title'], ['metadata.json', 'title']] as const) {
    const text = headText(path.join(dir, file), 256 * 1024);
    if (!text) continue;
    try {
      const o = obj(JSON.parse(text));
      const title = str(o?.[key]);
      return { ...(title && title !== 'Untitled' ? { title } : {}), ...(o?.archived === true ? { archived: true } : {}) };
    } catch { /* unreadable: none */ }
  }
  return {};
}

/** N of `context_N.jsonl` / `context_sub_N.jsonl`. */
function rotation(file: string): number {
  return Number(/_(\d+)\.jsonl$/.exec(file)?.[1] ?? 0);
}

/**
 * The files beside a Kimi session that hold its times and token usage: the `wire.jsonl` of its folder, for a session's
 * or a newer subagent's `context.jsonl` (an older subagent's `context_sub_N.jsonl` has none of its own).
 */
export function kimiUsageFiles(sessionPath: string): string[] {
  if (path.basename(sessionPath) !== 'context.jsonl') return [];
  const wire = path.join(path.dirname(sessionPath), 'wire.jsonl');
  try {
    return lstatSync(wire).isFile() ? [wire] : [];
  } catch {
    return [];
  }
}

/**
 * A `wire.jsonl` record: its time (the session's times come from the wire), and a `StatusUpdate`'s token usage, also
 * inside a `SubagentEvent` (other events repeat the context files' content: nothing).
 */
function normalizeWire(r: Record<string, unknown>): NormalizedRecord | null {
  const seconds = num(r.timestamp);
  const timestamp = seconds !== undefined && seconds > 0 ? new Date(seconds * 1000).toISOString() : undefined;
  let message = obj(r.message);
  if (message?.type === 'SubagentEvent') message = obj(obj(message.payload)?.event);
  const payload = message?.type === 'StatusUpdate' ? obj(message.payload) : null;
  const u = obj(payload?.token_usage);
  if (!u) return timestamp ? { hints: { timestamp } } : null;
  const key = str(payload?.message_id);
  return {
    usage: { ...(key ? { key } : {}), tokens: tokens(count(u.input_other), count(u.output), count(u.input_cache_read), count(u.input_cache_creation)), ...(timestamp ? { timestamp } : {}) },
    ...(timestamp ? { hints: { timestamp } } : {}),
  };
}

/**
 * What normalizeKimi reads of a context or wire line for a session's digest (session/skim.ts): the role, ids, tool
 * call ids and names, and a wire event's time, kind, message id and token usage (also inside a SubagentEvent).
 * Contents are not read for it.
 */
export const kimiDigest: Projection = {
  role: true, id: true, tool_call_id: true, type: true, timestamp: true, tool_calls: [{ id: true, function: { name: true } }],
  message: { type: true, payload: { message_id: true, token_usage: true, event: { type: true, payload: { message_id: true, token_usage: true } } } },
};

export function normalizeKimi(record: unknown): NormalizedRecord | null {
  const r = obj(record);
  if (!r) return null;
  const role = str(r.role);
  if (role === undefined && (obj(r.message) || r.type === 'metadata')) return normalizeWire(r);
  const isThink = (b: Record<string, unknown>) => b.type === 'think';
  const thinking = arr(r.content).map((b) => obj(b)).filter((b) => b && isThink(b)).map((b) => str(b!.think) ?? '').filter(Boolean);
  const base = { uuid: str(r.id) ?? null, text: blocksText(r.content, isThink), thinking: thinking.length ? thinking.join('\n\n') : null };
  switch (role) {
    case 'user':
    case 'system':
      return { entry: entry(role, base) };
    case 'assistant': {
      const uses = arr(r.tool_calls).map((c) => {
        const o = obj(c) ?? {};
        const fn = obj(o.function) ?? {};
        return { id: str(o.id) ?? '', name: str(fn.name) ?? '', input: toolInput(fn.arguments) };
      });
      return { entry: entry('assistant', { ...base, tool_uses: uses }) };
    }
    case 'tool':
      return { entry: entry('tool', { uuid: base.uuid, tool_results: [{ tool_use_id: str(r.tool_call_id) ?? '', result: resultText(r.content), is_error: false }] }) };
    case '_checkpoint':
      return { entry: entry('checkpoint', { text: `[checkpoint ${typeof r.id === 'number' ? r.id : ''}]`.replace(' ]', ']') }) };
    case '_usage':
      return null;
    default:
      return { entry: entry('system', { text: base.text || `[${role ?? 'record'}]` }) };
  }
}
