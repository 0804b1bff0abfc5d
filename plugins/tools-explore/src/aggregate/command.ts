import { parseArgs } from 'node:util';
import type { CommandContext, CommandDefinition, McpgwError } from 'mcpgw/plugin-api';
import { openFile } from '../tools/open-file';
import { aggregate } from './aggregate';

/** The options `mcpgw aggregate` takes (its --help), in commander's spelling: a `<value>` after the flags takes one. */
const USAGE: readonly (readonly [string, string])[] = [
  ['-g, --group-by <path>', 'group by this path (repeat for several): status, user.country, tags[0], /a/b, $.x; a dot path or /pointer reads 0 as an index in an array and a name in an object, a JSONPath $.t[0] only as an index, $.t[\'0\'] only as a name'],
  ['-w, --where <predicate>', 'only records this accepts: $.level == "error", $.bytes > 1000, or a JSONPath query'],
  ['-l, --language <name>', 'the query language of --where (default: detected, a predicate or JSONPath); any registered one (mcpgw plugins lists them)'],
  ['-m, --metric <metric>', 'count_distinct(path), sum(path), avg(path), min(path) or max(path) (repeat for several)'],
  ['-b, --bucket <path:width>', 'bucket a number or timestamp: ts:1h, ts:15m, latency_ms:100 (ts:1h:ms for epoch milliseconds); time buckets start on Monday (1w) and at 00:00Z (1d)'],
  ['--bucket-origin <time>', 'time buckets are counted from this RFC 3339 instant (default 2000-01-03T00:00:00Z, a Monday; 1970-01-01 for Thursday weeks)'],
  ['-e, --each <jsonpath>', 'aggregate the nodes this selects in each record, e.g. $.items[*]'],
  ['-o, --order <order>', 'count_desc (default), count_asc, key_asc, key_desc, or a metric with _asc/_desc'],
  ['-t, --top <n>', 'print at most n groups (default 20)'],
  ['--match-case', 'case-sensitive string equality in --where'],
  ['-f, --format <name>', 'file format (default: detected): json, jsonl, json-seq, …'],
  ['--json', 'print the answer as JSON (every group up to --top, numbers exact)'],
];

/** A usage error (exit 2): INVALID_ARGUMENT with `message`. */
type Fail = (message: string) => McpgwError;

/**
 * `mcpgw aggregate FILE` (a plugin command: the explorer's `aggregate` tool run in this process on one file): FILE as
 * for `mcpgw query` (under `--root DIR` when given, else in its own folder, which is then the sandbox root), without a
 * request deadline, every page of groups up to `--top` gathered; prints a table (or, with `--json`, the tool's answer
 * with every group) on stdout, the answer's warnings and a progress bar (at a terminal) on stderr. Exit 2 for bad
 * arguments (INVALID_ARGUMENT, NOT_FOUND, ACCESS_DENIED), 1 for other failures.
 */
export const aggregateCommand: CommandDefinition = {
  name: 'aggregate',
  description: 'count, group, sum and bucket over a whole file and print a table (the explorer\'s aggregate tool)',
  usage: USAGE,
  file: true,
  async run(argv: readonly string[], ctx: CommandContext): Promise<number> {
    const fail: Fail = (message) => ctx.error('INVALID_ARGUMENT', message);
    const opts = parseOptions(argv, fail);
    const opened = await ctx.runTool(openFile, { path: opts.file, ...(opts.format ? { format: opts.format } : {}) });
    const bucket = opts.bucket ? { ...parseBucketFlag(opts.bucket, fail), ...(opts.bucketOrigin !== undefined ? { origin: opts.bucketOrigin } : {}) } : undefined;
    if (!bucket && opts.bucketOrigin !== undefined) throw fail('--bucket-origin goes with --bucket (a time bucket).');
    const args: Record<string, unknown> = {
      handle: opened.handle,
      ...(opts.groupBy.length ? { group_by: opts.groupBy.length === 1 ? opts.groupBy[0] : opts.groupBy } : {}),
      ...(opts.where ? { where: opts.where } : {}),
      ...(opts.language ? { language: opts.language } : {}),
      ...(opts.metric.length ? { metrics: opts.metric } : {}),
      ...(bucket ? { bucket } : {}),
      ...(opts.each ? { each: opts.each } : {}),
      ...(opts.order ? { order: opts.order } : {}),
      ...(opts.matchCase ? { match_case: true } : {}),
    };
    const page = Math.min(opts.top, ctx.limits.maxItems);
    let r = await ctx.runTool(aggregate, { ...args, top: page }) as Record<string, any>;
    const groups: Record<string, unknown>[] = [...r.groups];
    while (r.next_cursor && groups.length < opts.top) {
      r = await ctx.runTool(aggregate, { ...args, top: Math.min(page, opts.top - groups.length), cursor: r.next_cursor }) as Record<string, any>;
      groups.push(...r.groups);
    }
    const answer: Record<string, unknown> = { ...r, groups: groups.slice(0, opts.top) };
    delete answer.next_cursor;
    delete answer.cut;
    ctx.print(opts.json ? JSON.stringify(answer) + '\n' : table(answer));
    for (const w of (r.warnings ?? []) as { code: string; message: string }[]) process.stderr.write(`mcpgw: warning (${w.code}): ${w.message}\n`);
    if (typeof r.hint === 'string') process.stderr.write(`mcpgw: hint: ${r.hint}\n`);
    return 0;
  },
};

