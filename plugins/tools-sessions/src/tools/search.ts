import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { FileAccess, SessionEntryDraft, ToolContext, ToolDefinition } from 'mcpgw/plugin-api';
import { newestFirst, type CatalogSession } from '../catalog';
import type { TraitsCache } from '../search/prefilter';
import type { EntryMatch } from '../search/matcher';
import type { SourceHome } from '../homes';
import type { Located, SessionsService } from '../service';
import type { SessionFiles } from '../session/files';
import { safeNormalize } from '../session/summary';
import { requireProject, requireSource } from './filters';
import { cutSchema, jsonBytes, itemBudget, REDACTION_RESERVE, roleSchema, sourceArg, warningSchema, type Cut, type Warning } from './shared';

const input = z.object({
  query: z.string().min(1).max(4096).describe('Text to find (or an RE2 regular expression with regex: true)'),
  project: z.string().min(1).optional().describe('Only this project (its name, id or folder, as list_projects shows them)'),
  source: sourceArg,
  limit: z.number().int().min(1).default(50).describe('Matches returned at most (default 50)'),
  limit_per_session: z.number().int().min(0).default(2).describe('Matches per session at most (default 2; 0 = no limit)'),
  case_sensitive: z.boolean().default(false).describe('Match letter case exactly (default: Unicode case folding)'),
  regex: z.boolean().default(false).describe('The query is an RE2 regular expression (linear time: \\d \\w \\s \\b, classes, alternation; no backreferences or lookaround)'),
  cursor: z.string().min(1).optional().describe('next_cursor of a previous call with the same query and filters'),
});

const match = z.object({
  line_num: z.number().int().nullable().describe('1-based line in the session file (for a Gemini document: the line its message starts on)'),
  preview: z.string().describe('The match in context, marked «…»; … where cut'),
  preview_markers: z.array(z.number().int()).optional().describe('Only when the text shown holds «, » or … itself: where the markers of preview are (Unicode code points from its start); any other «, » or … is the text\'s own'),
  role: roleSchema,
  entry_index: z.number().int().optional().describe('Pass in entry_indices to get_session_entries'),
  uuid: z.string().nullable(),
  timestamp: z.string().nullable(),
  field: z.enum(['text', 'thinking', 'tool_input', 'tool_result']).describe('Where in the entry the match is'),
  file: z.string().optional().describe('For a session continued over several files: the file holding it'),
});

const output = z.object({
  sessions: z.array(z.object({
    session_id: z.string(),
    project_name: z.string(),
    source: z.string(),
    path: z.string(),
    modified_at: z.string(),
    matches: z.array(match),
    more_matches: z.boolean().optional().describe('true: this session has more matches than limit_per_session let through (search it with project or a higher limit_per_session; 0 = no limit)'),
  })),
  total_matches: z.number().int().describe('Matches returned'),
  sessions_searched: z.number().int(),
  complete: z.boolean().describe('false when the time limit or the answer\'s size (maxResultBytes: cut) stopped the search before its end: call again with next_cursor'),
  next_cursor: z.string().optional().describe('More may follow: pass it as cursor with the same query and filters'),
  cut: cutSchema.optional(),
  skipped_records: z.number().int().describe('Malformed records passed over in the sessions searched'),
  warnings: z.array(warningSchema).optional().describe('LIMIT_PER_SESSION: sessions held more matches than limit_per_session returned (those rows have more_matches: true); ASCII_WORD_BOUNDARY: the regex holds \\b or \\B, ASCII word boundaries'),
});

type Out = z.input<typeof output>;
type SessionOut = Out['sessions'][number];
type Match = z.infer<typeof match>;

interface Cursor { k: string; s: string; m: number; p: number }

/** What the search's matcher finds in a candidate record: a hit, a malformed record, or the deadline checked there. */
type Found =
  | { kind: 'hit'; pos: number; entry: SessionEntryDraft; m: EntryMatch }
  | { kind: 'error'; pos: number }
  | { kind: 'deadline'; pos: number };

interface SearchModules {
  matcher: typeof import('../search/matcher');
  prefilter: typeof import('../search/prefilter');
  verdicts: typeof import('../search/verdicts');
}
let modules: SearchModules | undefined;
/** The matcher, the byte prefilter and its threads, loaded on the first search (start-up time: a start runs none of them). */
function searchModules(): SearchModules {
  return (modules ??= {
    matcher: require('../search/matcher') as typeof import('../search/matcher'),
    prefilter: require('../search/prefilter') as typeof import('../search/prefilter'),
    verdicts: require('../search/verdicts') as typeof import('../search/verdicts'),
  });
}

