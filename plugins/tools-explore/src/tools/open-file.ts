import { z } from 'zod';
import type { ToolDefinition } from 'mcpgw/plugin-api';
import { fileTable } from '../files';
import { detectionSchema, fileType, fileTypeOf, validationSchema, warningSchema } from '../schemas';
import { probeValidate } from '../validate';

const input = z.object({
  path: z.string().max(4096).describe('Path of the file, relative to the server root (absolute paths must lie inside it)'),
  format: z.string().max(256).optional().describe('Format name to force (e.g. "jsonl"); by default the content decides'),
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

/** `text` cut to at most `max` UTF-16 units, never inside a surrogate pair. */
function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const c = text.charCodeAt(max - 1);
  return text.slice(0, c >= 0xd800 && c <= 0xdbff ? max - 1 : max);
}

export const openFile: ToolDefinition<typeof input, typeof output> = {
  name: 'open_file',
  title: 'Open a JSON / JSON Lines file',
  description:
    'Open a JSON, NDJSON/JSON Lines or JSON-seq file and index its records; returns a handle for the other tools, the file type and the record count. ' +
    'Paths are relative to the server root. Large files are indexed in one streaming pass (progress is reported when requested); the first records are validated and malformed ones reported in warnings with their lines; records that repeat a member name in an object are reported too (DUPLICATE_KEY, with the first one\'s record, line and path: every tool uses the last value).',
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
    const warnings: z.input<typeof warningSchema>[] = validation.first_malformed.map((m) => ({ code: 'SYNTAX_ERROR', message: m.message, record_index: m.record_index, ...(m.line !== undefined ? { line: m.line } : {}) }));
    if (validation.duplicate_keys > 0) {
      // RFC 8259 §4: names within an object should be unique; every tool here reads the last value of a repeated name.
      const d = validation.first_duplicate_key;
      let line: number | undefined;
      if (d) try { line = opened.source.location(d.record_index).line; } catch { /* no location */ }
      warnings.push({
        code: 'DUPLICATE_KEY',
        message: clip(`${validation.duplicate_keys} of the ${validation.records_examined} records examined repeat a member name in an object; every tool uses the last value, at the name's first position${d ? `. The first: ${JSON.stringify(d.key)} at ${JSON.stringify(d.path)} in record ${d.record_index}${line !== undefined ? ` (line ${line})` : ''}` : ''}.`, 1000),
        ...(d ? { record_index: d.record_index, path: d.path } : {}),
        ...(line !== undefined ? { line } : {}),
      });
    }
    if (validation.malformed_records > 0) ctx.log.warn(`${opened.path}: ${validation.malformed_records} malformed record(s) in the first ${validation.records_examined}`, { first: warnings[0] });
    return {
      handle,
      path: opened.path,
      file_type: fileTypeOf(source),
      record_count: source.count,
      format: source.format,
      size_bytes: source.identity.size,
      detection: opened.detection,
      validation: { complete: validation.complete, records_examined: validation.records_examined, bytes_examined: validation.bytes_examined, malformed_records: validation.malformed_records },
      ...(warnings.length ? { warnings } : {}),
    };
  },
};
