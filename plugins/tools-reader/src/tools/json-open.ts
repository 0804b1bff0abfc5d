import { z } from 'zod';
import type { OpenedSource, ToolContext, ToolDefinition } from 'mcpgw/plugin-api';
import { formatArg, pathArg, warningLocation, warningSchema, type Warning } from '../schemas';
import { fileTable, makeRoom } from '../state';
import { validate } from '../validate';

const input = z.object({
  path: pathArg,
  format: formatArg.optional(),
  validation: z.enum(['probe', 'full']).optional(),
});

const output = z.object({
  file_id: z.string().describe('Opaque handle (jf_…) for json_read and json_close'),
  requested_format: z.string(),
  detected_format: z.string().describe('The format the handle reads with (fixed for the handle)'),
  detection: z.object({ basis: z.enum(['explicit', 'content', 'extension']), confidence: z.number() }),
  validation: z.object({
    mode: z.enum(['probe', 'full']),
    complete: z.boolean().describe('false: some input remains unchecked'),
    bytes_examined: z.number().int(),
    records_examined: z.number().int(),
    malformed_records: z.number().int(),
  }),
  source: z.object({ size: z.number().int().describe('bytes'), modified_time: z.string().describe('ISO 8601, UTC') }),
  warnings: z.array(warningSchema).optional(),
});

/**
 * Room for a new handle before any indexing: when the table is full, the least recently used idle implicit handle is
 * closed; with none, the open is refused. @throws RESOURCE_LIMIT_EXCEEDED (maxOpenFiles)
 */
export function checkRoom(ctx: ToolContext): void {
  makeRoom(ctx);
}

/** Opens through the sandbox with the explicit format authoritative (FORMAT_MISMATCH when the content plainly disagrees). */
export function openSource(ctx: ToolContext, path: string, format: string | undefined): Promise<OpenedSource> {
  return ctx.files.open(path, {
    format: format ?? 'auto',
    strictFormat: true,
    signal: ctx.signal,
    onProgress: (done, total) => ctx.progress(done, total, `indexing ${path}`),
  });
}

const DESCRIPTION = (formats: string) =>
  `Open a file (path under the server root; format: ${formats}) for json_read, addressed whole: a file of records is their array. ` +
  'Returns file_id and the detected format; validation: full checks every record';

export const jsonOpen: ToolDefinition<typeof input, typeof output> = {
  name: 'json_open',
  title: 'Open a file for json_read',
  description: DESCRIPTION('json, jsonl, json-seq'),
  advertise: (registry) => ({ description: DESCRIPTION(registry.formats.list().map((f) => f.name).join(', ')) }),
  inputSchema: input,
  outputSchema: output,
  annotations: { readOnlyHint: true, openWorldHint: false },
  async handler(args, ctx) {
    checkRoom(ctx);
    const opened = await openSource(ctx, args.path, args.format);
    const mode = args.validation ?? 'probe';
    let fileId: string;
    let report;
    try {
      report = await validate(opened.source, mode, ctx);
      if (ctx.signal.aborted) throw ctx.error('CANCELLED', 'The request was cancelled.');
      fileId = fileTable(ctx).add({
        opened, implicit: false, reads: 0, idle: null, closed: false, cursors: new Set(),
        ...(report.complete ? { validated: { malformedRecords: report.malformedRecords, records: report.recordsExamined } } : {}),
      });
    } catch (err) {
      opened.close();
      throw err;
    }
    const { source } = opened;
    const warnings: Warning[] = report.firstMalformed.map((m) => ({ code: m.code, message: m.message, location: warningLocation({ record_index: m.recordIndex, ...(m.byteOffset !== undefined ? { byte_offset: m.byteOffset } : {}), ...(m.line !== undefined ? { line: m.line } : {}), ...(m.column !== undefined ? { column: m.column } : {}) }) }));
    if (report.malformedRecords > report.firstMalformed.length) {
      warnings.push({ code: 'SYNTAX_ERROR', message: `${report.malformedRecords} malformed records in all among the ${report.recordsExamined} examined.` });
    }
    if (report.oversizedRecords > 0) {
      warnings.push({ code: 'RESOURCE_LIMIT_EXCEEDED', message: `${report.oversizedRecords} record(s) over maxRecordBytes (${ctx.limits.maxRecordBytes} bytes) were not parsed.` });
    }
    if (report.duplicateKeys > 0) {
      const d = report.firstDuplicateKey;
      let line: number | undefined;
      if (d) try { line = source.location(d.recordIndex).line; } catch { /* no location */ }
      let message = `${report.duplicateKeys} record(s) repeat a member name (the last one wins)${d ? `; the first: ${JSON.stringify(d.key)} at ${JSON.stringify(d.path)} in record ${d.recordIndex}${line !== undefined ? ` (line ${line})` : ''}` : ''}.`;
      if (message.length > 1000) message = message.slice(0, /[\uD800-\uDBFF]/.test(message[999]!) ? 999 : 1000);
      warnings.push({
        code: 'DUPLICATE_KEY',
        message,
        ...(d ? { location: { record_index: d.recordIndex, ...(line !== undefined ? { line } : {}) } } : {}),
      });
    }
    if (report.loneSurrogates > 0) {
      warnings.push({ code: 'LONE_SURROGATE_REPLACED', message: `${report.loneSurrogates} record(s) hold escaped lone surrogates, read as U+FFFD.` });
    }
    return {
      file_id: fileId,
      requested_format: args.format ?? 'auto',
      detected_format: source.format,
      detection: opened.detection,
      validation: { mode, complete: report.complete, bytes_examined: report.bytesExamined, records_examined: report.recordsExamined, malformed_records: report.malformedRecords },
      source: { size: source.identity.size, modified_time: new Date(source.identity.mtimeMs).toISOString() },
      ...(warnings.length ? { warnings } : {}),
    };
  },
};
