import { z } from 'zod';
import type { CompiledQuery, RecordBatch, RecordSource, ScanPosition, ScanResult, ToolContext, ToolDefinition } from 'mcpgw/plugin-api';
import { PIECE_BYTES, recordHits, type NodeMatcher } from './nodes';
import { fileFor, type ExplorerFile } from '../files';
import { parseFields, projectValue, queryWarnings } from '../records';
import { cutSchema, fieldsArg, handleArg } from '../schemas';
import { tokenPreview } from '../text/preview';
import { isPredicate, looksLikePredicate, PredicateError, translatePredicate, type Predicate } from './predicate';
import { cursorTable, type SearchCursor } from './cursors';
import { emptyAnswerHint } from './hint';
import { RegexMatcher } from './regex';
import { holds, parseKeepingLexemes, TextMatcher } from './text-matcher';

const input = z.object({
  handle: handleArg,
  query: z.string().min(1).max(16384).describe('Text to find; or JSONPath starting with $ ($.user.name); or a record predicate ($.status = "active", $.age > 40 && $.name != "bob")'),
  mode: z.enum(['text', 'jsonpath']).optional().describe('Default: jsonpath when the query starts with $ or parses as a record predicate (!($.tags), length($.tags) > 2), else text'),
  match_case: z.boolean().default(false).describe('Case-sensitive text matching and string equality (default false)'),
  max_results: z.number().int().min(0).default(50).describe('Matches per page (default 50, at most the server maxItems); 0 counts only: total_matches without matches'),
  regex: z.boolean().default(false).describe('Text mode: the query is an RE2 regular expression (\\d \\w \\s \\b, [classes], a|b, (?i)) found in decoded member names and string values (not numbers); linear time'),
  fields: fieldsArg,
  cursor: z.string().max(256).optional().describe('next_cursor of a previous call with the same handle and query'),
});

const match = z.object({
  record_index: z.number().int(),
  preview: z.string().describe('The hit with context, marked «…»'),
  match_path: z.string().describe('RFC 6901 pointer, inside the record, of the first matching value or key ("" for the whole record)'),
  record: z.record(z.string(), z.unknown()).optional().describe('With fields: the record projected to them'),
});

const output = z.object({
  total_matches: z.number().int().describe('Matches in the whole file, counted as counts says (a lower bound when complete is false)'),
  counts: z.enum(['nodes', 'records']).describe('What a match is: "records" (one per matching record, its first hit) or "nodes" (every matching value or member name, in a single-document file or one whose records are over 1 MiB on average)'),
  matches: z.array(match),
  query: z.string(),
  mode: z.enum(['text', 'jsonpath']).describe('The mode that ran: text, or jsonpath for a JSONPath query or a record predicate (then filter is set)'),
  complete: z.boolean().describe('false when the scan stopped at the request deadline; next_cursor continues it'),
  next_cursor: z.string().optional(),
  filter: z.string().optional().describe('For a record predicate: the RFC 9535 filter it was translated to'),
  hint: z.string().optional().describe('When nothing matched: the member names the query uses that no record examined has, with the nearest names seen'),
  cut: cutSchema.optional(),
  warnings: z.array(z.object({ code: z.string(), message: z.string(), record_index: z.number().int().optional(), line: z.number().int().optional() })).optional(),
});

type Match = z.infer<typeof match>;
type Warning = NonNullable<z.infer<typeof output>['warnings']>[number];

/** Bytes kept free in a page for the envelope around the matches. */
const ENVELOPE_RESERVE = 2048;

