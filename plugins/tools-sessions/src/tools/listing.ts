import { z } from 'zod';
import { createHash } from 'node:crypto';
import type { MarkedTextBuilder, MarkedText, ToolContext, ToolDefinition } from 'mcpgw/plugin-api';
import { markedField, markedText } from '../toolkit';
import { newestFirst, type CatalogSession } from '../catalog';
import { cutText } from '../text';
import type { SessionsService } from '../service';
import { sessionStart } from '../session/summary';
import { requireSource } from './filters';
import { cutSchema, fitting, iso, itemBudget, limitArg, offsetArg, pageLimit, sourceArg, warningSchema, type Cut, type Warning } from './shared';

const pageFields = {
  total: z.number().int().describe('Items in the whole list'),
  has_more: z.boolean(),
  next_offset: z.number().int().optional().describe('Pass as offset for the next page'),
  cut: cutSchema.optional(),
  warnings: z.array(warningSchema).optional(),
};

/** Pages `all` from `offset`: at most `limit` items and the byte budget; the rest is announced. */
function page<T>(ctx: ToolContext, all: readonly T[], offset: number, limit: number, noun: string) {
  const n = pageLimit(ctx, limit);
  return finishPage(ctx, all.slice(offset, offset + n), offset, all.length, noun);
}

/** A page already cut to its item count (`slice` starts at `offset` of `total` items), cut again to the byte budget. */
function finishPage<T>(ctx: ToolContext, slice: T[], offset: number, total: number, noun: string): { items: T[]; total: number; has_more: boolean; next_offset?: number; cut?: Cut } {
  let items = slice;
  let cut: Cut | undefined;
  const keep = fitting(items, itemBudget(ctx));
  if (keep < items.length) {
    items = items.slice(0, Math.max(keep, 0));
    cut = { limit: 'maxResultBytes', at: `after ${items.length} ${noun}`, rest: `Call again with offset ${offset + items.length}.` };
  }
  const next = offset + items.length;
  const has_more = next < total;
  return { items, total, has_more, ...(has_more ? { next_offset: next } : {}), ...(cut ? { cut } : {}) };
}

// ---- list_sources ----

const sourcesInput = z.object({ limit: limitArg(100, 'Sources'), offset: offsetArg });
const sourcesOutput = z.object({
  sources: z.array(z.object({
    name: z.string(),
    title: z.string().optional(),
    available: z.boolean().describe('false when the home folder does not exist: the source is then invisible to the other tools'),
    base_path: z.string().describe('The folder holding its sessions'),
    home: z.string(),
    home_from: z.enum(['environment', 'config', 'default']),
  })),
  ...pageFields,
});

export function listSources(service: SessionsService): ToolDefinition<typeof sourcesInput, typeof sourcesOutput> {
  return {
    name: 'list_sources',
    title: 'List session sources',
    description:
      'List the AI coding assistants whose session history this server reads: {sources: [{name, available, base_path}]}. ' +
      'Sources: claude (Claude Code), codex (Codex CLI), copilot (Copilot CLI), gemini (Gemini CLI), qwen (Qwen Code), kimi (Kimi CLI), and any a plugin adds. ' +
      'available: false means the home folder does not exist (the other tools then ignore the source); sources disabled in the config are not listed.',
    inputSchema: sourcesInput,
    outputSchema: sourcesOutput,
    annotations: { readOnlyHint: true, openWorldHint: false },
    handler(args, ctx) {
      const all = service.homes(ctx).map((h) => ({
        name: h.source.name,
        ...(h.source.title ? { title: h.source.title } : {}),
        available: h.available,
        base_path: h.basePath,
        home: h.home,
        home_from: h.basis,
      }));
      const { items, ...rest } = page(ctx, all, args.offset, args.limit, 'sources');
      return { sources: items, ...rest };
    },
  };
}

// ---- list_projects ----

const projectsInput = z.object({
  source: sourceArg,
  include_deleted: z.boolean().default(false).describe('Also list projects whose folder no longer exists (path_exists false)'),
  limit: limitArg(100, 'Projects'),
  offset: offsetArg,
});
const projectsOutput = z.object({
  projects: z.array(z.object({
    id: z.string().describe('Pass as project_id to list_sessions (with source)'),
    name: z.string(),
    path: z.string().nullable().describe('The project folder, null when the source does not record it'),
    session_count: z.number().int().describe('Sessions, not counting subagents\' transcripts'),
    subagent_count: z.number().int().describe('Subagents\' transcripts under those sessions (list_sessions with parent_session_id lists them)'),
    source: z.string(),
    path_exists: z.boolean().nullable(),
    last_modified: z.string().describe('ISO 8601: the newest session'),
  })),
  deleted_hidden: z.number().int().optional().describe('Projects left out because their folder no longer exists (pass include_deleted: true to list them)'),
  ...pageFields,
});

