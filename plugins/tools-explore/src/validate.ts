import type { ErrorLocation, RecordSource, ToolContext } from 'mcpgw/plugin-api';

/** The outcome of the bounded validation pass run at open, in the explorer's own (wire) names. */
export interface ProbeValidation {
  /** True when every record was examined (the file is within the probe bounds). */
  complete: boolean;
  records_examined: number;
  bytes_examined: number;
  malformed_records: number;
  /** The first malformed records (at most 5), with their lines. */
  first_malformed: { record_index: number; code: string; line?: number; message: string }[];
  /** Records examined whose objects repeat a member name (RFC 8259 §4), and the first such name. */
  duplicate_keys: number;
  first_duplicate_key?: { record_index: number; key: string; path: string };
  /** Records examined whose strings escape a lone surrogate (RFC 8259 §8.2): every tool gives them as U+FFFD. */
  lone_surrogates: number;
}

/**
 * Validates the first `probeRecords` records (within `probeBytes`) so that open reports malformed
 * records at once; bounded, so opening a huge file stays cheap. Uses the source's own
 * `validate({mode: 'probe'})` when it has one (kernel sources do), else parses the records on the engine's record loop.
 * @throws CANCELLED, IO_ERROR
 */
export async function probeValidate(source: RecordSource, ctx: ToolContext): Promise<ProbeValidation> {
  if (source.validate) {
    const r = await source.validate({ mode: 'probe', signal: ctx.signal, probeBytes: ctx.limits.probeBytes, probeRecords: ctx.limits.probeRecords });
    return {
      complete: r.complete,
      records_examined: r.recordsExamined,
      bytes_examined: r.bytesExamined,
      malformed_records: r.malformedRecords,
      first_malformed: r.firstMalformed.map((m) => ({ record_index: m.recordIndex, code: m.code, ...(m.line !== undefined ? { line: m.line } : {}), message: m.message })),
      duplicate_keys: r.duplicateKeys,
      lone_surrogates: r.loneSurrogates,
      ...(r.firstDuplicateKey ? { first_duplicate_key: { record_index: r.firstDuplicateKey.recordIndex, key: r.firstDuplicateKey.key, path: r.firstDuplicateKey.path } } : {}),
    };
  }
  const result: ProbeValidation = { complete: false, records_examined: 0, bytes_examined: 0, malformed_records: 0, first_malformed: [], duplicate_keys: 0, lone_surrogates: 0 };
  // A matcher on the engine's record loop: each record parsed (a malformed one noted); a record past probeBytes ends it.
  await ctx.scan.match<'past probeBytes'>({
    source, to: Math.min(source.count, ctx.limits.probeRecords), signal: ctx.signal,
    matcher: {
      match: (batch, k) => {
        const [s, e] = batch.span(k);
        if (result.records_examined > 0 && result.bytes_examined + (e - s) > ctx.limits.probeBytes) return 'past probeBytes';
        result.records_examined++;
        result.bytes_examined += e - s;
        try {
          batch.value(k);
        } catch (err) {
          result.malformed_records++;
          if (result.first_malformed.length < 5) {
            const loc = (err as { location?: ErrorLocation }).location;
            result.first_malformed.push({ record_index: batch.first + k, code: (err as { code?: string }).code ?? 'SYNTAX_ERROR', ...(loc?.line !== undefined ? { line: loc.line } : {}), message: (err as Error).message });
          }
        }
        return null;
      },
    },
    onHit: () => false,
  });
  result.complete = result.records_examined === source.count;
  return result;
}
