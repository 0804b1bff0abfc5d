import { z } from 'zod';
import type { CompiledQuery, RecordSource, ScanNode, ScanPosition, ToolContext, ToolDefinition } from 'mcpgw/plugin-api';
import { byteLength, itemPart, itemText, type Item, type ItemPart } from '../items';
import { fileIdArg, formatArg, pathArg, warningLocation, warningSchema, type Warning } from '../schemas';
import { cursorTable, evictedIds, fileTable, release, withRead, type ReaderCursor, type ReaderFile } from '../state';
import { emptyAnswerHint } from '../toolkit';
import { checkRoom, openSource } from './json-open';

/**
 * One flat, closed object advertised in tools/list: a top-level oneOf/anyOf is refused by several
 * model APIs' tool schemas, so the three shapes are checked by the handler (exactly one, no mixing).
 */
const input = z.object({
  cursor: z.string().min(1).max(256).optional(),
  file_id: fileIdArg.optional(),
  path: pathArg.optional(),
  format: formatArg.optional(),
  language: z.string().min(1).max(256).optional(),
  query: z.string().max(16384).optional(),
  max_items: z.number().int().min(1).optional(),
  max_result_bytes: z.number().int().min(1).optional(),
  count: z.boolean().optional(),
});
type Input = z.output<typeof input>;

const output = z.object({
  file_id: z.string().optional().describe('The handle read (for an implicit read: only when a cursor is returned, to close it early)'),
  language: z.string(),
  query: z.string(),
  items: z.array(z.object({
    path: z.string().describe('RFC 6901 pointer from the file root'),
    value: z.unknown().describe('The value (numbers exact); with value_truncated, a string: part of its JSON text'),
    value_truncated: z.literal(true).optional().describe('The value is too large for a page: value holds bytes [offset, next_offset) of its JSON text as in the file; next_cursor continues it'),
    value_bytes: z.number().int().optional().describe('Bytes of the whole value\'s JSON text'),
    offset: z.number().int().optional(),
    next_offset: z.number().int().optional().describe('Where the next part starts (absent on the last part)'),
  })),
  complete: z.boolean().describe('false: more matches remain (next_cursor continues), or the read reached the request deadline'),
  next_cursor: z.string().optional().describe('Opaque, single use: pass as {cursor} for the next page'),
  count: z.number().int().optional().describe('With count: true, the nodes the query selects in the whole file (a lower bound while complete is false: next_cursor continues the count)'),
  stats: z.object({
    returned: z.number().int(),
    skipped: z.number().int().describe('malformed records this page\'s scan parsed and passed over'),
    unparsed: z.number().int().optional().describe('records this page\'s scan ruled out by the query\'s byte prefilter without parsing them (absent: none); a malformed one among them is not in skipped'),
  }),
  warnings: z.array(warningSchema).optional(),
  hint: z.string().optional().describe('When the whole answer is empty: the member names the query uses that no record examined has (with the nearest names seen), or that the query matches with each record as $'),
});
type Output = z.input<typeof output>;

/** Placeholder ids of the exact length of real ones (prefix + 16 hex digits), for sizing a page before ids exist. */
const ID_PLACEHOLDER = { file: 'jf_0000000000000000', cursor: 'jc_0000000000000000' };

type Shape =
  | { kind: 'cursor'; cursor: string }
  | { kind: 'file'; fileId: string; language: string; query: string; count: boolean }
  | { kind: 'path'; path: string; format?: string; language: string; query: string; count: boolean };

