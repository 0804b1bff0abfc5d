import { z } from 'zod';
import type { ToolContext, ToolDefinition } from 'mcpgw/plugin-api';
import { baseType, type ClickHouseEngine } from './clickhouse';
import { averageText, exactNumber, plainDecimal } from './exact';
import { predicateToSql, PredicateSyntaxError, quoteColumn } from './predicate';

/**
 * The explorer's aggregate and sample_records over a ClickHouse dataset, translated to SQL: the same arguments (a
 * dataset instead of a handle) and the same answers as on a local file of the same rows; docs/tools-sql.md lists
 * where they differ.
 */

interface ColumnInfo { name: string; type: string }

/** The numeral of a value from ClickHouse's answer (a number, a quoted 64-bit integer, or an exact `JSON.rawJSON`). */
function numeral(v: unknown): string {
  if (v !== null && typeof v === 'object' && 'rawJSON' in (v as object)) return (v as { rawJSON: string }).rawJSON;
  return String(v);
}

const isInt = (t: string) => /^U?Int\d+$/.test(baseType(t));
const decimalScale = (t: string) => { const m = /^Decimal\(\d+,\s*(\d+)\)$/.exec(baseType(t)) ?? /^Decimal(?:32|64|128)\((\d+)\)$/.exec(baseType(t)); return m ? Number(m[1]) : null; };
const isFloat = (t: string) => /^Float(32|64)$/.test(baseType(t));
const isDateTime = (t: string) => /^DateTime(\(.*\))?$/.test(baseType(t));
const isString = (t: string) => /^(String|FixedString\(\d+\)|Enum(8|16)\(.*\))$/.test(baseType(t));

function checkDataset(ctx: ToolContext, engine: ClickHouseEngine | undefined, name: string): ClickHouseEngine {
  if (!engine || !engine.has(name)) {
    const names = engine?.names() ?? [];
    throw ctx.error('NOT_FOUND', `No dataset named ${JSON.stringify(name)}.`, { hint: names.length ? `Configured datasets: ${names.join(', ')}.` : 'No dataset is configured (config sql.datasets).' });
  }
  return engine;
}

async function columnsOf(ctx: ToolContext, engine: ClickHouseEngine, dataset: string): Promise<ColumnInfo[]> {
  const r = await engine.query(ctx, dataset, `DESCRIBE TABLE ${engine.quotedTable(dataset)}`);
  return r.data.map((row) => ({ name: String(row[0]), type: String(row[1]) }));
}

/** `$.user.name`, `/user/name`, `user.name` → the column `user.name`; INVALID_ARGUMENT for one the dataset lacks. */
function column(ctx: ToolContext, columns: ColumnInfo[], path: string, what: string): ColumnInfo {
  const name = path.trim().replace(/^\$\.?/, '').replace(/^\//, '').replace(/\//g, '.');
  const c = columns.find((x) => x.name === name);
  if (!c) {
    throw ctx.error('INVALID_ARGUMENT', `${what}: the dataset has no column ${JSON.stringify(name)}.`, { hint: `Columns: ${columns.map((x) => x.name).slice(0, 40).join(', ')}.` });
  }
  return c;
}

/** A key or metric value from ClickHouse's JSON as the explorer writes it. */
function shown(value: unknown, type: string, kind: 'value' | 'time'): unknown {
  if (value === null || value === undefined) return null;
  if (kind === 'time') return new Date(Number(numeral(value)) * 1000).toISOString().replace('.000Z', 'Z');
  if (typeof value === 'string' && (isInt(type) || decimalScale(type) !== null)) return exactNumber(value);
  if (typeof value === 'object' && value !== null && 'rawJSON' in (value as object)) return value;
  return value;
}

const aggInput = z.object({
  dataset: z.string().describe('A configured dataset (sql_tables lists them)'),
  where: z.string().min(1).optional().describe('A record predicate as aggregate takes ($.status == "failed" && $.latency_ms > 100)'),
  match_case: z.boolean().default(false),
  group_by: z.union([z.string(), z.array(z.string()).max(8)]).optional(),
  metrics: z.array(z.string()).max(16).optional(),
  bucket: z.object({ path: z.string(), width: z.union([z.string(), z.number()]) }).optional(),
  top: z.number().int().min(0).default(20),
  order: z.string().default('count_desc'),
  cursor: z.string().optional(),
});
const aggOutput = z.object({
  groups: z.array(z.object({ key: z.unknown(), count: z.number().int() }).catchall(z.unknown())),
  groups_total: z.number().int(),
  records_scanned: z.number().int(),
  records_matched: z.number().int(),
  complete: z.boolean(),
  next_cursor: z.string().optional(),
  group_by: z.array(z.string()),
  metrics: z.array(z.string()),
  order: z.string(),
  engine: z.string(),
  warnings: z.array(z.object({ code: z.string(), message: z.string() })).optional(),
});

const DURATION = /^\s*(\d+)\s*(s|m|h|d|w)\s*$/;
const UNIT_S: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400, w: 604_800 };

