import type { CompiledQuery, RecordSource, ToolContext } from '../contracts';

/**
 * For an empty answer: names the member names the query uses that no record examined has, with the nearest names
 * seen (`$.lable` → "label"), through the kernel's `ctx.scan.missingMembers`. Undefined when every name occurs (the
 * answer is empty for another reason). The kernel examines a sample from the start of the
 * file (at most 1,000 records and 8 MiB): when it did not reach the end, the hint says how many records it looked at
 * and that the others may have the name; so it does when a record too large to read whole was looked into through a
 * sample of it (`partial`).
 */
export async function emptyAnswerHint(ctx: ToolContext, source: RecordSource, query: CompiledQuery): Promise<string | undefined> {
  const names = query.memberNames;
  if (!names?.length) return undefined;
  const found = await ctx.scan.missingMembers(source, names, ctx.signal);
  if (found.missing.length === 0) return undefined;
  const parts = found.missing.slice(0, 5).map((m) => `${JSON.stringify(m.name)}${m.nearest.length ? ` (nearest names seen: ${m.nearest.map((n) => JSON.stringify(n)).join(', ')})` : ''}`);
  return clip(hintText(parts, found.examined, source.count, found.partial === true), 1000);
}

/**
 * The hint's sentence: `parts` (each missing name with its nearest names) over `examined` of `count` records;
 * `partial` when a record too large to read whole was looked into through a sample of it.
 */
function hintText(parts: string[], examined: number, count: number, partial: boolean): string {
  const names = parts.join('; nor ');
  if (partial) {
    return `No member named ${names} was seen in the part examined: ${examined} of ${count} record(s), a record too large to read whole `
      + 'looked into through a sample of it (64 elements of each large array, spread evenly). The rest was not examined and may have it.';
  }
  if (examined >= count) return `No record has a member named ${names}. All ${count} record(s) examined.`;
  return `None of the first ${examined} record(s) examined (a sample from the start of the file, which has ${count}) has a member named ${names}. `
    + `The other ${count - examined} record(s) were not examined and may have it.`;
}

/** `text` cut to at most `max` UTF-16 units, never inside a surrogate pair. */
function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const c = text.charCodeAt(max - 2);
  return text.slice(0, c >= 0xd800 && c <= 0xdbff ? max - 2 : max - 1) + '…';
}
