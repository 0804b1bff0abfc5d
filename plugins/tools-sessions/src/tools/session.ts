import { z } from 'zod';
import type { SessionEntryDraft, ToolDefinition } from 'mcpgw/plugin-api';
import { markedField } from '../toolkit';
import type { SessionsService } from '../service';
import { safeNormalize, sessionStart, type EntrySummary, type SessionSummary } from '../session/summary';
import { cutText, hasBinarySummary, textPart } from '../text';
import { cutSchema, fitting, iso, itemBudget, jsonBytes, pageLimit, roleSchema, warningSchema, type Cut, type Warning } from './shared';
import { catalogueCode, contentFreeReason, reason } from '../os-error';

const pathArg = z.string().min(1).describe('Full path of the session file, as list_sessions returns it');

const summaryItem = z.object({
  index: z.number().int(),
  role: roleSchema,
  timestamp: z.string().nullable(),
  content_length: z.number().int().describe('Characters of the entry\'s text'),
  has_thinking: z.boolean(),
  has_tool_use: z.boolean(),
  has_tool_result: z.boolean(),
  preview: z.string(),
  preview_markers: z.array(z.number().int()).optional().describe('Only when preview holds … itself: where the … markers of the shortened text are (Unicode code points from its start; [] when not shortened); any other … is the text\'s own'),
  injected: z.literal(true).optional().describe('The assistant wrote this entry, not the person (instructions, environment context, command wrappers, compaction summaries, titles)'),
});

const readFields = {
  skipped_records: z.number().int().describe('Malformed records passed over (a line still being written, broken JSON)'),
  complete: z.boolean().describe('false when the session was not read to its end before the time limit: counts are lower bounds; call again'),
  cut: cutSchema.optional(),
  warnings: z.array(warningSchema).optional(),
};

function skippedWarnings(s: SessionSummary): Warning[] {
  // Never the record's content: a malformed line may be anything (a pasted secret, a line of another file).
  return s.firstSkipped.map((k) => ({ code: 'SYNTAX_ERROR', message: `Record ${k.pos} was skipped: ${cutText(contentFreeReason(k.message), 300).text}` }));
}

// ---- get_session_metadata ----

const metaInput = z.object({
  path: pathArg,
  summary_only: z.boolean().default(false).describe('Only user-message previews in entry_summary (default limit 5)'),
  limit: z.number().int().min(1).optional().describe('entry_summary items at most (default 50, or 5 with summary_only)'),
  offset: z.number().int().min(0).default(0).describe('entry_summary items to skip'),
});
const metaOutput = z.object({
  meta: z.object({
    id: z.string(),
    path: z.string(),
    created_at: z.string(),
    modified_at: z.string(),
    model: z.string().nullable(),
    git_branch: z.string().nullable(),
    source: z.string(),
    project_path: z.string().nullable(),
    file_size: z.number().int(),
    title: z.string().nullable().describe('The title the assistant keeps for the session (a rename wins over a generated one), null when none'),
    parent_session_id: z.string().nullable().describe('A subagent\'s session: the session that started it'),
    forked_from: z.string().nullable().describe('A fork: the session it was copied from'),
    subagent_count: z.number().int().describe('Subagents\' sessions this session started'),
  }),
  description: z.string().nullable().describe('The first prompt the person typed (injected instructions, command wrappers and compaction summaries skipped)'),
  description_markers: z.array(z.number().int()).optional().describe('Only when description holds … itself: where the … markers of the shortened text are (Unicode code points from its start; [] when not shortened); any other … is the text\'s own'),
  role_counts: z.record(z.string(), z.number().int()),
  entry_summary: z.array(summaryItem),
  total_entries: z.number().int(),
  total_content_bytes: z.number().int(),
  has_more: z.boolean(),
  next_offset: z.number().int().optional(),
  ...readFields,
});

