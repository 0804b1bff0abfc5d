import { z } from 'zod';
import type { AggregateDimension, AggregateGroup, AggregateMetric, AggregateProgress, AggregateResult, CompiledQuery, ToolContext, ToolDefinition } from 'mcpgw/plugin-api';
import { fileFor } from '../files';
import { arrayHolding } from '../toolkit';
import { queryWarnings } from '../records';
import { cutSchema, handleArg } from '../schemas';
import { languageNames } from '../search/languages';
import { compileWhere, formatOrigin, parseBucket, parseMetric, parseOrder, singularPath, type Where } from './args';

const input = z.object({
  handle: handleArg,
  where: z.string().min(1).optional(),
  language: z.string().min(1).max(64).optional(),
  match_case: z.boolean().default(false),
  group_by: z.union([z.string(), z.array(z.string()).max(8)]).optional(),
  metrics: z.array(z.string()).max(16).optional(),
  bucket: z.object({
    path: z.string(),
    width: z.union([z.string(), z.number()]),
    epoch: z.enum(['s', 'ms']).optional(),
    origin: z.string().optional(),
  }).optional(),
  each: z.string().min(1).optional(),
  top: z.number().int().min(0).default(20),
  order: z.string().default('count_desc'),
  cursor: z.string().optional(),
});

const group = z.object({
  key: z.unknown().describe('The group_by value (a list for several paths, the bucket last; numbers exact); null for a missing member or for no group_by'),
  count: z.number().int(),
  missing: z.array(z.string()).optional().describe('The group_by / bucket paths absent from this group\'s records (key null there, unlike a null value)'),
  unbucketable: z.array(z.string()).optional().describe('The bucket path held a value that is not a number or timestamp (key null there)'),
  key_truncated: z.boolean().optional().describe('The key is too long to show: key holds the start of its JSON text'),
  metrics_truncated: z.array(z.string()).optional().describe('Metrics too long to show (min/max of long strings): each holds the start of its JSON text'),
}).catchall(z.unknown()).describe('Plus one member per metric, named as asked ("sum(bytes)"): a number (exact), a string (min/max of strings), null, or {value, estimated: true, error_bound} for a distinct count past the exact bound');

const output = z.object({
  groups: z.array(group),
  groups_total: z.number().int().describe('Groups in all (so far, while complete is false)'),
  records_scanned: z.number().int(),
  records_matched: z.number().int().describe('Records that count (that pass where; with each: that hold a unit that counts)'),
  units_matched: z.number().int().optional().describe('With each: the units that count (the sum of the counts)'),
  complete: z.boolean().describe('false: the scan stopped at the request deadline; the groups so far are shown and next_cursor continues the scan'),
  next_cursor: z.string().optional().describe('Continues the scan (complete false), or gives the next page of groups'),
  group_by: z.array(z.string()),
  metrics: z.array(z.string()),
  order: z.string(),
  filter: z.string().optional().describe('For a where predicate: the RFC 9535 filter it was translated to'),
  bucket_origin: z.string().optional().describe('Time buckets: key = origin + k × width'),
  hint: z.string().optional().describe('A group_by path no record has, with the nearest names (or, in a one-document file, the each that reaches it)'),
  cut: cutSchema.optional(),
  warnings: z.array(z.object({ code: z.string(), message: z.string(), record_index: z.number().int().optional(), line: z.number().int().optional() })).optional(),
});

type Args = z.output<typeof input>;
type Output = z.input<typeof output>;
type Row = z.input<typeof group>;

/** A cursor: a scan to continue, or the next page of a finished one. */
type AggregateCursor =
  | { handle: string; signature: string; kind: 'scan'; resume: AggregateProgress }
  | { handle: string; signature: string; kind: 'groups'; offset: number; rows: Row[] | null; result: Omit<Output, 'groups' | 'next_cursor' | 'cut'> };

