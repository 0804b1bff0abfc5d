import type { Addressing, CompiledQuery, RecordSource, ToolContext } from 'mcpgw/plugin-api';

/**
 * NUMBER_LIKE_STRINGS warnings for a query's comparisons with numbers whose values are strings that read as numbers,
 * counted by the scan engine (`ctx.scan.numberLikeStrings`, from the language's `numberLikeChecks`) in the query's
 * addressing, on a file whose root is the sequence of its records; none for an engine or language without them.
 * `asWritten` rewrites the message's paths in the syntax the user wrote (a record predicate writes `$.lat`).
 */
export async function numberLikeNotes(ctx: ToolContext, source: RecordSource, query: CompiledQuery, addressing: Addressing, asWritten: (message: string) => string = (m) => m): Promise<{ code: string; message: string }[]> {
  if (!source.rootIsSequence || !ctx.scan.numberLikeStrings) return [];
  const found = await ctx.scan.numberLikeStrings(query, { source, addressing, unit: 'records', signal: ctx.signal, deadline: ctx.deadline });
  return found.map((w) => ({ code: w.code, message: asWritten(w.message) }));
}
