import { z } from 'zod';
import type { ToolDefinition } from 'mcpgw/plugin-api';
import { fileTable } from '../files';
import { detectionSchema, fileType, validationSchema, warningSchema } from '../schemas';
import { probeValidate } from '../validate';

const input = z.object({
  path: z.string().describe('Path of the file, relative to the server root (absolute paths must lie inside it)'),
  format: z.string().optional().describe('Format name to force (e.g. "jsonl"); by default the content decides'),
});
const output = z.object({
  handle: z.string(),
  path: z.string(),
  file_type: fileType,
  record_count: z.number().int(),
  format: z.string(),
  size_bytes: z.number().int(),
  detection: detectionSchema,
  validation: validationSchema,
  warnings: z.array(warningSchema).optional(),
});

export const openFile: ToolDefinition<typeof input, typeof output> = {
  name: 'open_file',
  title: 'Open a JSON / JSON Lines file',
  description:
    'Open a JSON, NDJSON/JSON Lines or JSON-seq file and index its records; returns a handle for the other tools, the file type and the record count. ' +
    'Paths are relative to the server root. Large files are indexed in one streaming pass (progress is reported when requested); the first records are validated and malformed ones reported in warnings with their lines.',
  inputSchema: input,
  outputSchema: output,
  annotations: { readOnlyHint: true, openWorldHint: false },
  async handler(args, ctx) {
    const table = fileTable(ctx);
    if (table.size >= ctx.limits.maxOpenFiles) {
      // Refuse before the index pass rather than after it.
      throw ctx.error('RESOURCE_LIMIT_EXCEEDED', `Too many open files: the limit is ${ctx.limits.maxOpenFiles}.`, {
        limit: { name: 'maxOpenFiles', limit: ctx.limits.maxOpenFiles, value: table.size },
        hint: 'Close a file you no longer need with close_file.',
      });
    }
    const opened = await ctx.files.open(args.path, {
      format: args.format,
      signal: ctx.signal,
      onProgress: (done, total) => ctx.progress(done, total, `indexing ${args.path}`),
    });
    let handle: string;
    let validation;
    try {
      validation = await probeValidate(opened.source, ctx);
      handle = table.add({ opened, malformedRecords: validation.complete ? validation.malformed_records : null });
    } catch (err) {
      opened.close();
      throw err;
    }
    const { source } = opened;
    const warnings = validation.first_malformed.map((m) => ({ code: 'SYNTAX_ERROR', message: m.message, record_index: m.record_index, ...(m.line !== undefined ? { line: m.line } : {}) }));
    if (warnings.length) ctx.log.warn(`${opened.path}: ${validation.malformed_records} malformed record(s) in the first ${validation.records_examined}`, { first: warnings[0] });
    return {
      handle,
      path: opened.path,
      file_type: source.fileType,
      record_count: source.count,
      format: source.format,
      size_bytes: source.identity.size,
      detection: opened.detection,
      validation: { complete: validation.complete, records_examined: validation.records_examined, bytes_examined: validation.bytes_examined, malformed_records: validation.malformed_records },
      ...(warnings.length ? { warnings } : {}),
    };
  },
};