export const search: ToolDefinition<typeof input, typeof output> = {
  name: 'search',
  title: 'Search records',
  description:
    'Search every record of an open file; returns {total_matches, matches: [{record_index, preview, match_path}], query, mode} for the whole file, one page at a time. ' +
    'Text mode (the default unless the query starts with $ or parses as a record predicate; the result\'s mode says which ran): substring of any decoded string value, member name, number or literal, case-insensitive with Unicode case folding unless match_case; escapes are decoded first ("\\u00e9" matches é); regex: true takes an RE2 pattern (\\d \\w \\s \\b, classes, alternation, (?i); ^ and $ bound one string) found in decoded member names and string values, not numbers; a bad pattern is QUERY_SYNTAX_ERROR with its position. ' +
    'JSONPath mode: each record is $; a record matches when the query selects something (e.g. $.user.name, $.tags[?@ == "x"]). ' +
    'Record predicates: $.status = "active", $.age > 40, $.status != "done" && $.bytes >= 1024, !($.tags), length($.tags) > 2, parentheses; values are JSON literals, \'single-quoted\' strings or bare words; string equality ignores case unless match_case. ' +
    'match_path is the JSON Pointer, inside the record, of the first matching value or key; preview shows it marked «…». ' +
    'fields (dot paths or pointers) adds each match\'s record projected to those members. max_results (default 50) bounds a page; pass next_cursor as cursor with the same query for the next; max_results: 0 only counts (total_matches, no matches). ' +
    'complete: false means the scan hit the time limit: total_matches is then a lower bound and next_cursor continues.',
  inputSchema: input,
  outputSchema: output,
  annotations: { readOnlyHint: true, openWorldHint: false },
  async handler(args, ctx) {
    const file = fileFor(ctx, args.handle);
    const source = file.opened.source;
    const mode = args.mode ?? defaultMode(args.query, args.regex);
    const fields = parseFields(ctx, args.fields);
    // Regex: compiled first, so that a bad pattern is an error before anything else (linear time: no deadline needed).
    const regexMatcher = args.regex && mode === 'text' ? new RegexMatcher(ctx, args.query, args.match_case) : null;
    const cursors = cursorTable(ctx);
    let resume: SearchCursor | null = null;
    if (args.cursor !== undefined) {
      resume = cursors.get(args.cursor);
      if (resume.handle !== args.handle || resume.query !== args.query || resume.mode !== mode || resume.matchCase !== args.match_case || (resume.regex ?? false) !== (regexMatcher !== null) || (resume.countOnly ?? false) !== (args.max_results === 0)) {
        throw ctx.error('INVALID_ARGUMENT', 'This cursor belongs to another search: pass the same handle, query, mode, match_case and regex as the call that returned it (and max_results: 0 again for a count).');
      }
      cursors.consume(args.cursor);
    }
    const limit = Math.min(args.max_results, ctx.limits.maxItems);
    /** max_results 0: count only. No page, so a cursor only continues a count the deadline stopped. */
    const countOnly = limit === 0;
    const budget = ctx.limits.maxResultBytes - ENVELOPE_RESERVE - Buffer.byteLength(args.query) * 3;
    const counts = countsOf(source);
    if (mode === 'jsonpath') return engineSearch(ctx, { args, file, fields, resume, limit, budget, counts });
    if (counts === 'nodes') return nodeTextSearch(ctx, { args, file, fields, resume, limit, budget, matcher: regexMatcher ?? new TextMatcher(args.query, args.match_case) });
    const from = resume?.nextRecord ?? 0;
    // Matches at or after countFrom still need counting; before it they are in `resume.counted`.
    const countFrom = resume ? resume.countFrom : 0;
    const matches: Match[] = [];
    const warnings: Warning[] = [];
    let malformed = 0;
    let pageBytes = 0;
    let counted = resume?.counted ?? 0;
    let nextRecord: number | null = null; // first matching record not in this page
    let stoppedAt: number | null = null; // deadline: first record not scanned
    let cutByBytes = false;
    const onMalformed = (i: number, err: unknown) => {
      malformed++;
      const code = (err as { code?: string }).code ?? 'SYNTAX_ERROR';
      if (warnings.length < 5) warnings.push({ code, message: `Record ${i} was skipped: ${(err as Error).message}`, record_index: i });
    };

    const take = (record: number, m: Match): boolean => {
      if (countFrom !== null && record >= countFrom) counted++;
      if (nextRecord === null && matches.length < limit) {
        if (fields) {
          try { m.record = projectValue(source.value(record), fields); } catch { /* malformed: no projection */ }
        }
        const size = Buffer.byteLength(JSON.stringify(m)) + 1;
        if (pageBytes + size <= budget || matches.length === 0) {
          matches.push(m);
          pageBytes += size;
          return true;
        }
        cutByBytes = true;
      }
      if (nextRecord === null && !countOnly) nextRecord = record;
      return countFrom !== null; // go on only while the total is still being counted
    };

    let matcher: TextMatcher | RegexMatcher;
    try {
      matcher = regexMatcher ?? new TextMatcher(args.query, args.match_case);
    } catch (err) {
      // The text matcher builds regular expressions from the query; one the engine refuses (too large) is a bad argument.
      if (!(err instanceof SyntaxError)) throw err;
      throw ctx.error('INVALID_ARGUMENT', `This text query (${args.query.length} characters) is too large to search for case-insensitively.`, { hint: 'Search for a shorter text, or pass match_case: true.' });
    }
    const piece = Math.min(PIECE_BYTES, ctx.limits.maxRecordBytes);
    /** The first hit of a record too long to read whole, found through lazy nodes (null: none; the reason is reported). */
    const firstHitInParts = (i: number): Match | null => {
      try {
        for (const e of recordHits(source, i, matcher, null, () => false, piece)) {
          if (e.kind === 'hit') return { record_index: i, preview: e.preview, match_path: e.match_path };
        }
      } catch (err) {
        onMalformed(i, err);
      }
      return null;
    };
    const visit = (batch: RecordBatch, onHit: (k: number, m: Match) => boolean) => matcher.candidates(batch, (k) => {
      const m = textMatch(batch, k, matcher, onMalformed, firstHitInParts, countOnly);
      return m ? onHit(k, m) : true;
    });
    const onProgress = (done: number, total: number) => ctx.progress(done, total, `searching ${file.opened.path}`);
    for await (const batch of source.scan({ from, signal: ctx.signal, onProgress })) {
      if (batch.oversized) {
        // A record too long to read whole: its first hit found through lazy nodes (or the reason it cannot be read).
        const m = firstHitInParts(batch.first);
        if (m && !take(batch.first, m)) break;
        continue;
      }
      let go = true;
      visit(batch, (k, m) => (go = take(batch.first + k, m)));
      if (!go) break;
      if (Date.now() > ctx.deadline && batch.first + batch.count < source.count) {
        stoppedAt = batch.first + batch.count;
        break;
      }
    }
    if (malformed > 5) warnings.push({ code: 'SYNTAX_ERROR', message: `${malformed} unreadable records were skipped in all.` });

    // The count is complete when it was complete before, or this scan reached the end.
    const newCountFrom = countFrom === null || stoppedAt === null ? null : Math.max(stoppedAt, countFrom);
    const complete = newCountFrom === null;
    const continueAt = nextRecord ?? stoppedAt;
    let next_cursor: string | undefined;
    if (continueAt !== null) {
      next_cursor = cursors.add({ handle: args.handle, query: args.query, mode, matchCase: args.match_case, ...(regexMatcher ? { regex: true } : {}), ...(countOnly ? { countOnly } : {}), nextRecord: continueAt, counted, countFrom: newCountFrom });
    }
    return {
      total_matches: counted,
      counts: 'records',
      matches,
      query: args.query,
      mode,
      complete,
      ...(next_cursor ? { next_cursor } : {}),
      ...(cutByBytes ? { cut: { limit: 'maxResultBytes', at: `after ${matches.length} matches (next: record ${nextRecord})`, rest: 'Pass next_cursor as cursor for the next page; fields or a smaller max_results keep pages small.' } } : {}),
      ...(warnings.length ? { warnings } : {}),
    };
  },
};

