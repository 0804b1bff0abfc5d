import type { Addressing, CompiledQuery, RecordSource, ToolContext } from '../../kernel/contracts';

/**
 * For an empty answer: names the member names the query uses that no record examined has, with the nearest names
 * seen (`$.lable` → "label"), through the kernel's `ctx.scan.missingMembers`. Undefined when every name occurs (the
 * answer is empty for another reason). The kernel examines a sample from the start of the
 * file (at most 1,000 records and 8 MiB): when it did not reach the end, the hint says how many records it looked at
 * and that the others may have the name; so it does when a record too large to read whole was looked into through a
 * sample of it (`partial`). When every name occurs, the query may have been written for the other addressing mode
 * (`addressing`: the one it ran with; see otherAddressingHint): the hint then says where it matches that way.
 */
export async function emptyAnswerHint(ctx: ToolContext, source: RecordSource, query: CompiledQuery, addressing: Addressing = 'record'): Promise<string | undefined> {
  const past = addressing === 'file' && source.rootIsSequence ? recordPastTheEnd(query, source.count) : undefined;
  if (past !== undefined) {
    return `There is no record ${past}: with $ as the whole file, its first segment (a pointer's first reference token) picks a record, and the file has ${source.count} record(s)${source.count ? ` (indexes 0 to ${source.count - 1}${query.segments?.[0]?.selectors[0]?.kind === 'index' ? `, or -1 to -${source.count} from the end` : ''})` : ''}.`;
  }
  const negative = addressing === 'file' && source.rootIsSequence ? negativeToken(query) : undefined;
  if (negative !== undefined) {
    return `A JSON Pointer has no negative index: in an array a reference token is 0 or digits without a leading zero (RFC 6901 §4), so ${JSON.stringify(negative)} picks no record`
      + `${negative === '-' ? ' ("-" names the element after the last, which never exists)' : ''}. The file has ${source.count} record(s)`
      + `${source.count ? `: the last is /${source.count - 1}, or $[-1] in JSONPath` : ''}.`;
  }
  const names = query.memberNames;
  if (names?.length) {
    const found = await ctx.scan.missingMembers(source, names, ctx.signal);
    if (found.missing.length > 0) {
      const parts = found.missing.slice(0, 5).map((m) => `${JSON.stringify(m.name)}${m.nearest.length ? ` (nearest names seen: ${m.nearest.map((n) => JSON.stringify(n)).join(', ')})` : ''}`);
      return clip(hintText(parts, found.examined, source.count, found.partial === true), 1000);
    }
  }
  const deeper = names?.length ? oneDocumentHint(source, names, query) : undefined;
  return deeper ?? otherAddressingHint(ctx, source, query, addressing);
}

/**
 * A file that is one document is one record: a query whose member names lie deeper, in the elements of an array in it
 * (`$.scope = "M"` over `{"639-3": [{…, "scope": "M"}]}`), finds nothing at its top. Says so with the query moved onto
 * those elements (`$["639-3"][?…]`); undefined for other files or when no array's first elements hold the names.
 */
function oneDocumentHint(source: RecordSource, names: readonly string[], query: CompiledQuery): string | undefined {
  if (source.rootIsSequence || source.count !== 1) return undefined;
  const where = arrayHolding(source, names);
  if (!where) return undefined;
  const filter = /^\$\[\?(.*)\]$/s.exec(query.text);
  const moved = filter ? `${where.slice(0, -3)}[?${filter[1]}]` : `${where}${query.text.slice(1)}`;
  return clip(`The file is one JSON document, so it is one record, and ${names.slice(0, 5).map((n) => JSON.stringify(n)).join(', ')} lie${names.length === 1 ? 's' : ''} deeper, in the elements of ${where}: query them there, e.g. ${moved} (a JSONPath; aggregate takes each = ${JSON.stringify(where)}).`, 1000);
}

/**
 * A JSONPath to the elements of a one-document file's first top-level array whose first 16 elements hold one of
 * `names` as a member (`$["3166-2"][*]`; `$[*]` for the document's own elements), or undefined (none, or the document
 * too large to parse for a hint).
 */
