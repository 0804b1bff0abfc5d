import type { RecordBatch, ScanPosition, ToolContext } from 'mcpgw/plugin-api';
import { jsonTextStringEnd as textStringEnd } from '../toolkit';
import { projectValue } from '../records';
import { preview, tokenPreview } from '../text/preview';
import { cursorTable, knownTotal, type TextCursor } from './cursors';
import { PIECE_BYTES, recordHits, type NodeMatcher } from './nodes';
import type { RegexMatcher } from './regex';
import { cutByBytes, shownPreview, type Match, type Page, type SearchRequest, type Warning } from './shape';
import { holds, parseKeepingLexemes, TextMatcher } from './text-matcher';

// Bound once: a call through the plugin API's re-export goes through a getter every time.

/**
 * Text search: a substring (or, with `regex`, an RE2 pattern) of any decoded string value, member name, number or
 * literal. Over records (`counts` "records") a match is a record, its first hit shown; over a single document or
 * records of over 1 MiB on average (`counts` "nodes") every hit is a match, in document order. The scan holds one of
 * the server-wide scan slots (ctx.scan.slot) like every other scan, so text searches count against
 * maxConcurrentScans too.
 */
export async function textSearch(ctx: ToolContext, request: SearchRequest<TextCursor>, counts: 'nodes' | 'records', regex: RegexMatcher | null): Promise<Page> {
  const matcher = regex ?? textMatcher(ctx, request.args.query, request.args.match_case);
  const release = await ctx.scan.slot(ctx.deadline, ctx.signal);
  try {
    const page = counts === 'nodes' ? await nodeTextSearch(ctx, request, matcher) : await recordTextSearch(ctx, request, matcher);
    const hint = !regex && page.total_matches === 0 && page.complete && !request.resume ? structureHint(request.args.query) : undefined;
    return hint ? { ...page, hint } : page;
  } finally {
    release();
  }
}

/** A walk through a document lets the event loop run at least this often, ms on the clock (between its pieces). */
const YIELD_MS = 15;

/** A member written as JSON (`"status": "failed"`): its name and its value as written. */
const MEMBER = /"((?:[^"\\]|\\.)*)"\s*:\s*("(?:[^"\\]|\\.)*"|-?[0-9][0-9.eE+-]*|true|false|null)/;

/**
 * For a text query that finds nothing and spells JSON structure (`"status": "failed"`): it matched neither inside one
 * name or value nor the raw text of any record as written in the file, whose spacing and escapes may differ; the hint
 * names the predicate that tests that member whatever its spelling. Undefined for other queries.
 */
function structureHint(query: string): string | undefined {
  const m = MEMBER.exec(query);
  if (!m) return undefined;
  let name: string;
  try { name = JSON.parse(`"${m[1]}"`) as string; } catch { return undefined; }
  const path = /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) ? `$.${name}` : `$[${JSON.stringify(name)}]`;
  return `Nothing matched: text search finds a query inside one member name or value, or in a record's raw text exactly as the file writes it (its spacing and escapes may differ from ${JSON.stringify(m[0])}). To test the member whatever its spelling, search the predicate ${path} == ${m[2]}.`;
}

/**
 * The longest text searched for case-insensitively, UTF-16 units. The case-folding regular expression of a longer
 * one can fail to compile when V8 moves it to native code part way through a scan (past ~6,250 characters here,
 * whatever the letters), so the limit is checked before any record is read.
 */
const CASELESS_MAX = 4096;

function textMatcher(ctx: ToolContext, query: string, matchCase: boolean): TextMatcher {
  if (!matchCase && query.length > CASELESS_MAX) throw tooLarge(ctx, query);
  try {
    return new TextMatcher(query, matchCase);
  } catch (err) {
    // The text matcher builds regular expressions from the query; one the engine refuses (too large) is a bad argument.
    if (!(err instanceof SyntaxError)) throw err;
    throw tooLarge(ctx, query);
  }
}

const tooLarge = (ctx: ToolContext, query: string) => ctx.error('INVALID_ARGUMENT', `This text query (${query.length} characters) is too large to search for case-insensitively (at most ${CASELESS_MAX}).`, {
  hint: 'Search for a shorter text, or pass match_case: true.',
});

/**
 * Text search counting records: a matcher the engine's record loop runs (`ctx.scan.match`: batches in file order, the
 * byte prefilter `matcher.candidates` before any parse, textMatch on each candidate); a page takes up to `limit` matching records (and the byte budget), then the count runs on to the end of the file or
 * the deadline (a lower bound then; the cursor's `countFrom` is where counting continues).
 */