function cursorTable(ctx: ToolContext) {
  return ctx.session.handles<AggregateCursor>('explore.aggregate', {
    style: 'random', prefix: 'ac_', noun: 'aggregate cursor', limit: 'maxCursors', idleMs: ctx.limits.cursorIdleMs, max: ctx.limits.maxCursors,
    expiredHint: 'Run the aggregate again (the same handle and arguments, without cursor); the file stays open.',
    // Full: the least recently used cursor is dropped (a client abandons cursors without a word).
    whenFull: 'evict',
  });
}

/** Bytes kept free in a page for the envelope around the groups. */
const ENVELOPE_RESERVE = 2048;
/** Finished groups a cursor keeps for its next pages (estimated JSON bytes); past it the next page scans again. */
const CURSOR_ROWS_BYTES = 8 * 1024 * 1024;
/** A key or metric longer than this (JSON bytes) is shown as the start of its JSON text, marked truncated. */
const KEY_BYTES = 1024;

interface Spec {
  dimensions: AggregateDimension[];
  dimensionNames: string[];
  metrics: AggregateMetric[];
  metricNames: string[];
  /** What the engine evaluates as where (null also when a predicate joined `each`). */
  where: { query: CompiledQuery; as: 'filter' | 'select' } | null;
  /** For a where predicate: its RFC 9535 filter. */
  filter?: string;
  each: CompiledQuery | null;
  /** Time buckets: their origin, RFC 3339 UTC. */
  bucketOrigin?: string;
}

function prepare(ctx: ToolContext, args: Args): Spec {
  const groupBy = args.group_by === undefined ? [] : typeof args.group_by === 'string' ? [args.group_by] : args.group_by;
  const dimensions: AggregateDimension[] = groupBy.map((p) => ({ kind: 'value', path: singularPath(ctx, p, 'group_by') }));
  const dimensionNames = [...groupBy];
  let bucketOrigin: string | undefined;
  if (args.bucket) {
    const dim = parseBucket(ctx, args.bucket);
    dimensions.push(dim);
    dimensionNames.push(args.bucket.path);
    if (dim.kind === 'bucket' && dim.width.unit === 'ms') bucketOrigin = formatOrigin(dim.width.origin!);
  }
  const metrics: AggregateMetric[] = [];
  const metricNames: string[] = [];
  for (const text of args.metrics ?? []) {
    const m = parseMetric(ctx, text);
    if (m && !metricNames.includes(m.name)) { metrics.push({ kind: m.kind, path: m.path, ...(m.numeric ? { numeric: true } : {}) }); metricNames.push(m.name); }
  }
  if (args.language !== undefined && args.where === undefined) throw ctx.error('INVALID_ARGUMENT', 'language names the language of where; this call has no where.', { hint: 'Pass where with it, or drop language.' });
  const where: Where | null = args.where !== undefined ? compileWhere(ctx, args.where, args.match_case, args.language) : null;
  const base = { dimensions, dimensionNames, metrics, metricNames, ...(where?.filter ? { filter: where.filter } : {}), ...(bucketOrigin !== undefined ? { bucketOrigin } : {}) };
  let each: CompiledQuery | null = null;
  if (args.each !== undefined) {
    const language = ctx.registry.queryLanguages.get('jsonpath');
    if (!language) throw ctx.error('UNSUPPORTED_QUERY_FEATURE', 'each needs the jsonpath query language, which no loaded plugin registers.');
    const text = args.each.trim();
    // A predicate joins an each that ends with a wildcard as its filter ($.items[*] → $.items[?filter]): it then runs
    // inside the engine's scan (worker threads, deadline) rather than on each unit afterwards.
    const wildcard = /(\[\s*\*\s*\]|\.\*)$/.exec(text);
    if (where?.filter && wildcard) {
      each = language.compile(`${text.slice(0, wildcard.index)}[?${where.filter}]`, { maxDepth: ctx.limits.maxDepth });
      return { ...base, where: null, each };
    }
    each = language.compile(text, { maxDepth: ctx.limits.maxDepth });
  }
  return { ...base, where: where ? { query: where.query, as: where.as } : null, each };
}