function keyOf(args: z.output<typeof input>): string {
  return createHash('sha256').update(JSON.stringify([args.query, args.regex, args.case_sensitive, args.project ?? null, args.source ?? null])).digest('base64url').slice(0, 16);
}

function encodeCursor(c: Cursor): string {
  return Buffer.from(JSON.stringify(c)).toString('base64url');
}

function decodeCursor(ctx: ToolContext, text: string, key: string): Cursor {
  let c: Cursor;
  try {
    c = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    throw ctx.error('INVALID_ARGUMENT', 'This cursor is not one search_sessions returned.');
  }
  if (!c || typeof c.s !== 'string' || typeof c.m !== 'number' || typeof c.p !== 'number' || typeof c.k !== 'string') {
    throw ctx.error('INVALID_ARGUMENT', 'This cursor is not one search_sessions returned.');
  }
  if (c.k !== key) throw ctx.error('INVALID_ARGUMENT', 'This cursor belongs to another search: pass the same query, regex, case_sensitive, project and source as the call that returned it.');
  return c;
}

/** Whether `s` belongs to the project named by `project` (its name, id or folder). */
function inProject(s: CatalogSession, project: string): boolean {
  const p = project.toLowerCase();
  return s.projectName.toLowerCase() === p || s.projectId === project || s.projectPath === project;
}

