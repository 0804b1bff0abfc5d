/**
 * NUMBER_LIKE_STRINGS: what a query's comparisons with numbers passed by because the values compared are strings that
 * read as numbers (`"lat": "42.53176"`, `$.lat > 66.5`). RFC 9535 §2.3.5.2.2 never compares a string with a number, so
 * the answer is right and, for an assistant that expects the file's numbers, silently short. Each of the query's
 * `numberLikeChecks` (contracts/query.ts) selects just those: counted here with a count-only scan in the query's own
 * addressing, bounded by `limits.detailTimeMs` (engine.ts); a count the bound cut is "at least", and said so.
 */
import type { CompiledQuery, NumberLikeWarning, QueryNote, ScanQueryOptions, ScanResult } from '../../kernel/contracts';

type Options = Pick<ScanQueryOptions, 'source' | 'addressing' | 'unit' | 'signal' | 'deadline'>;
type Run = (o: ScanQueryOptions) => Promise<ScanResult>;

/** Every note of `query` (ScanEngine.queryNotes): its number-like comparisons, then its existence tests. */
export async function queryNotes(query: CompiledQuery, options: Options, run: Run): Promise<QueryNote[]> {
  return [...await numberLikeStrings(query, options, run), ...await existenceTests(query, options, run)];
}

/**
 * EXISTENCE_TEST: a bare path used as a test (`$.landlocked`) is true when it selects a node, whatever its value
 * (RFC 9535 §2.3.5.2.2), which an assistant reads as "is true" and gets a believable wrong count. Each of the query's
 * `existenceChecks` selects the records where the test's path holds `false` or `null`; a query without existence
 * tests has no checks and pays nothing, and a check's byte prefilter (`false`, `null`) passes over records without
 * such values before parsing them.
 */
export async function existenceTests(query: CompiledQuery, options: Options, run: Run): Promise<QueryNote[]> {
  const out: QueryNote[] = [];
  let checks;
  try { checks = query.existenceChecks?.() ?? []; } catch { return out; }
  for (const check of checks) {
    // A whole query is a test only where each record is tested with it; its check is written over the sequence.
    if (check.recordTest && options.addressing !== 'record') continue;
    const n = await countOf(check.query, check.recordTest ? { ...options, addressing: 'file' } : options, run);
    if (!n) continue;
    out.push({
      code: 'EXISTENCE_TEST',
      message: `${n.complete ? 'In' : 'At least in'} ${n.count} ${options.unit === 'nodes' ? 'place' : 'record'}${n.count === 1 ? '' : 's'} ${check.path} is false or null, and ${check.path} as a test only checks that it is present (RFC 9535), not that it is true. To test the value write ${check.rewrite}.${n.complete ? '' : ' (The look stopped at its time bound, limits.detailTimeMs: there may be more.)'}`,
      count: n.count,
      path: check.path,
    });
  }
  return out;
}

/** The count-only scan of a check: null when it selects nothing or cannot run (a note is a courtesy). */
async function countOf(query: CompiledQuery, options: Options, run: Run): Promise<{ count: number; complete: boolean } | null> {
  let r: ScanResult;
  try {
    r = await run({ ...options, query, limit: 0, countAll: true });
  } catch (err) {
    if ((err as { code?: string }).code === 'CANCELLED') throw err;
    return null;
  }
  return r.total ? { count: r.total, complete: r.complete } : null;
}

export async function numberLikeStrings(
  query: CompiledQuery,
  options: Pick<ScanQueryOptions, 'source' | 'addressing' | 'unit' | 'signal' | 'deadline'>,
  run: (o: ScanQueryOptions) => Promise<ScanResult>,
): Promise<NumberLikeWarning[]> {
  const out: NumberLikeWarning[] = [];
  let checks;
  try { checks = query.numberLikeChecks?.() ?? []; } catch { return out; } // a check that does not compile: no note
  for (const check of checks) {
    let r: ScanResult;
    try {
      r = await run({ ...options, query: check.query, limit: 0, countAll: true });
    } catch (err) {
      if ((err as { code?: string }).code === 'CANCELLED') throw err;
      continue; // the note is a courtesy: a check the engine cannot run gives none
    }
    const n = r.total ?? 0;
    if (n === 0) continue;
    out.push({
      code: 'NUMBER_LIKE_STRINGS',
      message: `${r.complete ? 'In' : 'At least in'} ${n} ${options.unit === 'nodes' ? 'place' : 'record'}${n === 1 ? '' : 's'} ${check.comparison} passed by a string that reads as a number meeting it (such as "42.5"): JSONPath (RFC 9535) never compares a string with a number. To compare such strings as numbers write ${check.asNumbers}.${r.complete ? '' : ' (The look stopped at its time bound, limits.detailTimeMs: there may be more.)'}`,
      count: n,
      path: check.path,
    });
  }
  return out;
}
