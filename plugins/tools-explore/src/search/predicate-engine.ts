import type { CompiledQuery, ScanResult, ToolContext } from 'mcpgw/plugin-api';
import type { QueryCursor } from './cursors';
import { PredicateError, translatePredicate, type Predicate } from './predicate';
import { jsonPathLanguage, nodePreview, queryPage, scanQuery } from './query-page';
import { shownPreview, type Match, type Page, type SearchRequest } from './shape';

/**
 * Record predicate search: the explorer's convenience form (`$.status = "active"`, predicate.ts) translated to an
 * RFC 9535 filter. Over a file whose root is the sequence of its records it runs as `$[?<filter>]` with file
 * addressing — exactly "the records for which the filter holds", which the scan engine splits per record (reading
 * only the members the filter needs); over a single-document file it is evaluated on `[document]`. A predicate tests
 * records, so it counts records in any file; a match's preview shows the first member the predicate names that the
 * record has.
 */
export async function predicateSearch(ctx: ToolContext, request: SearchRequest<QueryCursor>): Promise<Page> {
  const { args, file, resume } = request;
  const source = file.opened.source;
  const language = jsonPathLanguage(ctx);
  const predicate = translate(ctx, args.query, args.match_case);
  const text = `$[?${predicate.filter}]`;
  let query: CompiledQuery;
  try {
    query = language.compile(text, { maxDepth: ctx.limits.maxDepth });
  } catch (err) {
    const e = err as { code?: string; message: string };
    throw ctx.error(e.code === 'UNSUPPORTED_QUERY_FEATURE' ? 'UNSUPPORTED_QUERY_FEATURE' : 'QUERY_SYNTAX_ERROR', `The record predicate translates to the RFC 9535 query ${text}, which is not valid: ${e.message}`, {
      hint: 'Comparisons take singular paths ($.a.b, $.items[0]) and literals; a path alone tests that the member exists.',
    });
  }
  const pathQueries = [...new Set(predicate.paths)].flatMap((p) => {
    try { return [language.compile(p)]; } catch { return []; }
  });

  let result: ScanResult;
  if (!source.rootIsSequence) {
    // One document: the predicate over it.
    const from = resume?.nextRecord ?? 0;
    let hit = false;
    let skipped = 0;
    const firstSkipped: ScanResult['firstSkipped'] = [];
    if (from < source.count) {
      try {
        hit = query.evaluate([source.value(0)], { maxNodes: ctx.limits.maxNodes, deadline: ctx.deadline, now: () => ctx.clock.now(), requestTimeoutMs: ctx.limits.requestTimeoutMs }).length > 0;
      } catch (err) {
        if ((err as { code?: string }).code !== 'SYNTAX_ERROR') throw err;
        skipped = 1;
        firstSkipped.push({ record_index: 0, code: 'SYNTAX_ERROR', message: (err as Error).message });
      }
    }
    result = { nodes: hit ? [{ record: 0, path: '', value: null }] : [], next: null, complete: true, total: hit ? 1 : 0, skipped, firstSkipped };
  } else {
    result = await scanQuery(ctx, request, query, 'file', 'records');
  }

  const page = await queryPage(ctx, request, query, result, 'records', (node): Match => {
    let value: unknown;
    try { value = source.value(node.record); } catch { value = undefined; }
    for (const q of pathQueries) {
      const nodes = value === undefined ? [] : q.evaluate(value, { maxNodes: ctx.limits.maxNodes, deadline: ctx.deadline, now: () => ctx.clock.now(), requestTimeoutMs: ctx.limits.requestTimeoutMs });
      if (nodes.length) return { record_index: node.record, ...shownPreview(nodePreview(nodes[0]!.path, nodes[0]!.value)), match_path: nodes[0]!.path };
    }
    return { record_index: node.record, ...shownPreview(nodePreview('', value)), match_path: '' };
  }, 'file');
  if (!resume && source.rootIsSequence) {
    const notes = await numberLikeStrings(ctx, request, language, predicate.filter);
    if (notes.length) page.warnings = [...(page.warnings ?? []), ...notes];
  }
  // The translation of a long predicate is shown cut, with its length (the query itself is capped at 16 KiB).
  const filter = predicate.filter.length > 2048 ? `${predicate.filter.slice(0, /[\uD800-\uDBFF]/.test(predicate.filter[2047]!) ? 2047 : 2048)}… (${predicate.filter.length} characters)` : predicate.filter;
  return withFilter(page, filter);
}

