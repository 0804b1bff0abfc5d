import { z } from 'zod';
import type { SessionsService } from '../service';
import { usageRoots, type Catalog, type CatalogSession } from '../catalog';
import type { SourceHome } from '../homes';
import type { DigestThreads } from '../session/digest-threads';
import type { SessionTokens, ToolContext, ToolDefinition } from 'mcpgw/plugin-api';
import { addTokens, inRange, utcDay, zeroTotals, type SessionStats, type StatsDetail, type TokenTotals } from '../usage';
import { isProject, requireProject, requireSource } from './filters';
import { cutSchema, jsonBytes, itemBudget, sourceArg, type Cut } from './shared';

const time = z.string().refine((t) => !Number.isNaN(Date.parse(t)), 'an ISO 8601 date or time, e.g. 2025-03-01 or 2025-03-01T12:00:00Z');

const input = z.object({
  since: time.optional().describe('Only usage from this time on (ISO 8601, inclusive)'),
  until: time.optional().describe('Only usage before this time (ISO 8601, exclusive)'),
  source: sourceArg,
  project: z.string().min(1).optional().describe('Only this project (name, id or folder)'),
  top_tools: z.number().int().min(1).default(50).describe('Tools listed in tool_usage at most, most used first (default 50)'),
  top_projects: z.number().int().min(1).default(20).describe('Projects listed in by_project at most, most tokens first (default 20)'),
  max_days: z.number().int().min(1).default(31).describe('Days listed in by_day at most, the latest (default 31; since/until choose the span)'),
});

const totals = z.object({
  input_tokens: z.number().int().describe('Prompt tokens not read from a cache'),
  output_tokens: z.number().int(),
  cache_read_tokens: z.number().int(),
  cache_write_tokens: z.number().int(),
  total_tokens: z.number().int().describe('The four above added up: cache reads and writes included'),
  responses: z.number().int().describe('Model responses, each counted once'),
});

const output = z.object({
  total_projects: z.number().int(),
  total_sessions: z.number().int(),
  total_entries: z.number().int(),
  total_tokens: z.number().int().describe('input + output + cache read + cache write tokens: cache reads included (they are most of it in long sessions); input_output_tokens leaves the cache out'),
  input_output_tokens: z.number().int().describe('input + output tokens only: no cache reads, no cache writes'),
  input_tokens: z.number().int().describe('Prompt tokens not read from a cache (and not written to one)'),
  output_tokens: z.number().int(),
  cache_read_tokens: z.number().int().describe('Prompt tokens read from the provider\'s cache'),
  cache_write_tokens: z.number().int().describe('Prompt tokens written to the provider\'s cache'),
  subagent_sessions: z.number().int().describe('Subagents\' sessions read (their tokens and tool calls are in the totals; total_sessions counts the sessions that started them)'),
  responses: z.number().int(),
  tool_usage: z.record(z.string(), z.number().int()).describe('Tool calls by tool name, most used first'),
  tool_calls: z.number().int().describe('Every tool call, each counted once'),
  by_model: z.record(z.string(), totals),
  by_source: z.record(z.string(), totals.extend({ sessions: z.number().int(), entries: z.number().int(), tool_calls: z.number().int() })),
  by_project: z.array(totals.extend({
    source: z.string(),
    project_id: z.string(),
    project_name: z.string(),
    project_path: z.string().nullable(),
    sessions: z.number().int(),
    tool_calls: z.number().int(),
  })).describe('Per project (of a source), most tokens first; top_projects of total_projects'),
  by_day: z.array(totals.extend({
    day: z.string().describe('YYYY-MM-DD, UTC'),
    tool_calls: z.number().int(),
  })).describe('Per UTC day of the responses and tool calls, latest first; max_days of total_days (responses without a time are in no day)'),
  total_days: z.number().int().describe('Days with usage (by_day lists max_days of them)'),
  complete: z.boolean().describe('false when some sessions were not read before the time limit (sessions_pending): call again, the read ones are kept'),
  sessions_pending: z.number().int(),
  skipped_records: z.number().int(),
  sessions_without_tokens: z.number().int().optional().describe('Sessions read whose files record a conversation but no token usage (warnings say why, by source): their tokens are not in the totals'),
  warnings: z.array(z.object({ code: z.string(), message: z.string() })).optional(),
  cut: cutSchema.optional(),
});

