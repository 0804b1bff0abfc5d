import { z } from 'zod';
import type { ToolDefinition } from 'mcpgw/plugin-api';
import { checkIndex, fileFor } from '../files';
import { handleArg, indexArg } from '../schemas';
import { reindent } from '../text/reindent';

const input = z.object({
  handle: handleArg,
  index: indexArg,
  offset: z.number().int().min(0).optional().describe('Byte offset in the re-indented record text to read from (for records longer than the preview)'),
  length: z.number().int().min(1).optional().describe('Bytes of record text to return from offset (at most the preview size)'),
});
const output = z.object({
  index: z.number().int(),
  record: z.string().describe('The record as JSON text, re-indented; numbers, strings and key order exactly as in the file'),
  truncated: z.boolean().optional(),
  record_bytes: z.number().int().optional().describe('Bytes of the whole re-indented record text (when cut or read in parts)'),
  offset: z.number().int().optional(),
  next_offset: z.number().int().optional().describe('Pass as offset to read on'),
});

/** Byte length of the longest prefix of `buf` (from `start`) not over `max` bytes that ends on a UTF-8 character boundary. */
function cutAtCharBoundary(buf: Buffer, start: number, max: number): number {
  let end = Math.min(buf.length, start + max);
  while (end > start && end < buf.length && (buf[end]! & 0xc0) === 0x80) end--;
  return end;
}

export const getRecord: ToolDefinition<typeof input, typeof output> = {
  name: 'get_record',
  title: 'Read one record',
  description:
    'Retrieve one record by zero-based index as re-indented JSON text, every number, string and key order exactly as in the file. ' +
    'A record longer than the preview size comes back cut, with truncated: true, record_bytes and next_offset; call again with offset (and length) to read the rest.',
  inputSchema: input,
  outputSchema: output,
  annotations: { readOnlyHint: true, openWorldHint: false },
  handler(args, ctx) {
    const file = fileFor(ctx, args.handle);
    checkIndex(ctx, file, args.index);
    const { source } = file.opened;
    source.value(args.index); // validates: SYNTAX_ERROR with line and column, or RESOURCE_LIMIT_EXCEEDED
    const text = reindent(source.text(args.index));
    const max = ctx.limits.maxRecordPreviewBytes;
    const bytes = Buffer.from(text, 'utf8');
    if (args.offset === undefined && args.length === undefined && bytes.length <= max) {
      return { index: args.index, record: text };
    }
    const offset = args.offset ?? 0;
    if (offset > bytes.length) {
      throw ctx.error('INVALID_ARGUMENT', `offset ${offset} is past the end of the record text (${bytes.length} bytes).`);
    }
    let start = offset;
    while (start < bytes.length && (bytes[start]! & 0xc0) === 0x80) start++; // never start inside a character
    const end = cutAtCharBoundary(bytes, start, Math.min(args.length ?? max, max));
    const part = bytes.subarray(start, end).toString('utf8');
    const more = end < bytes.length;
    // The marker goes only on the default call; a caller paging with offset/length gets clean parts.
    const marked = more && args.offset === undefined && args.length === undefined;
    return {
      index: args.index,
      record: marked ? `${part}\n… [cut: bytes ${start}–${end} of ${bytes.length}; call get_record with offset ${end} for the rest]` : part,
      truncated: more || start > 0,
      record_bytes: bytes.length,
      offset: start,
      ...(more ? { next_offset: end } : {}),
    };
  },
};