const DESCRIPTION = (languages: string) =>
  'Count, group, sum and bucket all records without reading them: {groups: [{key, count, …metrics}], complete, next_cursor}. ' +
  'group_by: a path or list (status, user.country). metrics: sum(bytes), count_distinct(user.id), avg, min, max; exact. bucket: {path: ts, width: 1h}. ' +
  `where, language: as search's query, language (${languages}); bare $.x: presence. each: units in a record ($.items[*]). order: count_desc, key_asc, sum(bytes)_desc`;

export const aggregate: ToolDefinition<typeof input, typeof output> = {
  name: 'aggregate',
  title: 'Aggregate records',
  description: DESCRIPTION('jsonpath, predicate'),
  advertise: (registry) => ({ description: DESCRIPTION(languageNames(registry)) }),
  inputSchema: input,
  outputSchema: output,
  annotations: { readOnlyHint: true, openWorldHint: false },
  async handler(args, ctx) {
    const file = fileFor(ctx, args.handle);
    const source = file.opened.source;
    const spec = prepare(ctx, args);
    const order = parseOrder(ctx, args.order, spec.metricNames);
    const signature = JSON.stringify([args.handle, args.where ?? null, args.language ?? null, args.match_case, args.group_by ?? null, spec.metricNames, args.bucket ?? null, args.each ?? null, args.order]);
    const cursors = cursorTable(ctx);
    let resume: AggregateProgress | undefined;
    if (args.cursor !== undefined) {
      const c = cursors.get(args.cursor);
      if (c.handle !== args.handle || c.signature !== signature) {
        throw ctx.error('INVALID_ARGUMENT', 'This cursor belongs to another aggregate: pass the same handle, where, language, match_case, group_by, metrics, bucket, each and order as the call that returned it.');
      }
      if (c.kind === 'groups' && c.rows) {
        cursors.delete(args.cursor);
        return page(ctx, args, signature, c.rows, c.offset, c.result);
      }
      if (c.kind === 'scan') resume = c.resume;
      const offset = c.kind === 'groups' ? c.offset : 0;
      const r = await run(ctx, file.opened.path, source, spec, order, resume);
      cursors.delete(args.cursor);
      return answer(ctx, args, signature, spec, r, offset, source);
    }
    const r = await run(ctx, file.opened.path, source, spec, order, undefined);
    return answer(ctx, args, signature, spec, r, 0, source);
  },
};

async function run(ctx: ToolContext, path: string, source: Parameters<ToolContext['scan']['aggregate']>[0]['source'], spec: Spec, order: ReturnType<typeof parseOrder>, resume: AggregateProgress | undefined): Promise<AggregateResult> {
  return ctx.scan.aggregate({
    source,
    ...(spec.where ? { where: spec.where } : {}),
    ...(spec.each ? { each: spec.each } : {}),
    dimensions: spec.dimensions,
    metrics: spec.metrics,
    order,
    ...(resume ? { resume } : {}),
    signal: ctx.signal,
    deadline: ctx.deadline,
    onProgress: (done, total) => ctx.progress(done, total, `aggregating ${path}`),
  });
}

/** The groups as the tool shows them. */
function rowsOf(ctx: ToolContext, spec: Spec, groups: AggregateGroup[]): Row[] {
  const n = spec.dimensions.length;
  // A row of a long key and long metrics still fits a page alone.
  const most = Math.max(64, Math.min(KEY_BYTES, Math.floor((ctx.limits.maxResultBytes - ENVELOPE_RESERVE) / (spec.metricNames.length + 2) / 2)));
  return groups.map((g) => {
    const row: Row = { key: n === 0 ? null : n === 1 ? g.key[0] : g.key, count: g.count };
    if (g.missing.length) row.missing = g.missing.map((d) => spec.dimensionNames[d]!);
    if (g.unbucketable.length) row.unbucketable = g.unbucketable.map((d) => spec.dimensionNames[d]!);
    const cut: string[] = [];
    spec.metricNames.forEach((name, j) => {
      const text = JSON.stringify(g.metrics[j]) ?? 'null';
      if (Buffer.byteLength(text) > most) { row[name] = clip(ctx, text, most); cut.push(name); }
      else row[name] = g.metrics[j];
    });
    if (cut.length) row.metrics_truncated = cut;
    const keyText = JSON.stringify(row.key) ?? 'null';
    if (Buffer.byteLength(keyText) > most) {
      row.key = clip(ctx, keyText, most);
      row.key_truncated = true;
    }
    return row;
  });
}

