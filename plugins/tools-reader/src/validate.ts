import type { ErrorLocation, RecordSource, ToolContext } from 'mcpgw/plugin-api';

export type ValidationMode = 'probe' | 'full';

/** json_open's `validation` object, plus the first malformed records for warnings. */
export interface ValidationReport {
  mode: ValidationMode;
  /** True when every record was examined; false when bounds (probe) or the request deadline (full) stopped it. */
  complete: boolean;
  /** Bytes of record text examined (framing excluded). */
  bytes_examined: number;
  records_examined: number;
  malformed_records: number;
  /** The first malformed records (at most 5) with their locations. */
  first_malformed: { location: ErrorLocation; message: string }[];
}

/**
 * Validates records in file order by parsing each one exactly (strict UTF-8, grammar, maxDepth).
 * `probe`: the first `probeRecords` records within `probeBytes` (at least one record).
 * `full`: every record, with progress, until the request deadline (then `complete: false`).
 * @throws CANCELLED through the signal; IO_ERROR from the source.
 */
export async function validate(source: RecordSource, mode: ValidationMode, ctx: ToolContext): Promise<ValidationReport> {
  const report: ValidationReport = { mode, complete: false, bytes_examined: 0, records_examined: 0, malformed_records: 0, first_malformed: [] };
  const to = mode === 'probe' ? Math.min(source.count, ctx.limits.probeRecords) : source.count;
  const onProgress = mode === 'full' ? (done: number, total: number) => ctx.progress(done, total, 'validating') : undefined;
  outer: for await (const batch of source.scan({ to, signal: ctx.signal, onProgress })) {
    for (let k = 0; k < batch.count; k++) {
      const [s, e] = batch.span(k);
      if (mode === 'probe' && report.records_examined > 0 && report.bytes_examined + (e - s) > ctx.limits.probeBytes) break outer;
      report.records_examined++;
      report.bytes_examined += e - s;
      try {
        batch.value(k);
      } catch (err) {
        report.malformed_records++;
        if (report.first_malformed.length < 5) {
          const location = (err as { location?: ErrorLocation }).location ?? source.location(batch.first + k);
          report.first_malformed.push({ location: { ...location, record_index: batch.first + k }, message: (err as Error).message });
        }
      }
    }
    if (mode === 'full' && Date.now() > ctx.deadline) break;
  }
  report.complete = report.records_examined === source.count;
  return report;
}
