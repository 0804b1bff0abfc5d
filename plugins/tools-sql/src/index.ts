import * as path from 'node:path';
import { z } from 'zod';
import type { Plugin } from 'mcpgw/plugin-api';
import { sqlCommand } from './command';
import { ClickHouseEngine } from './clickhouse';
import { datasetAggregate, datasetSample } from './datasets';
import { DuckDbEngine } from './duckdb';
import { MaterializedCache } from './materialize';
import { providedEngines, sqlQuery, sqlTables } from './tools';
import { SQL_ENGINE_POINT, type SqlEngine } from './engine';

export type { SqlEngine, RowStream, Column, TableInfo, QueryRequest, TablesRequest, TablesPage } from './engine';
export { SQL_ENGINE_POINT } from './engine';

const SIZE = /^(\d+(?:\.\d+)?)\s*(B|KB|MB|GB|TB|KiB|MiB|GiB|TiB)$/i;
const UNITS: Record<string, number> = { b: 1, kb: 1e3, mb: 1e6, gb: 1e9, tb: 1e12, kib: 2 ** 10, mib: 2 ** 20, gib: 2 ** 30, tib: 2 ** 40 };
function bytes(size: string): number {
  const m = SIZE.exec(size)!;
  return Math.round(Number(m[1]) * UNITS[m[2]!.toLowerCase()]!);
}

const ident = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, 'a table name: letters, digits and _, not starting with a digit');

/** The config's `sql` section (README "Configuration"). */
export const sqlOptions = z.strictObject({
  /** DuckDB's memory_limit for one query. */
  memoryLimit: z.string().regex(SIZE, 'a size such as "1GB" or "512MiB"').default('1GB'),
  /** DuckDB worker threads per query; 0: every core. */
  threads: z.number().int().min(0).default(0),
  /** Configured tables: name → a file or glob under the root, readable by that name in every query. */
  tables: z.record(ident, z.string().min(1)).default({}),
  /** Files one view (a glob) may read. */
  maxFiles: z.number().int().min(1).default(1000),
  /** Configured tables loaded once into a cache beside the persistent index (docs/tools-sql.md "Materialised tables"). */
  materialize: z.array(ident).default([]),
  /** The materialised tables' folder, bytes at most (least recently used removed first). */
  materializeMaxBytes: z.number().int().min(1).default(4 * 2 ** 30),
  /** Their folder (default `$XDG_CACHE_HOME/mcpgw/sql`, else `~/.cache/mcpgw/sql`). */
  materializeDir: z.string().refine((p) => path.isAbsolute(p), 'an absolute folder').optional(),
  /** The `sql-engine` item that reads files under the root (default the built-in DuckDB; a plugin may provide another). */
  filesEngine: z.string().min(1).default('duckdb'),
  /** ClickHouse datasets: name → server, user, password variable, table or view (docs/tools-sql.md). */
  datasets: z.record(ident, z.strictObject({
    url: z.string().regex(/^https?:\/\/\S+$/, 'an http(s) URL of the ClickHouse HTTP interface'),
    user: z.string().min(1).default('default'),
    passwordEnv: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name').optional(),
    table: z.string().regex(/^[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)?$/, 'a table or view: name or database.name'),
    description: z.string().max(300).optional(),
    orderBy: z.array(z.string().min(1)).min(1).optional(),
    maxExecutionTime: z.number().int().min(1).default(60),
    maxResultRows: z.number().int().min(1).default(100_000),
    maxResultBytes: z.number().int().min(1024).default(64 * 1024 * 1024),
  })).default({}),
});

export type SqlOptions = z.output<typeof sqlOptions>;

/** The built-in engines from the options: DuckDB for files; ClickHouse when datasets are configured. */
export function engines(options: SqlOptions): { files: DuckDbEngine; datasets?: ClickHouseEngine } {
  const materialize = options.materialize.length
    ? new MaterializedCache({ tables: options.materialize, maxBytes: options.materializeMaxBytes, ...(options.materializeDir ? { dir: options.materializeDir } : {}) })
    : undefined;
  const files = new DuckDbEngine({
    memoryLimit: options.memoryLimit, memoryLimitBytes: bytes(options.memoryLimit), threads: options.threads, tables: options.tables, maxFiles: options.maxFiles,
    ...(materialize ? { materialize } : {}),
  });
  const names = Object.keys(options.datasets);
  return names.length ? { files, datasets: new ClickHouseEngine(options.datasets) } : { files };
}

/**
 * Bundle `sql`: sql_tables and sql_query on DuckDB (files under the root, locked down) and ClickHouse (configured
 * datasets). Offered only when a profile names it; `mcpgw sql FILE "SQL"` on the command line.
 */
const plugin: Plugin<SqlOptions> = {
  name: '@mcpgw/tools-sql',
  version: '0.1.0',
  apiVersion: '^3.0.0',
  options: sqlOptions,
  // The config's `sql: {…}` is this plugin's options.
  configSection: 'sql',
  register(context, options) {
    for (const t of options.materialize) {
      if (!Object.hasOwn(options.tables, t)) throw new Error(`sql.materialize names ${JSON.stringify(t)}, which sql.tables does not configure.`);
    }
    const e = engines(options);
    // Engines are items of this plugin's `sql-engine` point: the built-ins and any plugin's (a third engine is a plugin).
    context.defineExtensionPoint<SqlEngine>({
      name: SQL_ENGINE_POINT,
      noun: 'SQL engine',
      check: (engine) => (typeof engine.tables === 'function' && typeof engine.run === 'function' && (engine.datasets === undefined || typeof engine.datasets === 'function')
        ? undefined : 'needs { name, tables(), run() } and optionally datasets().'),
      complete: (items) => (items.some((i) => i.name === options.filesEngine) ? undefined
        : `sql.filesEngine: no loaded plugin provides a SQL engine named "${options.filesEngine}". Engines: ${items.map((i) => i.name).join(', ')}.`),
    });
    context.provide(SQL_ENGINE_POINT, e.files);
    if (e.datasets) context.provide(SQL_ENGINE_POINT, e.datasets);
    const enginesOf = providedEngines(options.filesEngine);
    context.registerToolBundle({
      name: 'sql',
      description: 'SQL tools: sql_tables lists what can be read (files under the root, configured tables and datasets); sql_query runs one SELECT (a file is the view t) and pages its rows with next_cursor. Exact sums over JSON numbers: prefer aggregate.',
      tools: [sqlTables(enginesOf), sqlQuery(enginesOf), ...(e.datasets ? [datasetAggregate(e.datasets), datasetSample(e.datasets)] : [])],
      offeredByDefault: false,
    });
    context.registerCommand(sqlCommand(e.files));
  },
};

export default plugin;
