import * as path from 'node:path';
import type { NormalizedRecord, SessionHints, SessionProject, SessionUsageRecord, SessionRef, SessionSource, SessionToolResult, SessionToolUse } from 'mcpgw/plugin-api';
import type { Projection } from '../session/skim';
import { arr, blocksText, count, entry, filesIn, findStringMember, firstStringMember, headText, obj, projectName, resultText, str, subdirs, tokens, toolInput, unknownEntry, type Obj } from './common';

/**
 * Claude Code (closed source; the layout as its files show it, public viewers' readers and its issue tracker):
 * `<home>/projects/<encoded cwd>/<session uuid>.jsonl`, one line per event. The folder name encodes the project path
 * lossily (`/` and `.` become `-`), so the project's folder is read from the `cwd` of its sessions' lines — searched
 * past the first 64 KiB when the first lines hold none (a long pasted first message). Subagents' transcripts:
 * `<session uuid>/subagents/agent-<id>.jsonl` (and, in older versions, `agent-<id>.jsonl` beside the sessions, whose
 * lines name the parent in `sessionId`) are sessions of their own, linked to the parent (`parent_id`), never merged.
 * Lines the person did not type are `injected` entries: `isMeta` lines (the `<local-command-caveat>` written after
 * `/clear`, a skill's or command's expanded prompt) and the `<command-name>` / `<local-command-stdout>` wrappers as
 * `system`, the compaction preamble (`isCompactSummary`) as `summary`. Titles: `custom-title` (a `/rename`, wins),
 * `ai-title` (generated, the latest) and the older `summary` lines. A streamed response is written as one line per
 * content block repeating `message.id`, `requestId` and a usage whose output count grows: its usage key is the message
 * id, refined by the request id (see SessionUsageRecord), so it is counted once with its final counts.
 * Sources (Claude Code is closed source): the anthropics/claude-code issue tracker (the caveat written after `/clear`,
 * compaction preambles, title records), readers of the files in public viewers — doctly/switchboard (`ai-title`,
 * `custom-title`), d-kimuson/claude-code-viewer (caveat lines), ryoppippi/ccusage (usage per message id) — and the
 * shared format notes.
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
      const all = filesIn(dir, (n) => n.endsWith('.jsonl'));
      const files = all.filter((f) => !path.basename(f).startsWith('agent-'));
      const sessions: SessionRef[] = files.map((f) => ({ id: path.basename(f, '.jsonl'), path: f }));
      // Older subagent transcripts beside the sessions: their lines' sessionId names the parent.
      for (const f of all) {
        if (!path.basename(f).startsWith('agent-')) continue;
        const parent = firstStringMember(headText(f, 16 * 1024), 'sessionId');
        sessions.push({ id: path.basename(f, '.jsonl'), path: f, ...(parent ? { parent_id: parent } : {}) });
      }
      for (const f of files) {
        const sid = path.basename(f, '.jsonl');
        for (const sub of filesIn(path.join(dir, sid, 'subagents'), (n) => n.endsWith('.jsonl'))) {
          sessions.push({ id: path.basename(sub, '.jsonl'), path: sub, parent_id: sid });
        }
      }
      if (sessions.length === 0) continue;
      let cwd: string | undefined;
      for (const f of files.length ? files : all) {
        cwd = firstStringMember(headText(f), 'cwd');
        if (cwd) break;
      }
      for (const f of files.length && !cwd ? files : []) {
        cwd = findStringMember(f, 'cwd');
        if (cwd) break;
      }
      const id = path.basename(dir);
      projects.push({ id, name: projectName(cwd ?? null, id), path: cwd ?? null, sessions });
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

/**
 * A user line Claude Code writes around a slash command or a local command's output, or when the person interrupts a
 * response (`[Request interrupted by user]`): not a prompt the person typed.
 */
