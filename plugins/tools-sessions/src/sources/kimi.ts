import { createHash } from 'node:crypto';
import * as path from 'node:path';
import type { NormalizedRecord, SessionProject, SessionSource } from 'mcpgw/plugin-api';
import { lstatSync } from 'node:fs';
import { arr, blocksText, count, entry, filesIn, headText, num, obj, projectName, resultText, str, subdirs, tokens, toolInput } from './common';

/**
 * Kimi CLI: `<home>/sessions/<md5 of work dir>/<session uuid>/context.jsonl`, continued in `context_sub_1.jsonl`,
 * `context_sub_2.jsonl`, … (numeric order). Lines are chat messages `{role, content, tool_calls?, tool_call_id?}` and
 * bookkeeping (`_checkpoint`, `_usage`). `<home>/kimi.json` lists the work dirs (`work_dirs: [{path}]`); a folder's
 * MD5 names its sessions folder. The context files hold no timestamps, and `_usage` records only the running context
 * size, not a response's tokens. Token usage is in the session folder's `wire.jsonl` (the CLI's event log: a
 * `{type: "metadata", protocol_version}` first line, then `{timestamp: <epoch seconds>, message: {type, payload}}`):
 * each `StatusUpdate` carries one response's `token_usage {input_other, output, input_cache_read,
 * input_cache_creation}` and its `message_id`; get_usage_stats reads it beside the session (`kimiUsageFiles`).
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
      const sessions = [];
      for (const sdir of subdirs(dir)) {
        const files = filesIn(sdir, (n) => n === 'context.jsonl' || /^context_sub_\d+\.jsonl$/.test(n));
        const main = files.find((f) => path.basename(f) === 'context.jsonl');
        if (!main) continue;
        const subs = files.filter((f) => f !== main).sort((a, b) => subNumber(a) - subNumber(b));
        sessions.push({ id: path.basename(sdir), path: main, ...(subs.length ? { files: [main, ...subs] } : {}) });
      }
      if (sessions.length === 0) continue;
      const folder = workDirs.get(id) ?? null;
      projects.push({ id, name: projectName(folder, id.slice(0, 12)), path: folder, sessions });
    }
    return projects;
  },
  normalize: normalizeKimi,
};

function subNumber(file: string): number {
  return Number(/context_sub_(\d+)\.jsonl$/.exec(file)?.[1] ?? 0);
}

/** The files beside a Kimi session that hold its token usage (`wire.jsonl`, when present). */
export function kimiUsageFiles(sessionPath: string): string[] {
  const wire = path.join(path.dirname(sessionPath), 'wire.jsonl');
  try {
    return lstatSync(wire).isFile() ? [wire] : [];
  } catch {
    return [];
  }
}

/** A `wire.jsonl` record: a `StatusUpdate`'s token usage (other events repeat the context files' content: nothing). */
function normalizeWire(r: Record<string, unknown>): NormalizedRecord | null {
  const message = obj(r.message);
  if (!message || message.type !== 'StatusUpdate') return null;
  const payload = obj(message.payload);
  const u = obj(payload?.token_usage);
  if (!u) return null;
  const seconds = num(r.timestamp);
  const timestamp = seconds !== undefined && seconds > 0 ? new Date(seconds * 1000).toISOString() : undefined;
  const key = str(payload?.message_id);
  return {
    usage: { ...(key ? { key } : {}), tokens: tokens(count(u.input_other), count(u.output), count(u.input_cache_read), count(u.input_cache_creation)), ...(timestamp ? { timestamp } : {}) },
    ...(timestamp ? { hints: { timestamp } } : {}),
  };
}

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
