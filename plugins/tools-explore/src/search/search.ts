import { z } from 'zod';
import type { CompiledQuery, RecordBatch, ToolContext, ToolDefinition } from 'mcpgw/plugin-api';
import { fileFor } from '../files';
import { handleArg } from '../schemas';
import { pointerAt } from '../text/locate';
import { preview } from '../text/preview';
import { cursorTable, type SearchCursor } from './cursors';
import { TextMatcher } from './text-matcher';

const input = z.object({
  handle: handleArg,
  query: z.string().min(1).describe('Text to find, or a JSONPath query starting with $ (e.g. $.user.name)'),
  mode: z.enum(['text', 'jsonpath']).optional().describe('Default: jsonpath when the query starts with $, else text'),
  match_case: z.boolean().default(false).describe('Case-sensitive text matching (default false)'),
  max_results: z.number().int().min(1).default(50).describe('Matches per page (default 50, at most the server maxItems)'),
  cursor: z.string().optional().describe('next_cursor of a previous call with the same handle and query'),
});

const match = z.object({
  record_index: z.number().int(),
  preview: z.string().describe('The hit with context, marked «…»'),
  match_path: z.string().nullable().describe('RFC 6901 pointer, inside the record, of the value that matched; null only for a malformed record'),
});

const output = z.object({
  total_matches: z.number().int().describe('Matching records in the whole file (a lower bound when complete is false)'),
  matches: z.array(match),
  query: z.string(),
  mode: z.enum(['text', 'jsonpath']),
  complete: z.boolean().describe('false when the scan stopped at the request deadline; next_cursor continues it'),
  next_cursor: z.string().optional(),
  warnings: z.array(z.object({ code: z.string(), message: z.string(), record_index: z.number().int().optional(), line: z.number().int().optional() })).optional(),
});

type Match = z.infer<typeof match>;
type Warning = NonNullable<z.infer<typeof output>['warnings']>[number];

/** Bytes kept free in a page for the envelope around the matches. */
const ENVELOPE_RESERVE = 2048;