export function searchSessions(service: SessionsService): ToolDefinition<typeof input, typeof output> {
  let traits: TraitsCache | undefined;
  return {
    name: 'search_sessions',
    title: 'Search sessions',
    description:
      'Find text across every session (newest first): {sessions: [{session_id, project_name, source, path, matches: [{line_num, preview, role, entry_index, field}]}], total_matches}. ' +
      'Searches entries\' text, thinking, tool inputs and tool results — not file metadata. Case-insensitive by default (case_sensitive: true for exact case); regex: true takes an RE2 regular expression, linear time (\\d \\w \\s \\b, classes, alternation, (?i); no backreferences or lookaround). ' +
      'limit (default 50) bounds matches, limit_per_session (default 2, 0 = no limit) the matches from one session (a session holding more says more_matches: true); project and source narrow (an unknown one is NOT_FOUND). ' +
      'Reads the session files directly (no index to build). complete: false means more matches may follow (the time limit or the answer\'s size stopped it): call again with cursor: next_cursor (same query and filters) until complete is true; next_cursor alone (complete: true) means limit was reached. Open a hit with get_session_entries {path, entry_indices: [entry_index]}.',
    inputSchema: input,
    outputSchema: output,
    annotations: { readOnlyHint: true, openWorldHint: false },
    async handler(args, ctx) {
      const { matcher: { compileQuery, matchEntry }, prefilter: { queryTest, TraitsCache }, verdicts: { Verdicts } } = searchModules();
      traits ??= new TraitsCache();
      const re = compileQuery(ctx.regex, args.query, args.regex, args.case_sensitive);
      const byteTest = queryTest(re);
      const key = keyOf(args);
      const cursor = args.cursor ? decodeCursor(ctx, args.cursor, key) : null;
      const everyHome = service.homes(ctx);
      requireSource(ctx, everyHome, args.source);
      const homes = everyHome.filter((h) => h.available);
      const catalog = await service.catalog(ctx, homes);
      const ofSource = catalog.projects.filter((p) => args.source === undefined || p.source === args.source);
      requireProject(ctx, ofSource, args.project);
      if (re.neverMatches) {
        // No text can match the pattern: the answer is known without reading a session.
        return {
          sessions: [], total_matches: 0, sessions_searched: 0, complete: true, skipped_records: 0,
          warnings: [...(re.warnings ?? []), { code: 'NEVER_MATCHES', message: 'No text can match this regular expression (a start-of-text anchor after a character, an end-of-text anchor before one, or a class of no characters), so no session was read.' }],
        };
      }
      const all = ofSource
        .flatMap((p) => p.sessions)
        .filter((s) => args.project === undefined || inProject(s, args.project))
        .sort(newestFirst);
      let first = 0;
      let firstPos = 0;
      if (cursor) {
        const at = all.findIndex((s) => s.path === cursor.s);
        if (at !== -1) { first = at; firstPos = cursor.p; }
        else {
          const after = all.findIndex((s) => newestFirst(s, { mtimeMs: cursor.m, path: cursor.s } as CatalogSession) > 0);
          first = after === -1 ? all.length : after;
        }
      }
      const limit = Math.min(args.limit, ctx.limits.maxItems);
      const perSession = args.limit_per_session === 0 ? Infinity : args.limit_per_session;
      const budget = itemBudget(ctx, Buffer.byteLength(args.query) + 512);
      const out: SessionOut[] = [];
      const located = new Map<SessionOut, { loc: Located; positions: number[] }>();
      let used = 64;
      let total = 0;
      let searched = 0;
      let skipped = 0;
      let next: Cursor | null = null;
      let complete = true;
      let cut: Cut | undefined;

      // The byte prefilter's verdicts, on a thread of the engine's pool when the search is big: made last before the
      // loop, given back after it whatever happens.
      const verdicts = byteTest ? new Verdicts(ctx, accessFor(ctx, service, homes), byteTest, { literals: re.requiredLiterals!.literals, caseInsensitive: re.requiredLiterals!.caseInsensitive }, traits, all, first) : null;
      try {
        sessions: for (let i = first; i < all.length; i++) {
          const s = all[i]!;
          const from = i === first ? firstPos : 0;
          if (ctx.clock.now() > ctx.deadline) {
            complete = false;
            next = { k: key, s: s.path, m: s.mtimeMs, p: from };
            break;
          }
          const home = homes.find((h) => h.source.name === s.source)!;
          const loc: Located = { session: s, home, source: home.source };
          if (verdicts) {
            // One raw read of each file through the byte test: most cannot hold a match.
            if (!(await verdicts.get(i))) { searched++; continue; }
          }
          let files: SessionFiles;
          try {
            files = await service.open(ctx, loc);
          } catch (err) {
            if ((err as { code?: string }).code === 'CANCELLED') throw err;
            ctx.log.debug('search: a session could not be opened', { path: s.path, error: String(err) });
            continue;
          }
          searched++;
          const row: SessionOut = { session_id: s.id, project_name: s.projectName, source: s.source, path: s.path, modified_at: new Date(s.mtimeMs).toISOString(), matches: [] };
          const positions: number[] = [];
          let rowBytes = jsonBytes({ ...row, matches: [], more_matches: true }) + 1;
          try {
            // The search's matcher: every 256th candidate record first checks the deadline; a malformed record is
            // counted; an entry is matched in its text, thinking, tool inputs and results. The page is made of hits.
            let n = 0;
            await files.match<Found>(ctx.scan, re, from, ctx.signal, (item) => {
              if ((++n & 255) === 0 && ctx.clock.now() > ctx.deadline) return { kind: 'deadline', pos: item.pos };
              if (item.error !== undefined) return { kind: 'error', pos: item.pos };
              const normalized = safeNormalize(loc.source, item.value);
              const entry = normalized instanceof Error ? undefined : normalized?.entry;
              if (!entry) return null;
              const m = matchEntry(re, entry);
              return m ? { kind: 'hit', pos: item.pos, entry, m } : null;
            }, (found) => {
              if (found.kind === 'deadline') {
                // Only looking for one more match past limit_per_session: stop looking; the next session resumes.
                if (row.matches.length >= perSession) return false;
                complete = false;
                next = { k: key, s: s.path, m: s.mtimeMs, p: found.pos };
                return false;
              }
              if (found.kind === 'error') { skipped++; return true; }
              const { pos, entry, m } = found;
              if (row.matches.length >= perSession) { row.more_matches = true; return false; } // one more exists: say so
              const file = files.realPaths.length > 1 ? files.fileOf(pos) : undefined;
              const hit: Match = { line_num: files.lineOf(pos), preview: m.preview, ...(m.markers ? { preview_markers: m.markers } : {}), role: entry.role, uuid: entry.uuid, timestamp: entry.timestamp, field: m.field, ...(file ? { file } : {}) };
              // entry_index is added after the search (from the summary): its bytes are counted now.
              const size = jsonBytes(hit) + 1 + ENTRY_INDEX_BYTES + (row.matches.length === 0 ? rowBytes : 0);
              if (used + size > budget && total > 0) { // at least one match a page: a page always advances
                cut = cutAt(total);
                complete = false;
                next = { k: key, s: s.path, m: s.mtimeMs, p: pos };
                return false;
              }
              used += size;
              rowBytes = 0;
              row.matches.push(hit);
              positions.push(pos);
              total++;
              if (total >= limit) {
                next = row.matches.length >= perSession ? nextSession(all, i, key) : { k: key, s: s.path, m: s.mtimeMs, p: pos + 1 };
                return false;
              }
              return true;
            });
          } finally {
            files.close();
          }
          if (row.matches.length) {
            out.push(row);
            located.set(row, { loc, positions });
          }
          if (next || !complete) break sessions;
        }
      } finally {
        verdicts?.close(); // the prefilter's thread goes back to the engine's pool
      }

      // Entry indexes come from the sessions' summaries (built once, kept): what the deadline leaves is skipped.
      for (const [row, { loc, positions }] of located) {
        if (ctx.clock.now() > ctx.deadline) break;
        try {
          const summary = await service.summary(ctx, loc);
          if (!summary.complete) continue;
          row.matches.forEach((m, k) => {
            const index = indexOfPos(summary.entries, positions[k]!);
            if (index !== -1) m.entry_index = index;
          });
        } catch { /* no indexes for this session */ }
      }
      const answer = (): Out => {
        const more = out.filter((r) => r.more_matches).length;
        const warnings: Warning[] = more ? [{ code: 'LIMIT_PER_SESSION', message: `${more} session${more === 1 ? '' : 's'} held more matches than limit_per_session (${args.limit_per_session}) returned (more_matches: true); pass a higher limit_per_session, 0 for no limit.` }] : [];
        for (const w of re.warnings ?? []) warnings.unshift({ code: w.code, message: w.message }); // \b is an ASCII word boundary
        return {
          sessions: out,
          total_matches: total,
          sessions_searched: searched,
          complete,
          ...(next ? { next_cursor: encodeCursor(next) } : {}),
          ...(cut ? { cut } : {}),
          skipped_records: skipped,
          ...(warnings.length ? { warnings } : {}),
        };
      };
      // The last guard: an answer over maxResultBytes (a long query or path in the cursor, escapes) gives back its
      // last matches, the cursor resuming at the first one given back — a cut page, never an error without results.
      let result = answer();
      while (total > 1 && jsonBytes(result) > ctx.limits.maxResultBytes - REDACTION_RESERVE) {
        const row = out[out.length - 1]!;
        const { loc, positions } = located.get(row)!;
        row.matches.pop();
        const pos = positions.pop()!;
        delete row.more_matches;
        if (row.matches.length === 0) out.pop();
        total--;
        next = { k: key, s: loc.session.path, m: loc.session.mtimeMs, p: pos };
        complete = false;
        cut = cutAt(total);
        result = answer();
      }
      return result;
    },
  };
}

