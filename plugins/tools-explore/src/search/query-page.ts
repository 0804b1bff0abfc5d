import type { Addressing, CompiledQuery, QueryLanguage, ScanNode, ScanPosition, ScanResult, ToolContext } from 'mcpgw/plugin-api';
import { projectValue, queryWarnings } from '../records';
import { cursorTable, knownTotal, type QueryCursor } from './cursors';
import { emptyAnswerHint } from '../toolkit';
import { cutByBytes, type Match, type Page, type SearchRequest, type Warning } from './shape';
import { previewBuilder, type Preview } from '../text/preview';

/**
 * The scan of a query search (jsonpath-engine.ts, predicate-engine.ts) through the kernel's engine: with `addressing`,
 * counting `unit`s, up to the page's `limit`, from the cursor's position, counting on to the end (or the deadline) until
 * the total is known, with progress, cancellation and the call's deadline.
 */
export function scanQuery(ctx: ToolContext, { file, resume, limit }: SearchRequest<QueryCursor>, query: CompiledQuery, addressing: Addressing, unit: 'nodes' | 'records'): Promise<ScanResult> {
  return ctx.scan.run({
    source: file.opened.source,
    query,
    addressing,
    unit,
    limit,
    countAll: knownTotal(resume, file.opened.source.count) === undefined,
    ...(resume ? { resume: resume.position ?? { record: resume.nextRecord, node: 0 } } : {}),
    signal: ctx.signal,
    deadline: ctx.deadline,
    onProgress: (done, total) => ctx.progress(done, total, `searching ${file.opened.path}`),
  });
}

/**
 * The page of a query search (jsonpath-engine.ts, predicate-engine.ts) from the scan engine's result: the matches
 * that fit the byte budget (`matchOf` turns a node into a match), the count, the warnings, the hint for an empty
 * answer (the query ran with `addressing`) and the cursor for the next page. total_matches: the engine counted from the resume position to the end (or
 * the deadline); the matches before it were paged.
 */
