import type { CompiledQuery, QueryLanguage, ScanResult, ToolContext } from 'mcpgw/plugin-api';
import type { QueryCursor } from './cursors';
import { translatePredicate } from './predicate';
import { filterOf, PREDICATE } from './predicate-language';
import { compileQuery, jsonPathLanguage, nodePreview, queryPage, scanQuery } from './query-page';
import { shownPreview, type Match, type Page, type SearchRequest } from './shape';

/**
 * Search with a language that selects records from their sequence (`perRecord: "sequence"`; the explorer's record
 * predicates, predicate-language.ts, which compile to the RFC 9535 query `$[?filter]`). Over a file whose root is the
 * sequence of its records the query runs with file addressing — exactly "the records it selects", which the scan
 * engine splits per record when the query gives a split (reading only the members a filter needs); over a
 * single-document file it is evaluated on `[document]`. Such a query tests records, so it counts records in any file;
 * a predicate match's preview shows the first member the predicate names that the record has (another language's: the
 * record).
 */
export async function sequenceSearch(ctx: ToolContext, request: SearchRequest<QueryCursor>, language: QueryLanguage): Promise<Page> {
  const { args, file, resume } = request;
  const source = file.opened.source;
  const query = compileQuery(ctx, language, args.query, args.match_case);
  const predicate = language.name === PREDICATE;
  const jsonpath = predicate ? jsonPathLanguage(ctx) : null;
  const pathQueries = jsonpath ? [...new Set(translatePredicate(args.query, args.match_case).paths)].flatMap((p) => {
    try { return [jsonpath.compile(p)]; } catch { return []; }
  }) : [];

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
  if (!jsonpath) return page;
  const translated = filterOf(query);
  if (!resume && source.rootIsSequence) {
    const notes = await numberLikeStrings(ctx, request, jsonpath, translated);
    if (notes.length) page.warnings = [...(page.warnings ?? []), ...notes];
  }
  // The translation of a long predicate is shown cut, with its length (the query itself is capped at 16 KiB).
  const filter = translated.length > 2048 ? `${translated.slice(0, /[\uD800-\uDBFF]/.test(translated[2047]!) ? 2047 : 2048)}… (${translated.length} characters)` : translated;
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