const PATH = String.raw`@(?:\.[A-Za-z_][\w]*|\[(?:'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|-?\d+)\])*`;
const NUM = String.raw`-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?`;
const OP = String.raw`(?:==|!=|<=|>=|<|>)`;
const PATH_OP_NUM = new RegExp(String.raw`(^|[^\w(])(${PATH})\s*${OP}\s*${NUM}`, 'g');
const NUM_OP_PATH = new RegExp(String.raw`${NUM}\s*${OP}\s*(${PATH})`, 'g');

/** The singular paths a filter compares with a number literal (`@.lat > 66.5`, `10 <= @.n`; not `number(@.lat)`), at most 3. */
export function comparedWithNumbers(filter: string): string[] {
  const out = new Set<string>();
  for (const m of filter.matchAll(PATH_OP_NUM)) out.add(m[2]!);
  for (const m of filter.matchAll(NUM_OP_PATH)) if (!filter.slice(0, m.index! + m[0].length).endsWith(`number(${m[1]})`)) out.add(m[1]!);
  return [...out].slice(0, 3);
}

/**
 * NUMBER_LIKE_STRINGS warnings: for each path the predicate compares with a number, how many records hold there a
 * string that reads as a number (`"lat": "42.53176"`), which RFC 9535 never compares with a number, so the predicate
 * passed them by without a word. Counted by a second count-only scan of the file under the same deadline (only on the
 * first page); a count cut by the deadline is given as "at least".
 */
export async function numberLikeStrings(ctx: ToolContext, { file }: Pick<SearchRequest<QueryCursor>, 'file'>, language: ReturnType<typeof jsonPathLanguage>, filter: string): Promise<{ code: string; message: string }[]> {
  const out: { code: string; message: string }[] = [];
  for (const p of comparedWithNumbers(filter)) {
    let check: CompiledQuery;
    try {
      check = language.compile(`$[?(number(${p}) >= 0 || number(${p}) < 0) && !(${p} >= 0 || ${p} < 0)]`, { maxDepth: ctx.limits.maxDepth });
    } catch { continue; }
    let r: ScanResult;
    try {
      r = await ctx.scan.run({ source: file.opened.source, query: check, addressing: 'file', unit: 'records', limit: 0, countAll: true, signal: ctx.signal, deadline: ctx.deadline });
    } catch { continue; }
    const n = r.total ?? 0;
    if (n === 0) continue;
    const shown = '$' + p.slice(1);
    out.push({
      code: 'NUMBER_LIKE_STRINGS',
      message: `${r.complete ? '' : 'At least '}${n} record${n === 1 ? '' : 's'} hold ${shown} as a string that reads as a number (such as "42.5"): JSONPath (RFC 9535) never compares a string with a number, so ${n === 1 ? 'it was' : 'they were'} passed by. To compare them as numbers write number(${shown}) in the predicate, e.g. number(${shown}) > 66.5.`,
    });
  }
  return out;
}

/** The page with `filter` placed after `next_cursor`, where the answer has always had it. */
function withFilter(page: Page, filter: string): Page {
  const { hint, cut, warnings, ...head } = page;
  return { ...head, filter, ...(hint ? { hint } : {}), ...(cut ? { cut } : {}), ...(warnings ? { warnings } : {}) };
}

function translate(ctx: ToolContext, query: string, matchCase: boolean): Predicate {
  try {
    return translatePredicate(query, matchCase);
  } catch (err) {
    if (err instanceof PredicateError) {
      throw ctx.error('QUERY_SYNTAX_ERROR', `Bad record predicate at character ${err.position}: ${err.message}`, {
        location: { position: err.position },
        hint: 'Forms: $.status = "active", $.age > 40, $.a != \'x\' && $.b >= 2, !($.tags), length($.tags) > 2; or a JSONPath query such as $.user.name.',
      });
    }
    throw err;
  }
}