interface Options {
  file: string;
  groupBy: string[];
  metric: string[];
  where?: string;
  language?: string;
  bucket?: string;
  bucketOrigin?: string;
  each?: string;
  order?: string;
  top: number;
  matchCase: boolean;
  format?: string;
  json: boolean;
}

/** The command's arguments (after the kernel put FILE under the sandbox root). @throws McpgwError INVALID_ARGUMENT */
function parseOptions(argv: readonly string[], fail: Fail): Options {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (err) {
    throw fail(`${(err as Error).message} (run mcpgw aggregate --help)`);
  }
  const { values: v, positionals } = parsed;
  if (positionals.length !== 1) throw fail(`aggregate takes one FILE; got ${positionals.length === 0 ? 'none' : positionals.map((p) => JSON.stringify(p)).join(', ')}.`);
  let top = 20;
  if (v.top !== undefined) {
    top = Number(v.top);
    if (!Number.isInteger(top) || top < 1) throw fail(`--top: expected a whole number ≥ 1; got ${JSON.stringify(v.top)}.`);
  }
  return {
    file: positionals[0]!,
    groupBy: v['group-by'] ?? [],
    metric: v.metric ?? [],
    ...(v.where !== undefined ? { where: v.where } : {}),
    ...(v.language !== undefined ? { language: v.language } : {}),
    ...(v.bucket !== undefined ? { bucket: v.bucket } : {}),
    ...(v['bucket-origin'] !== undefined ? { bucketOrigin: v['bucket-origin'] } : {}),
    ...(v.each !== undefined ? { each: v.each } : {}),
    ...(v.order !== undefined ? { order: v.order } : {}),
    top,
    matchCase: v['match-case'] === true,
    ...(v.format !== undefined ? { format: v.format } : {}),
    json: v.json === true,
  };
}

function parse(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      'group-by': { type: 'string', short: 'g', multiple: true },
      where: { type: 'string', short: 'w' },
      language: { type: 'string', short: 'l' },
      metric: { type: 'string', short: 'm', multiple: true },
      bucket: { type: 'string', short: 'b' },
      'bucket-origin': { type: 'string' },
      each: { type: 'string', short: 'e' },
      order: { type: 'string', short: 'o' },
      top: { type: 'string', short: 't' },
      'match-case': { type: 'boolean' },
      format: { type: 'string', short: 'f' },
      json: { type: 'boolean' },
    },
  });
}

/** `ts:1h`, `latency_ms:100`, `ts:1h:ms` (epoch milliseconds) → the tool's bucket. */
export function parseBucketFlag(text: string, fail: Fail): { path: string; width: string; epoch?: 's' | 'ms' } {
  // PATH:WIDTH:UNIT first (a greedy PATH would take `ts:1h` and leave the unit as the width), then PATH:WIDTH
  const m = /^(.+):([^:]+):(s|ms)$/.exec(text) ?? /^(.+):([^:]+)()$/.exec(text);
  if (!m) throw fail(`--bucket takes PATH:WIDTH (ts:1h, latency_ms:100); got ${JSON.stringify(text)}.`);
  return { path: m[1]!, width: m[2]!, ...(m[3] ? { epoch: m[3] as 's' | 'ms' } : {}) };
}

/**
 * A cell: strings as they are unless they would read as another value (a JSON number, `null`, `true`, `false`, a
 * `(missing)`-style marker, empty, or edged with white space), everything else as JSON (exact). So the string "1" is
 * `"1"` beside the number 1, while a timestamp key `2016-12-31T00:00:00Z` stays bare.
 */
export function cell(v: unknown): string {
  if (typeof v === 'string') return v === '' || /^(-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$|null$|true$|false$|\(|\s)|\s$/.test(v) ? JSON.stringify(v) : v;
  if (v !== null && typeof v === 'object' && (v as { estimated?: boolean }).estimated) {
    const e = v as { value: number; error_bound: number };
    return `≈${e.value} ±${e.error_bound}`;
  }
  return JSON.stringify(v) ?? '';
}

/** The answer as an aligned text table: one column per group_by path and bucket, count, then one per metric. */
export function table(answer: Record<string, any>): string {
  const dims: string[] = answer.group_by;
  const metrics: string[] = answer.metrics;
  const head = [...dims, ...metrics];
  const rows: string[][] = answer.groups.map((g: Record<string, any>) => {
    const keys: unknown[] = dims.length === 0 ? [] : dims.length === 1 ? [g.key] : g.key;
    const keyCells = keys.map((k, d) => (g.missing?.includes(dims[d]) && k === null ? '(missing)' : g.unbucketable?.includes(dims[d]) && k === null ? '(not bucketable)' : cell(k)));
    return [...keyCells, ...metrics.map((m) => cell(g[m]))];
  });
  const width = head.map((h, c) => Math.max([...h].length, ...rows.map((r) => [...r[c]!].length)));
  const numeric = head.map((_, c) => c >= dims.length);
  const line = (cells: string[]) => cells.map((x, c) => (numeric[c] ? x.padStart(width[c]!) : x.padEnd(width[c]!))).join('  ').trimEnd() + '\n';
  let out = line(head) + line(width.map((w) => '-'.repeat(w)));
  for (const r of rows) out += line(r);
  const shown = answer.groups.length;
  out += `${shown} of ${answer.groups_total} group${answer.groups_total === 1 ? '' : 's'}; ${answer.records_matched} of ${answer.records_scanned} records matched${answer.units_matched !== undefined ? ` (${answer.units_matched} units)` : ''}${answer.bucket_origin !== undefined ? `; time buckets from ${answer.bucket_origin}` : ''}\n`;
  return out;
}