/** Why a source's session may hold no token usage on disk (said in the NO_TOKEN_USAGE warning). */
const NO_TOKENS_WHY: Record<string, string> = {
  copilot: 'Copilot CLI writes a run\'s token totals only when the run ends (session.shutdown); a run that crashed, was left with /new or is still going has none on disk',
};

type Out = z.input<typeof output>;

export function getUsageStats(service: SessionsService): ToolDefinition<typeof input, typeof output> {
  return {
    name: 'get_usage_stats',
    title: 'Usage statistics',
    description:
      'Aggregate usage across the session history: {total_projects, total_sessions, total_entries, total_tokens, tool_usage: {name: calls}, by_model, by_source, …}. ' +
      'Tokens are counted once per model response (Claude writes a streamed response as several lines repeating its usage: counted once per message id, with its final counts; a fork\'s or subagent\'s copy of its parent\'s records is not counted again) and kept apart: input (not from a cache), output, cache read, cache write; total_tokens adds all four (cache reads included), input_output_tokens only input and output. ' +
      'Every tool call is counted (each tool_use block, each once). since/until (ISO 8601) bound usage and tool calls by their time; source and project narrow. by_project (top_projects, most tokens first) and by_day (UTC days, latest first, max_days) split the totals. ' +
      'Subagents\' sessions count in the totals and in subagent_sessions, not in total_sessions. A first call over a large history may stop at the time limit with complete: false; call again (what was read is kept).',
    inputSchema: input,
    outputSchema: output,
    annotations: { readOnlyHint: true, openWorldHint: false },
    async handler(args, ctx) {
      const everyHome = service.homes(ctx);
      requireSource(ctx, everyHome, args.source);
      const homes = everyHome.filter((h) => h.available);
      // Nothing read yet: the digest threads start (load their modules) while the sources are listed.
      let early = service.digestThreadsEarly(ctx);
      try {
        return await usage(args, ctx, homes, await service.catalog(ctx, homes), () => { const t = early; early = null; return t; });
      } finally {
        early?.close();
      }
    },
  };

  /** The answer over the listed sessions; `threads()` hands over digest threads taken before the listing (or null). */
  async function usage(args: z.output<typeof input>, ctx: ToolContext, homes: SourceHome[], catalog: Catalog, threads: () => DigestThreads | null): Promise<Out> {
    const since = args.since ? Date.parse(args.since) : null;
    const until = args.until ? Date.parse(args.until) : null;
    const ofSource = catalog.projects.filter((p) => args.source === undefined || p.source === args.source);
    requireProject(ctx, ofSource, args.project);
    const projects = ofSource.filter((p) => args.project === undefined || isProject(p, args.project));
    const all = zeroTotals();
    const byModel = new Map<string, TokenTotals>();
    const bySource = new Map<string, TokenTotals & { sessions: number; entries: number; tool_calls: number }>();
    const tools = new Map<string, number>();
    const byProject = new Map<string, TokenTotals & { source: string; project_id: string; project_name: string; project_path: string | null; sessions: number; tool_calls: number }>();
    const byDay = new Map<string, TokenTotals & { day: string; tool_calls: number }>();
    const dayEntry = (day: string) => {
      if (!day) return undefined;
      let d = byDay.get(day);
      if (!d) byDay.set(day, (d = { day, ...zeroTotals(), tool_calls: 0 }));
      return d;
    };
    const dayOf = (t: string | null | undefined) => dayEntry(utcDay(t));
    const seen = new Set<string>();
    const seenTools = new Set<string>();
    let sessions = 0, subagents = 0, entries = 0, pending = 0, skipped = 0, toolCalls = 0;
    const noTokens = new Map<string, number>();
    let untimedCalls = 0, untimedResponses = 0;
    // A fork or subagent counts in the scope of the session it descends from (see usageRoots), read after it: the
    // originals claim their keys first, whatever their time, so a copy is never counted in their place.
    const roots = usageRoots(catalog.projects);
    const descends = (s: CatalogSession) => s.parentId !== undefined || s.forkedFrom !== undefined;
    const order: { p: (typeof projects)[number]; s: CatalogSession }[] = [];
    for (const p of projects) for (const s of p.sessions) if (!descends(s)) order.push({ p, s });
    const later: typeof order = [];
    for (const p of projects) for (const s of p.sessions) if (descends(s)) later.push({ p, s });
    later.sort((a, b) => a.s.birthMs - b.s.birthMs || (a.s.path < b.s.path ? -1 : 1));
    order.push(...later);
    const countedProjects = new Set<string>();
    const total = projects.reduce((n, p) => n + p.sessions.length, 0);
    let done = 0;
    const deadline = ctx.deadline - 500;
    const homeOf = (p: (typeof projects)[number]) => homes.find((h) => h.source.name === p.source)!;
    // Every session's digest read ahead (on both cores where the engine has threads); the loop below takes them in order.
    let shown = 0;
    const report = (n: number) => { shown = Math.max(shown, n); ctx.progress(shown, total, 'reading sessions'); };
    await service.readAhead(ctx, order.map(({ p, s }) => ({ session: s, home: homeOf(p), source: homeOf(p).source })), deadline, report, threads());

    const read: { p: (typeof projects)[number]; s: CatalogSession; stats: SessionStats; scope: string }[] = [];
    const scopes = new Map<string, number>();
    for (const { p, s } of order) {
      const home = homeOf(p);
      report(done++);
      if (ctx.signal.aborted) throw ctx.error('CANCELLED', 'The request was cancelled.');
      let stats;
      try {
        stats = ctx.clock.now() < deadline ? await service.sessionStats(ctx, { session: s, home, source: home.source }, deadline) : undefined;
      } catch (err) {
        if ((err as { code?: string }).code === 'CANCELLED') throw err;
        ctx.log.debug('usage: a session could not be read', { path: s.path, error: String(err) });
        continue;
      }
      if (!stats) { pending++; continue; }
      const scope = `${p.source}\n${roots.get(`${p.source}\n${s.id}`) ?? stats.sessionId ?? s.id}\n`;
      scopes.set(scope, (scopes.get(scope) ?? 0) + 1);
      read.push({ p, s, stats, scope });
    }
    const tokensAt = (t: readonly number[], i: number): SessionTokens => ({ input_tokens: t[4 * i]!, output_tokens: t[4 * i + 1]!, cache_read_tokens: t[4 * i + 2]!, cache_write_tokens: t[4 * i + 3]! });
    for (const { p, s, stats, scope } of read) {
      const overlaps = since === null && until === null ? true
        : stats.lastTimestamp !== null && stats.firstTimestamp !== null && (since === null || Date.parse(stats.lastTimestamp) >= since) && (until === null || Date.parse(stats.firstTimestamp) < until);
      // Its responses and calls one by one: where another session shares its scope, or since/until cut them.
      const alone = scopes.get(scope) === 1;
      if (!overlaps && alone) continue;
      let detail: StatsDetail | undefined;
      if (!alone || since !== null || until !== null) {
        const home = homeOf(p);
        try {
          detail = await service.statsDetail(ctx, { session: s, home, source: home.source }, deadline);
        } catch (err) {
          if ((err as { code?: string }).code === 'CANCELLED') throw err;
          ctx.log.debug('usage: a session could not be read', { path: s.path, error: String(err) });
          continue;
        }
        if (!detail) { pending++; continue; }
      }
      if (!overlaps) {
        const { responses: r, calls: c } = detail!;
        // Outside the range, but its responses and calls are still the originals a later copy repeats.
        for (const key of r.key) if (key !== null) seen.add(scope + key);
        for (const id of c.id) if (id) seenTools.add(scope + id);
        continue;
      }
      if (s.parentId !== undefined) subagents++;
      else sessions++;
      entries += stats.entries;
      skipped += stats.skipped;
      // A conversation (a prompt and more) with no token record: its tokens are unknown, not zero.
      if (stats.responses === 0 && stats.entries >= 2) noTokens.set(p.source, (noTokens.get(p.source) ?? 0) + 1);
      countedProjects.add(`${p.source}\n${p.id}`);
      let src = bySource.get(p.source);
      if (!src) bySource.set(p.source, (src = { ...zeroTotals(), sessions: 0, entries: 0, tool_calls: 0 }));
      if (s.parentId === undefined) src.sessions++;
      src.entries += stats.entries;
      const pk = `${p.source}\n${p.id}`;
      let proj = byProject.get(pk);
      if (!proj) byProject.set(pk, (proj = { source: p.source, project_id: p.id, project_name: p.name, project_path: p.path, ...zeroTotals(), sessions: 0, tool_calls: 0 }));
      if (s.parentId === undefined) proj.sessions++;
      const addResponses = (model: string, k: SessionTokens, n: number, d: ReturnType<typeof dayOf>) => {
        let m = byModel.get(model);
        if (!m) byModel.set(model, (m = zeroTotals()));
        addTokens(m, k, n);
        addTokens(src, k, n);
        addTokens(all, k, n);
        addTokens(proj, k, n);
        if (d) addTokens(d, k, n);
      };
      const addCalls = (name: string, n: number, d: ReturnType<typeof dayOf>) => {
        tools.set(name, (tools.get(name) ?? 0) + n);
        src.tool_calls += n;
        proj.tool_calls += n;
        if (d) d.tool_calls += n;
        toolCalls += n;
      };
      if (!detail) {
        // No other session shares its scope, and every response and call counts: its totals by model and day.
        for (const [model, day, i, o, cr, cw, n] of stats.byModelDay) addResponses(model, { input_tokens: i, output_tokens: o, cache_read_tokens: cr, cache_write_tokens: cw }, n, dayEntry(day));
        for (const [name, day, n] of stats.byToolDay) addCalls(name, n, dayEntry(day));
        continue;
      }
      // Keys and call ids are unique only within a session (Codex keys a response by its running token total,
      // call ids may be call_0, call_1, … in every session): dedup across files only among files of one session
      // id (a resumed session repeating earlier records), never between different sessions.
      const { responses: r, calls: c } = detail;
      for (let i = 0; i < r.key.length; i++) {
        const key = r.key[i]!, time = r.time[i]!;
        if (key !== null) {
          const k = scope + key;
          if (seen.has(k)) continue; // a response repeated in another session file (a resumed session, a fork)
          seen.add(k);
        }
        if (!inRange(time, since, until)) {
          // No time of its own (Kimi's context records, say): placed by its session's span.
          if (time || spanOf(stats, since, until) === 'out') continue;
          if (spanOf(stats, since, until) === 'partly') { untimedResponses += r.count[i]!; continue; }
        }
        addResponses(r.model[i]!, tokensAt(r.tokens, i), r.count[i]!, dayOf(time));
      }
      for (let i = 0; i < c.id.length; i++) {
        const id = c.id[i]!, time = c.time[i]!;
        if (id) {
          const k = scope + id;
          if (seenTools.has(k)) continue; // the same call in a resumed session's copy, or a fork's
          seenTools.add(k);
        }
        if (!inRange(time, since, until)) {
          if (time || spanOf(stats, since, until) === 'out') continue;
          if (spanOf(stats, since, until) === 'partly') { untimedCalls++; continue; }
        }
        addCalls(c.name[i]!, 1, dayOf(time));
      }
    }
    ctx.progress(total, total, 'done');
    const whole = args.source === undefined && args.project === undefined;
    const counts = service.finishStats(ctx, whole ? new Set(catalog.projects.flatMap((p) => p.sessions.map((s) => `${s.source}\n${s.path}`))) : undefined);
    ctx.log.debug('usage: sessions read from their files and taken from the kept statistics', counts);
    const ranked = [...tools].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    const result: Out = {
      total_projects: countedProjects.size,
      total_sessions: sessions,
      total_entries: entries,
      total_tokens: all.total_tokens,
      input_output_tokens: all.input_tokens + all.output_tokens,
      input_tokens: all.input_tokens,
      output_tokens: all.output_tokens,
      cache_read_tokens: all.cache_read_tokens,
      cache_write_tokens: all.cache_write_tokens,
      subagent_sessions: subagents,
      responses: all.responses,
      tool_usage: Object.fromEntries(ranked.slice(0, args.top_tools)),
      tool_calls: toolCalls,
      by_model: Object.fromEntries([...byModel].sort((a, b) => b[1].total_tokens - a[1].total_tokens || (a[0] < b[0] ? -1 : 1))),
      by_source: Object.fromEntries(bySource),
      by_project: [...byProject.values()].sort((a, b) => b.total_tokens - a.total_tokens || b.sessions - a.sessions || (a.project_name < b.project_name ? -1 : a.project_name > b.project_name ? 1 : 0)).slice(0, args.top_projects),
      by_day: [...byDay.values()].sort((a, b) => (a.day < b.day ? 1 : -1)).slice(0, args.max_days),
      total_days: byDay.size,
      complete: pending === 0,
      sessions_pending: pending,
      skipped_records: skipped,
    };
    if (untimedCalls || untimedResponses) {
      (result.warnings ??= []).push({
        code: 'UNTIMED_LEFT_OUT',
        message: `${untimedCalls} tool call${untimedCalls === 1 ? '' : 's'} and ${untimedResponses} response${untimedResponses === 1 ? '' : 's'} have no time of their own and their sessions span an edge of since/until: left out of the totals. Widen since/until to whole sessions to count them.`,
      });
    }
    if (noTokens.size) {
      const n = [...noTokens.values()].reduce((a, b) => a + b, 0);
      result.sessions_without_tokens = n;
      (result.warnings ??= []).push(...[...noTokens].map(([source, k]) => ({
        code: 'NO_TOKEN_USAGE',
        message: `${k} ${source} session${k === 1 ? '' : 's'} record${k === 1 ? 's' : ''} a conversation but no token usage: not in the token totals. ${NO_TOKENS_WHY[source] ?? 'The assistant wrote no usage records in them'}.`,
      })));
    }
    return fitUsage(ctx, result);
  }
}

