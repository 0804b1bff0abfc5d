import { z } from 'zod';
import type { ToolContext, ToolDefinition } from 'mcpgw/plugin-api';
import { ENVELOPE_RESERVE, jsonBytes } from '../records';
import { cutSchema } from '../schemas';
import { clip } from '../text/clip';


const input = z.object({
  path: z.string().max(4096).optional(),
  glob: z.string().max(4096).optional(),
  max_results: z.number().int().min(1).default(200),
  cursor: z.string().optional(),
});

/** Where the next page of a listing starts: the files of the pages before it, by position in the walk. */
interface ListCursor { path: string | undefined; glob: string | undefined; offset: number }

function cursorTable(ctx: ToolContext) {
  return ctx.session.handles<ListCursor>('explore.list_files', {
    style: 'random', prefix: 'lc_', noun: 'list_files cursor', limit: 'maxCursors', idleMs: ctx.limits.cursorIdleMs, max: ctx.limits.maxCursors,
    expiredHint: 'List again (the same path and glob, without cursor).',
    // Full: the least recently used cursor is dropped (a client abandons cursors without a word).
    whenFull: 'evict',
  });
}
const output = z.object({
  files: z.array(z.object({
    path: z.string().describe('Relative to the root: pass it to open_file'),
    size_bytes: z.number().int(),
    modified: z.string().describe('ISO 8601'),
    format: z.string().nullable().describe('Format open_file would use (jsonl, json, json-seq, …), null when none recognises the file'),
    note: z.string().optional().describe('empty file; or why format is null: binary data, UTF-16/UTF-32 text (convert to UTF-8), gzip/zstd-compressed (decompress)'),
  })),
  truncated: z.boolean(),
  total: z.number().int().optional().describe('Files matching, all pages'),
  next_cursor: z.string().optional(),
  complete: z.boolean().describe('true when this page ends the listing and nothing was left unread'),
  cut: cutSchema.optional(),
  warnings: z.array(z.object({
    code: z.string().describe('Catalogue code of the reason: ACCESS_DENIED (permission), INVALID_ARGUMENT (a symbolic link loop), NOT_FOUND (a dangling link, an entry that vanished)…'),
    message: z.string(),
    count: z.number().int().describe('Entries left out for this reason'),
    paths: z.array(z.string()).describe('The first of them (at most 5), relative to the root'),
  })).optional().describe('Entries the server could not read, left out of the listing (complete: false)'),
});

export const listFiles: ToolDefinition<typeof input, typeof output> = {
  name: 'list_files',
  title: 'List files',
  description:
    'Find files under the server root: {files: [{path, size_bytes, modified, format}], complete}. path: a folder; glob: *.jsonl (without /: at any depth). ' +
    'format null: open_file cannot read it (see note). next_cursor as cursor: the next page',
  inputSchema: input,
  outputSchema: output,
  annotations: { readOnlyHint: true, openWorldHint: false },
  async handler(args, ctx) {
    const max = Math.min(args.max_results, ctx.limits.maxItems);
    const cursors = cursorTable(ctx);
    let at: ListCursor = { path: args.path, glob: args.glob, offset: 0 };
    if (args.cursor !== undefined) {
      const c = cursors.get(args.cursor);
      if ((args.path !== undefined && args.path !== c.path) || (args.glob !== undefined && args.glob !== c.glob)) {
        throw ctx.error('INVALID_ARGUMENT', 'This cursor belongs to another listing: pass the same path and glob as the call that returned it, or none.');
      }
      cursors.delete(args.cursor);
      at = c;
    }
    const listing = await ctx.files.list(at.path, { glob: at.glob, max, offset: at.offset, countAll: true, signal: ctx.signal, deadline: ctx.deadline });
    const files: z.input<typeof output>['files'] = [];
    const budget = ctx.limits.maxResultBytes - ENVELOPE_RESERVE;
    let used = 0;
    let cut: z.infer<typeof cutSchema> | undefined;
    // At least one file, even one whose entry alone passes the budget (said in the cut): a listing is never empty
    // for want of room.
    for (const f of listing.files) {
      const item = { path: f.path, size_bytes: f.size, modified: new Date(f.mtimeMs).toISOString(), format: f.format, ...(f.note ? { note: f.note } : {}) };
      used += jsonBytes(item) + 1;
      if (used > budget && files.length > 0) {
        const alone = files.length === 1 && used - jsonBytes(item) - 1 > budget ? '; the first file\'s entry alone passes the byte budget' : '';
        cut = { limit: 'maxResultBytes', at: `after ${files.length} files (next: ${clip(f.path, 256)})${alone}`, rest: 'next_cursor gives the next page; or narrow the listing with path or glob.' };
        break;
      }
      files.push(item);
    }
    const skipped = listing.skipped ?? [];
    const warnings = skipped.map((s) => ({
      code: s.code,
      message: `${s.count === 1 ? '1 entry' : `${s.count} entries`} could not be read and ${s.count === 1 ? 'is' : 'are'} not listed (first: ${s.message})`,
      count: s.count,
      paths: s.paths,
    }));
    const truncated = listing.truncated || cut !== undefined;
    const shownTo = at.offset + files.length;
    // A next page when files remain past this one (known from the total, or the walk stopped before counting them all).
    const more = listing.total !== undefined ? shownTo < listing.total : truncated && files.length > 0;
    const next = more ? cursors.add({ path: at.path, glob: at.glob, offset: shownTo }) : undefined;
    return {
      files,
      truncated,
      ...(listing.total !== undefined ? { total: listing.total } : {}),
      ...(next ? { next_cursor: next } : {}),
      complete: next === undefined && (listing.total !== undefined || !listing.truncated) && warnings.length === 0,
      ...(cut ? { cut } : {}),
      ...(warnings.length ? { warnings } : {}),
    };
  },
};