/** Exactly one of the three shapes. @throws INVALID_ARGUMENT naming the offending keys */
export function shapeOf(args: Input, ctx: ToolContext): Shape {
  const present = (Object.keys(args) as (keyof Input)[]).filter((k) => args[k] !== undefined);
  const hint = 'json_read takes exactly one of: {cursor}; {file_id, language, query, max_items?, max_result_bytes?, count?}; {path, format?, language, query, max_items?, max_result_bytes?, count?}.';
  const leaders = present.filter((k) => k === 'cursor' || k === 'file_id' || k === 'path');
  if (leaders.length !== 1) {
    throw ctx.error('INVALID_ARGUMENT', leaders.length === 0 ? 'json_read needs a cursor, a file_id or a path.' : `json_read got ${leaders.join(' and ')} together: they belong to different argument shapes.`, { hint });
  }
  const allowed: Record<string, readonly string[]> = {
    cursor: ['cursor'],
    file_id: ['file_id', 'language', 'query', 'max_items', 'max_result_bytes', 'count'],
    path: ['path', 'format', 'language', 'query', 'max_items', 'max_result_bytes', 'count'],
  };
  const leader = leaders[0]!;
  const extra = present.filter((k) => !allowed[leader]!.includes(k));
  if (extra.length) throw ctx.error('INVALID_ARGUMENT', `json_read with ${leader} does not take ${extra.join(', ')}.`, { hint });
  if (leader === 'cursor') return { kind: 'cursor', cursor: args.cursor! };
  const missing = (['language', 'query'] as const).filter((k) => args[k] === undefined);
  if (missing.length) throw ctx.error('INVALID_ARGUMENT', `json_read with ${leader} needs ${missing.join(' and ')}.`, { hint });
  const count = args.count === true;
  if (leader === 'file_id') return { kind: 'file', fileId: args.file_id!, language: args.language!, query: args.query!, count };
  return { kind: 'path', path: args.path!, ...(args.format !== undefined ? { format: args.format } : {}), language: args.language!, query: args.query!, count };
}

/** The registered language's compiled query. @throws INVALID_ARGUMENT (unknown language), QUERY_SYNTAX_ERROR, UNSUPPORTED_QUERY_FEATURE */
function compile(ctx: ToolContext, language: string, query: string): CompiledQuery {
  const lang = ctx.registry.queryLanguages.get(language);
  if (!lang) {
    const all = ctx.registry.queryLanguages.list();
    throw ctx.error('INVALID_ARGUMENT', `Unknown query language "${language}". Registered: ${all.map((l) => l.name).join(', ') || '(none)'}.`, {
      hint: all.length ? `language is one of: ${all.map((l) => (l.description ? `"${l.name}" (${l.description})` : `"${l.name}"`)).join('; ')}.` : 'No loaded plugin registers a query language.',
    });
  }
  try {
    return lang.compile(query);
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if (typeof code === 'string') throw err;
    throw ctx.error('QUERY_SYNTAX_ERROR', `Invalid ${language} query: ${(err as Error).message}`, { cause: err });
  }
}

interface PageSpec {
  language: string;
  query: string;
  compiled: CompiledQuery;
  position: ScanPosition | undefined;
  maxItems: number;
  maxResultBytes: number;
  /** A cursor continuing an item cut by the previous page. */
  part?: ItemPart;
  /** count: true — only count nodes; `counted` holds those counted by earlier pages (a count the deadline stopped). */
  count?: { counted: number };
  /** Malformed records the read's earlier pages skipped. */
  skippedEarlier?: number;
}

interface Page {
  result: Output;
  next: ScanPosition | null;
  /** The page ends inside the item at `next`: the cursor continues it from this part. */
  part?: ItemPart;
  /** count: true — nodes counted up to `next` (this page and the ones before). */
  counted?: number;
  /** Malformed records this page and the ones before skipped. */
  skipped: number;
}

/**
 * Reads one page on `file` (counted in its reads): identity check, engine scan from `position` with the page
 * built item by item against the byte cap as the engine streams it, identity check again.
 * The page holds whole items while they fit max_result_bytes and ends before the first that does not (its position
 * is the cursor); an item too large for any page comes alone, in parts (`value_truncated`, `value_bytes`, `offset`,
 * `next_offset`: bytes of its JSON text as in the file, cut on character boundaries), the cursor continuing it.
 * `result.file_id` / `next_cursor` hold placeholders of the real ids' length; the caller fills them.
 * @throws SOURCE_CHANGED, CANCELLED, RESOURCE_LIMIT_EXCEEDED (max_result_bytes too small for one character of an item)
 */
