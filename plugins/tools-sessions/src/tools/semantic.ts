import { z } from 'zod';
import type { ToolDefinition } from 'mcpgw/plugin-api';
import { markedField } from '../toolkit';
import type { SessionsService } from '../service';
import { requireProject, requireSource } from './filters';
import { cutSchema, jsonBytes, itemBudget, roleSchema, sourceArg, warningSchema, type Cut, type Warning } from './shared';
import { cutText } from '../text';
import { contentFreeReason } from '../os-error';

const input = z.object({
  query: z.string().min(1).max(4096).describe('What you are looking for, in your own words'),
  project: z.string().min(1).optional().describe('Only this project (its name, id or folder)'),
  source: sourceArg,
  limit: z.number().int().min(1).default(20).describe('Results at most (default 20)'),
  max_distance: z.number().min(0).max(2).default(0).describe('Drop results whose cosine distance exceeds this (0 = no bound; distances lie in 0–2)'),
  diversity: z.boolean().default(false).describe('Spread results across sessions (maximal marginal relevance)'),
});

const output = z.object({
  results: z.array(z.object({
    session_id: z.string(),
    entry_uuid: z.string().nullable(),
    entry_index: z.number().int().describe('Pass in entry_indices to get_session_entries'),
    distance: z.number().nullable().describe('Cosine distance of the vector part, 0 (same direction) to 2; null when the entry has no known word'),
    score: z.number().describe('The fused rank score (higher is better)'),
    role: roleSchema,
    project_name: z.string(),
    source: z.string(),
    session_path: z.string(),
    first_prompt: z.string().nullable(),
    first_prompt_markers: z.array(z.number().int()).optional().describe('Only when first_prompt holds … itself: where the … markers of the shortened text are (Unicode code points from its start; [] when not shortened); any other … is the text\'s own'),
    preview: z.string(),
    preview_markers: z.array(z.number().int()).optional().describe('Only when preview holds … itself: where the … markers of the shortened text are (Unicode code points from its start; [] when not shortened); any other … is the text\'s own'),
    timestamp: z.string().nullable(),
  })),
  complete: z.boolean().describe('false while the index is being built: results cover the sessions indexed so far; call again'),
  sessions_indexed: z.number().int(),
  sessions_pending: z.number().int(),
  hint: z.string().optional().describe('Only when complete is false: how far the index build is and when to call again'),
  embedder: z.string(),
  cut: cutSchema.optional(),
  warnings: z.array(warningSchema).optional(),
});

type Result = z.input<typeof output>['results'][number];

export function semanticSearch(service: SessionsService): ToolDefinition<typeof input, typeof output> {
  return {
    name: 'semantic_search',
    title: 'Search sessions by meaning',
    description:
      'Find session entries by meaning, offline: {results: [{session_id, entry_uuid, entry_index, distance, score, role, project_name, source, session_path, first_prompt, preview}]}. ' +
      'A hybrid of BM25 (words in common) and static word vectors (GloVe with SIF weighting, shipped with the server; nothing is downloaded), fused by reciprocal rank. ' +
      'It catches related words — socket/connection, RAM/memory, logged out/signed off — not arbitrary reformulations; for exact text use search_sessions. ' +
      'distance is the cosine distance of the vector part (0–2); max_distance (0 = none) drops farther results; diversity: true spreads results across sessions. limit defaults to 20. ' +
      'The index is kept in the user cache folder and updated incrementally (only new or grown sessions are read). A first call over a large history builds it with progress notifications and may return complete: false with what is indexed so far and a hint — call again as the hint says: the build goes on in the background meanwhile.',
    inputSchema: input,
    outputSchema: output,
    annotations: { readOnlyHint: true, openWorldHint: false },
    handler(args, ctx) {
      return service.withSemantic(ctx, async (index) => {
        const everyHome = service.homes(ctx);
        requireSource(ctx, everyHome, args.source);
        const homes = everyHome.filter((h) => h.available);
        const catalog = await service.catalog(ctx, homes);
        requireProject(ctx, catalog.projects.filter((p) => args.source === undefined || p.source === args.source), args.project);
        const listed = catalog.projects.flatMap((p) => p.sessions).sort((a, b) => b.mtimeMs - a.mtimeMs || (a.path < b.path ? -1 : 1));
        // Index until a fraction of the time is left for the query itself.
        const deadline = ctx.deadline - Math.min(5000, Math.max(500, (ctx.deadline - ctx.clock.now()) * 0.2));
        const report = await index.refresh(ctx, service, homes, listed, deadline);
        const byRow = index.sessionsByRow(new Set(listed.map((s) => s.path)));
        const wanted = new Set<number>();
        const project = args.project?.toLowerCase();
        for (const [id, s] of byRow) {
          if (args.source !== undefined && s.source !== args.source) continue;
          if (project !== undefined && s.projectName.toLowerCase() !== project && s.projectPath !== args.project) {
            const listedOne = listed.find((l) => l.path === s.path);
            if (!listedOne || listedOne.projectId !== args.project) continue;
          }
          wanted.add(id);
        }
        const hits = await index.engine.search({ query: args.query, sessions: wanted, limit: Math.min(args.limit, ctx.limits.maxItems), maxDistance: args.max_distance, diversity: args.diversity }, byRow, ctx.signal);
        const budget = itemBudget(ctx, Buffer.byteLength(args.query) + 1024);
        const results: Result[] = [];
        let used = 2;
        let cut: Cut | undefined;
        for (const h of hits) {
          const r: Result = {
            session_id: h.session.sessionId,
            entry_uuid: h.entry.uuid,
            entry_index: h.entry.idx,
            distance: h.distance === null ? null : Math.round(h.distance * 10000) / 10000,
            score: Math.round(h.score * 1e6) / 1e6,
            role: h.entry.role as Result['role'],
            project_name: h.session.projectName,
            source: h.session.source,
            session_path: h.session.path,
            ...(h.session.firstPrompt ? markedField('first_prompt', h.session.firstPrompt) : { first_prompt: null }),
            ...markedField('preview', h.entry.preview),
            timestamp: h.entry.ts,
          };
          const size = jsonBytes(r) + 1;
          if (used + size > budget && results.length > 0) {
            cut = { limit: 'maxResultBytes', at: `after ${results.length} results`, rest: 'Ask for fewer results (limit) or narrow with project or source.' };
            break;
          }
          used += size;
          results.push(r);
        }
        const warnings: Warning[] = report.failed.slice(0, 5).map((f) => ({ code: 'IO_ERROR', message: `${f.path} could not be indexed: ${cutText(contentFreeReason(f.message), 200).text}` }));
        const complete = report.finished && report.pending === 0;
        const eta = report.remainingMs === null ? '' : `, about ${Math.max(1, Math.ceil(report.remainingMs / 1000))} s to go`;
        const hint = complete ? undefined : report.finished
          ? `${report.pending} sessions were not indexed before the time limit: results cover the other ${report.indexed}. Call semantic_search again to continue.`
          : `The search index is being built (${report.done} of ${report.total} sessions looked at${eta}): these results cover the ${report.indexed} sessions indexed so far. The build goes on in the background; call semantic_search again${eta ? ' once that time has passed' : ''} for results over the whole history.`;
        return {
          results,
          complete,
          sessions_indexed: report.indexed,
          sessions_pending: report.pending,
          ...(hint ? { hint } : {}),
          embedder: index.embedder.name,
          ...(cut ? { cut } : {}),
          ...(warnings.length ? { warnings } : {}),
        };
      });
    },
  };
}
