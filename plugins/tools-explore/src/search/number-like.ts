import type { Addressing, CompiledQuery, RecordSource, ToolContext } from 'mcpgw/plugin-api';

/**
 * NUMBER_LIKE_STRINGS warnings for a query's comparisons with numbers whose values are strings that read as numbers,
 * and EXISTENCE_TEST warnings for its bare paths used as tests that selected `false` or `null`, counted by the scan
 * engine (`ctx.scan.queryNotes`, from the language's `numberLikeChecks` and `existenceChecks`) in the query's
 * addressing, on a file whose root is the sequence of its records; none for an engine or language without them.
 * `asWritten` rewrites the message's paths in the syntax the user wrote (a record predicate writes `$.lat`).
 */
export async function numberLikeNotes(ctx: ToolContext, source: RecordSource, query: CompiledQuery, addressing: Addressing, asWritten: (message: string) => string = (m) => m): Promise<{ code: string; message: string }[]> {
  if (!source.rootIsSequence) return [];
  const options = { source, addressing, unit: 'records' as const, signal: ctx.signal, deadline: ctx.deadline };
  const found = ctx.scan.queryNotes ? await ctx.scan.queryNotes(query, options) : ctx.scan.numberLikeStrings ? await ctx.scan.numberLikeStrings(query, options) : [];
  return found.map((w) => ({ code: w.code, message: asWritten(w.message) }));
}