async function readPage(ctx: ToolContext, file: ReaderFile, spec: PageSpec, showFileId: boolean): Promise<Page> {
  const { source, realPath } = file.opened;
  const tooSmall = (path: string, size: number) => ctx.error('RESOURCE_LIMIT_EXCEEDED', `max_result_bytes (${spec.maxResultBytes}) cannot hold even one character of the item at ${JSON.stringify(path.slice(0, 200))} (${size} bytes of JSON text) with the page around it.`, {
    limit: { name: 'max_result_bytes', limit: spec.maxResultBytes, value: size },
    location: { path },
    hint: 'Raise max_result_bytes (up to the server maxResultBytes), or read a part of the value with a deeper query.',
  });
  // The page is built as the engine streams it (sink), measured item by item against a lower bound of the envelope
  // (no cursor, no warnings, one-digit stats); the exact size is checked at the end, dropping whole items from the end
  // if the cursor and warnings need their room. A part is sized against the envelope with a cursor, both ids and
  // five-digit stats (it is alone on its page and cannot be dropped); when the scan's warnings do not fit beside it,
  // it is cut again against the exact answer around it (warnings, cursor, stats).
  const items: Item[] = [];
  const positions: (ScanPosition | null)[] = [];
  let part: ItemPart | undefined;
  let continuing = spec.part;
  let bytes = byteLength({ ...(showFileId ? { file_id: ID_PLACEHOLDER.file } : {}), language: spec.language, query: spec.query, items: [], complete: true, stats: { returned: 0, skipped: 0 } });
  const reserve = byteLength({ file_id: ID_PLACEHOLDER.file, language: spec.language, query: spec.query, items: [], complete: false, next_cursor: ID_PLACEHOLDER.cursor, stats: { returned: 99999, skipped: 99999, unparsed: 9999999 } }) - bytes;
  const nodesOf: ScanNode[] = [];
  /** Records the scan passed over (and ruled out unparsed) before each node the page took (kept when the page drops the node again). */
  const skippedAtNode = new Map<ScanPosition, number>();
  const unparsedAtNode = new Map<ScanPosition, number>();
  const add = (item: Item, node: ScanNode) => {
    bytes += byteLength(item) + (items.length > 0 ? 1 : 0);
    items.push(item);
    positions.push(node.position ?? null);
    nodesOf.push(node);
    if (node.position && node.skippedBefore !== undefined) skippedAtNode.set(node.position, node.skippedBefore);
    if (node.position && node.unparsedBefore !== undefined) unparsedAtNode.set(node.position, node.unparsedBefore);
  };
  /** The part of `node` from `offset` that fits the rest of the page; sets `part` when more remains. */
  const cut = (node: ScanNode, offset: number, room = spec.maxResultBytes - bytes - reserve - (items.length > 0 ? 1 : 0)) => {
    const text = itemText(source, node, ctx.limits.maxRecordBytes);
    const item = itemPart(node.path, text, offset, room, ctx.json);
    if (!item) throw tooSmall(node.path, text.size);
    add(item, node);
    if (item.next_offset !== undefined) part = { path: node.path, offset: item.next_offset };
  };
  const sink = (nodes: readonly ScanNode[]): number => {
    for (let i = 0; i < nodes.length; i++) {
      const node = nodes[i]!;
      if (continuing) {
        // the item the previous page cut: its next part
        if (node.path !== continuing.path) throw ctx.error('SOURCE_CHANGED', `The read no longer finds the item at ${JSON.stringify(continuing.path)} where its cursor continues.`, { hint: 'Read again from the start.' });
        const offset = continuing.offset;
        continuing = undefined;
        cut(node, offset);
        if (part) return i;
        continue;
      }
      let item: Item | null = null;
      if (!node.node || node.node.byteLength <= spec.maxResultBytes) {
        try {
          item = { path: node.path, value: node.value };
        } catch (err) {
          // a value over maxRecordBytes cannot be parsed: it is read in parts
          if ((err as { limit?: { name?: string } }).limit?.name !== 'maxRecordBytes') throw err;
        }
      }
      const size = item ? byteLength(item) + (items.length > 0 ? 1 : 0) : Number.POSITIVE_INFINITY;
      if (item && bytes + size <= spec.maxResultBytes) {
        add(item, node);
        continue;
      }
      if (items.length > 0) return i; // the page ends before this item; the next starts with it
      cut(node, 0);
      if (part) return i;
    }
    return nodes.length;
  };

  ctx.files.verify(source, realPath);
  const outcome = await ctx.scan.run({
    source,
    query: spec.compiled,
    addressing: 'file',
    unit: 'nodes',
    ...(spec.position ? { resume: spec.position } : {}),
    // A count: limit 0 with countAll counts every node and holds none; `next` is then only a deadline's stop.
    ...(spec.count ? { limit: 0, countAll: true } : { limit: spec.maxItems, sink }),
    signal: ctx.signal,
    deadline: ctx.deadline,
    onProgress: (done, total) => ctx.progress(done, total, spec.count ? 'counting' : 'reading'),
  });
  let next = outcome.next ?? null;
  if (outcome.nodes.length > 0) {
    // an engine that ignores `sink` returns the nodes
    const taken = sink(outcome.nodes);
    if (taken < outcome.nodes.length) {
      const first = outcome.nodes[taken]!;
      if (first.position && first.skippedBefore !== undefined) skippedAtNode.set(first.position, first.skippedBefore);
      if (first.position && first.unparsedBefore !== undefined) unparsedAtNode.set(first.position, first.unparsedBefore);
      next = first.position ?? next;
    }
  }
  if (ctx.signal.aborted) throw ctx.error('CANCELLED', 'The request was cancelled.');
  ctx.files.verify(source, realPath);

  const counted = spec.count ? spec.count.counted + (outcome.total ?? 0) : undefined;
  if (items.length === 0 && !counted && outcome.skipped > 0 && addressesOneRecord(spec.compiled, source.count)) {
    // The query names one record (a pointer "/7/…", "$[7]…") and that record is malformed (or could not be
    // evaluated): reading it is the error (docs/architecture.md "Records and formats"), not an empty answer with a warning.
    const first = outcome.firstSkipped[0];
    const limited = first?.code === 'RESOURCE_LIMIT_EXCEEDED';
    const limit = first?.limit ?? 'requestTimeoutMs';
    // A record over maxRecordBytes: said of the record and of the query as given (the engine's message names the part
    // of the query inside the record).
    const message = limit === 'maxRecordBytes' && first
      ? `Record ${first.record_index} is over maxRecordBytes (${ctx.limits.maxRecordBytes} bytes): it is not parsed whole, and the query ${JSON.stringify(clip(spec.compiled.text, 200))} is not evaluated over its parts.`
      : first?.message ?? 'The record this query addresses is not valid JSON.';
    throw ctx.error(limited ? 'RESOURCE_LIMIT_EXCEEDED' : 'SYNTAX_ERROR', message, {
      ...(first ? { location: warningLocation(first) } : {}),
      ...(limited ? { limit: { name: limit, limit: (ctx.limits as unknown as Record<string, number>)[limit] ?? 0 } } : {}),
      hint: !limited ? 'The record is malformed in the file; other records can still be read.' : LIMIT_HINTS[limit] ?? LIMIT_HINTS.requestTimeoutMs!,
    });
  }
  // Notes about the query itself (a match()/search() pattern that is not I-Regexp), then about records.
  const queryWarnings: Warning[] = (spec.compiled.warnings ?? []).map((w) => ({ code: w.code, message: clip(w.message, 1000), ...(w.position !== undefined ? { location: { position: w.position } } : {}) }));
  // The page reports the records passed over before the place it ends: the engine's end (its count), or a node the
  // page ends before (the count the engine gave that node). The next page, which starts there, reports the rest.
  const skippedBefore = (end: ScanPosition | null) => {
    const atEnd = end === null || end === outcome.next;
    const count = atEnd ? outcome.skipped : skippedAtNode.get(end) ?? outcome.skipped;
    const unparsed = atEnd ? outcome.unparsed ?? 0 : unparsedAtNode.get(end) ?? outcome.unparsed ?? 0;
    return { count, first: outcome.firstSkipped.slice(0, count), unparsed };
  };
  const warningsBefore = (end: ScanPosition | null): Warning[] => {
    const { count, first: firstSkipped, unparsed } = skippedBefore(end);
    const warnings = [...queryWarnings];
    // Records that could not be evaluated in time (at most one a page: the page stops there), each with its reason.
    const unevaluated = firstSkipped.filter((s) => s.code !== 'SYNTAX_ERROR');
    for (const s of unevaluated) warnings.push({ code: s.code, message: clip(s.message, 1000), location: warningLocation(s) });
    const malformed = count - unevaluated.length;
    if (malformed > 0) {
      const first = firstSkipped.find((s) => s.code === 'SYNTAX_ERROR');
      const where = first?.record_index !== undefined ? `; the first is record ${first.record_index}${first.line !== undefined ? ` (line ${first.line})` : ''}` : '';
      warnings.push({
        code: 'SYNTAX_ERROR',
        // Said before the record's own message, so the 1,000-character cut never drops it.
        message: clip(`${malformed} malformed record(s) skipped${unparsed > 0 ? ` (among the records parsed; the ${unparsed} the query ruled out without parsing them were not checked: stats.unparsed)` : ''}${where}${first?.message ? `: ${first.message}` : ''}`, 1000),
        ...(first ? { location: warningLocation(first) } : {}),
      });
    }
    // The last page of a read on a file whose malformed records json_open counted: those the pages did not skip.
    const known = file.validated;
    const skippedInAll = (spec.skippedEarlier ?? 0) + count;
    if (end === null && known && known.records === source.count && known.malformedRecords > skippedInAll) {
      const missed = known.malformedRecords - skippedInAll;
      warnings.push({
        code: 'SYNTAX_ERROR',
        message: `The file holds ${known.malformedRecords} malformed record(s) (json_open's validation); this read skipped ${skippedInAll} of them. The other ${missed} lie in records the query did not parse (stats.unparsed: ruled out by its byte prefilter or by its filter on the members it reads) or does not address: nothing in them could be selected, and they are not in stats.skipped.`,
      });
    }
    return warnings;
  };
  // Nothing at all: say which member names of the query no record has, and the nearest ones seen (when it fits).
  let hint = items.length === 0 && !counted && next === null && spec.position === undefined ? await emptyAnswerHint(ctx, source, spec.compiled, 'file') : undefined;
  // Comparisons with numbers (in any filter of the query, any language that gives its checks) that strings reading as
  // numbers did not meet, and existence tests that passed false or null: counted by the engine in file addressing, on
  // the first page.
  const notes = ctx.scan.queryNotes ?? ctx.scan.numberLikeStrings;
  const numberNotes = spec.position === undefined && source.rootIsSequence && notes
    ? (await notes.call(ctx.scan, spec.compiled, { source, addressing: 'file', unit: 'records', signal: ctx.signal, deadline: ctx.deadline })).map((w) => ({ code: w.code, message: w.message }))
    : [];
  const build = (): Output => ({
    ...(showFileId || next !== null ? { file_id: ID_PLACEHOLDER.file } : {}),
    language: spec.language,
    query: spec.query,
    items,
    complete: next === null,
    ...(next !== null ? { next_cursor: ID_PLACEHOLDER.cursor } : {}),
    ...(counted !== undefined ? { count: counted } : {}),
    stats: { returned: items.length, skipped: skippedBefore(next).count, ...(skippedBefore(next).unparsed > 0 ? { unparsed: skippedBefore(next).unparsed } : {}) },
    ...(warningsBefore(next).length + numberNotes.length ? { warnings: [...warningsBefore(next), ...numberNotes] } : {}),
    ...(hint ? { hint } : {}),
  });
  let result = build();
  if (hint && byteLength(result) > spec.maxResultBytes) {
    hint = undefined;
    result = build();
  }
  // Exact (ids are placeholders of their final length): warnings may need the room of the last whole items.
  while (byteLength(result) > spec.maxResultBytes && items.length > 1 && positions[items.length - 1]) {
    next = positions.pop()!;
    items.pop();
    nodesOf.pop();
    result = build();
  }
  if (byteLength(result) > spec.maxResultBytes && items.length === 1 && positions[0]) {
    // One item that fits only without the room the rest of the answer takes (cursor, warnings, stats): it comes
    // alone, in parts, cut against that exact room (the cursor's counted, as a part always leaves one).
    const node = nodesOf[0]!;
    const offset = items[0]!.value_truncated ? items[0]!.offset ?? 0 : 0;
    items.length = 0;
    positions.length = 0;
    nodesOf.length = 0;
    part = undefined;
    const atNode = node.position!;
    const after = items0Next(next, atNode);
    hint = undefined;
    next = atNode;
    const withCursor = byteLength(build());
    next = after;
    cut(node, offset, spec.maxResultBytes - Math.max(withCursor, byteLength(build())));
    next = part ? atNode : after;
    result = build();
  }
  if (byteLength(result) > spec.maxResultBytes) {
    throw ctx.error('RESOURCE_LIMIT_EXCEEDED', `This page is over max_result_bytes (${spec.maxResultBytes}): ${byteLength(result)} bytes.`, {
      limit: { name: 'max_result_bytes', limit: spec.maxResultBytes, value: byteLength(result) },
      hint: 'Raise max_result_bytes up to the server maxResultBytes.',
    });
  }
  return { result, next, ...(part && next !== null ? { part } : {}), ...(counted !== undefined ? { counted } : {}), skipped: (spec.skippedEarlier ?? 0) + result.stats.skipped };
}

