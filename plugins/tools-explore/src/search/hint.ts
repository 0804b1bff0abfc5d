import type { CompiledQuery, RecordSource, ToolContext } from 'mcpgw/plugin-api';

/**
 * For an empty answer: names the member names the query uses that no record examined has, with the nearest names
 * seen (`$.lable` → "label"), through the kernel's `ctx.scan.missingMembers`. Undefined when every name occurs (the
 * answer is empty for another reason) or the kernel cannot tell.
 */
export async function emptyAnswerHint(ctx: ToolContext, source: RecordSource, query: CompiledQuery): Promise<string | undefined> {
  const names = query.memberNames;
  if (!names?.length || !ctx.scan.missingMembers) return undefined;
  const found = await ctx.scan.missingMembers(source, names, ctx.signal);
  if (found.missing.length === 0) return undefined;
  const parts = found.missing.slice(0, 5).map((m) => `${JSON.stringify(m.name)}${m.nearest.length ? ` (nearest names seen: ${m.nearest.map((n) => JSON.stringify(n)).join(', ')})` : ''}`);
  const text = `No record examined has a member named ${parts.join('; nor ')}. ${found.examined} record(s) examined, from the start of the file.`;
  return clip(text, 1000);
}

/** `text` cut to at most `max` UTF-16 units, never inside a surrogate pair. */
function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const c = text.charCodeAt(max - 2);
  return text.slice(0, c >= 0xd800 && c <= 0xdbff ? max - 2 : max - 1) + '…';
}
