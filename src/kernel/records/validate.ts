import type { RecordSource, RecordWarning, ValidateOptions, ValidationReport } from '../contracts/format';
import type { Limits } from '../contracts/limits';
import { McpgwError, type ErrorLocation } from '../errors';
import { countMemberNames, countMembers, decodeUtf8, findDuplicateKey } from './parse';

/** Malformed records listed in a report. */
const LIST = 5;

/**
 * The validation pass behind `RecordSource.validate`, implemented once for every kernel source:
 * reads records through `scan` (record-aligned chunks, progress, the signal checked per batch),
 * parses each as `value` does, counts malformed records (keeping the first five with their
 * locations), records over maxRecordBytes (skipped, not parsed), records with duplicate member
 * names (text member count against the parsed value's, then the first duplicate located) and
 * records with escaped lone surrogates.
 * @throws McpgwError CANCELLED, IO_ERROR, SOURCE_CHANGED.
 */
export async function validateSource(source: RecordSource, limits: Limits, options: ValidateOptions = {}): Promise<ValidationReport> {
  const mode = options.mode ?? 'probe';
  const maxRecords = mode === 'full' ? Infinity : Math.max(1, options.probeRecords ?? limits.probeRecords);
  const maxBytes = mode === 'full' ? Infinity : (options.probeBytes ?? limits.probeBytes);
  const report: ValidationReport = {
    mode, complete: false, records_examined: 0, bytes_examined: 0, malformed_records: 0, first_malformed: [],
    oversized_records: 0, duplicate_keys: 0, lone_surrogates: 0,
  };
  const to = Math.min(source.count, maxRecords);
  let from = 0;
  let stop = false;
  const malformed = (index: number, err: unknown) => {
    report.malformed_records++;
    if (report.first_malformed.length < LIST) {
      const e = err as { code?: string; message?: string; location?: ErrorLocation };
      const loc = e.location ?? {};
      report.first_malformed.push({
        record_index: index, code: e.code ?? 'SYNTAX_ERROR', message: String(e.message ?? err),
        ...(loc.byte_offset !== undefined ? { byte_offset: loc.byte_offset } : {}),
        ...(loc.line !== undefined ? { line: loc.line } : {}),
        ...(loc.column !== undefined ? { column: loc.column } : {}),
      });
      report.first_error ??= { code: e.code ?? 'SYNTAX_ERROR', message: String(e.message ?? err), ...(e.location ? { location: e.location } : {}) };
    }
  };
  while (!stop && from < to) {
    try {
      for await (const batch of source.scan({ from, to, signal: options.signal, onProgress: options.onProgress })) {
        for (let k = 0; k < batch.count; k++) {
          const [s, e] = batch.span(k);
          if (report.records_examined > 0 && report.bytes_examined + (e - s) > maxBytes) { stop = true; break; }
          const i = batch.first + k;
          report.records_examined++;
          report.bytes_examined += e - s;
          if (e - s > limits.maxRecordBytes) { report.oversized_records++; continue; }
          const warnings: RecordWarning[] = [];
          let value: unknown;
          try {
            value = batch.value(k, warnings);
          } catch (err) {
            const e = err as McpgwError;
            if (e.code === 'CANCELLED') throw err;
            if (e.code === 'RESOURCE_LIMIT_EXCEEDED' && e.limit?.name === 'maxRecordBytes') { report.oversized_records++; continue; }
            malformed(i, err);
            continue;
          }
          if (warnings.some((w) => w.code === 'LONE_SURROGATE_REPLACED')) report.lone_surrogates++;
          if (value !== null && typeof value === 'object') {
            const text = decodeUtf8(batch.bytes.subarray(s, e), 0);
            if (countMemberNames(text) !== countMembers(value)) {
              report.duplicate_keys++;
              if (!report.first_duplicate_key) {
                const dup = findDuplicateKey(text);
                if (dup) report.first_duplicate_key = { record_index: i, ...dup };
              }
            }
          }
        }
        from = batch.first + batch.count;
        if (options.deadline !== undefined && Date.now() > options.deadline) stop = true;
        if (stop) break;
      }
      break;
    } catch (err) {
      // a record too long for a scan read: count it and go on after it
      const e = err as McpgwError;
      if (e.code === 'RESOURCE_LIMIT_EXCEEDED' && e.location?.record_index !== undefined && e.limit?.name === 'maxRecordBytes') {
        report.oversized_records++;
        report.records_examined++;
        from = e.location.record_index + 1;
        continue;
      }
      throw err;
    }
  }
  report.complete = report.records_examined === source.count;
  return report;
}