export function getSessionMetadata(service: SessionsService): ToolDefinition<typeof metaInput, typeof metaOutput> {
  return {
    name: 'get_session_metadata',
    title: 'Session metadata',
    description:
      'What a session is about without loading its content — use it first: {meta: {id, path, created_at, modified_at, model, git_branch, source, project_path}, description (first user prompt), role_counts, entry_summary: [{index, role, timestamp, content_length, has_thinking, has_tool_use, has_tool_result, preview}], total_entries, total_content_bytes}. ' +
      'summary_only: true lists only user-message previews (default 5). limit/offset page entry_summary (default 50); fetch content with get_session_entries by index. ' +
      'Malformed lines (a session being written) are skipped and counted in skipped_records. path must be a session file (as list_sessions returns it). complete: false means a long session was not read to its end before the time limit (counts are lower bounds): call again with the same arguments.',
    inputSchema: metaInput,
    outputSchema: metaOutput,
    annotations: { readOnlyHint: true, openWorldHint: false },
    async handler(args, ctx) {
      const located = await service.locate(ctx, args.path);
      const s = await service.summary(ctx, located);
      const session = located.session;
      const pool = args.summary_only ? s.entries.map((e, i) => [e, i] as const).filter(([e]) => e.role === 'user') : s.entries.map((e, i) => [e, i] as const);
      const n = pageLimit(ctx, args.limit ?? (args.summary_only ? 5 : 50));
      let items = pool.slice(args.offset, args.offset + n).map(([e, i]) => summaryOf(e, i));
      let cut: Cut | undefined;
      const keep = fitting(items, itemBudget(ctx, jsonBytes(s.description?.text ?? null) + jsonBytes(session.path) * 2 + 1024));
      if (keep < items.length) {
        items = items.slice(0, keep);
        cut = { limit: 'maxResultBytes', at: `after ${keep} summaries`, rest: `Call again with offset ${args.offset + keep}.` };
      }
      const next = args.offset + items.length;
      const warnings = skippedWarnings(s);
      return {
        meta: {
          id: session.parentId !== undefined ? session.id : s.hints.session_id ?? session.id,
          path: session.path,
          created_at: sessionStart(s) ?? iso(Math.min(session.birthMs, session.mtimeMs)),
          modified_at: iso(session.mtimeMs),
          model: s.hints.model ?? null,
          git_branch: s.hints.git_branch ?? null,
          source: located.source.name,
          project_path: s.hints.cwd ?? session.projectPath,
          file_size: session.size,
          title: session.title ?? s.hints.title ?? null,
          parent_session_id: session.parentId ?? s.hints.parent_session_id ?? null,
          forked_from: session.forkedFrom ?? s.hints.forked_from ?? null,
          subagent_count: await service.subagentCount(ctx, located),
        },
        ...(s.description ? markedField('description', s.description) : { description: null }),
        role_counts: s.roleCounts as Record<string, number>,
        entry_summary: items,
        total_entries: s.entries.length,
        total_content_bytes: s.contentBytes,
        has_more: next < pool.length,
        ...(next < pool.length ? { next_offset: next } : {}),
        skipped_records: s.skipped,
        complete: s.complete,
        ...(cut ? { cut } : {}),
        ...(warnings.length ? { warnings } : {}),
      };
    },
  };
}

function summaryOf(e: EntrySummary, index: number): z.infer<typeof summaryItem> {
  return {
    index,
    role: e.role,
    timestamp: e.timestamp,
    content_length: e.content_length,
    has_thinking: e.has_thinking,
    has_tool_use: e.has_tool_use,
    has_tool_result: e.has_tool_result,
    preview: e.preview,
    ...(e.preview_markers ? { preview_markers: e.preview_markers } : {}),
    ...(e.injected ? { injected: true as const } : {}),
  };
}

// ---- get_session_entries ----

const tokensSchema = z.object({ input_tokens: z.number().int(), output_tokens: z.number().int(), cache_read_tokens: z.number().int(), cache_write_tokens: z.number().int() });

export const entrySchema = z.object({
  index: z.number().int(),
  uuid: z.string().nullable(),
  role: roleSchema,
  timestamp: z.string().nullable(),
  text: z.string(),
  text_truncated: z.boolean().describe('More text follows what is shown (read it on from text_next_offset), or base64 data in it is summarized'),
  text_offset: z.number().int().optional().describe('Characters of the text before the part shown (with content_offset, or when cut)'),
  text_length: z.number().int().optional().describe('Characters of the whole text (when only a part is shown)'),
  text_next_offset: z.number().int().optional().describe('Where the rest of the text starts: pass it as content_offset, with entry_indices [index], to read on'),
  thinking: z.string().nullable().optional().describe('With include_thinking'),
  thinking_next_offset: z.number().int().optional().describe('Where the rest of the thinking starts (as text_next_offset)'),
  tool_uses: z.array(z.object({ id: z.string(), name: z.string(), input: z.record(z.string(), z.unknown()).describe('The call\'s arguments as a JSON object') })),
  tool_results: z.array(z.object({
    tool_use_id: z.string(),
    result: z.string(),
    is_error: z.boolean(),
    result_truncated: z.boolean().optional(),
    result_next_offset: z.number().int().optional().describe('Where the rest of the result starts (as text_next_offset)'),
  })),
  model: z.string().nullable(),
  usage: tokensSchema.nullable(),
  injected: z.literal(true).optional().describe('The assistant wrote this entry, not the person (instructions, environment context, command wrappers, compaction summaries, titles): never a user message'),
});
export type Entry = z.infer<typeof entrySchema>;

