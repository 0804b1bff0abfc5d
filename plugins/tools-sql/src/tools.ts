import { z } from 'zod';
import type { ToolContext, ToolDefinition } from 'mcpgw/plugin-api';
import { SQL_ENGINE_POINT, type RowStream, type SqlEngine, type TableInfo } from './engine';
import { verifyStamps } from "./sources";

/** The engines a call may use: the files engine, and every engine that answers for datasets, in the order provided. */
export interface Engines {
  files: SqlEngine;
  datasets: SqlEngine[];
}

/** A call's engines, from the `sql-engine` extension point's items (`filesEngine`: the one that reads files). */
export type EnginesOf = (ctx: ToolContext) => Engines;

/** The engines provided to the `sql-engine` point: `filesEngine` for files, those with `datasets()` for datasets. */
export function providedEngines(filesEngine: string): EnginesOf {
  return (ctx) => {
    const all = ctx.registry.extensions<SqlEngine>(SQL_ENGINE_POINT).list();
    const files = all.find((e) => e.name === filesEngine);
    if (!files) throw ctx.error('INTERNAL_ERROR', `No SQL engine named "${filesEngine}" is provided (sql.filesEngine).`);
    return { files, datasets: all.filter((e) => typeof e.datasets === 'function') };
  };
}

/** The engine answering for dataset `name`, or undefined. */
function datasetEngine(engines: Engines, name: string): SqlEngine | undefined {
  return engines.datasets.find((e) => e.datasets!().includes(name));
}

interface CursorState {
  stream: RowStream;
  buffer: unknown[][];
  at: number;
  maxRows: number;
}

function cursors(ctx: ToolContext) {
  return ctx.session.handles<CursorState>('sql-cursors', {
    style: 'random', prefix: 'sq_', noun: 'cursor', limit: 'maxCursors',
    idleMs: ctx.limits.cursorIdleMs, max: ctx.limits.maxCursors,
    onEvict: (s) => s.stream.close(),
    expiredHint: 'Run the query again.',
    usedHint: 'Continue from the latest next_cursor.',
    // Full: the least recently used cursor is dropped (a client abandons cursors without a word).
    whenFull: 'evict',
  });
}

const columnSchema = z.object({ name: z.string(), type: z.string().describe("The engine's type") });

const queryInput = z.object({
  sql: z.string().optional().describe('One SELECT (or EXPLAIN) statement. Required unless cursor is given'),
  path: z.string().optional().describe('A file or glob under the root, exposed as the view t (DuckDB)'),
  views: z.record(z.string(), z.string()).optional().describe('More views: name → file or glob under the root (DuckDB)'),
  dataset: z.string().optional().describe('A configured dataset (ClickHouse), exposed as the table t'),
  max_rows: z.number().int().min(1).optional().describe('Rows in this page (default 100, at most maxItems)'),
  cursor: z.string().optional().describe('next_cursor of the previous page; the other arguments are then ignored'),
});

const queryOutput = z.object({
  engine: z.string().describe('duckdb or clickhouse'),
  columns: z.array(columnSchema),
  rows: z.array(z.array(z.unknown())).describe('Values in column order; BIGINT, HUGEINT and DECIMAL as exact JSON numbers'),
  row_count: z.number().int().describe('Rows in this page'),
  truncated: z.boolean().describe('true: more rows follow (next_cursor), the page was cut at max_rows or at maxResultBytes'),
  next_cursor: z.string().optional(),
  warnings: z.array(z.string()).optional().describe('Where numbers passed through doubles, and other things to know'),
  materialized: z.array(z.string()).optional().describe('Configured tables read from their materialised copy'),
});

/** Bytes kept for the envelope of a page beside its rows (columns, cursor, warnings, the text block's repetition). */
function rowBudget(ctx: ToolContext, stream: RowStream): number {
  const envelope = Buffer.byteLength(JSON.stringify({ columns: stream.columns, warnings: stream.warnings })) + 512;
  // The text block repeats the structuredContent (resultText "full"), so a result costs about twice its rows.
  const full = ctx.answers?.resultText !== 'summary';
  return Math.floor((ctx.limits.maxResultBytes - envelope) / (full ? 2 : 1));
}

async function page(ctx: ToolContext, state: CursorState) {
  const { stream } = state;
  const budget = rowBudget(ctx, stream);
  const rows: unknown[][] = [];
  let bytes = 0;
  let more = true;
  let cutBy: 'max_rows' | 'maxResultBytes' | null = null;
  for (;;) {
    if (state.at >= state.buffer.length) {
      const next = await stream.next(ctx);
      if (!next) { more = false; break; }
      state.buffer = next;
      state.at = 0;
      continue;
    }
    if (rows.length >= state.maxRows) { cutBy = 'max_rows'; break; }
    const row = state.buffer[state.at]!;
    const size = Buffer.byteLength(JSON.stringify(row)) + 1;
    if (bytes + size > budget) {
      if (rows.length === 0) {
        stream.close();
        throw ctx.error('RESOURCE_LIMIT_EXCEEDED', `One row of the answer takes ${size} bytes, more than a result may hold (maxResultBytes ${ctx.limits.maxResultBytes}).`, {
          hint: 'Select fewer or shorter columns (substr, length).', limit: { name: 'maxResultBytes', limit: ctx.limits.maxResultBytes, value: size },
        });
      }
      cutBy = 'maxResultBytes';
      break;
    }
    rows.push(row);
    bytes += size;
    state.at++;
  }
  const warnings = [...stream.warnings];
  if (cutBy === 'maxResultBytes') warnings.push(`The page was cut at ${rows.length} rows to stay within maxResultBytes (${ctx.limits.maxResultBytes}); next_cursor continues.`);
  const out: z.input<typeof queryOutput> = { engine: stream.engine, columns: stream.columns, rows, row_count: rows.length, truncated: more };
  if (more) out.next_cursor = cursors(ctx).add(state);
  else stream.close();
  if (warnings.length) out.warnings = warnings;
  if (stream.materialized?.length) out.materialized = stream.materialized;
  return out;
}

