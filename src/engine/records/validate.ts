import type { LazyNode, RecordSource, RecordWarning, ValidateOptions, ValidationReport } from '../../kernel/contracts/format';
import type { Limits } from '../../kernel/contracts/limits';
import { McpgwError, type ErrorLocation } from '../../kernel/errors';
import { countMemberNames, countMembers, decodeUtf8, findDuplicateKey, parseExact } from './parse';
import { escapeToken } from '../paths/pointer';

/** Malformed records listed in a report. */
const LIST = 5;

/**
 * The validation pass behind `RecordSource.validate`, implemented once for every kernel source:
 * reads records through `batches` (record-aligned chunks, progress, the signal checked per batch),
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
    mode, complete: false, recordsExamined: 0, bytesExamined: 0, malformedRecords: 0, firstMalformed: [],
    oversizedRecords: 0, duplicateKeys: 0, loneSurrogates: 0,
  };
  const to = Math.min(source.count, maxRecords);
  let from = 0;
  let stop = false;
  let partial = false;
  const malformed = (index: number, err: unknown) => {
    report.malformedRecords++;
    if (report.firstMalformed.length < LIST) {
      const e = err as { code?: string; message?: string; location?: ErrorLocation };
      const loc = e.location ?? {};
      report.firstMalformed.push({
        recordIndex: index, code: e.code ?? 'SYNTAX_ERROR', message: String(e.message ?? err),
        ...(loc.byte_offset !== undefined ? { byteOffset: loc.byte_offset } : {}),
        ...(loc.line !== undefined ? { line: loc.line } : {}),
        ...(loc.column !== undefined ? { column: loc.column } : {}),
      });
      report.firstError ??= { code: e.code ?? 'SYNTAX_ERROR', message: String(e.message ?? err), ...(e.location ? { location: e.location } : {}) };
    }
  };
  while (!stop && from < to) {
    try {
      for await (const batch of source.batches({ from, to, signal: options.signal, onProgress: options.onProgress })) {
        for (let k = 0; k < batch.count; k++) {
          const [s, e] = batch.span(k);
          if (report.recordsExamined > 0 && report.bytesExamined + (e - s) > maxBytes) { stop = true; break; }
          const i = batch.first + k;
          if ((batch.oversized || e - s > PIECE_BYTES) && source.node) {
            // Too long to parse whole (or long enough that parsing it whole would hold it all in memory): examined
            // piece by piece through lazy nodes, within the probe's bytes.
            if (batch.oversized) report.oversizedRecords++;
            let root: ReturnType<NonNullable<typeof source.node>>;
            try {
              root = source.node(i, '');
            } catch (err) {
              // the framing makes it malformed (RFC 7464 §2.1, §2.4): checked on this path as on every other
              if ((err as McpgwError).code !== 'SYNTAX_ERROR') throw err;
              report.recordsExamined++;
              malformed(i, err);
              continue;
            }
            if (!root) continue;
            const r = await validateInParts(root, i, maxBytes - report.bytesExamined, limits, options);
            report.recordsExamined++;
            report.bytesExamined += r.bytes;
            if (r.error) malformed(i, r.error);
            else {
              if (r.loneSurrogates) report.loneSurrogates++;
              if (r.duplicate) {
                report.duplicateKeys++;
                if (!report.firstDuplicateKey) report.firstDuplicateKey = { recordIndex: i, ...r.duplicate };
              }
            }
            if (!r.complete) { partial = true; stop = true; break; }
            continue;
          }
          report.recordsExamined++;
          report.bytesExamined += e - s;
          if (e - s > limits.maxRecordBytes) {
            report.oversizedRecords++;
            // not parsed, but framed: the format's framing check applies to it as to every record
            try {
              batch.checkFraming?.(k);
            } catch (err) {
              if ((err as McpgwError).code !== 'SYNTAX_ERROR') throw err;
              malformed(i, err);
            }
            continue;
          }
          const warnings: RecordWarning[] = [];
          let value: unknown;
          try {
            value = batch.value(k, warnings);
          } catch (err) {
            const e = err as McpgwError;
            if (e.code === 'CANCELLED') throw err;
            if (e.code === 'RESOURCE_LIMIT_EXCEEDED' && e.limit?.name === 'maxRecordBytes') { report.oversizedRecords++; continue; }
            malformed(i, err);
            continue;
          }
          if (warnings.some((w) => w.code === 'LONE_SURROGATE_REPLACED')) report.loneSurrogates++;
          if (value !== null && typeof value === 'object') {
            const text = decodeUtf8(batch.bytes.subarray(s, e), 0);
            if (countMemberNames(text) !== countMembers(value)) {
              report.duplicateKeys++;
              if (!report.firstDuplicateKey) {
                const dup = findDuplicateKey(text);
                if (dup) report.firstDuplicateKey = { recordIndex: i, ...dup };
              }
            }
          }
        }
        from = batch.first + batch.count;
        if (options.deadline !== undefined && (options.now ?? Date.now)() > options.deadline) stop = true;
        if (stop) break;
      }
      break;
    } catch (err) {
      // a record too long for a scan read: count it and go on after it
      const e = err as McpgwError;
      if (e.code === 'RESOURCE_LIMIT_EXCEEDED' && e.location?.record_index !== undefined && e.limit?.name === 'maxRecordBytes') {
        report.oversizedRecords++;
        report.recordsExamined++;
        from = e.location.record_index + 1;
        continue;
      }
      throw err;
    }
  }
  report.complete = !partial && report.recordsExamined === source.count;
  // Every record examined, and the framing around them by the index pass: the whole file (or array text) was, so the
  // count says so (the records' spans alone leave out newlines, separators and whitespace between values).
  if (report.complete) report.bytesExamined = Math.max(report.bytesExamined, sizeOf(source));
  return report;
}

/** Bytes of what a source reads: an element source's array text, else its file. */
function sizeOf(source: RecordSource): number {
  const own = (source as { byteSize?: unknown }).byteSize;
  return typeof own === 'number' ? own : source.identity.size;
}

