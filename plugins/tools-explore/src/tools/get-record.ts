import { z } from 'zod';
import type { ToolContext, ToolDefinition } from 'mcpgw/plugin-api';
import { checkIndex, fileFor, type ExplorerFile } from '../files';
import { lengthWarnings, pageKeptText, parseFields, previewBytes, projectText, readRecordText } from '../records';
import { fieldsArg, handleArg, indexArg, recordFormatArg, recordIndent, warningSchema } from '../schemas';
import { mergeRepeatedNames } from '../json/scan';

const input = z.object({
  handle: handleArg,
  index: indexArg,
  fields: fieldsArg,
  record_format: recordFormatArg,
  offset: z.number().int().min(0).optional(),
  length: z.number().int().min(1).optional(),
});
const output = z.object({
  index: z.number().int(),
  record: z.string().describe('The record as JSON text, one line (record_format pretty: re-indented); numbers, strings and key order exactly as in the file'),
  truncated: z.boolean().optional(),
  record_bytes: z.number().int().optional().describe('Bytes of the whole record text as laid out (when cut or read in parts)'),
  offset: z.number().int().optional(),
  next_offset: z.number().int().optional().describe('Pass as offset to read on'),
  warnings: z.array(warningSchema).optional().describe('RESOURCE_LIMIT_EXCEEDED when length asked for more than a part holds (limit maxRecordPreviewBytes)'),
});

export const getRecord: ToolDefinition<typeof input, typeof output> = {
  name: 'get_record',
  title: 'Read one record',
  description:
    'One record (index zero-based) as JSON text on one line; numbers, strings and key order as in the file. fields (user.name, /tags/0) returns only those members; ' +
    'record_format: pretty re-indents. A long record is cut: pass next_offset as offset',
  inputSchema: input,
  outputSchema: output,
  annotations: { readOnlyHint: true, openWorldHint: false },
  handler(args, ctx) {
    const file = fileFor(ctx, args.handle);
    const fields = parseFields(ctx, args.fields);
    // A repeated member name shows once, with the value every other tool sees (the last), at its first position.
    // Laid out page by page: only the asked bytes of the re-indented text are built (ctx.json); a record longer than a
    // page is kept with the handle, so its next pages cost their own bytes (pageKeptText).
    const build = (): string => {
      const raw = recordText(ctx, file, args.index);
      return mergeRepeatedNames(fields ? projectText(raw, fields) : raw);
    };
    checkIndex(ctx, file, args.index);
    const key = `record ${args.index}${args.fields ? ` fields ${JSON.stringify(args.fields)}` : ''}`;
    const page = pageKeptText(ctx, file, key, build, { indent: recordIndent(ctx, args.record_format), offset: args.offset, length: args.length, max: previewBytes(ctx), tool: args.record_format ? `get_record (record_format ${args.record_format})` : 'get_record', what: 'record text' });
    if (page.total_bytes === undefined) return { index: args.index, record: page.text };
    const warnings = lengthWarnings(ctx, args.length, page);
    return {
      index: args.index,
      record: page.text,
      truncated: page.truncated,
      record_bytes: page.total_bytes,
      offset: page.offset,
      ...(page.next_offset !== undefined ? { next_offset: page.next_offset } : {}),
      ...(warnings.length ? { warnings } : {}),
    };
  },
};

/**
 * Record `index`'s text. A record over maxRecordBytes is never read whole: RESOURCE_LIMIT_EXCEEDED naming the limit,
 * and, where the source reads it in parts (lazy nodes), a hint naming the tools that do.
 */
function recordText(ctx: ToolContext, file: ExplorerFile, index: number): string {
  try {
    return readRecordText(ctx, file, index);
  } catch (err) {
    const e = err as { code?: string; message?: string; limit?: { name: string; limit: number; value?: number }; location?: Record<string, unknown> };
    if (e.code !== 'RESOURCE_LIMIT_EXCEEDED' || e.limit?.name !== 'maxRecordBytes' || !file.opened.source.node) throw err;
    throw ctx.error('RESOURCE_LIMIT_EXCEEDED', e.message ?? `Record ${index} is over maxRecordBytes.`, {
      limit: e.limit,
      ...(e.location ? { location: e.location } : {}),
      hint: 'It is read in parts instead: get_outline shows its members (and pages them), get_value_at_path reads one of them; ' +
        `get_value_at_path with path "" and offset reads the record's text as in the file, a part at a time. Or raise limits.maxRecordBytes.`,
    });
  }
}