/** Where the page continues after its one item: `next` unless it points at the item itself (a part that continues). */
function items0Next(next: ScanPosition | null, atItem: ScanPosition): ScanPosition | null {
  return next && next.record === atItem.record && next.node === atItem.node && JSON.stringify(next.at) === JSON.stringify(atItem.at) ? null : next;
}

/** What to do about a record a limit stopped, by the limit's name. */
const LIMIT_HINTS: Record<string, string> = {
  requestTimeoutMs: 'The query takes too long on this record (a regular expression, or a very large record); simplify the query.',
  maxNodes: 'The query selects or walks more nodes of this record than maxNodes allows: narrow it (fewer descendant segments, names instead of wildcards).',
  maxDepth: 'The record nests deeper than maxDepth; raise limits.maxDepth if such nesting is expected.',
  maxRecordBytes: 'The record is longer than maxRecordBytes: read inside it with the explorer\'s get_value_at_path (open_file, then the path inside the record: it reads values of any size in parts), or raise limits.maxRecordBytes.',
};

/** True when a whole-file query can select inside one record at most (its split range holds one index). */
function addressesOneRecord(compiled: CompiledQuery, count: number): boolean {
  if (!compiled.split || compiled.split.test) return false;
  const { start, end, step } = compiled.split.range(count);
  return end > start && Math.ceil((end - start) / Math.max(1, step)) === 1;
}