export function datasetAggregate(engine: ClickHouseEngine | undefined): ToolDefinition<typeof aggInput, typeof aggOutput> {
  return {
    name: 'dataset_aggregate',
    title: 'Aggregate a dataset',
    description:
      'aggregate over a configured ClickHouse dataset (sql_tables lists them), run by the cluster: the same arguments and answer as aggregate, with dataset instead of handle. ' +
      'group_by columns, metrics count/sum/avg/min/max/count_distinct (sums and averages exact), bucket {path, width: 100 | "1h"}, where as aggregate takes it, order, top, cursor.',
    inputSchema: aggInput,
    outputSchema: aggOutput,
    annotations: { readOnlyHint: true, openWorldHint: false },
    async handler(args, ctx) {
      const ch = checkDataset(ctx, engine, args.dataset);
      const columns = await columnsOf(ctx, ch, args.dataset);
      const table = ch.quotedTable(args.dataset);
      const warnings: { code: string; message: string }[] = [];
      const groupBy = args.group_by === undefined ? [] : typeof args.group_by === 'string' ? [args.group_by] : args.group_by;
      const dims: { sql: string; type: string; kind: 'value' | 'time'; name: string }[] = [];
      for (const p of groupBy) {
        const c = column(ctx, columns, p, 'group_by');
        dims.push(isDateTime(c.type) ? { sql: `toUnixTimestamp(${quoteColumn(c.name)})`, type: 'UInt32', kind: 'time', name: p } : { sql: quoteColumn(c.name), type: c.type, kind: 'value', name: p });
      }
      if (args.bucket) {
        const c = column(ctx, columns, args.bucket.path, 'bucket.path');
        const w = args.bucket.width;
        const d = typeof w === 'string' ? DURATION.exec(w) : null;
        if (d) {
          if (!isDateTime(c.type)) throw ctx.error('INVALID_ARGUMENT', `bucket: a duration width needs a DateTime column; ${c.name} is ${c.type}.`);
          const s = Number(d[1]) * UNIT_S[d[2]!]!;
          dims.push({ sql: `intDiv(toUnixTimestamp(${quoteColumn(c.name)}), ${s}) * ${s}`, type: 'UInt32', kind: 'time', name: args.bucket.path });
        } else {
          const width = typeof w === 'number' ? String(w) : w.trim();
          if (!/^[1-9]\d*$/.test(width) || !isInt(c.type)) {
            throw ctx.error('INVALID_ARGUMENT', `bucket on a dataset takes an integer width over an integer column, or a duration ("15m", "1h", "1d") over a DateTime column; got ${JSON.stringify(w)} over ${c.name} (${c.type}).`);
          }
          const col = `toInt64(${quoteColumn(c.name)})`;
          dims.push({ sql: `(intDiv(${col}, ${width}) - if(${col} < 0 AND ${col} % ${width} != 0, 1, 0)) * ${width}`, type: 'Int64', kind: 'value', name: args.bucket.path });
        }
      }
      const metricNames: string[] = [];
      const metricSql: string[] = [];
      const metricKinds: { kind: string; type: string; at: number }[] = [];
      for (const text of args.metrics ?? []) {
        const t = text.trim();
        if (t === 'count' || t === 'count()' || t === 'count(*)') continue;
        const m = /^(count_distinct|sum|avg|min|max)\s*\(([\s\S]+)\)$/.exec(t);
        if (!m) throw ctx.error('INVALID_ARGUMENT', `Unknown metric ${JSON.stringify(text)}.`, { hint: 'Metrics: count, count_distinct(path), sum(path), avg(path), min(path), max(path).' });
        const name = `${m[1]}(${m[2]!.trim()})`;
        if (metricNames.includes(name)) continue;
        const c = column(ctx, columns, m[2]!, `metric ${name}`);
        const q = quoteColumn(c.name);
        const at = metricSql.length;
        const scale = decimalScale(c.type);
        const exactSum = isInt(c.type) ? `sum(toDecimal128(${q}, 0))` : scale !== null ? `sum(toDecimal128(${q}, ${scale}))` : `sum(${q})`;
        if ((m[1] === 'sum' || m[1] === 'avg') && !isInt(c.type) && scale === null && !isFloat(c.type)) {
          throw ctx.error('INVALID_ARGUMENT', `${name}: ${c.name} is ${c.type}, not a number column.`);
        }
        if ((m[1] === 'sum' || m[1] === 'avg') && isFloat(c.type)) warnings.push({ code: 'INEXACT_SUM', message: `${name} adds ${c.type} values in binary floating point: it may be inexact.` });
        if (m[1] === 'count_distinct') metricSql.push(`uniqExact(${q})`);
        else if (m[1] === 'sum') metricSql.push(exactSum);
        else if (m[1] === 'avg') metricSql.push(exactSum, `count(${q})`);
        else if (isDateTime(c.type)) metricSql.push(`toUnixTimestamp(${m[1]}(${q}))`);
        else metricSql.push(`${m[1]}(${q})`);
        metricKinds.push({ kind: m[1]!, type: isDateTime(c.type) ? 'time' : c.type, at });
        metricNames.push(name);
      }
      let where = '';
      if (args.where !== undefined) {
        try {
          where = predicateToSql(args.where, args.match_case, (name) => { const c = columns.find((x) => x.name === name); return c ? isString(c.type) : false; });
        } catch (err) {
          if (err instanceof PredicateSyntaxError) throw ctx.error('QUERY_SYNTAX_ERROR', `Bad predicate in where at character ${err.position}: ${err.message}`, { location: { position: err.position } });
          throw err;
        }
        for (const name of [...args.where.matchAll(/\$\.?([A-Za-z_][A-Za-z0-9_.]*)/g)].map((x) => x[1]!)) column(ctx, columns, name, 'where');
      }
      const om = /^\s*([\s\S]*?)[\s_]+(asc|desc)\s*$/.exec(args.order);
      const by = om?.[1]?.trim();
      const dir = om?.[2] === 'desc' ? 'DESC' : 'ASC';
      const keyOrder = dims.map((_, i) => `k${i} ASC`);
      let orderSql: string;
      if (by === 'count') orderSql = [`c ${dir}`, ...keyOrder].join(', ');
      else if (by === 'key') orderSql = dims.length ? dims.map((_, i) => `k${i} ${dir}`).join(', ') : 'c DESC';
      else {
        const j = by === undefined ? -1 : metricNames.findIndex((n) => n.replace(/\s+/g, '') === by.replace(/\s+/g, ''));
        if (j < 0) throw ctx.error('INVALID_ARGUMENT', `Bad order ${JSON.stringify(args.order)}.`, { hint: 'order: count_desc (default), count_asc, key_asc, key_desc, or a metric of this call with _asc/_desc.' });
        const mk = metricKinds[j]!;
        orderSql = [mk.kind === 'avg' ? `m${mk.at} / nullIf(m${mk.at + 1}, 0) ${dir}` : `m${mk.at} ${dir}`, ...keyOrder].join(', ');
      }
      const offset = args.cursor !== undefined ? decodeCursor(ctx, args.cursor, args) : 0;
      const select = [...dims.map((d, i) => `${d.sql} AS k${i}`), 'count() AS c', ...metricSql.map((s, i) => `${s} AS m${i}`)].join(', ');
      const whereSql = where ? ` WHERE ${where}` : '';
      const groupSql = dims.length ? ` GROUP BY ${dims.map((_, i) => `k${i}`).join(', ')}` : '';
      const groupsAnswer = await ch.query(ctx, args.dataset, `SELECT ${select} FROM ${table}${whereSql}${groupSql} ORDER BY ${orderSql} LIMIT ${Math.min(args.top, ctx.limits.maxItems)} OFFSET ${offset}`);
      const stats = await ch.query(ctx, args.dataset,
        `SELECT (SELECT count() FROM ${table}), (SELECT count() FROM ${table}${whereSql}), (SELECT count() FROM (SELECT ${dims.length ? dims.map((d, i) => `${d.sql} AS k${i}`).join(', ') : '1'} FROM ${table}${whereSql}${groupSql}))`);
      const [scanned, matched, grouped] = stats.data[0]!.map((v) => Number(numeral(v)));
      const total = dims.length ? grouped : 1;
      const groups = groupsAnswer.data.map((row) => {
        const keys = dims.map((d, i) => shown(row[i], d.type, d.kind));
        const count = Number(numeral(row[dims.length]));
        const g: { key: unknown; count: number; [k: string]: unknown } = { key: dims.length === 0 ? null : dims.length === 1 ? keys[0] : keys, count };
        metricKinds.forEach((mk, j) => {
          const v = row[dims.length + 1 + mk.at];
          const text = v === null || v === undefined ? null : numeral(v);
          if (mk.kind === 'avg') {
            const n = BigInt(numeral(row[dims.length + 2 + mk.at]));
            g[metricNames[j]!] = n === 0n || text === null ? null : isFloat(mk.type) ? Number(text) / Number(n) : exactNumber(averageText(text, n));
          } else if (mk.kind === 'sum') {
            g[metricNames[j]!] = text === null ? null : isFloat(mk.type) ? Number(text) : exactNumber(plainDecimal(text));
          } else if (mk.kind === 'count_distinct') {
            g[metricNames[j]!] = Number(text);
          } else {
            g[metricNames[j]!] = mk.type === 'time' ? shown(v, 'UInt32', 'time') : shown(v, mk.type, 'value');
          }
        });
        return g;
      });
      const shownUntil = offset + groups.length;
      const out: z.input<typeof aggOutput> = {
        groups, groups_total: total!, records_scanned: scanned!, records_matched: matched!, complete: true,
        group_by: dims.map((d) => d.name), metrics: ['count', ...metricNames], order: args.order, engine: 'clickhouse',
      };
      if (shownUntil < total! && args.top > 0) out.next_cursor = encodeCursor(shownUntil, args);
      if (warnings.length) out.warnings = warnings;
      return out;
    },
  };
}