async function recordTextSearch(ctx: ToolContext, { args, file, fields, resume, limit, budget }: SearchRequest<TextCursor>, matcher: TextMatcher | RegexMatcher): Promise<Page> {
  const source = file.opened.source;
  const countOnly = limit === 0;
  const from = resume?.nextRecord ?? 0;
  // Matches at or after countFrom still need counting; before it they are in `resume.counted` (records appended since
  // a complete count are counted from the end that count reached).
  const countFrom = resume ? resume.countFrom ?? (source.count > resume.records ? resume.records : null) : 0;
  const matches: Match[] = [];
  const warnings: Warning[] = [];
  let malformed = 0;
  /** Records scanned without being parsed (no possible hit in their bytes or text), and those before the page's end. */
  let unparsed = 0;
  let unparsedAtNext: number | null = null;
  let pageBytes = 0;
  let counted = resume?.counted ?? 0;
  let nextRecord: number | null = null; // first matching record not in this page
  let stoppedAt: number | null = null; // deadline: first record not scanned
  let cut = false;
  const onMalformed = (i: number, err: unknown) => {
    malformed++;
    const code = (err as { code?: string }).code ?? 'SYNTAX_ERROR';
    const line = (err as { location?: { line?: number } }).location?.line;
    if (warnings.length < 5) warnings.push({ code, message: `Record ${i} was skipped: ${(err as Error).message}`, record_index: i, ...(line !== undefined ? { line } : {}) });
  };

  const take = (record: number, m: Match): boolean => {
    if (countFrom !== null && record >= countFrom) counted++;
    if (nextRecord === null && matches.length < limit) {
      if (fields) {
        try { m.record = projectValue(source.value(record), fields); } catch { /* malformed: no projection */ }
      }
      const size = Buffer.byteLength(JSON.stringify(m)) + 1;
      if (pageBytes + size <= budget || matches.length === 0) {
        matches.push(m);
        pageBytes += size;
        return true;
      }
      cut = true;
    }
    if (nextRecord === null && !countOnly) {
      nextRecord = record;
      unparsedAtNext = unparsed;
    }
    return countFrom !== null; // go on only while the total is still being counted
  };

  const piece = Math.min(PIECE_BYTES, ctx.limits.maxRecordBytes);
  /** The first hit of a record too long to read whole, found through lazy nodes (null: none; the reason is reported). */
  const firstHitInParts = (i: number): Match | null => {
    try {
      for (const e of recordHits(source, i, matcher, null, () => false, piece)) {
        if (e.kind === 'hit') return { record_index: i, ...shownPreview(e.preview), match_path: e.match_path };
      }
    } catch (err) {
      onMalformed(i, err);
    }
    return null;
  };
  // The engine's record loop runs the text matcher: its byte prefilter, then textMatch on each candidate. Unparsed:
  // the records the prefilter passed over (the engine counts them) and those textMatch found no hit in unparsed.
  let ownUnparsed = 0;
  const scanned = await ctx.scan.match<Match>({
    source, from, signal: ctx.signal, deadline: ctx.deadline,
    onProgress: (done, total) => ctx.progress(done, total, `searching ${file.opened.path}`),
    matcher: {
      candidates: (batch, onCandidate) => matcher.candidates(batch, onCandidate),
      // once the page is full (or for a count) a match is only counted: no preview
      match: (batch, k) => textMatch(batch, k, matcher, onMalformed, firstHitInParts, countOnly || nextRecord !== null, ctx.limits.maxDepth, () => ownUnparsed++),
      // a record too long to read whole: its first hit found through lazy nodes (or the reason it cannot be read)
      oversized: (i) => firstHitInParts(i),
    },
    onHit: (record, m, ruledOut) => {
      unparsed = ruledOut + ownUnparsed;
      return take(record, m);
    },
  });
  stoppedAt = scanned.stoppedAt;
  unparsed = scanned.unparsed + ownUnparsed;
  if (malformed > 5) warnings.push({ code: 'SYNTAX_ERROR', message: `${malformed} unreadable records were skipped in all.` });

  // The count is complete when it was complete before, or this scan reached the end.
  const newCountFrom = countFrom === null || stoppedAt === null ? null : Math.max(stoppedAt, countFrom);
  const complete = newCountFrom === null;
  const continueAt = nextRecord ?? stoppedAt;
  let next_cursor: string | undefined;
  if (continueAt !== null) {
    next_cursor = cursorTable(ctx).add({ handle: args.handle, query: args.query, mode: 'text', matchCase: args.match_case, ...(args.regex ? { regex: true } : {}), ...(countOnly ? { countOnly } : {}), nextRecord: continueAt, counted, countFrom: newCountFrom, records: source.count });
  }
  return {
    total_matches: counted,
    counts: 'records',
    matches,
    query: args.query,
    mode: 'text',
    complete,
    ...(next_cursor ? { next_cursor } : {}),
    ...(cut ? { cut: cutByBytes(`after ${matches.length} matches (next: record ${nextRecord})`) } : {}),
    ...((unparsedAtNext ?? unparsed) > 0 ? { unparsed: unparsedAtNext ?? unparsed } : {}),
    ...(warnings.length ? { warnings } : {}),
  };
}

