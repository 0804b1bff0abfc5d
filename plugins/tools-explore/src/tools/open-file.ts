import { z } from 'zod';
import type { ToolDefinition } from 'mcpgw/plugin-api';
import { fileTable } from '../files';
import { blankLinesOf, blankLinesSchema, detectionSchema, fileType, fileTypeOf, validationSchema, warningSchema } from '../schemas';
import { clip } from '../text/clip';
import { probeValidate } from '../validate';

const input = z.object({
  path: z.string().max(4096),
  format: z.string().max(256).optional(),
});
const output = z.object({
  handle: z.string(),
  path: z.string(),
  file_type: fileType,
  record_count: z.number().int(),
  format: z.string(),
  size_bytes: z.number().int(),
  detection: detectionSchema.optional().describe('How the format was chosen, when not by the content alone'),
  validation: validationSchema.optional().describe('What the validation at open examined, when it found malformed records (get_file_info always says)'),
  blank_lines: blankLinesSchema.optional().describe('Empty or whitespace-only lines, which are not records'),
  warnings: z.array(warningSchema).optional(),
});

const DESCRIPTION = (formats: string) =>
  `Open a file (path under the server root; format forces one of ${formats}) and index it: {handle, file_type, record_count}; ` +
  'pass handle to the other tools. warnings name malformed records and repeated keys';

export const openFile: ToolDefinition<typeof input, typeof output> = {
  name: 'open_file',
  title: 'Open a file',
  description: DESCRIPTION('json, jsonl, json-seq'),
  advertise: (registry) => ({ description: DESCRIPTION(registry.formats.list().map((f) => f.name).join(', ')) }),
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
      handle = table.add({
        opened,
        malformedRecords: validation.complete ? validation.malformed_records : null,
        validation: { complete: validation.complete, records_examined: validation.records_examined, bytes_examined: validation.bytes_examined, malformed_records: validation.malformed_records },
        loneSurrogates: validation.lone_surrogates,
      });
    } catch (err) {
      opened.close();
      throw err;
    }
    const { source } = opened;
    const warnings: z.input<typeof warningSchema>[] = validation.first_malformed.map((m) => ({ code: m.code, message: m.message, record_index: m.record_index, ...(m.line !== undefined ? { line: m.line } : {}) }));
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
    if (validation.lone_surrogates > 0) {
      warnings.push({
        code: 'LONE_SURROGATE_REPLACED',
        message: `${validation.lone_surrogates} of the ${validation.records_examined} records examined escape a lone surrogate (\\uD800–\\uDFFF without its pair; RFC 8259 §8.2): every tool gives it as U+FFFD (\\ufffd in record text).`,
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
      // details only when notable: a format not chosen by the content alone, malformed records found
      ...(opened.detection.basis !== 'content' ? { detection: opened.detection } : {}),
      ...blankLinesOf(source),
      ...(validation.malformed_records > 0 ? { validation: { complete: validation.complete, records_examined: validation.records_examined, bytes_examined: validation.bytes_examined, malformed_records: validation.malformed_records } } : {}),
      ...(warnings.length ? { warnings } : {}),
    };
  },
};