function signature(args: z.output<typeof aggInput>): string {
  return JSON.stringify([args.dataset, args.where ?? null, args.match_case, args.group_by ?? null, args.metrics ?? [], args.bucket ?? null, args.order, args.top]);
}
function encodeCursor(offset: number, args: z.output<typeof aggInput>): string {
  return `dg_${Buffer.from(JSON.stringify([offset, signature(args)])).toString('base64url')}`;
}
function decodeCursor(ctx: ToolContext, cursor: string, args: z.output<typeof aggInput>): number {
  try {
    const [offset, sig] = JSON.parse(Buffer.from(cursor.replace(/^dg_/, ''), 'base64url').toString()) as [number, string];
    if (sig !== signature(args) || !Number.isInteger(offset) || offset < 0) throw new Error('mismatch');
    return offset;
  } catch {
    throw ctx.error('INVALID_ARGUMENT', 'This cursor belongs to another dataset_aggregate: pass the same arguments as the call that returned it.');
  }
}

const sampleInput = z.object({
  dataset: z.string(),
  count: z.number().int().min(0).default(5),
  strategy: z.enum(['first', 'last', 'even']).default('first'),
  fields: z.array(z.string()).max(64).optional(),
});
const sampleOutput = z.object({
  records: z.array(z.object({ index: z.number().int(), record: z.string() })),
  total_records: z.number().int(),
  strategy: z.string(),
  engine: z.string(),
});