/** `text` cut to at most `max` UTF-16 units without splitting a surrogate pair. */
function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.charCodeAt(max - 1) >= 0xd800 && text.charCodeAt(max - 1) <= 0xdbff ? max - 1 : max;
  return text.slice(0, cut);
}

/** Issues the cursor for `next` on `fileId`. @throws RESOURCE_LIMIT_EXCEEDED (maxCursors) */
function issueCursor(ctx: ToolContext, fileId: string, file: ReaderFile, spec: PageSpec, next: ScanPosition, part: ItemPart | undefined, counted: number | undefined, skipped: number): string {
  const cursor: ReaderCursor = {
    fileId, language: spec.language, query: spec.query, compiled: spec.compiled, position: next, maxItems: spec.maxItems, maxResultBytes: spec.maxResultBytes,
    ...(part ? { part } : {}), ...(counted !== undefined ? { counted } : {}), ...(skipped > 0 ? { skippedEarlier: skipped } : {}),
  };
  const id = cursorTable(ctx).add(cursor);
  file.cursors.add(id);
  return id;
}

/**
 * Closes an implicit handle once a read on it is complete and none of its cursors remains; while other reads run on
 * it, the last of them closes it (withRead).
 */
function closeImplicit(ctx: ToolContext, fileId: string, file: ReaderFile): void {
  if (file.cursors.size > 0) return;
  if (file.reads > 1) {
    file.closeWhenIdle = true;
    return;
  }
  fileTable(ctx).delete(fileId);
  void release(ctx, file);
}