/** The start of a JSON text, at most `bytes` of UTF-8, cut as every tool cuts JSON text (ctx.json: on a character boundary outside escapes), marked with `…`. */
function clip(ctx: ToolContext, text: string, bytes: number): string {
  return ctx.json.page(text, { indent: '', maxBytes: bytes }).text + '…';
}

/**
 * For a finished aggregate whose group_by or bucket path no record has (every group's key missing there): the member
 * names of those paths that no record examined has, with the nearest names seen (`statsu` → "status"), as search gives
 * them (ctx.scan.missingMembers: a sample from the start of the file, said when it did not reach the end).
 */
async function missingPathHint(ctx: ToolContext, spec: Spec, r: AggregateResult, source: Parameters<ToolContext['scan']['missingMembers']>[0]): Promise<string | undefined> {
  if (!r.complete || r.groups.length === 0) return undefined;
  // A bucket path whose every value was neither a number nor a time: one group of null keys, said why.
  const unbucketable = spec.dimensions.map((_, d) => d).filter((d) => r.groups.every((g) => g.unbucketable.includes(d)));
  if (unbucketable.length) {
    const name = spec.dimensionNames[unbucketable[0]!]!;
    return `No value of ${name} could be bucketed: bucket needs numbers (width 100) or ISO 8601 / RFC 3339 times (width "1h"), and ${name} holds neither. To count by its values, pass it as group_by.`;
  }
  const absent = spec.dimensions.map((_, d) => d).filter((d) => r.groups.every((g) => g.missing.includes(d)));
  if (absent.length === 0) return undefined;
  const names = [...new Set(absent.flatMap((d) => spec.dimensions[d]!.path.flatMap((t) => (typeof t === 'string' ? [t] : typeof t === 'object' && 'name' in t ? [t.name] : []))))];
  if (names.length === 0) return undefined;
  let found;
  try { found = await ctx.scan.missingMembers(source, names, ctx.signal); } catch { return undefined; }
  const paths = absent.map((d) => spec.dimensionNames[d]).join(', ');
  if (found.missing.length === 0) {
    // The names exist, deeper: in a file that is one document, most often in the elements of an array in it.
    if (source.rootIsSequence || source.count !== 1 || spec.each) return undefined;
    const where = arrayHolding(source, names);
    return `The file is one JSON document, so aggregate sees one record, and ${paths} is not at its top: ${names.map((n) => JSON.stringify(n)).join(', ')} ${names.length === 1 ? 'lies' : 'lie'} deeper. To aggregate the elements of an array in it, pass each${where ? ` = ${JSON.stringify(where)}` : ' (a JSONPath to them, e.g. "$.items[*]"; get_outline shows the document\'s arrays)'}.`;
  }
  const parts = found.missing.slice(0, 5).map((m) => `${JSON.stringify(m.name)}${m.nearest.length ? ` (nearest names seen: ${m.nearest.map((n) => JSON.stringify(n)).join(', ')})` : ''}`);
  const scope = found.examined >= source.count ? `no record (all ${source.count} examined)` : `none of the first ${found.examined} records examined (of ${source.count}; the others may)`;
  return `Every record lacks ${paths}: ${scope} has a member named ${parts.join('; nor ')}.`;
}

