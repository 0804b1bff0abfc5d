import type { ToolContext, ToolDefinition } from 'mcpgw/plugin-api';
import { fileFor, type ExplorerFile } from '../files';
import { parseFields, recordEscapesLoneSurrogate } from '../records';
import { replacedWarning } from '../text/surrogates';
import { cursorTable, type QueryCursor, type SearchCursor, type TextCursor } from './cursors';
import { isPredicate, looksLikePredicate } from './predicate';
import { countsOf, searchInput, searchOutput, type Args, type Page } from './shape';
import { clip } from '../text/clip';

interface Engines {
  jsonPathSearch: typeof import('./jsonpath-engine').jsonPathSearch;
  predicateSearch: typeof import('./predicate-engine').predicateSearch;
  textSearch: typeof import('./text-engine').textSearch;
  RegexMatcher: typeof import('./regex').RegexMatcher;
}
let loaded: Engines | undefined;
/** The three engines and the regex matcher, loaded on the first search (start-up time: a start runs none of them). */
function engines(): Engines {
  return (loaded ??= {
    jsonPathSearch: (require('./jsonpath-engine') as typeof import('./jsonpath-engine')).jsonPathSearch,
    predicateSearch: (require('./predicate-engine') as typeof import('./predicate-engine')).predicateSearch,
    textSearch: (require('./text-engine') as typeof import('./text-engine')).textSearch,
    RegexMatcher: (require('./regex') as typeof import('./regex')).RegexMatcher,
  });
}

/** Bytes kept free in a page for the envelope around the matches. */
const ENVELOPE_RESERVE = 2048;

/**
 * The explorer's `search` tool: one tool over three engines — text (text-engine.ts), JSONPath (jsonpath-engine.ts)
 * and record predicates (predicate-engine.ts). This file chooses the mode, checks the cursor against the call and
 * bounds the page; each engine runs its search and makes its page and its next cursor.
 */
export const search: ToolDefinition<typeof searchInput, typeof searchOutput> = {
  name: 'search',
  title: 'Search records',
  description:
    'Search every record: {total_matches, matches: [{record_index, preview, match_path}], next_cursor}. The query picks the mode: ' +
    'text (a substring of values, keys or the raw JSON text, case-insensitive unless match_case; regex: true for RE2), JSONPath ($.user.name) or a predicate ($.status = \'failed\', $.age > 40 && $.tags). ' +
    'max_results: 0 only counts; fields adds projected records; next_cursor as cursor gives more. complete: false: time ran out',
  inputSchema: searchInput,
  outputSchema: searchOutput,
  annotations: { readOnlyHint: true, openWorldHint: false },
  async handler(args, ctx) {
    const file = fileFor(ctx, args.handle);
    const mode = args.mode ?? defaultMode(args.query, args.regex);
    const fields = parseFields(ctx, args.fields);
    const { jsonPathSearch, predicateSearch, textSearch, RegexMatcher } = engines();
    // Regex: compiled first, so that a bad pattern is an error before anything else (linear time: no deadline needed).
    const regex = args.regex && mode === 'text' ? new RegexMatcher(ctx, args.query, args.match_case) : null;
    const resume = takeCursor(ctx, args, mode, regex !== null);
    const echo = args.query.length <= QUERY_ECHO ? args.query : `${clip(args.query, QUERY_ECHO)}… (${args.query.length} characters)`;
    if (regex?.neverMatches) {
      // No text can match it: the answer is known without reading the file.
      return {
        total_matches: 0, counts: countsOf(file.opened.source), matches: [], query: echo, mode: 'text', complete: true,
        warnings: [...regex.warnings, { code: 'NEVER_MATCHES', message: 'No text can match this regular expression (a start-of-text anchor after a character, an end-of-text anchor before one, or a class of no characters), so no record was read. Without (?m), ^ and $ are the start and end of each string searched.' }],
      };
    }
    const request = {
      args,
      file,
      fields,
      limit: Math.min(args.max_results, ctx.limits.maxItems),
      budget: ctx.limits.maxResultBytes - ENVELOPE_RESERVE - Buffer.byteLength(echo) * 3,
    };
    let page;
    if (mode === 'jsonpath') {
      const query = { ...request, resume: resume as QueryCursor | null };
      page = await (isPredicate(args.query) ? predicateSearch(ctx, query) : jsonPathSearch(ctx, query));
    } else page = await textSearch(ctx, { ...request, resume: resume as TextCursor | null }, countsOf(file.opened.source), regex);
    page = wellFormedMatches(ctx, file, page);
    // The pattern's own warnings (\b is an ASCII word boundary), first: they bear on every match and on none found.
    if (regex?.warnings.length) page = { ...page, warnings: [...regex.warnings, ...(page.warnings ?? [])] };
    return echo === args.query ? page : { ...page, query: echo };
  },
};

/**
 * The page with every lone surrogate (RFC 8259 §8.2) shown as U+FFFD and said so, as every tool gives it: a text
 * preview copies record text, whose lone surrogate escapes are written `\ufffd` through ctx.json (the same length, so
 * the page's byte budget holds; the answer then carries the warning); JSONPath previews and projected records show
 * parsed values, which hold U+FFFD already, and the warning comes when one of their records escapes a lone surrogate.
 */
function wellFormedMatches(ctx: ToolContext, file: ExplorerFile, page: Page): Page {
  const matches = page.matches.map((m) => (page.mode === 'text' ? { ...m, preview: ctx.json.wellFormedText(m.preview) } : m));
  const shown = page.mode === 'text' ? matches.map((m) => m.record ?? null) : matches.map((m) => [m.preview, m.match_path, m.record ?? null]);
  const warning = replacedWarning(shown, matches.map((m) => m.record_index), (i) => recordEscapesLoneSurrogate(ctx, file, i));
  if (!warning || page.warnings?.some((w) => w.code === warning.code)) return { ...page, matches };
  return { ...page, matches, warnings: [...(page.warnings ?? []), warning] };
}

/** The longest query echoed whole in a result, UTF-16 units; a longer one is echoed cut, with its length. */
const QUERY_ECHO = 1024;

/**
 * The cursor this call continues (consumed: single use), or null without one.
 * @throws INVALID_ARGUMENT when it belongs to another search; NOT_FOUND / HANDLE_EXPIRED from the cursor table
 */
function takeCursor(ctx: ToolContext, args: Args, mode: 'text' | 'jsonpath', regex: boolean): SearchCursor | null {
  if (args.cursor === undefined) return null;
  const cursors = cursorTable(ctx);
  const resume = cursors.get(args.cursor);
  const resumeRegex = resume.mode === 'text' && (resume.regex ?? false);
  if (resume.handle !== args.handle || resume.query !== args.query || resume.mode !== mode || resume.matchCase !== args.match_case || resumeRegex !== regex || (resume.countOnly ?? false) !== (args.max_results === 0)) {
    throw ctx.error('INVALID_ARGUMENT', 'This cursor belongs to another search: pass the same handle, query, mode, match_case and regex as the call that returned it (and max_results: 0 again for a count).');
  }
  cursors.consume(args.cursor);
  return resume;
}

/** Without `mode`: JSONPath for a query starting with `$` or parsing as a record predicate; text otherwise (and for regex). */
export function defaultMode(query: string, regex: boolean): 'text' | 'jsonpath' {
  if (regex) return 'text';
  if (query.trimStart().startsWith('$')) return 'jsonpath';
  return looksLikePredicate(query) ? 'jsonpath' : 'text';
}

export { countsOf };