export function listProjects(service: SessionsService): ToolDefinition<typeof projectsInput, typeof projectsOutput> {
  return {
    name: 'list_projects',
    title: 'List projects',
    description:
      'List the projects (folders an assistant worked in) across all sources, most recently active first: {projects: [{id, name, path, session_count, source, path_exists}], total, has_more, next_offset}. ' +
      'source narrows to one assistant. Projects whose folder no longer exists are hidden unless include_deleted (deleted_hidden counts them). Pass id and source to list_sessions.',
    inputSchema: projectsInput,
    outputSchema: projectsOutput,
    annotations: { readOnlyHint: true, openWorldHint: false },
    async handler(args, ctx) {
      requireSource(ctx, service.homes(ctx), args.source);
      const catalog = await service.catalog(ctx);
      const ofSource = catalog.projects.filter((p) => args.source === undefined || p.source === args.source);
      const shown = ofSource.filter((p) => args.include_deleted || p.pathExists !== false);
      const hidden = ofSource.length - shown.length;
      const all = shown
        .map((p) => ({
          id: p.id,
          name: p.name,
          path: p.path,
          session_count: p.sessions.filter((s) => s.parentId === undefined).length,
          subagent_count: p.sessions.filter((s) => s.parentId !== undefined).length,
          source: p.source,
          path_exists: p.pathExists,
          last_modified: iso(p.sessions[0]!.mtimeMs),
        }))
        .sort((a, b) => (a.last_modified < b.last_modified ? 1 : a.last_modified > b.last_modified ? -1 : a.source.localeCompare(b.source) || a.id.localeCompare(b.id)));
      const { items, ...rest } = page(ctx, all, args.offset, args.limit, 'projects');
      const warnings: Warning[] = catalog.failures.map((f) => ({ code: 'IO_ERROR', message: `Source ${f.source} could not be listed: ${f.message}` }));
      return { projects: items, ...(hidden ? { deleted_hidden: hidden } : {}), ...rest, ...(warnings.length ? { warnings } : {}) };
    },
  };
}

// ---- list_sessions ----

/** Characters of a listed session's first prompt (rows stay small: a page of a large history holds many). */
const LIST_PROMPT_CHARS = 200;

const time = z.string().refine((t) => !Number.isNaN(Date.parse(t)), 'an ISO 8601 date or time, e.g. 2025-03-01 or 2025-03-01T12:00:00Z');

const sessionsInput = z.object({
  project_id: z.string().min(1).optional().describe('Only this project (an id from list_projects); default: every project'),
  source: z.string().min(1).optional().describe('Only this source (claude, codex, copilot, gemini, qwen, kimi); default: every source'),
  parent_session_id: z.string().min(1).optional().describe('List the subagents\' sessions this session started (its subagent_count) instead of sessions'),
  since: time.optional().describe('Only sessions active from this time on: last modified at or after it (ISO 8601)'),
  until: time.optional().describe('Only sessions started before this time (ISO 8601, exclusive)'),
  limit: limitArg(100, 'Sessions'),
  offset: offsetArg,
  cursor: z.string().min(1).optional().describe('next_cursor of the previous page (same filters): continues after the last session it returned, even when sessions were added meanwhile'),
});
const sessionsOutput = z.object({
  sessions: z.array(z.object({
    id: z.string(),
    path: z.string().describe('Pass to get_session_metadata / get_session_entries'),
    created_at: z.string().describe('ISO 8601: when the session started (the source\'s own session record, else the first entry\'s time), else the file\'s time'),
    modified_at: z.string(),
    entry_count: z.number().int().nullable().describe('null when the session was not read before the time limit (complete: false)'),
    file_size: z.number().int().describe('Bytes, all of the session\'s files'),
    source: z.string(),
    project_id: z.string(),
    project_name: z.string(),
    first_prompt: z.string().nullable().optional().describe(`The first user prompt, its first ${LIST_PROMPT_CHARS} characters (get_session_metadata gives 500)`),
    first_prompt_markers: z.array(z.number().int()).optional().describe('Only when first_prompt holds … itself: where the … markers of the shortened text are (Unicode code points from its start; [] when not shortened); any other … is the text\'s own'),
    title: z.string().nullable().describe('The title the assistant keeps for the session (a rename wins over a generated one), null when it writes none or the session was not read yet'),
    parent_session_id: z.string().nullable().describe('A subagent\'s session: the session that started it'),
    subagent_count: z.number().int().describe('Subagents\' sessions this session started (list them with parent_session_id)'),
    forked_from: z.string().optional().describe('A fork: the session it was copied from'),
    archived: z.boolean().optional().describe('true when the assistant archived the session'),
  })),
  complete: z.boolean().describe('false when some entry counts (or, with until, start times) were not read before the time limit: call again'),
  next_cursor: z.string().optional().describe('More sessions follow: pass as cursor (same filters)'),
  ...pageFields,
});