/** `onUnparsed`: the record holds no hit, found without parsing it (so not checked to be well-formed). */
function textMatch(batch: RecordBatch, k: number, matcher: TextMatcher | RegexMatcher, onMalformed: (i: number, err: unknown) => void, inParts: (i: number) => Match | null, countOnly = false, maxDepth = Number.POSITIVE_INFINITY, onUnparsed: () => void = () => {}): Match | null {
  let text: string;
  let hit: ReturnType<TextMatcher['match']>;
  try {
    batch.checkFraming?.(k); // the format's framing check, as value() applies it
    text = batch.text(k); // strict UTF-8
    hit = matcher.match(text);
    // A hit counts only in a well-formed record (native parse: the cheap check), and only in what the record holds
    // once parsed (a repeated member name: the last value wins).
    let parsed: unknown;
    if (hit) {
      parsed = parseKeepingLexemes(text);
      if (!holds(parsed, hit.token, hit.decoded)) hit = matcher.match(text, parsed);
    }
    // Else the raw text as in the file (plain text search, not regex): a query spanning structure, `"status":"failed"`,
    // found in what the record holds as well (not inside a member that a repeated name replaces).
    if (!hit) {
      if (!(matcher instanceof TextMatcher) || !matcher.rawMatch(text)) {
        if (parsed === undefined) onUnparsed();
        return null;
      }
      hit = matcher.rawHits(text, [], parsed ?? parseKeepingLexemes(text), 1)[0] ?? null;
      if (!hit) return null;
    }
    // A record no tool can parse within maxDepth is skipped and reported, as the JSONPath scans skip it.
    if (nestingDepth(text) > maxDepth) {
      throw Object.assign(new Error(`Record ${batch.first + k} nests deeper than maxDepth ${maxDepth}.`), { code: 'RESOURCE_LIMIT_EXCEEDED', limit: { name: 'maxDepth', limit: maxDepth } });
    }
  } catch (err) {
    if ((err as { limit?: { name?: string } }).limit?.name === 'maxRecordBytes') return inParts(batch.first + k);
    onMalformed(batch.first + k, (err as { code?: string }).code ? err : locatedError(batch, k, err));
    return null;
  }
  if (countOnly) return { record_index: batch.first + k, preview: '', match_path: '' }; // counted, never shown
  const shown = hit.raw ? preview(text, hit.raw.start, hit.raw.end) : tokenPreview(text, hit.token, hit.decoded, hit.start, hit.end);
  return { record_index: batch.first + k, ...shownPreview(shown), match_path: hit.token.pointer };
}

/**
 * The error of a record the search's own parse rejected, located as every tool locates it: the format's strict read
 * (`RecordBatch.value`) throws SYNTAX_ERROR with the record's line, column and byte in the file. Only a malformed
 * record comes here, so reading it twice costs nothing on the way of a well-formed file.
 */
function locatedError(batch: RecordBatch, k: number, err: unknown): Error {
  try {
    batch.value(k);
  } catch (strict) {
    if ((strict as { code?: string }).code) return strict as Error;
  }
  return Object.assign(new Error(`not valid JSON (${(err as Error).message})`), { code: 'SYNTAX_ERROR' });
}

/** The deepest nesting of arrays and objects in a record's JSON text (brackets inside strings not counted). */
function nestingDepth(text: string): number {
  let depth = 0;
  let max = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) i = textStringEnd(text, i) - 1; // a string: to its closing quote
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) max = depth;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return max;
}

/**
 * Text search counting nodes (nodes.ts): every member name and value holding the text is a match, in document
 * order. A page takes up to `limit` matches (and the byte budget); the count then runs on to the end of the file
 * or the deadline (a lower bound then, counted again from the next page's start). The cursor holds the position of
 * the first match not returned: the record and the walk's trail.
 */