async function answer(ctx: ToolContext, args: Args, signature: string, spec: Spec, r: AggregateResult, offset: number, source: Parameters<ToolContext['scan']['missingMembers']>[0]): Promise<Output> {
  const warnings: NonNullable<Output['warnings']> = [];
  // A where comparing a path with a number: what strings reading as numbers there did not meet (first page).
  if (offset === 0 && spec.where) {
    const { numberLikeNotes } = require('../search/number-like') as typeof import('../search/number-like');
    const { predicateSpelling } = require('../search/predicate-engine') as typeof import('../search/predicate-engine');
    warnings.push(...await numberLikeNotes(ctx, source, spec.where.query, spec.where.as === 'filter' ? 'file' : 'record', spec.filter ? predicateSpelling : undefined));
  }
  // The queries' own warnings (NOT_I_REGEXP), as every explorer tool that takes a JSONPath passes them on.
  for (const q of [spec.where?.query, spec.each]) if (q) warnings.push(...queryWarnings(q));
  for (const s of r.firstSkipped) warnings.push({ code: s.code, message: `Record ${s.record_index} was skipped: ${s.message}`, record_index: s.record_index, ...(s.line !== undefined ? { line: s.line } : {}) });
  if (r.skipped > r.firstSkipped.length) warnings.push({ code: r.firstSkipped.every((s) => s.code === 'SYNTAX_ERROR') ? 'SYNTAX_ERROR' : 'RESOURCE_LIMIT_EXCEEDED', message: `${r.skipped} records were skipped in all.` });
  for (const w of r.warnings) warnings.push(w);
  const base: Omit<Output, 'groups' | 'next_cursor' | 'cut'> = {
    groups_total: r.groupsTotal ?? r.groups.length,
    records_scanned: r.recordsScanned,
    records_matched: r.recordsMatched,
    ...(spec.each ? { units_matched: r.units } : {}),
    complete: r.complete,
    group_by: spec.dimensionNames,
    metrics: ['count', ...spec.metricNames],
    order: args.order,
    ...(spec.filter ? { filter: spec.filter } : {}),
    ...(spec.bucketOrigin !== undefined ? { bucket_origin: spec.bucketOrigin } : {}),
    ...(offset === 0 ? await (async () => { const hint = await missingPathHint(ctx, spec, r, source); return hint ? { hint } : {}; })() : {}),
    ...(warnings.length ? { warnings: warnings.slice(0, 20) } : {}),
  };
  const rows = rowsOf(ctx, spec, r.groups);
  if (!r.complete) {
    // A preview of the groups so far; the cursor continues the scan (the finished answer starts from the top).
    const out = page(ctx, args, signature, rows, 0, base, false);
    out.next_cursor = cursorTable(ctx).add({ handle: args.handle, signature, kind: 'scan', resume: r.resume! });
    return out;
  }
  return page(ctx, args, signature, rows, offset, base);
}

/** Groups `offset…` up to `top` and the byte budget; a cursor for the rest when `more` (a finished scan). */
function page(ctx: ToolContext, args: Args, signature: string, rows: Row[], offset: number, base: Omit<Output, 'groups' | 'next_cursor' | 'cut'>, more = true): Output {
  const top = Math.min(args.top, ctx.limits.maxItems);
  const budget = ctx.limits.maxResultBytes - ENVELOPE_RESERVE - Buffer.byteLength(JSON.stringify(base));
  const groups: Row[] = [];
  let bytes = 0;
  let cutByBytes = false;
  let i = offset;
  for (; i < rows.length && groups.length < top; i++) {
    const size = Buffer.byteLength(JSON.stringify(rows[i])) + 1;
    if (bytes + size > budget && groups.length > 0) { cutByBytes = true; break; }
    groups.push(rows[i]!);
    bytes += size;
  }
  const out: Output = { groups, ...base };
  if (more && i < rows.length && top > 0) {
    let held: Row[] | null = rows;
    let size = 0;
    for (const r of rows) { size += JSON.stringify(r).length; if (size > CURSOR_ROWS_BYTES) { held = null; break; } }
    out.next_cursor = cursorTable(ctx).add({ handle: args.handle, signature, kind: 'groups', offset: i, rows: held, result: base });
    if (cutByBytes) out.cut = { limit: 'maxResultBytes', at: `after ${groups.length} groups (next: group ${i})`, rest: 'Pass next_cursor as cursor for the next groups, or ask for fewer metrics.' };
  }
  return out;
}
