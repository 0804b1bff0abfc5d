import type { ErrorLocation, RecordSource, ToolContext, ValidationReport } from 'mcpgw/plugin-api';

export type ValidationMode = 'probe' | 'full';

/**
 * Validates records in file order by parsing each one exactly (strict UTF-8, grammar, maxDepth), through
 * `RecordSource.validate` (every kernel source has it; it also counts duplicate member names, lone surrogate
 * escapes and oversized records), or, for a third-party source without it, by parsing each record on the engine's
 * record loop (`ctx.scan.match`).
 * `probe`: the first `probeRecords` records within `probeBytes` (at least one record).
 * `full`: every record, with progress, until the request deadline (then `complete: false`).
 * @throws CANCELLED through the signal; IO_ERROR, SOURCE_CHANGED from the source.
 */
export async function validate(source: RecordSource, mode: ValidationMode, ctx: ToolContext): Promise<ValidationReport> {
  const onProgress = mode === 'full' ? (done: number, total: number) => ctx.progress(done, total, 'validating') : undefined;
  if (source.validate) {
    return source.validate({ mode, probeBytes: ctx.limits.probeBytes, probeRecords: ctx.limits.probeRecords, signal: ctx.signal, deadline: ctx.deadline, now: () => ctx.clock.now(), onProgress });
  }
  return validateByScan(source, mode, ctx, onProgress);
}

async function validateByScan(source: RecordSource, mode: ValidationMode, ctx: ToolContext, onProgress?: (done: number, total: number) => void): Promise<ValidationReport> {
  const report: ValidationReport = { mode, complete: false, bytesExamined: 0, recordsExamined: 0, malformedRecords: 0, firstMalformed: [], oversizedRecords: 0, duplicateKeys: 0, loneSurrogates: 0 };
  const to = mode === 'probe' ? Math.min(source.count, Math.max(1, ctx.limits.probeRecords)) : source.count;
  // A matcher on the engine's record loop (which stops after the batch in progress at the deadline): each record
  // parsed, a malformed one noted; in probe mode a record past probeBytes ends it.
  await ctx.scan.match<'past probeBytes'>({
    source, to, signal: ctx.signal, deadline: ctx.deadline, ...(onProgress ? { onProgress } : {}),
    matcher: {
      match: (batch, k) => {
        const [s, e] = batch.span(k);
        if (mode === 'probe' && report.recordsExamined > 0 && report.bytesExamined + (e - s) > ctx.limits.probeBytes) return 'past probeBytes';
        report.recordsExamined++;
        report.bytesExamined += e - s;
        try {
          batch.value(k);
        } catch (err) {
          report.malformedRecords++;
          if (report.firstMalformed.length < 5) {
            const e = err as { code?: string; message: string; location?: ErrorLocation };
            const loc = e.location ?? source.location(batch.first + k);
            report.firstMalformed.push({ recordIndex: batch.first + k, code: e.code ?? 'SYNTAX_ERROR', message: e.message, ...pick(loc) });
          }
        }
        return null;
      },
    },
    onHit: () => false,
  });
  report.complete = report.recordsExamined === source.count;
  return report;
}

function pick(loc: ErrorLocation): { byteOffset?: number; line?: number; column?: number } {
  return {
    ...(loc.byte_offset !== undefined ? { byteOffset: loc.byte_offset } : {}),
    ...(loc.line !== undefined ? { line: loc.line } : {}),
    ...(loc.column !== undefined ? { column: loc.column } : {}),
  };
}
