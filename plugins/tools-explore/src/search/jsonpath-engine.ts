import type { QueryLanguage, ToolContext } from 'mcpgw/plugin-api';
import type { QueryCursor } from './cursors';
import { numberLikeNotes } from './number-like';
import { compileQuery, nodePreview, queryPage, scanQuery } from './query-page';
import { countsOf, shownPreview, type Page, type SearchRequest } from './shape';

/**
 * Search with a language that takes each record as its root (JSONPath, a plugin's): the query evaluated with each
 * record as `$` (record addressing) through the kernel's scan engine (ctx.scan: prefilters when the language gives
 * literals, worker threads, progress, cancellation, deadline, the server-wide scan limit). A record matches when the
 * node list is not empty; each node is a match when the file counts nodes (countsOf).
 */
export async function rootSearch(ctx: ToolContext, request: SearchRequest<QueryCursor>, language: QueryLanguage): Promise<Page> {
  const { args, file } = request;
  const source = file.opened.source;
  const query = compileQuery(ctx, language, args.query, args.match_case);
  const counts = countsOf(source);
  const result = await scanQuery(ctx, request, query, 'record', counts);
  const page = await queryPage(ctx, request, query, result, counts, (node) => ({ record_index: node.record, ...shownPreview(nodePreview(node.path, node.value)), match_path: node.path }));
  // Comparisons with numbers that strings reading as numbers did not meet (nested filters too): said on the first page.
  if (!request.resume) {
    const notes = await numberLikeNotes(ctx, source, query, 'record');
    if (notes.length) page.warnings = [...(page.warnings ?? []), ...notes];
  }
  return page;
}