const DESCRIPTION = (languages: string) =>
  'Read values by a query (pointer /0/id, JSONPath $[*].id) over the whole file, in pages: {items: [{path, value}], complete, next_cursor}. ' +
  `Send one of: {cursor}; {file_id, language, query}; {path, language, query}. language: ${languages}. count: true only counts. [?@.x] tests presence, not truth. ` +
  'A value too big for a page comes in parts (value_truncated)';

export const jsonRead: ToolDefinition<typeof input, typeof output> = {
  name: 'json_read',
  title: 'Read by query',
  description: DESCRIPTION('pointer, jsonpath'),
  advertise: (registry) => ({ description: DESCRIPTION(registry.queryLanguages.list().map((l) => l.name).join(', ')) }),
  inputSchema: input,
  outputSchema: output,
  annotations: { readOnlyHint: true, openWorldHint: false },
  async handler(args, ctx) {
    const shape = shapeOf(args, ctx);
    const files = fileTable(ctx);
    const cap = (asked: number | undefined, limit: number) => Math.min(asked ?? limit, limit);

    if (shape.kind === 'cursor') {
      const cursors = cursorTable(ctx);
      const cursor = cursors.get(shape.cursor);
      let file: ReaderFile;
      try {
        file = files.get(cursor.fileId);
      } catch (err) {
        if (evictedIds(ctx).has(cursor.fileId)) {
          throw ctx.error('HANDLE_EXPIRED', 'This cursor\'s file was opened by an implicit read ({path, …}) and was closed to make room for other files (maxOpenFiles).', {
            hint: 'Run the read again; to keep a file open across many reads, open it with json_open.',
          });
        }
        throw err;
      }
      const spec: PageSpec = { ...cursor, position: cursor.position, ...(cursor.counted !== undefined ? { count: { counted: cursor.counted } } : {}) };
      return withRead(ctx, cursor.fileId, file, async () => {
        const page = await readPage(ctx, file, spec, true);
        // A cancelled continuation keeps its cursor: consume it only for an answer that will be sent.
        if (ctx.signal.aborted) throw ctx.error('CANCELLED', 'The request was cancelled.');
        if (cursors.consume(shape.cursor)) file.cursors.delete(shape.cursor);
        return finish(ctx, cursor.fileId, file, spec, page);
      });
    }

    const maxItems = cap(args.max_items, ctx.limits.maxItems);
    const maxResultBytes = cap(args.max_result_bytes, ctx.limits.maxResultBytes);

    if (shape.kind === 'file') {
      const file = files.get(shape.fileId);
      const spec: PageSpec = { language: shape.language, query: shape.query, compiled: compile(ctx, shape.language, shape.query), position: undefined, maxItems, maxResultBytes, ...(shape.count ? { count: { counted: 0 } } : {}) };
      return withRead(ctx, shape.fileId, file, async () => finish(ctx, shape.fileId, file, spec, await readPage(ctx, file, spec, true)));
    }

    // Implicit open: compile first (cheap errors before any indexing); reuse this session's implicit handle of the
    // same path and format when the file is unchanged (reads on one handle run side by side); else make room, open, read.
    const spec: PageSpec = { language: shape.language, query: shape.query, compiled: compile(ctx, shape.language, shape.query), position: undefined, maxItems, maxResultBytes, ...(shape.count ? { count: { counted: 0 } } : {}) };
    const key = `${shape.format ?? 'auto'}\u0000${shape.path}`;
    for (const [id, f] of files.entries()) {
      if (!f.implicit || f.implicitKey !== key || f.closed) continue;
      try {
        ctx.files.verify(f.opened.source, f.opened.realPath);
      } catch {
        files.delete(id);
        void release(ctx, f);
        break;
      }
      return withRead(ctx, id, f, async () => finish(ctx, id, f, spec, await readPage(ctx, f, spec, false)));
    }
    checkRoom(ctx);
    const opened = await openSource(ctx, shape.path, shape.format);
    const file: ReaderFile = { opened, implicit: true, implicitKey: key, reads: 0, idle: null, closed: false, cursors: new Set() };
    let page: Page;
    try {
      page = await withRead(ctx, '', file, () => readPage(ctx, file, spec, false));
      if (page.next === null) {
        opened.close();
        return page.result;
      }
    } catch (err) {
      opened.close();
      throw err;
    }
    let fileId: string;
    try {
      fileId = files.add(file);
    } catch (err) {
      opened.close();
      throw err;
    }
    return finish(ctx, fileId, file, spec, page);
  },
};

/** Fills in the real ids: a new cursor when the page is not the last, else closes an implicit handle. */
function finish(ctx: ToolContext, fileId: string, file: ReaderFile, spec: PageSpec, page: Page): Output {
  const { result } = page;
  if (result.file_id !== undefined) result.file_id = fileId;
  if (page.next === null) {
    if (file.implicit) closeImplicit(ctx, fileId, file);
    return result;
  }
  if (file.closed) {
    // json_close ran while this page was read: the handle's cursors are void, so none is issued
    // (complete stays false: more matches remain in the file).
    delete result.next_cursor;
    return result;
  }
  try {
    result.next_cursor = issueCursor(ctx, fileId, file, spec, page.next, page.part, page.counted, page.skipped);
  } catch (err) {
    if (file.implicit) closeImplicit(ctx, fileId, file);
    throw err;
  }
  return result;
}

