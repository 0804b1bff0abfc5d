import type { ScanPosition, ToolContext } from 'mcpgw/plugin-api';

/** Where a search continues: the query it belongs to and the first record not yet paged. */
export interface SearchCursor {
  handle: string;
  query: string;
  mode: 'text' | 'jsonpath';
  matchCase: boolean;
  /** Text mode with `regex: true` (absent: false). */
  regex?: boolean;
  /** A count (`max_results: 0`) stopped by the deadline (absent: false): the cursor continues the count. */
  countOnly?: boolean;
  /** First record index the next page starts at. */
  nextRecord: number;
  /** Search counting nodes: the exact place of the first match not yet returned (record and walk trail). */
  position?: ScanPosition;
  /** Text mode: matching records counted so far (the whole file's when `countFrom` is null). JSONPath mode: matches before `nextRecord`. */
  counted: number;
  /** Text mode: first record not yet counted (a scan stopped at the deadline), or null when the count is complete. */
  countFrom: number | null;
  /** JSONPath mode: the whole file's match count once a scan has counted to the end. */
  total?: number;
  /** JSONPath mode, before that: the largest lower bound of the count reported so far (total_matches never shrinks). */
  atLeast?: number;
}

/** The session's search cursors: opaque `sc_…` ids, single use, idle expiry (cursorIdleMs). */
export function cursorTable(ctx: ToolContext) {
  return ctx.session.handles<SearchCursor>('explore.cursors', {
    style: 'random',
    prefix: 'sc_',
    noun: 'search cursor',
    limit: 'maxCursors',
    idleMs: ctx.limits.cursorIdleMs,
    max: ctx.limits.maxCursors,
    expiredHint: 'Run the search again (the same handle and query, without cursor); the file stays open.',
    usedHint: 'Each next_cursor continues once: pass the one the latest page returned, or run the search again without cursor.',
  });
}