/** Without `mode`: JSONPath for a query starting with `$` or parsing as a record predicate; text otherwise (and for regex). */
export function defaultMode(query: string, regex: boolean): 'text' | 'jsonpath' {
  if (regex) return 'text';
  if (query.trimStart().startsWith('$')) return 'jsonpath';
  return looksLikePredicate(query) ? 'jsonpath' : 'text';
}

function jsonPathLanguage(ctx: ToolContext) {
  const language = ctx.registry.queryLanguages.get('jsonpath');
  if (!language) {
    throw ctx.error('UNSUPPORTED_QUERY_FEATURE', 'JSONPath search is not available on this server: no loaded plugin registers the "jsonpath" query language.', {
      hint: 'Use mode "text", or enable the query-jsonpath plugin.',
    });
  }
  return language;
}

type Args = z.output<typeof input>;
type Output = z.input<typeof output>;

/**
 * JSONPath mode through the kernel's scan engine (ctx.scan): prefilters, progress, cancellation, deadline.
 * - A plain RFC 9535 query runs with record addressing (each record is `$`), one unit per record.
 * - A record predicate is translated to an RFC 9535 filter (predicate.ts). Over a file whose root is the
 *   sequence of its records it runs as `$[?<filter>]` with file addressing — exactly "the records for which the
 *   filter holds", which the engine splits per record (reading only the members the filter needs); over a
 *   single-document file it is evaluated on `[document]`.
 * total_matches: the engine counts from the resume position to the end; the matches before it were paged.
 */