interface ListCursor { k: string; m: number; p: string }

export function listSessions(service: SessionsService): ToolDefinition<typeof sessionsInput, typeof sessionsOutput> {
  return {
    name: 'list_sessions',
    title: 'List sessions',
    description:
      'List sessions newest first, across every project and source or narrowed: {sessions: [{id, path, created_at, modified_at, entry_count, file_size, source, project_id, project_name, first_prompt, title, subagent_count, parent_session_id}], total, has_more, next_cursor}. ' +
      'first_prompt is the first thing the person typed (injected instructions, command wrappers and compaction summaries are skipped). Subagents\' sessions are listed under their parent: pass parent_session_id to list them. ' +
      'project_id (from list_projects) and source narrow; since/until (ISO 8601) keep the sessions active in that time — "what did I do last week": since = a week ago. limit defaults to 100 (capped by the answer\'s size); page on with cursor: next_cursor (or offset). ' +
      'Reading entry counts can take time on a first call over a large history: what is not ready comes back null with complete: false: call again with the same arguments to finish it.',
    inputSchema: sessionsInput,
    outputSchema: sessionsOutput,
    annotations: { readOnlyHint: true, openWorldHint: false },
    async handler(args, ctx) {
      const homes = service.homes(ctx);
      requireSource(ctx, homes, args.source);
      const catalog = await service.catalog(ctx, homes);
      const projects = catalog.projects.filter((p) => (args.source === undefined || p.source === args.source) && (args.project_id === undefined || p.id === args.project_id));
      if (args.project_id !== undefined && projects.length === 0) {
        throw ctx.error('NOT_FOUND', `${args.source === undefined ? 'No source has' : `Source ${args.source} has no`} project with id ${JSON.stringify(args.project_id)}.`, { hint: 'list_projects gives the project ids of each source.' });
      }
      const since = args.since !== undefined ? Date.parse(args.since) : null;
      const until = args.until !== undefined ? Date.parse(args.until) : null;
      const key = createHash('sha256').update(JSON.stringify([args.project_id ?? null, args.source ?? null, args.since ?? null, args.until ?? null, args.parent_session_id ?? null])).digest('base64url').slice(0, 12);
      const inScope = projects.flatMap((p) => p.sessions);
      const subagents = new Map<string, number>();
      for (const s of inScope) if (s.parentId !== undefined) subagents.set(s.parentId, (subagents.get(s.parentId) ?? 0) + 1);
      if (args.parent_session_id !== undefined && !inScope.some((s) => s.id === args.parent_session_id || s.parentId === args.parent_session_id)) {
        throw ctx.error('NOT_FOUND', `No session with id ${JSON.stringify(args.parent_session_id)} in the projects listed.`, { hint: 'Pass the id of a session list_sessions returned (with its project_id and source to narrow).' });
      }
      const deadline = Math.min(ctx.deadline - 1000, ctx.clock.now() + Math.max(1000, (ctx.deadline - ctx.clock.now()) / 2));
      let complete = true;
      const home = (s: CatalogSession) => homes.find((h) => h.source.name === s.source && h.available)!;
      const located = (s: CatalogSession) => ({ session: s, home: home(s), source: home(s).source });
      /** What a row needs of a session: a complete summary already in memory, else its digest (kept, or read now). */
      const digestOf = async (s: CatalogSession): Promise<ListedSession | undefined> => {
        const summary = service.cachedSummary(located(s));
        if (summary?.complete) return { entries: summary.entries.length, start: sessionStart(summary), title: summary.hints.title ?? null, description: summary.description };
        if (ctx.clock.now() >= deadline) return service.keptStats(ctx, located(s));
        try {
          return await service.sessionStats(ctx, located(s), deadline);
        } catch (err) {
          ctx.log.debug('session summary failed', { path: s.path, error: String(err) });
          return undefined;
        }
      };
      let all = inScope.filter((s) => (args.parent_session_id === undefined ? s.parentId === undefined : s.parentId === args.parent_session_id)).sort(newestFirst);
      // since: the last activity (the files' modification) at or after it. until: started before it — surely so when
      // the file's birth or modification is before it (a session starts no later than its file is written); else its
      // summary says (read now; one not read before the time limit is kept and complete is false).
      if (since !== null) all = all.filter((s) => s.mtimeMs >= since);
      if (until !== null) {
        const kept: CatalogSession[] = [];
        const unsure = all.filter((s) => Math.min(s.birthMs, s.mtimeMs) >= until);
        await service.readAhead(ctx, unsure.map(located), deadline);
        for (const s of all) {
          if (Math.min(s.birthMs, s.mtimeMs) < until) { kept.push(s); continue; }
          const digest = await digestOf(s);
          if (!digest) { complete = false; kept.push(s); } else if (digest.start !== null && Date.parse(digest.start) < until) kept.push(s);
        }
        all = kept;
      }
      let offset = args.offset;
      if (args.cursor !== undefined) {
        const c = decodeListCursor(ctx, args.cursor, key);
        const at = all.findIndex((s) => newestFirst(s, { mtimeMs: c.m, path: c.p } as CatalogSession) > 0);
        offset = at === -1 ? all.length : at;
      }
      const n = pageLimit(ctx, args.limit);
      const slice = all.slice(offset, offset + n);
      // The page's sessions read ahead (on the engine's threads where it has them), then each row from its digest.
      await service.readAhead(ctx, slice.map(located), deadline);
      const rows = [];
      for (const s of slice) {
        const digest = await digestOf(s);
        if (!digest) complete = false;
        rows.push(sessionRow(s, digest, subagents.get(s.id) ?? 0));
      }
      service.finishStats(ctx);
      const { items, ...rest } = finishPage(ctx, rows, offset, all.length, 'sessions');
      const last = slice[items.length - 1];
      const next = rest.has_more && last ? Buffer.from(JSON.stringify({ k: key, m: last.mtimeMs, p: last.path } satisfies ListCursor)).toString('base64url') : undefined;
      return { sessions: items, complete, ...rest, ...(next ? { next_cursor: next } : {}) };
    },
  };
}