async function nodeTextSearch(ctx: ToolContext, { args, file, fields, resume, limit, budget }: SearchRequest<TextCursor>, matcher: NodeMatcher): Promise<Page> {
  const source = file.opened.source;
  const start: ScanPosition = resume?.position ?? { record: resume?.nextRecord ?? 0, node: 0 };
  const known = knownTotal(resume, source.count);
  const before = resume?.counted ?? 0;
  const matches: Match[] = [];
  const warnings: Warning[] = [];
  let pageBytes = 0;
  let counted = 0; // matches from `start` on
  let next: ScanPosition | null = null;
  let stopped: ScanPosition | null = null;
  let cut = false;
  // The walk asks between pieces whether to stop: at the deadline (the page ends there), or every YIELD_MS on the
  // clock to pause: the event loop runs (other requests, a cancellation), then the same walk goes on.
  let lastYield = ctx.clock.now();
  const expired = (): boolean | 'pause' => {
    const now = ctx.clock.now();
    if (now > ctx.deadline) return true;
    return now - lastYield >= YIELD_MS ? 'pause' : false;
  };
  const pause = async () => {
    await new Promise<void>((r) => setImmediate(r));
    lastYield = ctx.clock.now();
    if (ctx.signal.aborted) throw ctx.error('CANCELLED', 'The request was cancelled.');
  };
  outer: for (let i = start.record; i < source.count; i++) {
    if (ctx.signal.aborted) throw ctx.error('CANCELLED', 'The request was cancelled.');
    if (i > start.record && ctx.clock.now() > ctx.deadline) { stopped = { record: i, node: 0 }; break; }
    if (ctx.clock.now() - lastYield >= YIELD_MS) await pause();
    const at = i === start.record && start.at ? start.at : null;
    try {
      for (const e of recordHits(source, i, matcher, at, expired, Math.min(PIECE_BYTES, ctx.limits.maxRecordBytes))) {
        if (e.kind === 'pause') {
          await pause(); // the walk keeps its place: iterating it again goes on from there
          continue;
        }
        if (e.kind === 'stop') {
          stopped = { record: i, node: 0, at: e.at };
          break outer;
        }
        if (e.kind === 'skipped') {
          if (warnings.length < 5) warnings.push({ code: (e.error as { code?: string }).code ?? 'SYNTAX_ERROR', message: `Record ${i} at ${e.pointer || '""'} was not searched: ${e.error.message}`, record_index: i });
          continue;
        }
        counted++;
        if (next === null && limit > 0) { // limit 0 counts only: no page, so no `next`
          const m: Match = { record_index: i, ...shownPreview(e.preview), match_path: e.match_path };
          if (fields) {
            try { m.record = projectValue(source.value(i), fields); } catch { /* too large or malformed: no projection */ }
          }
          const size = Buffer.byteLength(JSON.stringify(m)) + 1;
          if (matches.length < limit && (pageBytes + size <= budget || matches.length === 0)) {
            matches.push(m);
            pageBytes += size;
            continue;
          }
          if (matches.length < limit) cut = true;
          next = { record: i, node: 0, at: e.at };
          if (known !== undefined) break outer; // the total is known: no need to count on
        }
      }
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (code !== 'SYNTAX_ERROR' && code !== 'RESOURCE_LIMIT_EXCEEDED') throw err;
      if (!source.rootIsSequence) throw err;
      if (warnings.length < 5) warnings.push({ code: code!, message: `Record ${i} was skipped: ${(err as Error).message}`, record_index: i });
    }
    ctx.progress(i + 1, source.count, `searching ${file.opened.path}`);
  }
  // Counted to the end unless stopped; a stop while the page was still filling is where the next page starts.
  const complete = known !== undefined || stopped === null;
  const total = known ?? Math.max(resume?.atLeast ?? 0, before + counted);
  const continueAt = next ?? stopped;
  let next_cursor: string | undefined;
  if (continueAt !== null) {
    next_cursor = cursorTable(ctx).add({
      handle: args.handle, query: args.query, mode: 'text', matchCase: args.match_case, ...(args.regex ? { regex: true } : {}),
      nextRecord: continueAt.record, position: continueAt, countFrom: null, records: source.count,
      // Count only: the cursor continues the count where the deadline stopped it, every match before it counted.
      counted: limit === 0 ? before + counted : before + matches.length, ...(limit === 0 ? { countOnly: true } : {}),
      ...(complete ? { total } : { atLeast: total }),
    });
  }
  return {
    total_matches: total,
    counts: 'nodes',
    matches,
    query: args.query,
    mode: 'text',
    complete,
    ...(next_cursor ? { next_cursor } : {}),
    ...(cut ? { cut: cutByBytes(`after ${matches.length} matches`) } : {}),
    ...(warnings.length ? { warnings } : {}),
  };
}
