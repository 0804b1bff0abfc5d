import { z } from 'zod';
import type { RecordSource } from 'mcpgw/plugin-api';
import type { ExplorerFile } from '../files';
import type { parseFields } from '../records';
import { cutSchema, fieldsArg, handleArg } from '../schemas';
import type { QueryCursor, TextCursor } from './cursors';
import { markersNeeded, type Preview } from '../text/preview';

/** The search tool's arguments and its answer (wire shapes), shared by the tool and its three engines. */
export const searchInput = z.object({
  handle: handleArg,
  query: z.string().min(1).max(16384),
  mode: z.enum(['text', 'jsonpath']).optional(),
  language: z.string().min(1).max(64).optional(),
  match_case: z.boolean().default(false),
  max_results: z.number().int().min(0).default(50),
  regex: z.boolean().default(false),
  fields: fieldsArg,
  cursor: z.string().max(256).optional(),
});

export const searchMatch = z.object({
  record_index: z.number().int(),
  preview: z.string().describe('The hit with context, marked «…»; … where cut'),
  preview_markers: z.array(z.number().int()).optional().describe('Only when the data shown holds «, » or … itself: where the markers of preview are (Unicode code points from its start); any other «, » or … is the data\'s own'),
  match_path: z.string().describe('RFC 6901 pointer, inside the record, of the first matching value or key ("" for the whole record)'),
  record: z.record(z.string(), z.unknown()).optional().describe('With fields: the record projected to them'),
});

export const searchOutput = z.object({
  total_matches: z.number().int().describe('Matches in the whole file, counted as counts says (a lower bound when complete is false)'),
  counts: z.enum(['nodes', 'records']).describe('What a match is: "records" (one per matching record, its first hit) or "nodes" (every matching value or member name, in a single-document file or one whose records are over 1 MiB on average)'),
  matches: z.array(searchMatch),
  query: z.string(),
  mode: z.enum(['text', 'jsonpath']).describe('The mode that ran: text, or jsonpath for a query (JSONPath, a record predicate: then filter is set, or the language named)'),
  language: z.string().optional().describe('The query language that ran, when the call named one'),
  complete: z.boolean().describe('false when the scan stopped at the request deadline (a RESOURCE_LIMIT_EXCEEDED warning says so): total_matches is then a lower bound; next_cursor continues it'),
  next_cursor: z.string().optional(),
  filter: z.string().optional().describe('For a record predicate: the RFC 9535 filter it was translated to'),
  hint: z.string().optional().describe('When nothing matched: the member names the query uses that no record examined has (with the nearest names seen), or that the query matches with $ as the whole file'),
  cut: cutSchema.optional(),
  unparsed: z.number().int().optional().describe('Records this page\'s scan ruled out without parsing them (the byte prefilter: they lack the query\'s text or literals; or a filter tested on the members it reads): a malformed one among them is not in warnings. Absent: none'),
  warnings: z.array(z.object({ code: z.string(), message: z.string(), record_index: z.number().int().optional(), line: z.number().int().optional() })).optional(),
});

/**
 * A match's preview fields: the text, and — only when the data shown holds a `«`, `»` or `…` of its own — where the
 * markers are (without `preview_markers`, every one of those characters in the preview is a marker).
 */
export function shownPreview(p: Preview): { preview: string; preview_markers?: number[] } {
  return markersNeeded(p) ? { preview: p.text, preview_markers: p.markers } : { preview: p.text };
}

export type Args = z.output<typeof searchInput>;
export type Page = z.input<typeof searchOutput>;
export type Match = z.infer<typeof searchMatch>;
export type Warning = NonNullable<z.infer<typeof searchOutput>['warnings']>[number];

/** One search call as an engine gets it: the arguments, the open file, the page's bounds and the cursor it continues. */
export interface SearchRequest<C extends TextCursor | QueryCursor> {
  args: Args;
  file: ExplorerFile;
  fields: ReturnType<typeof parseFields>;
  /** The cursor this page continues, or null for a first page. */
  resume: C | null;
  /** Matches per page; 0 counts only. */
  limit: number;
  /** Bytes the matches of a page may take. */
  budget: number;
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

/** The cut a page reports when the byte budget ended it. */
export function cutByBytes(at: string) {
  return { limit: 'maxResultBytes', at, rest: 'Pass next_cursor as cursor for the next page; fields or a smaller max_results keep pages small.' };
}
