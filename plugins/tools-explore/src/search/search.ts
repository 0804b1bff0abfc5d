import type { ToolContext, ToolDefinition } from 'mcpgw/plugin-api';
import { fileFor, type ExplorerFile } from '../files';
import { parseFields, recordEscapesLoneSurrogate } from '../records';
import { replacedWarning } from '../text/surrogates';
import { cursorTable, type QueryCursor, type SearchCursor, type TextCursor } from './cursors';
import { isPredicate, looksLikePredicate } from './predicate';
import { PREDICATE } from './predicate-language';
import { languageNames, queryLanguage } from './languages';
import { countsOf, searchInput, searchOutput, type Args, type Page } from './shape';
import { clip } from '../text/clip';

interface Engines {
  rootSearch: typeof import('./jsonpath-engine').rootSearch;
  sequenceSearch: typeof import('./predicate-engine').sequenceSearch;
  textSearch: typeof import('./text-engine').textSearch;
  RegexMatcher: typeof import('./regex').RegexMatcher;
}
let loaded: Engines | undefined;
/** The engines and the regex matcher, loaded on the first search (start-up time: a start runs none of them). */
function engines(): Engines {
  return (loaded ??= {
    rootSearch: (require('./jsonpath-engine') as typeof import('./jsonpath-engine')).rootSearch,
    sequenceSearch: (require('./predicate-engine') as typeof import('./predicate-engine')).sequenceSearch,
    textSearch: (require('./text-engine') as typeof import('./text-engine')).textSearch,
    RegexMatcher: (require('./regex') as typeof import('./regex')).RegexMatcher,
  });
}

/** Bytes kept free in a page for the envelope around the matches. */
const ENVELOPE_RESERVE = 2048;

const DESCRIPTION = (languages: string) =>
  'Search every record: {total_matches, matches: [{record_index, preview, match_path}], next_cursor}. query: ' +
  'text (values, keys, raw JSON; case-insensitive unless match_case; regex: true = RE2), JSONPath ($.user.name) or a predicate ($.status = \'failed\'; bare $.x: present, not true); ' +
  `or language: ${languages}. ` +
  'max_results: 0 counts; fields projects records; cursor: next_cursor. complete: false: timed out, total_matches a lower bound';

/**
 * The explorer's `search` tool: one tool over text search (text-engine.ts) and every registered query language: a
 * language that takes each record as its root (jsonpath-engine.ts: JSONPath, a plugin's) or one that selects records
 * from their sequence (predicate-engine.ts: the record predicates). This file chooses the mode and the language (the
 * `language` argument, else detected from the query among the built-ins), checks the cursor against the call and
 * bounds the page; each engine runs its search and makes its page and its next cursor.
 */
export const search: ToolDefinition<typeof searchInput, typeof searchOutput> = {
  name: 'search',
  title: 'Search records',
  description: DESCRIPTION('jsonpath, predicate'),
  inputSchema: searchInput,
  outputSchema: searchOutput,
  annotations: { readOnlyHint: true, openWorldHint: false },
  advertise: (registry) => ({ description: DESCRIPTION(languageNames(registry)) }),
  async handler(args, ctx) {
    const file = fileFor(ctx, args.handle);
    if (args.language !== undefined && (args.mode === 'text' || args.regex)) {
      throw ctx.error('INVALID_ARGUMENT', `language ${JSON.stringify(args.language)} goes with a query, not with ${args.regex ? 'regex: true' : 'mode "text"'}.`, { hint: 'Drop language for a text search, or drop mode/regex to run the query.' });
    }
    const mode = args.language !== undefined ? 'jsonpath' : args.mode ?? defaultMode(args.query, args.regex);
    const fields = parseFields(ctx, args.fields);
    const { rootSearch, sequenceSearch, textSearch, RegexMatcher } = engines();
    // Regex: compiled first, so that a bad pattern is an error before anything else (linear time: no deadline needed).
    const regex = args.regex && mode === 'text' ? new RegexMatcher(ctx, args.query, args.match_case) : null;
    // The query's language: the one named, else JSONPath or, for a query that parses as one, a record predicate.
    const language = mode === 'text' ? null : queryLanguage(ctx, args.language ?? (isPredicate(args.query) ? PREDICATE : 'jsonpath'));
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
    if (language) {
      const query = { ...request, resume: resume as QueryCursor | null };
      page = await (language.perRecord === 'sequence' ? sequenceSearch(ctx, query, language) : rootSearch(ctx, query, language));
      if (args.language !== undefined) page = { ...page, language: language.name };
    } else page = await textSearch(ctx, { ...request, resume: resume as TextCursor | null }, countsOf(file.opened.source), regex);
    page = wellFormedMatches(ctx, file, page);
    if (!page.complete) page = { ...page, warnings: [...(page.warnings ?? []), deadlineWarning(page.total_matches)] };
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

/**
 * What an incomplete page says besides `complete: false`: the scan stopped at the request deadline, so total_matches
 * counts what was found up to there (as the sampling tools say of theirs).
 */
function deadlineWarning(total: number) {
  return { code: 'RESOURCE_LIMIT_EXCEEDED', message: `Stopped at the request deadline (requestTimeoutMs) before the end of the file: total_matches (${total}) is a lower bound, the matches found so far. Pass next_cursor as cursor to count on.` };
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
  const resumeLanguage = resume.mode === 'jsonpath' ? resume.language : undefined;
  if (resume.handle !== args.handle || resume.query !== args.query || resume.mode !== mode || resume.matchCase !== args.match_case || resumeRegex !== regex || resumeLanguage !== args.language || (resume.countOnly ?? false) !== (args.max_results === 0)) {
    throw ctx.error('INVALID_ARGUMENT', 'This cursor belongs to another search: pass the same handle, query, language, mode, match_case and regex as the call that returned it (and max_results: 0 again for a count).');
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