export function arrayHolding(source: RecordSource, names: readonly string[]): string | undefined {
  let doc: unknown;
  try { doc = source.value(0); } catch { return undefined; }
  const holds = (a: unknown) => Array.isArray(a) && a.slice(0, 16).some((e) => e !== null && typeof e === 'object' && !Array.isArray(e) && names.some((n) => Object.hasOwn(e, n)));
  if (holds(doc)) return '$[*]';
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) return undefined;
  for (const [k, v] of Object.entries(doc)) {
    if (holds(v)) return `$${/^[A-Za-z_][A-Za-z0-9_]*$/.test(k) ? `.${k}` : `[${JSON.stringify(k)}]`}[*]`;
  }
  return undefined;
}

/**
 * The other reason a query written for one addressing mode finds nothing in the other (see docs/architecture.md
 * "Two addressing modes"): with each record as `$`, a first segment `$[?…]`, `$[0]` or `$[1:]` steps into a record's
 * children — the query was written for the file as an array of records; with the file as `$`, a first segment
 * `$.name` names a member of that array, which has none — it was written for one record. Only for such a first
 * segment, the same query runs once more in the other mode until its first node, for at most `limits.detailTimeMs` (and within
 * the call's deadline; a look that finds nothing in that time, or fails, gives no hint). Undefined when it finds
 * nothing there either.
 */
async function otherAddressingHint(ctx: ToolContext, source: RecordSource, query: CompiledQuery, used: Addressing): Promise<string | undefined> {
  const first = query.segments?.[0];
  if (!first || first.descendant || source.count === 0) return undefined;
  const kinds = first.selectors.map((s) => s.kind);
  const suspicious = used === 'record' ? kinds.some((k) => k === 'filter' || k === 'index' || k === 'slice') : kinds.includes('name');
  if (!suspicious) return undefined;
  let node: { record: number; path: string } | undefined;
  try {
    // At most detailTimeMs more: an answer that is truly empty pays a bounded look, not a second full scan.
    const deadline = Math.min(ctx.deadline, ctx.clock.now() + ctx.limits.detailTimeMs);
    const r = await ctx.scan.run({ source, query, addressing: used === 'record' ? 'file' : 'record', unit: 'nodes', limit: 1, signal: ctx.signal, deadline });
    node = r.nodes[0];
  } catch {
    return undefined;
  }
  if (!node) return undefined;
  if (used === 'record') {
    return clip('Each record is $ here, so a first segment $[…] looks at the children of a record, and none matched. With $ as the whole '
      + `file (an array of the records) the query does match, first at ${node.path}. To select records by their own members, test the `
      + 'record\'s member itself (e.g. $.status == "failed" rather than $[?@.status == "failed"]).', 1000);
  }
  return clip('$ is the whole file here (an array of the records), so a member name right after $ names nothing. With each record as $ '
    + `the query matches, first in record ${node.record} at ${node.path}: write $[*].name for a member of every record, or `
    + '$[?@.name == …] to select records.', 1000);
}

/**
 * With the file as `$` (an array of its records), the record a first segment of one index selector (`$[96856]`) or
 * pointer token (`/96856`) names when the file has no such record; undefined otherwise.
 */
function recordPastTheEnd(query: CompiledQuery, count: number): string | undefined {
  const first = query.segments?.[0];
  if (!first || first.descendant || first.selectors.length !== 1) return undefined;
  const s = first.selectors[0]!;
  if (s.kind === 'index') return s.index >= count || s.index < -count ? String(s.index) : undefined;
  // RFC 6901 §4: an array index token is 0 or digits without a leading zero
  if (s.kind === 'token' && /^(0|[1-9]\d*)$/.test(s.token) && Number(s.token) >= count) return s.token;
  return undefined;
}

/** A pointer's first reference token when it is `-` or a negative number (`/-1`): no array index (RFC 6901 §4). */
function negativeToken(query: CompiledQuery): string | undefined {
  const first = query.segments?.[0];
  if (!first || first.descendant || first.selectors.length !== 1) return undefined;
  const s = first.selectors[0]!;
  return s.kind === 'token' && /^-(\d+)?$/.test(s.token) ? s.token : undefined;
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
