import type { ScanPosition, ToolContext } from 'mcpgw/plugin-api';

/** What every search cursor holds: the search it belongs to and where its next page starts. */
interface CursorBase {
  handle: string;
  query: string;
  matchCase: boolean;
  /** A count (`max_results: 0`) stopped by the deadline (absent: false): the cursor continues the count. */
  countOnly?: boolean;
  /** First record index the next page starts at. */
  nextRecord: number;
  /** A search counting nodes: the exact place of the first match not yet returned (record and walk trail). */
  position?: ScanPosition;
  /** The whole file's match count, once a scan has counted to the end. */
  total?: number;
  /** Before that: the largest lower bound of the count reported so far (total_matches never shrinks). */
  atLeast?: number;
  /**
   * Records in the file when the cursor was made. A file that grew since (appended JSON Lines or JSON-seq records)
   * holds records its count has not seen: the next page counts them in (`total` no longer holds).
   */
  records: number;
}

/** Where a text search (text-engine.ts) continues. */
export interface TextCursor extends CursorBase {
  mode: 'text';
  /** `regex: true` (absent: false). */
  regex?: boolean;
  /**
   * Counting records: matching records counted so far (the whole file's when `countFrom` is null). Counting nodes:
   * matches before the position.
   */
  counted: number;
  /** Counting records: first record not yet counted (a scan stopped at the deadline), or null when the count is complete. */
  countFrom: number | null;
}

/** Where a JSONPath search or a record predicate search (jsonpath-engine.ts, predicate-engine.ts) continues. */
export interface QueryCursor extends CursorBase {
  mode: 'jsonpath';
  /** The `language` argument of the search (absent: detected from the query). */
  language?: string;
  /** Matches before `nextRecord` (before `position` when counting nodes). */
  counted: number;
}

export type SearchCursor = TextCursor | QueryCursor;

/**
 * The whole file's match count the cursor holds, while it still is one: undefined when none was counted yet, or when
 * the file grew since the cursor was made (`records` is the file's record count now), so that the page counts again.
 */
export function knownTotal(resume: SearchCursor | null, records: number): number | undefined {
  if (!resume || resume.total === undefined) return undefined;
  return records > resume.records ? undefined : resume.total;
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
    // Full: the least recently used cursor is dropped (a client abandons cursors without a word).
    whenFull: 'evict',
  });
}