async function engineSearch(
  ctx: ToolContext,
  { args, file, fields, resume, limit, budget, counts: fileCounts }: { args: Args; file: ExplorerFile; fields: ReturnType<typeof parseFields>; resume: SearchCursor | null; limit: number; budget: number; counts: 'nodes' | 'records' },
): Promise<Output> {
  const source = file.opened.source;
  const language = jsonPathLanguage(ctx);
  let predicate: Predicate | null = null;
  const mode = 'jsonpath';
  if (isPredicate(args.query)) {
    try {
      predicate = translatePredicate(args.query, args.match_case);
    } catch (err) {
      if (err instanceof PredicateError) {
        throw ctx.error('QUERY_SYNTAX_ERROR', `Bad record predicate at character ${err.position}: ${err.message}`, {
          location: { position: err.position },
          hint: 'Forms: $.status = "active", $.age > 40, $.a != \'x\' && $.b >= 2, !($.tags), length($.tags) > 2; or a JSONPath query such as $.user.name.',
        });
      }
      throw err;
    }
  }
  let query: CompiledQuery;
  const text = predicate ? `$[?${predicate.filter}]` : args.query;
  try {
    query = language.compile(text, { maxDepth: ctx.limits.maxDepth });
  } catch (err) {
    if (!predicate) throw err;
    const e = err as { code?: string; message: string };
    throw ctx.error(e.code === 'UNSUPPORTED_QUERY_FEATURE' ? 'UNSUPPORTED_QUERY_FEATURE' : 'QUERY_SYNTAX_ERROR', `The record predicate translates to the RFC 9535 query ${text}, which is not valid: ${e.message}`, {
      hint: 'Comparisons take singular paths ($.a.b, $.items[0]) and literals; a path alone tests that the member exists.',
    });
  }
  const pathQueries = predicate ? [...new Set(predicate.paths)].flatMap((p) => {
    try { return [language.compile(p)]; } catch { return []; }
  }) : [];

  // A record predicate tests records: it counts records in any file.
  const counts = predicate ? 'records' : fileCounts;
  const before = resume?.counted ?? 0;
  const known = resume?.total;
  let result: ScanResult;
  if (predicate && !source.rootIsSequence) {
    // One document: the predicate over it.
    const from = resume?.nextRecord ?? 0;
    let hit = false;
    let skipped = 0;
    const firstSkipped: ScanResult['firstSkipped'] = [];
    if (from < source.count) {
      try {
        hit = query.evaluate([source.value(0)], { maxNodes: ctx.limits.maxNodes, deadline: ctx.deadline }).length > 0;
      } catch (err) {
        if ((err as { code?: string }).code !== 'SYNTAX_ERROR') throw err;
        skipped = 1;
        firstSkipped.push({ record_index: 0, code: 'SYNTAX_ERROR', message: (err as Error).message });
      }
    }
    result = { nodes: hit ? [{ record: 0, path: '', value: null }] : [], next: null, complete: true, total: hit ? 1 : 0, skipped, firstSkipped };
  } else {
    result = await ctx.scan.run({
      source,
      query,
      addressing: predicate ? 'file' : 'record',
      unit: counts,
      limit,
      countAll: known === undefined,
      ...(resume ? { resume: resume.position ?? { record: resume.nextRecord, node: 0 } } : {}),
      signal: ctx.signal,
      deadline: ctx.deadline,
      onProgress: (done, total) => ctx.progress(done, total, `searching ${file.opened.path}`),
    });
  }

  const matches: Match[] = [];
  let pageBytes = 0;
  let nextPosition: ScanPosition | null = result.next;
  let cutByBytes = false;
  const countOnly = limit === 0;
  for (const node of countOnly ? [] : result.nodes) {
    let m: Match;
    if (predicate) {
      m = { record_index: node.record, preview: '', match_path: '' };
      let value: unknown;
      try { value = source.value(node.record); } catch { value = undefined; }
      m.preview = nodePreview('', value);
      for (const q of pathQueries) {
        const nodes = value === undefined ? [] : q.evaluate(value, { maxNodes: ctx.limits.maxNodes, deadline: ctx.deadline });
        if (nodes.length) { m = { record_index: node.record, preview: nodePreview(nodes[0]!.path, nodes[0]!.value), match_path: nodes[0]!.path }; break; }
      }
    } else {
      m = { record_index: node.record, preview: nodePreview(node.path, node.value), match_path: node.path };
    }
    if (fields) {
      try { m.record = projectValue(source.value(node.record), fields); } catch { /* malformed: no projection */ }
    }
    const size = Buffer.byteLength(JSON.stringify(m)) + 1;
    if (pageBytes + size > budget && matches.length > 0) {
      cutByBytes = true;
      nextPosition = counts === 'nodes' && node.position ? node.position : { record: node.record, node: 0 };
      break;
    }
    matches.push(m);
    pageBytes += size;
  }
  const next = nextPosition ? nextPosition.record : null;
  // A page stopped by the deadline counts to where it stopped; an earlier page may have counted further.
  const total = known ?? Math.max(resume?.atLeast ?? 0, before + (result.total ?? 0));
  const complete = known !== undefined || result.complete;
  const warnings: Warning[] = queryWarnings(query);
  warnings.push(...result.firstSkipped.map((s) => ({ code: s.code, message: `Record ${s.record_index} was skipped: ${s.message}`, record_index: s.record_index, ...(s.line !== undefined ? { line: s.line } : {}) })));
  if (result.skipped > result.firstSkipped.length) warnings.push({ code: result.firstSkipped.every((s) => s.code === 'SYNTAX_ERROR') ? 'SYNTAX_ERROR' : 'RESOURCE_LIMIT_EXCEEDED', message: `${result.skipped} records were skipped in all.` });
  // Nothing at all: say which member names of the query no record has, and the nearest ones seen.
  const hint = total === 0 && complete && matches.length === 0 && !resume ? await emptyAnswerHint(ctx, source, query) : undefined;
  let next_cursor: string | undefined;
  if (next !== null) {
    next_cursor = cursorTable(ctx).add({
      handle: args.handle, query: args.query, mode, matchCase: args.match_case, nextRecord: next,
      ...(counts === 'nodes' && nextPosition ? { position: nextPosition } : {}),
      // Count only: `next` is where the deadline stopped the count, and every match before it is counted.
      counted: countOnly ? before + (result.total ?? 0) : before + matches.length, countFrom: null,
      ...(countOnly ? { countOnly } : {}), ...(complete ? { total } : { atLeast: total }),
    });
  }
  return {
    total_matches: total,
    counts,
    matches,
    query: args.query,
    mode,
    complete,
    ...(next_cursor ? { next_cursor } : {}),
    // The translation of a long predicate is shown cut, with its length (the query itself is capped at 16 KiB).
    ...(predicate ? { filter: predicate.filter.length > 2048 ? `${predicate.filter.slice(0, /[\uD800-\uDBFF]/.test(predicate.filter[2047]!) ? 2047 : 2048)}… (${predicate.filter.length} characters)` : predicate.filter } : {}),
    ...(hint ? { hint } : {}),
    ...(cutByBytes ? { cut: { limit: 'maxResultBytes', at: `after ${matches.length} matches (next: record ${next})`, rest: 'Pass next_cursor as cursor for the next page; fields or a smaller max_results keep pages small.' } } : {}),
    ...(warnings.length ? { warnings } : {}),
  };
}

