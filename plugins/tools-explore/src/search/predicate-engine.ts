import type { QueryLanguage, ScanResult, ToolContext } from 'mcpgw/plugin-api';
import { numberLikeNotes } from './number-like';
import type { QueryCursor } from './cursors';
import { translatePredicate } from './predicate';
import { filterOf, PREDICATE } from './predicate-language';
import { compileQuery, jsonPathLanguage, nodePreview, queryPage, scanQuery } from './query-page';
import { shownPreview, type Match, type Page, type SearchRequest } from './shape';

/**
 * Search with a language that selects records from their sequence (`perRecord: "sequence"`; the explorer's record
 * predicates, predicate-language.ts, which compile to the RFC 9535 query `$[?filter]`). Over a file whose root is the
 * sequence of its records the query runs with file addressing — exactly "the records it selects", which the scan
 * engine splits per record when the query gives a split (reading only the members a filter needs); over a
 * single-document file it is evaluated on `[document]`. Such a query tests records, so it counts records in any file;
 * a predicate match's preview shows the first member the predicate names that the record has (another language's: the
 * record).
 */
export async function sequenceSearch(ctx: ToolContext, request: SearchRequest<QueryCursor>, language: QueryLanguage): Promise<Page> {
  const { args, file, resume } = request;
  const source = file.opened.source;
  const query = compileQuery(ctx, language, args.query, args.match_case);
  const predicate = language.name === PREDICATE;
  const jsonpath = predicate ? jsonPathLanguage(ctx) : null;
  const pathQueries = jsonpath ? [...new Set(translatePredicate(args.query, args.match_case).paths)].flatMap((p) => {
    try { return [jsonpath.compile(p)]; } catch { return []; }
  }) : [];

  let result: ScanResult;
  if (!source.rootIsSequence) {
    // One document: the predicate over it.
    const from = resume?.nextRecord ?? 0;
    let hit = false;
    let skipped = 0;
    const firstSkipped: ScanResult['firstSkipped'] = [];
    if (from < source.count) {
      try {
        hit = query.evaluate([source.value(0)], { maxNodes: ctx.limits.maxNodes, deadline: ctx.deadline, now: () => ctx.clock.now(), requestTimeoutMs: ctx.limits.requestTimeoutMs }).length > 0;
      } catch (err) {
        if ((err as { code?: string }).code !== 'SYNTAX_ERROR') throw err;
        skipped = 1;
        firstSkipped.push({ record_index: 0, code: 'SYNTAX_ERROR', message: (err as Error).message });
      }
    }
    result = { nodes: hit ? [{ record: 0, path: '', value: null }] : [], next: null, complete: true, total: hit ? 1 : 0, skipped, firstSkipped };
  } else {
    result = await scanQuery(ctx, request, query, 'file', 'records');
  }

  const page = await queryPage(ctx, request, query, result, 'records', (node): Match => {
    let value: unknown;
    try { value = source.value(node.record); } catch { value = undefined; }
    for (const q of pathQueries) {
      const nodes = value === undefined ? [] : q.evaluate(value, { maxNodes: ctx.limits.maxNodes, deadline: ctx.deadline, now: () => ctx.clock.now(), requestTimeoutMs: ctx.limits.requestTimeoutMs });
      if (nodes.length) return { record_index: node.record, ...shownPreview(nodePreview(nodes[0]!.path, nodes[0]!.value)), match_path: nodes[0]!.path };
    }
    return { record_index: node.record, ...shownPreview(nodePreview('', value)), match_path: '' };
  }, 'file');
  if (!jsonpath) return page;
  const translated = filterOf(query);
  if (!resume) {
    const notes = await numberLikeNotes(ctx, source, query, 'file', predicateSpelling);
    if (notes.length) page.warnings = [...(page.warnings ?? []), ...notes];
  }
  // The translation of a long predicate is shown cut, with its length (the query itself is capped at 16 KiB).
  const filter = translated.length > 2048 ? `${translated.slice(0, /[\uD800-\uDBFF]/.test(translated[2047]!) ? 2047 : 2048)}… (${translated.length} characters)` : translated;
  return withFilter(page, filter);
}

/** The page with `filter` placed after `next_cursor`, where the answer has always had it. */
function withFilter(page: Page, filter: string): Page {
  const { hint, cut, warnings, ...head } = page;
  return { ...head, filter, ...(hint ? { hint } : {}), ...(cut ? { cut } : {}), ...(warnings ? { warnings } : {}) };
}

/** A record predicate names members from the record, `$.lat`: its translation's `@.lat` written so in messages. */
export function predicateSpelling(message: string): string {
  return message.replace(/(^|[\s(])@(?=[.[])/g, '$1$$');
}