export function sqlQuery(enginesOf: EnginesOf): ToolDefinition<typeof queryInput, typeof queryOutput> {
  return {
    name: 'sql_query',
    title: 'Run one SQL SELECT',
    description:
      'Run one SELECT (or EXPLAIN) and page its rows. DuckDB over files under the root: path (a file or glob) is the view t, ' +
      'views adds more (name → path), e.g. {"sql": "SELECT status, count(*) FROM t GROUP BY 1", "path": "events.jsonl"}. ' +
      'ClickHouse over a configured dataset: dataset is the table t. Nothing else is readable; nothing is written. ' +
      'Answers: columns with types, rows (exact BIGINT/HUGEINT/DECIMAL), truncated and next_cursor (pass it as cursor), warnings where numbers passed through doubles. ' +
      'For exact sums over JSON numbers prefer aggregate.',
    inputSchema: queryInput,
    outputSchema: queryOutput,
    annotations: { readOnlyHint: true, openWorldHint: false },
    async handler(args, ctx) {
      // DuckDB runs here, on this machine's cores: one of the server-wide scan slots (maxConcurrentScans) while it
      // computes a page, as a scan does. ClickHouse computes elsewhere and takes none.
      const engines = enginesOf(ctx);
      // Only the files engine computes here; a dataset's engine computes elsewhere.
      const local = args.dataset === undefined && (args.cursor === undefined || peekEngine(ctx, args.cursor) === engines.files.name);
      const release = local ? await ctx.scan.slot(ctx.deadline, ctx.signal) : () => undefined;
      try {
        return await runQuery(engines, args, ctx);
      } finally {
        release();
      }
    },
  };
}

/** The engine of a cursor's query, without using the cursor up (undefined when the cursor is unknown). */
function peekEngine(ctx: ToolContext, cursor: string): string | undefined {
  try { return cursors(ctx).get(cursor).stream.engine; } catch { return undefined; }
}

async function runQuery(engines: Engines, args: z.output<typeof queryInput>, ctx: ToolContext) {
  const maxItems = ctx.limits.maxItems;
  if (args.cursor !== undefined) {
    const table = cursors(ctx);
    const state = table.get(args.cursor);
    table.consume(args.cursor);
    try {
      verifyStamps(ctx, state.stream.stamps);
    } catch (err) {
      state.stream.close();
      throw err;
    }
    if (args.max_rows !== undefined) state.maxRows = Math.min(args.max_rows, maxItems);
    return page(ctx, state);
  }
  if (args.sql === undefined || args.sql.trim() === '') throw ctx.error('INVALID_ARGUMENT', 'sql is required (or cursor, to continue).', { hint: 'Give one SELECT statement as sql.' });
  let stream: RowStream;
  if (args.dataset !== undefined) {
    const engine = datasetEngine(engines, args.dataset);
    if (!engine) {
      const names = engines.datasets.flatMap((e) => e.datasets!());
      throw ctx.error('NOT_FOUND', `No dataset named ${JSON.stringify(args.dataset)}.`, { hint: names.length ? `Configured datasets: ${names.join(', ')}.` : 'No dataset is configured (config sql.datasets).' });
    }
    if (args.path !== undefined || args.views !== undefined) throw ctx.error('INVALID_ARGUMENT', 'dataset reads a configured dataset; path and views are for files under the root.');
    stream = await engine.run(ctx, { sql: args.sql, dataset: args.dataset });
  } else {
    stream = await engines.files.run(ctx, { sql: args.sql, ...(args.path !== undefined ? { path: args.path } : {}), ...(args.views ? { views: args.views } : {}) });
  }
  return page(ctx, { stream, buffer: [], at: 0, maxRows: Math.min(args.max_rows ?? 100, maxItems) });
}