function nodePreview(path: string, value: unknown): string {
  let shown = JSON.stringify(value) ?? 'null';
  if (shown.length > 120) shown = shown.slice(0, 119).replace(/[\uD800-\uDBFF]$/, '') + '…';
  return `${path || '$'} = «${shown}»`;
}

function textMatch(batch: RecordBatch, k: number, matcher: TextMatcher | RegexMatcher, onMalformed: (i: number, err: unknown) => void, inParts: (i: number) => Match | null, countOnly = false): Match | null {
  let text: string;
  let hit: ReturnType<TextMatcher['match']>;
  try {
    text = batch.text(k); // strict UTF-8
    hit = matcher.match(text);
    if (!hit) return null;
    // A hit counts only in a well-formed record (native parse: the cheap check), and only in what the record holds
    // once parsed (a repeated member name: the last value wins).
    const value = parseKeepingLexemes(text);
    if (!holds(value, hit.token, hit.decoded)) hit = matcher.match(text, value);
    if (!hit) return null;
  } catch (err) {
    if ((err as { limit?: { name?: string } }).limit?.name === 'maxRecordBytes') return inParts(batch.first + k);
    onMalformed(batch.first + k, (err as { code?: string }).code ? err : Object.assign(new Error(`not valid JSON (${(err as Error).message})`), { code: 'SYNTAX_ERROR' }));
    return null;
  }
  if (countOnly) return { record_index: batch.first + k, preview: '', match_path: '' }; // counted, never shown
  return { record_index: batch.first + k, preview: tokenPreview(text, hit.token, hit.decoded, hit.start, hit.end), match_path: hit.token.pointer };
}

