import { z } from 'zod';
import type { RecordSource } from 'mcpgw/plugin-api';

export const handleArg = z.string().min(1).max(256);
export const indexArg = z.number().int().min(0);

/**
 * The explorer's `file_type` of a source (docs/architecture.md "Records and formats"), the names its users know:
 * `ndjson` (format jsonl), `json_seq` (json-seq), `json_array`, `json_object` or `json_value` (a scalar document) for
 * format json; a third-party format's file_type is its name.
 */
export function fileTypeOf(source: RecordSource): string {
  switch (source.format) {
    case 'jsonl':
      return 'ndjson';
    case 'json-seq':
      return 'json_seq';
    case 'json':
      return source.rootType === 'array' ? 'json_array' : source.rootType === 'object' ? 'json_object' : 'json_value';
    default:
      return source.format;
  }
}

/** Explorer file_type names (fileTypeOf). */
export const fileType = z.string().describe('ndjson, json_array, json_object, json_value, json_seq, or a plugin format name');

export const detectionSchema = z.object({
  basis: z.enum(['explicit', 'content', 'extension']),
  confidence: z.number(),
});

/** The bounded validation at open: how much was examined and how many records were malformed. */
export const validationSchema = z.object({
  complete: z.boolean().describe('true when every record was examined'),
  records_examined: z.number().int(),
  bytes_examined: z.number().int(),
  malformed_records: z.number().int(),
});

/** A configured limit an answer met, as errors name it: `{name, limit, value}` (value: what was asked or found). */
export const limitSchema = z.object({ name: z.string(), limit: z.number(), value: z.number().optional() });

export const warningSchema = z.object({
  code: z.string(),
  message: z.string(),
  record_index: z.number().int().optional(),
  line: z.number().int().optional(),
  path: z.string().optional().describe('RFC 6901 pointer inside the record'),
  limit: limitSchema.optional(),
});

export const fieldsArg = z
  .array(z.string().max(4096))
  .min(1)
  .max(100)
  .optional();

/** How record text is laid out: re-indented (pretty) or on one line (compact). */
export const recordFormatArg = z.enum(['pretty', 'compact']).optional();

/**
 * The indent of record text (get_record, sample_records): the call's record_format, else the profile's recordFormat
 * (`ctx.answers`), else compact — one line, the record's own JSON text (docs/decisions.md "Compact record text by default").
 */
export function recordIndent(ctx: { answers?: { recordFormat?: 'pretty' | 'compact' } }, asked: 'pretty' | 'compact' | undefined): string {
  return (asked ?? ctx.answers?.recordFormat ?? 'compact') === 'compact' ? '' : '  ';
}

/** Where and why a result was cut, and how to get the rest (docs/architecture.md "Context budget"). */
export const cutSchema = z.object({
  limit: z.string().describe('The limit that cut the result, e.g. maxResultBytes'),
  at: z.string().describe('Where the result was cut'),
  rest: z.string().describe('How to get the rest'),
});

/** Lines the framing passed over as not records (JSON Lines: empty and whitespace-only lines; RecordSource.blankLines). */
export const blankLinesSchema = z.object({
  count: z.number().int(),
  first_lines: z.array(z.number().int()).describe('1-based line numbers of the first five'),
});

/** `blank_lines` of an answer from a source, or nothing when it skipped none. */
export function blankLinesOf(source: RecordSource): { blank_lines?: z.input<typeof blankLinesSchema> } {
  const blank = source.blankLines?.();
  return blank ? { blank_lines: { count: blank.count, first_lines: blank.firstLines } } : {};
}