const entriesInput = z.object({
  path: pathArg,
  limit: z.number().int().min(1).default(5).describe('Entries at most (default 5)'),
  offset: z.number().int().min(0).default(0).describe('Entries to skip (after the roles filter)'),
  entry_indices: z.array(z.number().int().min(0)).min(1).max(1000).optional().describe('These entry indexes (from get_session_metadata) instead of limit/offset'),
  roles: z.array(roleSchema).min(1).optional().describe('Only these roles, e.g. ["user", "assistant"]'),
  max_content_length: z.number().int().min(0).default(500).describe('Characters of text (and thinking, and each tool result) at most; 0 = no limit'),
  include_thinking: z.boolean().default(false).describe('Include the assistant\'s thinking'),
  content_offset: z.number().int().min(0).default(0).describe('Characters of each text (and thinking, and tool result) to skip: read a long message on from its text_next_offset, with entry_indices [index]'),
});
const entriesOutput = z.object({
  entries: z.array(entrySchema),
  has_more: z.boolean(),
  total: z.number().int().describe('Entries matching roles in the session'),
  returned: z.number().int(),
  next_offset: z.number().int().optional(),
  ...readFields,
});

export function getSessionEntries(service: SessionsService): ToolDefinition<typeof entriesInput, typeof entriesOutput> {
  return {
    name: 'get_session_entries',
    title: 'Session entries',
    description:
      'Read a session\'s entries, one page at a time: {entries: [{index, uuid, role, timestamp, text, text_truncated, thinking, tool_uses: [{id, name, input}], tool_results: [{tool_use_id, result, is_error}], model, usage}], has_more, total, returned, next_offset}. ' +
      'Roles: user, assistant, tool (tool output), system, summary, checkpoint; injected: true marks what the assistant wrote into the conversation (instructions, environment context, command wrappers, compaction summaries, titles), never a user message. limit (default 5) and offset page; entry_indices picks entries by index instead; roles filters. ' +
      'Text is cut to max_content_length characters (default 500, 0 = no limit; never inside a character) with text_truncated: true and text_next_offset; read the rest with entry_indices [index] and content_offset = text_next_offset. Thinking only with include_thinking. ' +
      'Pasted images and other base64 payloads appear as a one-line summary. Every answer fits the server\'s size limit: a cut is announced in cut. complete: false means the session was not read to its end before the time limit: call again with the same arguments.',
    inputSchema: entriesInput,
    outputSchema: entriesOutput,
    annotations: { readOnlyHint: true, openWorldHint: false },
    async handler(args, ctx) {
      const located = await service.locate(ctx, args.path);
      const s = await service.summary(ctx, located);
      const warnings = skippedWarnings(s);
      const roles = args.roles ? new Set<string>(args.roles) : null;
      const matching = s.entries.map((e, i) => [e, i] as const).filter(([e]) => !roles || roles.has(e.role));
      let chosen: (readonly [EntrySummary, number])[];
      if (args.entry_indices) {
        chosen = [];
        for (const i of args.entry_indices) {
          const e = s.entries[i];
          if (!e) { warnings.push({ code: 'INVALID_ARGUMENT', message: `Entry index ${i} is out of range: the session has ${s.entries.length} entries.` }); continue; }
          if (!roles || roles.has(e.role)) chosen.push([e, i]);
        }
        chosen = chosen.slice(0, ctx.limits.maxItems);
      } else {
        chosen = matching.slice(args.offset, args.offset + pageLimit(ctx, args.limit));
      }
      const budget = itemBudget(ctx, jsonBytes(warnings) + 512);
      const entries: Entry[] = [];
      let used = 2;
      let cut: Cut | undefined;
      if (chosen.length) {
        const files = await service.open(ctx, located);
        try {
          for (const [e, index] of chosen) {
            let draft: SessionEntryDraft | undefined;
            try {
              const n = safeNormalize(located.source, files.value(e.pos));
              draft = n instanceof Error ? undefined : n?.entry;
            } catch (err) {
              warnings.push({ code: catalogueCode(err), message: `Entry ${index} could not be read: ${contentFreeReason(reason(err))}` });
            }
            if (!draft) continue;
            let entry = shape(index, draft, args.max_content_length, args.include_thinking, args.content_offset);
            let size = jsonBytes(entry) + 1;
            if (used + size > budget) {
              if (entries.length > 0) {
                cut = { limit: 'maxResultBytes', at: `after ${entries.length} entries (next: index ${index})`, rest: args.entry_indices ? 'Ask for fewer entry_indices.' : `Call again with offset ${args.offset + entries.length}, or a smaller max_content_length.` };
                break;
              }
              entry = shrink(index, draft, args.include_thinking, budget - used, args.content_offset, args.max_content_length);
              size = jsonBytes(entry) + 1;
              cut = {
                limit: 'maxResultBytes',
                at: `entry ${index} was cut to fit`,
                rest: `Its text and tool data are shortened; the page holds this one entry. Read on with entry_indices [${index}] and content_offset ${entry.text_next_offset ?? 'its text_next_offset'}` +
                  ' (text_next_offset, thinking_next_offset and each result_next_offset say where each part stops); tool inputs are cut to fit.',
              };
            }
            entries.push(entry);
            used += size;
            if (cut) break;
          }
        } finally {
          files.close();
        }
      }
      const consumed = args.entry_indices ? chosen.length : entries.length;
      const next = args.offset + consumed;
      const has_more = !args.entry_indices && (next < matching.length || (cut !== undefined && entries.length < chosen.length));
      return {
        entries,
        has_more,
        total: matching.length,
        returned: entries.length,
        ...(has_more ? { next_offset: next } : {}),
        skipped_records: s.skipped,
        complete: s.complete,
        ...(cut ? { cut } : {}),
        ...(warnings.length ? { warnings: warnings.slice(0, 20) } : {}),
      };
    },
  };
}