/**
 * Where a session lies against since/until, by its first and last times: wholly inside (`in`: its untimed records are
 * in the range), wholly outside (`out`), or across an edge or without times (`partly`: an untimed record's side is
 * unknown). Ranges as inRange: since inclusive, until exclusive.
 */
function spanOf(stats: { firstTimestamp: string | null; lastTimestamp: string | null }, since: number | null, until: number | null): 'in' | 'out' | 'partly' {
  const first = stats.firstTimestamp ? Date.parse(stats.firstTimestamp) : NaN;
  const last = stats.lastTimestamp ? Date.parse(stats.lastTimestamp) : NaN;
  if (Number.isNaN(first) || Number.isNaN(last)) return 'partly';
  if ((since !== null && last < since) || (until !== null && first >= until)) return 'out';
  if ((since === null || first >= since) && (until === null || last < until)) return 'in';
  return 'partly';
}

/** Keeps the result under the byte cap by listing fewer tools, then fewer models (the totals stay whole). */
function fitUsage(ctx: ToolContext, r: Out): Out {
  const budget = itemBudget(ctx, -1536);
  if (jsonBytes(r) <= budget) return r;
  const tools = Object.entries(r.tool_usage);
  const models = Object.entries(r.by_model);
  const projects = r.by_project;
  const days = r.by_day;
  let nt = tools.length, nm = models.length, np = projects.length, nd = days.length;
  const shaped = () => ({ ...r, tool_usage: Object.fromEntries(tools.slice(0, nt)), by_model: Object.fromEntries(models.slice(0, nm)), by_project: projects.slice(0, np), by_day: days.slice(0, nd) });
  // Halve the longest list first, so that each keeps its head.
  while (jsonBytes(shaped()) > budget && (nt > 0 || nm > 0 || np > 0 || nd > 0)) {
    const longest = Math.max(nt, np, nd, nm);
    if (nd === longest) nd = Math.floor(nd / 2);
    else if (np === longest) np = Math.floor(np / 2);
    else if (nt === longest) nt = Math.floor(nt / 2);
    else nm = Math.floor(nm / 2);
  }
  const cut: Cut = { limit: 'maxResultBytes', at: `tool_usage lists ${nt} of ${tools.length} tools, by_model ${nm} of ${models.length} models, by_project ${np} of ${projects.length} projects, by_day ${nd} of ${days.length} days`, rest: 'Lower top_tools, top_projects or max_days, or narrow with source, project, since or until.' };
  return { ...shaped(), cut };
}