const WRAPPER = /^\s*(<(command-name|command-message|command-args|local-command-stdout|local-command-stderr|local-command-caveat)>|\[Request interrupted by user)/;

/**
 * What normalizeClaude reads of a line for a session's digest (session/skim.ts): every member that decides its entry,
 * hints, usage, tool calls and times. Texts, thinking, tool inputs and results are not read for it, nor what only the
 * summary keeps (an entry's uuid, the cwd and git branch hints).
 */
export const claudeDigest: Projection = {
  type: true, timestamp: true, sessionId: true, isSidechain: true, agentId: true, requestId: true,
  isCompactSummary: true, isMeta: true, summary: true, customTitle: true, aiTitle: true, title: true, subtype: true, snapshot: { timestamp: true },
  message: { model: true, id: true, usage: true, content: [{ type: true, id: true, name: true }] },
};

export function normalizeClaude(record: unknown): NormalizedRecord | null {
  const r = obj(record);
  if (!r) return null;
  const type = str(r.type);
  const timestamp = str(r.timestamp);
  // A subagent's lines (isSidechain, agentId) carry the parent's sessionId: the session is `agent-<agentId>`.
  const agent = r.isSidechain === true ? str(r.agentId) : undefined;
  // Built member by member (not spread from small objects: this runs for every line of a first usage read).
  const hints: SessionHints = {};
  const sessionId = str(r.sessionId);
  if (agent) {
    hints.session_id = `agent-${agent}`;
    if (sessionId) hints.parent_session_id = sessionId;
  } else if (sessionId) hints.session_id = sessionId;
  const cwd = str(r.cwd);
  if (cwd) hints.cwd = cwd;
  const branch = str(r.gitBranch);
  if (branch) hints.git_branch = branch;
  if (timestamp) hints.timestamp = timestamp;
  const uuid = str(r.uuid) ?? null;
  const base = { uuid, timestamp: timestamp ?? null };
  const message = obj(r.message);
  switch (type) {
    case 'user': {
      const content = message?.content;
      const blocks = arr(content);
      const results = toolResults(blocks);
      const text = blocksText(content, (b) => NOT_TEXT.has(str(b.type) ?? ''));
      if (results.length > 0 && text === '') return { hints, entry: entry('tool', { ...base, text, tool_results: results }) };
      if (r.isCompactSummary === true) return { hints, entry: entry('summary', { ...base, text, tool_results: results, injected: true }) };
      if (r.isMeta === true || WRAPPER.test(text)) return { hints, entry: entry('system', { ...base, text, tool_results: results, injected: true }) };
      return { hints, entry: entry('user', { ...base, text, tool_results: results }) };
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
      if (model && model !== '<synthetic>') hints.model = model;
      const out: NormalizedRecord = { hints, entry: e };
      if (usage && model !== '<synthetic>') {
        // The message id is the response; the request id refines it only where every line of the id has one.
        const key = id ? (requestId ? `${id}\u0000${requestId}` : id) : requestId;
        const u: Partial<SessionUsageRecord> = {};
        if (key) u.key = key;
        if (model) u.model = model;
        u.tokens = usage;
        if (timestamp) u.timestamp = timestamp;
        out.usage = u as SessionUsageRecord;
      }
      return out;
    }
    case 'summary':
      // `{type: "summary", summary, leafUuid}`: leafUuid names the last message the summary covers, another entry's
      // uuid; the summary line has none of its own. Older versions' session title.
      return { hints: { ...hints, ...(str(r.summary) ? { title: str(r.summary), title_source: 'assistant' as const } : {}) }, entry: entry('summary', { ...base, text: str(r.summary) ?? '', injected: true }) };
    case 'custom-title':
    case 'ai-title': {
      // `{type: "custom-title", customTitle}` (a /rename) and `{type: "ai-title", aiTitle}` (generated as the work goes):
      // the session's title, searchable as a summary entry.
      const title = str(r.customTitle) ?? str(r.aiTitle) ?? str(r.title);
      if (!title) return { hints };
      return { hints: { ...hints, title, title_source: type === 'custom-title' ? 'user' as const : 'assistant' as const }, entry: entry('summary', { ...base, text: title, injected: true }) };
    }
    case 'progress':
      // Hook and tool progress while a call runs: bookkeeping, not conversation (a subagent's own lines are in its file).
      return { hints };
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
