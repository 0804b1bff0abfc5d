/**
 * The engine's record loop over a caller's matcher (`ScanEngine.match`, contracts/scan.ts): the explorer's text search
 * and the sessions search run their per-record tests here. Batches in file order from `from`; in each, the matcher's
 * byte prefilter (if any) names the records worth testing, `match` tests them, hits go to `onHit` in file order; a
 * record over maxRecordBytes goes to `oversized`. The deadline is checked after each batch (a batch is the unit of
 * progress, as the records' own tests are bounded by their size).
 */
import type { Clock } from '../../kernel/contracts/clock';
import type { MatchScanOptions, MatchScanResult } from '../../kernel/contracts/scan';
import { McpgwError } from '../../kernel/errors';

export async function runMatch<H>(opts: MatchScanOptions<H>, clock: Clock): Promise<MatchScanResult> {
  const { source, matcher, onHit } = opts;
  if (opts.signal?.aborted) throw new McpgwError('CANCELLED', 'The request was cancelled.');
  let unparsed = 0;
  const to = Math.min(opts.to ?? source.count, source.count);
  for await (const batch of source.batches({ from: opts.from ?? 0, to, ...(opts.signal ? { signal: opts.signal } : {}), ...(opts.onProgress ? { onProgress: opts.onProgress } : {}) })) {
    if (batch.oversized) {
      const hit = matcher.oversized ? matcher.oversized(batch.first) : matcher.match(batch, 0);
      if (hit !== null && !onHit(batch.first, hit, unparsed)) return { stoppedAt: null, unparsed };
      continue;
    }
    /** The first record of the batch whose prefilter outcome is not counted yet. */
    let open = 0;
    let go = true;
    const visit = (k: number): boolean => {
      unparsed += k - open; // the records before it that the prefilter ruled out
      open = k + 1;
      const hit = matcher.match(batch, k);
      if (hit !== null && !onHit(batch.first + k, hit, unparsed)) go = false;
      return go;
    };
    if (matcher.candidates) matcher.candidates(batch, visit);
    else for (let k = 0; k < batch.count && visit(k); k++);
    if (!go) return { stoppedAt: null, unparsed };
    unparsed += batch.count - open;
    const next = batch.first + batch.count;
    if (opts.deadline !== undefined && clock.now() > opts.deadline && next < to) return { stoppedAt: next, unparsed };
  }
  return { stoppedAt: null, unparsed };
}
