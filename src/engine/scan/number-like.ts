/**
 * NUMBER_LIKE_STRINGS: what a query's comparisons with numbers passed by because the values compared are strings that
 * read as numbers (`"lat": "42.53176"`, `$.lat > 66.5`). RFC 9535 §2.3.5.2.2 never compares a string with a number, so
 * the answer is right and, for an assistant that expects the file's numbers, silently short. Each of the query's
 * `numberLikeChecks` (contracts/query.ts) selects just those: counted here with a count-only scan in the query's own
 * addressing, bounded by `limits.detailTimeMs` (engine.ts); a count the bound cut is "at least", and said so.
 */
import type { CompiledQuery, NumberLikeWarning, ScanQueryOptions, ScanResult } from '../../kernel/contracts';

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