export async function queryPage(
  ctx: ToolContext,
  { args, file, fields, resume, limit, budget }: SearchRequest<QueryCursor>,
  query: CompiledQuery,
  result: ScanResult,
  counts: 'nodes' | 'records',
  matchOf: (node: ScanNode) => Match,
  addressing: Addressing = 'record',
): Promise<Page> {
  const source = file.opened.source;
  const before = resume?.counted ?? 0;
  const known = knownTotal(resume, source.count);
  const matches: Match[] = [];
  let pageBytes = 0;
  let nextPosition: ScanPosition | null = result.next;
  /** Records passed over before the page's end (the engine's end, or the node the byte budget ends the page at). */
  let skipped = result.skipped;
  /** Records ruled out without being parsed before the page's end (counted as `skipped` is). */
  let unparsed = result.unparsed ?? 0;
  let cut = false;
  const countOnly = limit === 0;
  for (const node of countOnly ? [] : result.nodes) {
    const m = matchOf(node);
    if (fields) {
      try { m.record = projectValue(source.value(node.record), fields); } catch { /* malformed: no projection */ }
    }
    const size = Buffer.byteLength(JSON.stringify(m)) + 1;
    if (pageBytes + size > budget && matches.length > 0) {
      cut = true;
      nextPosition = counts === 'nodes' && node.position ? node.position : { record: node.record, node: 0 };
      skipped = node.skippedBefore ?? skipped;
      unparsed = node.unparsedBefore ?? unparsed;
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
  const firstSkipped = result.firstSkipped.slice(0, skipped);
  warnings.push(...firstSkipped.map((s) => ({ code: s.code, message: `Record ${s.record_index} was skipped: ${s.message}`, record_index: s.record_index, ...(s.line !== undefined ? { line: s.line } : {}) })));
  if (skipped > firstSkipped.length) warnings.push({ code: firstSkipped.every((s) => s.code === 'SYNTAX_ERROR') ? 'SYNTAX_ERROR' : 'RESOURCE_LIMIT_EXCEEDED', message: `${skipped} records were skipped in all.` });
  // Nothing at all: say which member names of the query no record has (and the nearest ones seen), or that it matches
  // in the other addressing mode.
  const hint = total === 0 && complete && matches.length === 0 && !resume ? await emptyAnswerHint(ctx, source, query, addressing) : undefined;
  let next_cursor: string | undefined;
  if (next !== null) {
    next_cursor = cursorTable(ctx).add({
      handle: args.handle, query: args.query, mode: 'jsonpath', matchCase: args.match_case, nextRecord: next, records: source.count,
      ...(args.language !== undefined ? { language: args.language } : {}),
      ...(counts === 'nodes' && nextPosition ? { position: nextPosition } : {}),
      // Count only: `next` is where the deadline stopped the count, and every match before it is counted.
      counted: countOnly ? before + (result.total ?? 0) : before + matches.length,
      ...(countOnly ? { countOnly } : {}), ...(complete ? { total } : { atLeast: total }),
    });
  }
  return {
    total_matches: total,
    counts,
    matches,
    query: args.query,
    mode: 'jsonpath',
    complete,
    ...(next_cursor ? { next_cursor } : {}),
    ...(hint ? { hint } : {}),
    ...(cut ? { cut: cutByBytes(`after ${matches.length} matches (next: record ${next})`) } : {}),
    ...(unparsed > 0 ? { unparsed } : {}),
    ...(warnings.length ? { warnings } : {}),
  };
}

/** `path = «value»`, the value's JSON cut at 120 characters (on a character boundary, then `…`), markers placed. */
export function nodePreview(path: string, value: unknown): Preview {
  const shown = JSON.stringify(value) ?? 'null';
  const b = previewBuilder().data(`${path || '$'} = `).mark('«');
  if (shown.length > 120) b.data(shown.slice(0, 119).replace(/[\uD800-\uDBFF]$/, '')).mark('…');
  else b.data(shown);
  return b.mark('»').build();
}

/** The registered JSONPath language. @throws UNSUPPORTED_QUERY_FEATURE when no plugin registers it */
export function jsonPathLanguage(ctx: ToolContext) {
  const language = ctx.registry.queryLanguages.get('jsonpath');
  if (!language) {
    throw ctx.error('UNSUPPORTED_QUERY_FEATURE', 'JSONPath search is not available on this server: no loaded plugin registers the "jsonpath" query language.', {
      hint: 'Use mode "text", or enable the query-jsonpath plugin.',
    });
  }
  return language;
}

/**
 * `text` compiled by `language` (maxDepth; `matchCase` for a language whose strings may compare without case). An error
 * that is not a catalogue error (a plugin's own exception) is QUERY_SYNTAX_ERROR naming the language.
 */
export function compileQuery(ctx: ToolContext, language: QueryLanguage, text: string, matchCase: boolean): CompiledQuery {
  try {
    return language.compile(text, { maxDepth: ctx.limits.maxDepth, matchCase });
  } catch (err) {
    const unknown = language.name === 'jsonpath' && (err as { code?: unknown }).code === 'QUERY_SYNTAX_ERROR' ? UNKNOWN_OPERATOR.exec(text) : null;
    if (unknown && !PREDICATE_OPERATORS.has(unknown[2]!)) {
      // `$.code =~ "^FR-"`: meant as a record predicate with an operator it does not have, not as a broken JSONPath.
      const position = unknown[1]!.length + unknown[0]!.slice(unknown[1]!.length).indexOf(unknown[2]!);
      throw ctx.error('QUERY_SYNTAX_ERROR', `Bad record predicate at character ${position}: ${JSON.stringify(unknown[2])} is not an operator of record predicates.`, {
        location: { position },
        hint: 'Operators: = (== case-sensitive), !=, <, <=, >, >=, &&, ||, !. A regular expression: match($.code, "FR-.*") (the whole value) or search($.code, "^FR-") (anywhere in it).',
      });
    }
    if (typeof (err as { code?: unknown }).code === 'string') throw err;
    throw ctx.error('QUERY_SYNTAX_ERROR', `Invalid ${language.name} query: ${(err as Error)?.message ?? String(err)}`);
  }
}

/** A path then an operator-like word or symbols (`$.code =~`, `$.name LIKE`, `$.tags contains`). */
const UNKNOWN_OPERATOR = /^\s*(\$(?:\.[\w-]+|\[[^\]]*\])*)\s*([=!<>~]+|like|contains|in|matches|regex)(?=\s|["'\d(-])/i;
/** The record predicates' comparison operators (predicate.ts). */
const PREDICATE_OPERATORS: ReadonlySet<string> = new Set(['=', '==', '!=', '<', '<=', '>', '>=']);