function decodeListCursor(ctx: ToolContext, text: string, key: string): ListCursor {
  let c: ListCursor;
  try {
    c = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    throw ctx.error('INVALID_ARGUMENT', 'This cursor is not one list_sessions returned.');
  }
  if (!c || typeof c.k !== 'string' || typeof c.m !== 'number' || typeof c.p !== 'string') throw ctx.error('INVALID_ARGUMENT', 'This cursor is not one list_sessions returned.');
  if (c.k !== key) throw ctx.error('INVALID_ARGUMENT', 'This cursor belongs to another listing: pass the same project_id, source, since and until as the call that returned it.');
  return c;
}

/** What a listed session's row says of its records (from its digest, or its summary). */
interface ListedSession {
  entries: number;
  start: string | null;
  title: string | null;
  description: MarkedText | null;
}

function sessionRow(s: CatalogSession, d: ListedSession | undefined, subagentCount: number) {
  const created = d?.start ?? iso(Math.min(s.birthMs, s.mtimeMs));
  const prompt = d?.description ? shorter(d.description, LIST_PROMPT_CHARS) : null;
  return {
    id: s.id,
    path: s.path,
    created_at: created,
    modified_at: iso(s.mtimeMs),
    entry_count: d ? d.entries : null,
    file_size: s.size,
    source: s.source,
    project_id: s.projectId,
    project_name: s.projectName,
    ...(prompt ? markedField('first_prompt', prompt) : { first_prompt: null }),
    title: s.title ?? d?.title ?? null,
    parent_session_id: s.parentId ?? null,
    subagent_count: subagentCount,
    ...(s.forkedFrom ? { forked_from: s.forkedFrom } : {}),
    ...(s.archived ? { archived: true } : {}),
  };
}

/** A marked preview cut shorter (its own `…` marker, if any, lies past the cut). */
function shorter(p: MarkedText, maxChars: number): MarkedText {
  const { text, truncated } = cutText(p.text, maxChars);
  if (!truncated) return p;
  return markedText().data(text).mark('…').build();
}