export const search: ToolDefinition<typeof input, typeof output> = {
  name: 'search',
  title: 'Search records',
  description:
    'Search all records of an open file by text (substring, case-insensitive unless match_case) or JSONPath (query starts with $; a record matches when the query selects something in it). ' +
    'Returns total_matches over the whole file and a page of matches with record_index, a preview marking the hit «…» and match_path, the JSON Pointer of the matching value inside the record. ' +
    'Pass next_cursor as cursor for the next page.',
  inputSchema: input,
  outputSchema: output,
  annotations: { readOnlyHint: true, openWorldHint: false },
  async handler(args, ctx) {
    const file = fileFor(ctx, args.handle);
    const source = file.opened.source;
    const mode = args.mode ?? (args.query.trimStart().startsWith('$') ? 'jsonpath' : 'text');
    const cursors = cursorTable(ctx);
    let resume: SearchCursor | null = null;
    if (args.cursor !== undefined) {
      resume = cursors.get(args.cursor);
      if (resume.handle !== args.handle || resume.query !== args.query || resume.mode !== mode || resume.matchCase !== args.match_case) {
        throw ctx.error('INVALID_ARGUMENT', 'This cursor belongs to another search: pass the same handle, query, mode and match_case as the call that returned it.');
      }
      cursors.delete(args.cursor);
    }
    const limit = Math.min(args.max_results, ctx.limits.maxItems);
    const budget = ctx.limits.maxResultBytes - ENVELOPE_RESERVE - Buffer.byteLength(args.query) * 2;
    const from = resume?.nextRecord ?? 0;
    // Matches at or after countFrom still need counting; before it they are in `resume.counted`.
    const countFrom = resume ? resume.countFrom : 0;
    const matches: Match[] = [];
    const warnings: Warning[] = [];
    let malformed = 0;
    let pageBytes = 0;
    let counted = resume?.counted ?? 0;
    let nextRecord: number | null = null; // first matching record not in this page
    let stoppedAt: number | null = null; // deadline: first record not scanned

    const take = (record: number, make: () => Match): boolean => {
      if (countFrom !== null && record >= countFrom) counted++;
      if (nextRecord === null && matches.length < limit) {
        const m = make();
        const size = Buffer.byteLength(JSON.stringify(m)) + 1;
        if (pageBytes + size <= budget || matches.length === 0) {
          matches.push(m);
          pageBytes += size;
          return true;
        }
      }
      if (nextRecord === null) nextRecord = record;
      return countFrom !== null; // go on only while the total is still being counted
    };

    const compiled = mode === 'jsonpath' ? compileJsonPath(ctx, args.query) : null;
    const matcher = mode === 'text' ? new TextMatcher(args.query, args.match_case) : null;
    const onProgress = (done: number, total: number) => ctx.progress(done, total, `searching ${file.opened.path}`);
    for await (const batch of source.scan({ from, signal: ctx.signal, onProgress })) {
      let go = true;
      if (matcher) {
        matcher.scan(batch, (k, s, e) => (go = take(batch.first + k, () => textMatch(batch, k, s, e))));
      } else {
        for (let k = 0; k < batch.count && go; k++) {
          const hit = jsonPathMatch(batch, k, compiled!, () => {
            malformed++;
            if (warnings.length < 5) warnings.push({ code: 'SYNTAX_ERROR', message: `Record ${batch.first + k} is not valid JSON and was skipped.`, record_index: batch.first + k });
          });
          if (hit) go = take(batch.first + k, () => hit);
        }
      }
      if (!go) break;
      if (Date.now() > ctx.deadline && batch.first + batch.count < source.count) {
        stoppedAt = batch.first + batch.count;
        break;
      }
    }
    if (malformed > 5) warnings.push({ code: 'SYNTAX_ERROR', message: `${malformed} malformed records were skipped in all.` });

    // The count is complete when it was complete before, or this scan reached the end.
    const newCountFrom = countFrom === null || stoppedAt === null ? null : Math.max(stoppedAt, countFrom);
    const complete = newCountFrom === null;
    const continueAt = nextRecord ?? stoppedAt;
    let next_cursor: string | undefined;
    if (continueAt !== null) {
      next_cursor = cursors.add({ handle: args.handle, query: args.query, mode, matchCase: args.match_case, nextRecord: continueAt, counted, countFrom: newCountFrom });
    }
    const total = counted;
    return {
      total_matches: total,
      matches,
      query: args.query,
      mode,
      complete,
      ...(next_cursor ? { next_cursor } : {}),
      ...(warnings.length ? { warnings } : {}),
    };
  },
};

function compileJsonPath(ctx: ToolContext, query: string): CompiledQuery {
  const language = ctx.registries.queryLanguages.get('jsonpath');
  if (!language) {
    throw ctx.error('UNSUPPORTED_QUERY_FEATURE', 'JSONPath search is not available on this server: no loaded plugin registers the "jsonpath" query language.', {
      hint: 'Use mode "text", or enable the query-jsonpath plugin.',
    });
  }
  return language.compile(query);
}

function textMatch(batch: RecordBatch, k: number, s: number, e: number): Match {
  const [rs, re] = batch.span(k);
  const raw = batch.bytes.subarray(rs, re);
  const text = raw.toString('utf8');
  const cs = raw.subarray(0, s).toString('utf8').length;
  const ce = cs + raw.subarray(s, e).toString('utf8').length;
  return { record_index: batch.first + k, preview: preview(text, cs, ce), match_path: pointerAt(text, cs, ce) };
}

function jsonPathMatch(batch: RecordBatch, k: number, compiled: CompiledQuery, onMalformed: () => void): Match | null {
  const [s, e] = batch.span(k);
  if (compiled.requiredLiterals && compiled.requiredLiterals.length > 0) {
    const raw = batch.bytes.subarray(s, e);
    if (!compiled.requiredLiterals.some((lit) => raw.indexOf(lit) !== -1)) return null;
  }
  let value: unknown;
  try {
    value = batch.value(k);
  } catch {
    onMalformed();
    return null;
  }
  const nodes = compiled.evaluate(value);
  if (nodes.length === 0) return null;
  const first = nodes[0]!;
  let shown = JSON.stringify(first.value) ?? 'null';
  if (shown.length > 120) shown = shown.slice(0, 119) + '…';
  return { record_index: batch.first + k, preview: `${first.path || '$'} = «${shown}»`, match_path: first.path };
}