/**
 * An entry as returned: text (and thinking and tool results) from character `offset`, cut to `max` characters. A part
 * that is not the whole says where it starts and where the rest starts (`text_offset`, `text_length`,
 * `text_next_offset`; `thinking_next_offset`; `result_next_offset`).
 */
export function shape(index: number, d: SessionEntryDraft, max: number, includeThinking: boolean, offset = 0): Entry {
  const text = textPart(d.text, offset, max);
  const whole = offset === 0 && text.next === undefined;
  const thinking = includeThinking && d.thinking !== null ? textPart(d.thinking, offset, max) : null;
  return {
    index,
    uuid: d.uuid,
    role: d.role,
    timestamp: d.timestamp,
    text: text.text,
    text_truncated: text.next !== undefined || hasBinarySummary(d.text),
    ...(whole ? {} : { text_offset: Math.min(offset, text.length), text_length: text.length }),
    ...(text.next !== undefined ? { text_next_offset: text.next } : {}),
    ...(includeThinking ? { thinking: thinking === null ? null : thinking.text } : {}),
    ...(thinking?.next !== undefined ? { thinking_next_offset: thinking.next } : {}),
    tool_uses: d.tool_uses,
    tool_results: d.tool_results.map((r) => {
      const c = textPart(r.result, offset, max);
      return {
        tool_use_id: r.tool_use_id,
        result: c.text,
        is_error: r.is_error,
        ...(c.next !== undefined || hasBinarySummary(r.result) ? { result_truncated: true } : {}),
        ...(c.next !== undefined ? { result_next_offset: c.next } : {}),
      };
    }),
    model: d.model,
    usage: d.usage,
    ...(d.injected ? { injected: true as const } : {}),
  };
}

/**
 * An entry too big for the budget alone, its strings (tool inputs included) cut shorter until it fits: from the
 * characters asked (`max`, 0 = no limit) or the budget's bytes, whichever is fewer, a fifth fewer at a time.
 */
function shrink(index: number, d: SessionEntryDraft, includeThinking: boolean, budget: number, offset: number, asked: number): Entry {
  for (let max = Math.min(asked > 0 ? asked : Infinity, budget); ; max = Math.floor(max * 0.8)) {
    const cutInputs = d.tool_uses.map((t) => ({ ...t, input: cutStrings(t.input, max) as Record<string, unknown> }));
    const e = shape(index, { ...d, tool_uses: cutInputs }, Math.max(max, 1), includeThinking, offset);
    if (max <= 8) {
      e.tool_uses = e.tool_uses.map((t) => ({ ...t, input: {} }));
      return e;
    }
    if (jsonBytes(e) + 1 <= budget) return e;
  }
}

function cutStrings(v: unknown, max: number, depth = 0): unknown {
  if (typeof v === 'string') return cutText(v, max).text;
  if (depth > 32 || v === null || typeof v !== 'object' || (JSON as unknown as { isRawJSON(x: unknown): boolean }).isRawJSON(v)) return v;
  if (Array.isArray(v)) return v.slice(0, 50).map((x) => cutStrings(x, max, depth + 1));
  return Object.fromEntries(Object.entries(v as Record<string, unknown>).slice(0, 50).map(([k, x]) => [k, cutStrings(x, max, depth + 1)]));
}