/** Values parsed whole when a record over maxRecordBytes is examined in parts. */
export const PIECE_BYTES = 1 << 20;

/**
 * Examines the value of `root` (a record too long to parse whole) in parts: every value of at most PIECE_BYTES
 * (and every longer scalar up to maxRecordBytes) is parsed exactly as `value` parses, containers above them are
 * walked through lazy nodes (member names decoded, repeated names found), in document order, until `budget`
 * bytes have been parsed. Yields to the event loop between parts; checks the signal and deadline there.
 * `complete` is false when the budget, the deadline or a scalar over maxRecordBytes stopped it.
 */
export async function validateInParts(root: LazyNode, recordIndex: number, budget: number, limits: Limits, options: ValidateOptions = {}): Promise<{
  bytes: number; complete: boolean; error?: McpgwError; duplicate?: { key: string; path: string }; loneSurrogates: boolean;
}> {
  const out: { bytes: number; complete: boolean; error?: McpgwError; duplicate?: { key: string; path: string }; loneSurrogates: boolean } = { bytes: 0, complete: true, loneSurrogates: false };
  interface Frame { node: LazyNode; pointer: string; next: number; count: number; names?: Set<string>; kids: { key?: string; index?: number; node: LazyNode }[]; at: number }
  const stack: Frame[] = [];
  let sinceYield = 0;
  const piece = Math.min(PIECE_BYTES, limits.maxRecordBytes);
  const visit = (node: LazyNode, pointer: string): boolean => {
    if (node.byteLength <= piece || (node.type !== 'object' && node.type !== 'array')) {
      if (node.byteLength > limits.maxRecordBytes) { out.complete = false; return false; }
      if (out.bytes > 0 && out.bytes + node.byteLength > budget) { out.complete = false; return false; }
      const warnings: RecordWarning[] = [];
      let text: string, value: unknown;
      if (node.text) {
        text = node.text();
        // the value is only counted and checked for lone surrogates: no exact numbers needed (no numeral scan, no reviver)
        value = parseExact(text, () => ({ byteOffset: node.byteOffset, line: 0, column: 0, recordIndex, maxDepth: limits.maxDepth }), limits.maxDepth, warnings, false, false);
      } else {
        value = node.value(warnings);
        text = JSON.stringify(value);
      }
      if (warnings.length) out.loneSurrogates = true;
      if (!out.duplicate && value !== null && typeof value === 'object' && countMemberNames(text) !== countMembers(value)) {
        const dup = findDuplicateKey(text);
        if (dup) out.duplicate = { key: dup.key, path: pointer + dup.path };
      }
      out.bytes += node.byteLength;
      sinceYield += node.byteLength;
      return true;
    }
    stack.push({ node, pointer, next: 0, count: node.childCount ?? 0, ...(node.type === 'object' ? { names: new Set<string>() } : {}), kids: [], at: 0 });
    return true;
  };
  try {
    if (!visit(root, '')) return out;
    while (stack.length) {
      const f = stack[stack.length - 1]!;
      if (f.at === f.kids.length) {
        if (f.next >= f.count) { stack.pop(); continue; }
        f.kids = f.node.children!(f.next, Math.min(f.count, f.next + 1024));
        f.next += f.kids.length;
        f.at = 0;
      }
      const kid = f.kids[f.at++]!;
      let pointer: string;
      if (f.names) {
        const key = kid.key!;
        if (f.names.has(key) && !out.duplicate) out.duplicate = { key, path: `${f.pointer}/${escapeToken(key)}` };
        f.names.add(key);
        pointer = `${f.pointer}/${escapeToken(key)}`;
      } else pointer = `${f.pointer}/${kid.index}`;
      if (!visit(kid.node, pointer)) return out;
      if (sinceYield >= piece) {
        sinceYield = 0;
        await new Promise<void>((r) => setImmediate(r));
        if (options.signal?.aborted) throw new McpgwError('CANCELLED', 'The request was cancelled.');
        if (options.deadline !== undefined && (options.now ?? Date.now)() > options.deadline) { out.complete = false; return out; }
      }
    }
  } catch (err) {
    if (!(err instanceof McpgwError) || err.code === 'CANCELLED' || err.code === 'IO_ERROR' || err.code === 'SOURCE_CHANGED') throw err;
    out.error = err;
  }
  return out;
}
