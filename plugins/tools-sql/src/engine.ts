import type { ToolContext } from 'mcpgw/plugin-api';

/** The extension point the sql plugin defines: every engine, built-in or a plugin's, is an item of it. */
export const SQL_ENGINE_POINT = 'sql-engine';

/**
 * An engine behind the `sql` bundle, an item of the `sql-engine` extension point (`context.provide('sql-engine',
 * engine)`): DuckDB in-process over files under the root (duckdb.ts, the default files engine), ClickHouse over
 * configured datasets (clickhouse.ts), or a plugin's (Trino, Spark Connect): one object, no state per call but what
 * `run` returns. An engine with `datasets` answers for those names (`sql_query {dataset}`, sql_tables); one without
 * reads files under the root and is used when `sql.filesEngine` names it.
 */
export interface SqlEngine {
  /** `duckdb`, `clickhouse`: the `engine` of answers, and its item name. */
  readonly name: string;
  /** The datasets this engine answers for, as the assistant names them (never server URLs). */
  datasets?(): string[];
  /** The tables this engine answers for, as the assistant names them (never absolute paths or server URLs). */
  tables(ctx: ToolContext, request: TablesRequest): Promise<TablesPage>;
  /** Checks, locks down and starts one statement; rows are read from the returned stream. */
  run(ctx: ToolContext, request: QueryRequest): Promise<RowStream>;
}

export interface TablesRequest {
  /** Only tables whose name matches this glob (files: a glob relative to the root). */
  glob?: string;
  /** At most this many, from the `offset`-th (0-based, in the engine's own order: configured tables, then files). */
  max: number;
  offset?: number;
}

/** A page of an engine's tables: `more` when tables past it exist. */
export interface TablesPage {
  tables: TableInfo[];
  more: boolean;
}

export interface Column {
  name: string;
  /** The engine's type, as it spells it (`BIGINT`, `DECIMAL(18,3)`, `Nullable(String)`). */
  type: string;
}

export interface TableInfo {
  /** As the assistant names it: a path relative to the root, or a configured table's or dataset's name. */
  name: string;
  kind: 'file' | 'table' | 'dataset';
  engine: string;
  columns?: Column[];
  /** Why the columns are not given (the file does not read as a table). */
  note?: string;
}

export interface QueryRequest {
  sql: string;
  /** A root-relative file or glob exposed as the view `t`. */
  path?: string;
  /** More views, name → root-relative file or glob. */
  views?: Record<string, string>;
  /** A configured dataset (ClickHouse), the table `t`. */
  dataset?: string;
}

/** Identity of a file a query read, to tell SOURCE_CHANGED on a later page. */
export interface SourceStamp {
  path: string;
  size: number;
  mtimeMs: number;
  ino: number;
}

/** One statement's rows, read page by page; stays open between pages (a cursor holds it). */
export interface RowStream {
  readonly engine: string;
  readonly columns: Column[];
  /** What the caller should know about the numbers (a column that passed through doubles). */
  readonly warnings: string[];
  /** What the query read, checked again before each later page. */
  readonly stamps: SourceStamp[];
  /** Configured tables read from their materialised copy. */
  readonly materialized?: string[];
  /**
   * The next rows (already exact JSON values: big integers and decimals as `JSON.rawJSON`), or null at the end.
   * Stopped at `deadline` (ms on ctx.clock) or `ctx.signal`: then it rejects with CANCELLED.
   */
  next(ctx: ToolContext): Promise<unknown[][] | null>;
  /** Frees the engine's resources (idempotent). */
  close(): void;
}