/** Records averaging more than this many bytes are too large to be useful units: search counts their nodes. */
const NODE_UNIT_BYTES = 1024 * 1024;

/**
 * What a match is in this file: every matching node in a single document (or in records over NODE_UNIT_BYTES on
 * average), else one match per record.
 */
export function countsOf(source: RecordSource): 'nodes' | 'records' {
  if (!source.rootIsSequence) return 'nodes';
  return source.count > 0 && source.identity.size / source.count > NODE_UNIT_BYTES ? 'nodes' : 'records';
}

/**
 * Text search counting nodes (nodes.ts): every member name and value holding the text is a match, in document
 * order. A page takes up to `limit` matches (and the byte budget); the count then runs on to the end of the file
 * or the deadline (a lower bound then, counted again from the next page's start). The cursor holds the position of
 * the first match not returned: the record and the walk's trail.
 */
async function nodeTextSearch(
  ctx: ToolContext,
  { args, file, fields, resume, limit, budget, matcher }: { args: Args; file: ExplorerFile; fields: ReturnType<typeof parseFields>; resume: SearchCursor | null; limit: number; budget: number; matcher: NodeMatcher },
): Promise<Output> {
  const source = file.opened.source;
  const start: ScanPosition = resume?.position ?? { record: resume?.nextRecord ?? 0, node: 0 };
  const known = resume?.total;
  const before = resume?.counted ?? 0;
  const matches: Match[] = [];
  const warnings: Warning[] = [];
  let pageBytes = 0;
  let counted = 0; // matches from `start` on
  let next: ScanPosition | null = null;
  let stopped: ScanPosition | null = null;
  let cutByBytes = false;
  let ticks = 0;
  const expired = () => (++ticks & 15) === 0 && Date.now() > ctx.deadline;
  outer: for (let i = start.record; i < source.count; i++) {
    if (ctx.signal.aborted) throw ctx.error('CANCELLED', 'The request was cancelled.');
    if (i > start.record && Date.now() > ctx.deadline) { stopped = { record: i, node: 0 }; break; }
    const at = i === start.record && start.at ? start.at : null;
    let events: Iterable<ReturnType<typeof recordHits> extends Iterable<infer E> ? E : never>;
    try {
      events = recordHits(source, i, matcher, at, expired, Math.min(PIECE_BYTES, ctx.limits.maxRecordBytes));
      for (const e of events) {
        if (e.kind === 'stop') { stopped = { record: i, node: 0, at: e.at }; break outer; }
        if (e.kind === 'skipped') {
          if (warnings.length < 5) warnings.push({ code: (e.error as { code?: string }).code ?? 'SYNTAX_ERROR', message: `Record ${i} at ${e.pointer || '""'} was not searched: ${e.error.message}`, record_index: i });
          continue;
        }
        counted++;
        if (next === null && limit > 0) { // limit 0 counts only: no page, so no `next`
          const m: Match = { record_index: i, preview: e.preview, match_path: e.match_path };
          if (fields) {
            try { m.record = projectValue(source.value(i), fields); } catch { /* too large or malformed: no projection */ }
          }
          const size = Buffer.byteLength(JSON.stringify(m)) + 1;
          if (matches.length < limit && (pageBytes + size <= budget || matches.length === 0)) {
            matches.push(m);
            pageBytes += size;
            continue;
          }
          if (matches.length < limit) cutByBytes = true;
          next = { record: i, node: 0, at: e.at };
          if (known !== undefined) break outer; // the total is known: no need to count on
        }
      }
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (code !== 'SYNTAX_ERROR' && code !== 'RESOURCE_LIMIT_EXCEEDED') throw err;
      if (!source.rootIsSequence) throw err;
      if (warnings.length < 5) warnings.push({ code: code!, message: `Record ${i} was skipped: ${(err as Error).message}`, record_index: i });
    }
    ctx.progress(i + 1, source.count, `searching ${file.opened.path}`);
  }
  // Counted to the end unless stopped; a stop while the page was still filling is where the next page starts.
  const complete = known !== undefined || stopped === null;
  const total = known ?? Math.max(resume?.atLeast ?? 0, before + counted);
  const continueAt = next ?? stopped;
  let next_cursor: string | undefined;
  if (continueAt !== null) {
    next_cursor = cursorTable(ctx).add({
      handle: args.handle, query: args.query, mode: 'text', matchCase: args.match_case, ...(args.regex ? { regex: true } : {}),
      nextRecord: continueAt.record, position: continueAt, countFrom: null,
      // Count only: the cursor continues the count where the deadline stopped it, every match before it counted.
      counted: limit === 0 ? before + counted : before + matches.length, ...(limit === 0 ? { countOnly: true } : {}),
      ...(complete ? { total } : { atLeast: total }),
    });
  }
  return {
    total_matches: total,
    counts: 'nodes',
    matches,
    query: args.query,
    mode: 'text',
    complete,
    ...(next_cursor ? { next_cursor } : {}),
    ...(cutByBytes ? { cut: { limit: 'maxResultBytes', at: `after ${matches.length} matches`, rest: 'Pass next_cursor as cursor for the next page; fields or a smaller max_results keep pages small.' } } : {}),
    ...(warnings.length ? { warnings } : {}),
  };
}