export function datasetSample(engine: ClickHouseEngine | undefined): ToolDefinition<typeof sampleInput, typeof sampleOutput> {
  return {
    name: 'dataset_sample_records',
    title: 'Sample a dataset',
    description: 'sample_records over a configured ClickHouse dataset: first, last or evenly spread rows in the dataset\'s order (its orderBy), each as compact JSON text with exact numbers and RFC 3339 UTC times.',
    inputSchema: sampleInput,
    outputSchema: sampleOutput,
    annotations: { readOnlyHint: true, openWorldHint: false },
    async handler(args, ctx) {
      const ch = checkDataset(ctx, engine, args.dataset);
      const columns = await columnsOf(ctx, ch, args.dataset);
      const table = ch.quotedTable(args.dataset);
      const chosen = args.fields ? args.fields.map((f) => column(ctx, columns, f, 'fields')) : columns;
      const order = (ch.config(args.dataset).orderBy ?? [columns[0]!.name]).map((n) => quoteColumn(n)).join(', ');
      const total = Number(numeral((await ch.query(ctx, args.dataset, `SELECT count() FROM ${table}`)).data[0]![0]));
      const n = Math.min(args.count, total, ctx.limits.maxItems);
      let indexes: number[];
      if (args.strategy === 'last') indexes = Array.from({ length: n }, (_, i) => total - n + i);
      else if (args.strategy === 'even') indexes = n === 1 ? [0] : [...new Set(Array.from({ length: n }, (_, i) => Math.floor((i * (total - 1)) / (n - 1))))];
      else indexes = Array.from({ length: n }, (_, i) => i);
      const list = chosen.map((c) => (isDateTime(c.type) ? `toUnixTimestamp(${quoteColumn(c.name)})` : quoteColumn(c.name))).join(', ');
      const records: { index: number; record: string }[] = [];
      const rowsOf = async (from: number, count: number) => (await ch.query(ctx, args.dataset, `SELECT ${list} FROM ${table} ORDER BY ${order} LIMIT ${count} OFFSET ${from}`)).data;
      const text = (row: unknown[]) => JSON.stringify(Object.fromEntries(chosen.map((c, i) => [c.name, isDateTime(c.type) ? shown(row[i], 'UInt32', 'time') : shown(row[i], c.type, 'value')])));
      if (args.strategy === 'even') {
        for (const i of indexes) records.push({ index: i, record: text((await rowsOf(i, 1))[0]!) });
      } else if (indexes.length) {
        (await rowsOf(indexes[0]!, indexes.length)).forEach((row, k) => records.push({ index: indexes[0]! + k, record: text(row) }));
      }
      return { records, total_records: total, strategy: args.strategy, engine: 'clickhouse' };
    },
  };
}