const tablesInput = z.object({
  glob: z.string().optional().describe('Files under the root to describe (default JSON, JSON Lines, CSV and Parquet files)'),
  max_results: z.number().int().min(1).optional().describe('At most this many tables (default 50)'),
  offset: z.number().int().min(0).optional().describe('Skip this many tables (pass next_offset to page on)'),
  max_columns: z.number().int().min(1).optional().describe('At most this many columns a table (default 100); column_count then gives them all'),
});
const tablesOutput = z.object({
  tables: z.array(z.object({
    name: z.string().describe('A path relative to the root, a configured table, or a dataset'),
    kind: z.enum(['file', 'table', 'dataset']),
    engine: z.string(),
    columns: z.array(columnSchema).optional(),
    column_count: z.number().int().optional().describe('Columns the table has, when columns lists only the first max_columns'),
    note: z.string().optional(),
  })),
  has_more: z.boolean().describe('true: more tables follow; pass next_offset as offset'),
  next_offset: z.number().int().optional(),
  warnings: z.array(z.string()).optional().describe('What this page left out and why (columns cut, tables past the answer\'s byte bound)'),
});

/** Bytes kept back from maxResultBytes for the envelope (the text block, the fields around the tables). */
const TABLES_RESERVE = 4096;

export function sqlTables(enginesOf: EnginesOf): ToolDefinition<typeof tablesInput, typeof tablesOutput> {
  return {
    name: 'sql_tables',
    title: 'Tables for sql_query',
    description: 'What sql_query can read: files under the root (names relative to it), configured tables and datasets, with columns and types; pages with offset/next_offset, wide tables cut at max_columns (column_count gives all).',
    inputSchema: tablesInput,
    outputSchema: tablesOutput,
    annotations: { readOnlyHint: true, openWorldHint: false },
    async handler(args, ctx) {
      const release = await ctx.scan.slot(ctx.deadline, ctx.signal); // DESCRIBE runs DuckDB here (see sql_query)
      try {
        return await describeTables(enginesOf(ctx), args, ctx);
      } finally {
        release();
      }
    },
  };
}

async function describeTables(engines: Engines, args: z.output<typeof tablesInput>, ctx: ToolContext): Promise<z.input<typeof tablesOutput>> {
  const max = Math.min(args.max_results ?? 50, ctx.limits.maxItems);
  const offset = args.offset ?? 0;
  const maxColumns = args.max_columns ?? 100;
  const glob = args.glob !== undefined ? { glob: args.glob } : {};
  // Datasets first, then the files engine's tables: one sequence that offset counts in.
  const tables: TableInfo[] = [];
  let more = false;
  // Each dataset engine's datasets in turn, then the files engine's tables: one sequence that offset counts in.
  let skip = offset;
  for (const engine of engines.datasets) {
    const count = engine.datasets!().length;
    if (skip >= count) { skip -= count; continue; }
    if (tables.length >= max) { more = true; break; }
    const page = await engine.tables(ctx, { max: max - tables.length, offset: skip });
    tables.push(...page.tables);
    more = page.more;
    skip = 0;
  }
  const datasetCount = engines.datasets.reduce((n, e) => n + e.datasets!().length, 0);
  if (tables.length < max && ctx.root !== '') {
    const page = await engines.files.tables(ctx, { max: max - tables.length, offset: Math.max(0, offset - datasetCount), ...glob });
    tables.push(...page.tables);
    more = page.more;
  } else if (tables.length >= max && ctx.root !== '') more = true;
  const warnings: string[] = [];
  let cutTables = 0;
  for (const t of tables) {
    if (t.columns && t.columns.length > maxColumns) {
      (t as TableInfo & { column_count?: number }).column_count = t.columns.length;
      t.columns = t.columns.slice(0, maxColumns);
      cutTables++;
    }
  }
  if (cutTables) warnings.push(`${cutTables} table${cutTables === 1 ? '' : 's'} listed only the first ${maxColumns} columns (column_count gives all); pass a higher max_columns, or read the rest with sql_query (DESCRIBE).`);
  // The answer's byte bound: the tables past it are the next page's (at least one table a page, so paging advances).
  const budget = ctx.limits.maxResultBytes - TABLES_RESERVE;
  let used = 0;
  let kept = 0;
  for (const t of tables) {
    const size = Buffer.byteLength(JSON.stringify(t)) * 2 + 2; // structuredContent and the text block's copy
    if (kept > 0 && used + size > budget) break;
    used += size;
    kept++;
  }
  if (kept < tables.length) {
    warnings.push(`${tables.length - kept} more table${tables.length - kept === 1 ? '' : 's'} did not fit this answer (maxResultBytes ${ctx.limits.maxResultBytes}); pass next_offset as offset, or a lower max_columns.`);
    tables.length = kept;
    more = true;
  }
  if (kept === 1 && used > budget && tables[0]!.columns) {
    // One table alone over the bound: fewer of its columns, said so.
    const t = tables[0]! as TableInfo & { column_count?: number };
    const all = t.column_count ?? t.columns!.length;
    while (t.columns!.length > 1 && Buffer.byteLength(JSON.stringify(t)) * 2 + 2 > budget) t.columns = t.columns!.slice(0, Math.floor(t.columns!.length / 2));
    t.column_count = all;
    warnings.push(`${t.name} lists ${t.columns!.length} of its ${all} columns: more do not fit one answer (maxResultBytes ${ctx.limits.maxResultBytes}).`);
  }
  return { tables, has_more: more, ...(more ? { next_offset: offset + tables.length } : {}), ...(warnings.length ? { warnings } : {}) };
}
