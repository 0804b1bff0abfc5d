import { z } from 'zod';
import type { ToolDefinition } from 'mcpgw/plugin-api';
import { fileFor } from '../files';
import { blankLinesOf, blankLinesSchema, detectionSchema, fileType, fileTypeOf, handleArg, validationSchema } from '../schemas';

const input = z.object({ handle: handleArg });
const output = z.object({
  handle: z.string(),
  path: z.string(),
  file_type: fileType,
  record_count: z.number().int(),
  format: z.string(),
  size_bytes: z.number().int(),
  modified: z.string().describe('Modification time, ISO 8601'),
  detection: detectionSchema,
  malformed_records: z.number().int().optional().describe('Malformed records in the whole file, when known'),
  validation: validationSchema.optional().describe('What the validation at open examined'),
  blank_lines: blankLinesSchema.optional().describe('Empty or whitespace-only lines, which are not records'),
});

export const getFileInfo: ToolDefinition<typeof input, typeof output> = {
  name: 'get_file_info',
  title: 'File metadata',
  description:
    'Metadata of an open file: path, file_type, record_count, format, size_bytes, modified, detection, validation',
  inputSchema: input,
  outputSchema: output,
  annotations: { readOnlyHint: true, openWorldHint: false },
  handler(args, ctx) {
    const { opened, malformedRecords, validation } = fileFor(ctx, args.handle);
    const { source } = opened;
    return {
      handle: args.handle,
      path: opened.path,
      file_type: fileTypeOf(source),
      record_count: source.count,
      format: source.format,
      size_bytes: source.identity.size,
      modified: new Date(source.identity.mtimeMs).toISOString(),
      detection: opened.detection,
      ...(malformedRecords !== null ? { malformed_records: malformedRecords } : {}),
      ...(validation ? { validation } : {}),
      ...blankLinesOf(source),
    };
  },
};

const countInput = z.object({ handle: handleArg });
const countOutput = z.object({ record_count: z.number().int() });

export const getRecordCount: ToolDefinition<typeof countInput, typeof countOutput> = {
  name: 'get_record_count',
  title: 'Record count',
  description:
    'Records in an open file (1 for a single document)',
  inputSchema: countInput,
  outputSchema: countOutput,
  annotations: { readOnlyHint: true, openWorldHint: false },
  handler(args, ctx) {
    return { record_count: fileFor(ctx, args.handle).opened.source.count };
  },
};
