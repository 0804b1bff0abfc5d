import type { ToolContext } from 'mcpgw/plugin-api';
import type { QueryCursor } from './cursors';
import { jsonPathLanguage, nodePreview, queryPage, scanQuery } from './query-page';
import { countsOf, shownPreview, type Page, type SearchRequest } from './shape';

/**
 * JSONPath search: an RFC 9535 query evaluated with each record as `$` (record addressing) through the kernel's
 * scan engine (ctx.scan: prefilters, worker threads, progress, cancellation, deadline, the server-wide scan limit).
 * A record matches when the node list is not empty; each node is a match when the file counts nodes (countsOf).
 */
export async function jsonPathSearch(ctx: ToolContext, request: SearchRequest<QueryCursor>): Promise<Page> {
  const { args, file } = request;
  const source = file.opened.source;
  const query = jsonPathLanguage(ctx).compile(args.query, { maxDepth: ctx.limits.maxDepth });
  const counts = countsOf(source);
  const result = await scanQuery(ctx, request, query, 'record', counts);
  return queryPage(ctx, request, query, result, counts, (node) => ({ record_index: node.record, ...shownPreview(nodePreview(node.path, node.value)), match_path: node.path }));
}
