import * as path from 'node:path';
import type { NormalizedRecord, SessionProject, SessionSource, SessionToolResult, SessionToolUse } from 'mcpgw/plugin-api';
import { arr, blocksText, count, entry, filesIn, firstStringMember, headText, obj, projectName, resultText, str, subdirs, tokens, toolInput, unknownEntry, type Obj } from './common';

/**
 * Claude Code: `<home>/projects/<encoded cwd>/<session uuid>.jsonl`, one line per event. The folder name encodes the
 * project path lossily (`/` and `.` become `-`), so the project's folder is read from the `cwd` of its sessions'
 * lines. Only a project folder's top-level `*.jsonl` files are sessions (subagent logs live below them).
 */
export const claudeSource: SessionSource = {
  name: 'claude',
  title: 'Claude Code',
  defaultHome: (userHome) => path.join(userHome, '.claude'),
  sessionsRoot: (home) => path.join(home, 'projects'),
  layout: { kind: 'lines' },
  processNames: ['claude'],
  async discover(home) {
    const projects: SessionProject[] = [];
    for (const dir of subdirs(path.join(home, 'projects'))) {
      const files = filesIn(dir, (n) => n.endsWith('.jsonl'));
      if (files.length === 0) continue;
      let cwd: string | undefined;
      for (const f of files) {
        cwd = firstStringMember(headText(f), 'cwd');
        if (cwd) break;
      }
      const id = path.basename(dir);
      projects.push({
        id,
        name: projectName(cwd ?? null, id),
        path: cwd ?? null,
        sessions: files.map((f) => ({ id: path.basename(f, '.jsonl'), path: f })),
      });
    }
    return projects;
  },
  normalize: normalizeClaude,
};

function toolResults(blocks: unknown[]): SessionToolResult[] {
  const out: SessionToolResult[] = [];
  for (const b of blocks) {
    const block = obj(b);
    if (block?.type !== 'tool_result') continue;
    out.push({ tool_use_id: str(block.tool_use_id) ?? '', result: resultText(block.content), is_error: block.is_error === true });
  }
  return out;
}

function toolUses(blocks: unknown[]): SessionToolUse[] {
  const out: SessionToolUse[] = [];
  for (const b of blocks) {
    const block = obj(b);
    if (block?.type !== 'tool_use' && block?.type !== 'server_tool_use') continue;
    out.push({ id: str(block.id) ?? '', name: str(block.name) ?? '', input: toolInput(block.input) });
  }
  return out;
}

function thinkingOf(blocks: unknown[]): string | null {
  const parts: string[] = [];
  for (const b of blocks) {
    const block = obj(b);
    if (block?.type === 'thinking' && typeof block.thinking === 'string') parts.push(block.thinking);
    else if (block?.type === 'redacted_thinking') parts.push('[redacted thinking]');
  }
  return parts.length ? parts.join('\n\n') : null;
}

const NOT_TEXT = new Set(['tool_use', 'server_tool_use', 'tool_result', 'thinking', 'redacted_thinking']);

export function normalizeClaude(record: unknown): NormalizedRecord | null {
  const r = obj(record);
  if (!r) return null;
  const type = str(r.type);
  const timestamp = str(r.timestamp);
  const hints = {
    ...(str(r.sessionId) ? { session_id: str(r.sessionId) } : {}),
    ...(str(r.cwd) ? { cwd: str(r.cwd) } : {}),
    ...(str(r.gitBranch) ? { git_branch: str(r.gitBranch) } : {}),
    ...(timestamp ? { timestamp } : {}),
  };
  const uuid = str(r.uuid) ?? null;
  const base = { uuid, timestamp: timestamp ?? null };
  const message = obj(r.message);
  switch (type) {
    case 'user': {
      const content = message?.content;
      const blocks = arr(content);
      const results = toolResults(blocks);
      const text = blocksText(content, (b) => NOT_TEXT.has(str(b.type) ?? ''));
      const role = results.length > 0 && text === '' ? 'tool' : 'user';
      return { hints, entry: entry(role, { ...base, text, tool_results: results }) };
    }
    case 'assistant': {
      const blocks = arr(message?.content);
      const model = str(message?.model) ?? null;
      const usage = usageOf(obj(message?.usage));
      const id = str(message?.id);
      const requestId = str(r.requestId);
      const e = entry('assistant', {
        ...base,
        text: blocksText(message?.content, (b) => NOT_TEXT.has(str(b.type) ?? '')),
        thinking: thinkingOf(blocks),
        tool_uses: toolUses(blocks),
        model,
        usage,
      });
      const out: NormalizedRecord = { hints: { ...hints, ...(model && model !== '<synthetic>' ? { model } : {}) }, entry: e };
      if (usage && model !== '<synthetic>') {
        out.usage = { ...(id || requestId ? { key: `${id ?? ''}:${requestId ?? ''}` } : {}), ...(model ? { model } : {}), tokens: usage, ...(timestamp ? { timestamp } : {}) };
      }
      return out;
    }
    case 'summary':
      // `{type: "summary", summary, leafUuid}`: leafUuid names the last message the summary covers, another entry's
      // uuid; the summary line has none of its own.
      return { hints, entry: entry('summary', { ...base, text: str(r.summary) ?? '' }) };
    case 'system':
      return { hints, entry: entry('system', { ...base, text: str(r.content) ?? (str(r.subtype) ? `[${str(r.subtype)}]` : '[system]') }) };
    case 'file-history-snapshot':
      // `{type: "file-history-snapshot", messageId, snapshot: {messageId, trackedFileBackups, timestamp}}`: messageId is
      // the uuid of the user message the snapshot was taken for, not the line's own.
      return { hints, entry: entry('checkpoint', { uuid, timestamp: timestamp ?? str(obj(r.snapshot)?.timestamp) ?? null, text: '[file history snapshot]' }) };
    default:
      return { hints, entry: { ...unknownEntry(type, r, timestamp), uuid } };
  }
}

function usageOf(u: Obj | null) {
  if (!u) return null;
  return tokens(count(u.input_tokens), count(u.output_tokens), count(u.cache_read_input_tokens), count(u.cache_creation_input_tokens));
}