/** Bytes of `,"entry_index":N` for any entry index a session can have. */
const ENTRY_INDEX_BYTES = 26;

function cutAt(total: number): Cut {
  return { limit: 'maxResultBytes', at: `after ${total} matches`, rest: 'More matches follow: call again with next_cursor (same query and filters).' };
}

/** The file access of each session's source (confined to that source's home), built once per search. */
function accessFor(ctx: ToolContext, service: SessionsService, homes: readonly SourceHome[]): (s: CatalogSession) => FileAccess {
  const access = new Map<string, FileAccess>();
  return (s) => {
    let files = access.get(s.source);
    if (!files) access.set(s.source, (files = service.files(ctx, [homes.find((h) => h.source.name === s.source)!])));
    return files;
  };
}

function nextSession(all: readonly CatalogSession[], i: number, key: string): Cursor | null {
  const s = all[i + 1];
  return s ? { k: key, s: s.path, m: s.mtimeMs, p: 0 } : null;
}

/** The index of the entry read from record `pos` (entries are in record order), or -1. */
function indexOfPos(entries: readonly { pos: number }[], pos: number): number {
  let lo = 0, hi = entries.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const p = entries[mid]!.pos;
    if (p === pos) return mid;
    if (p < pos) lo = mid + 1; else hi = mid - 1;
  }
  return -1;
}
