import * as path from 'node:path';
import type { DuckDBConnection, DuckDBInstance, DuckDBResult, DuckDBType } from '@duckdb/node-api';
import { duckdb } from './libraries';
import type { ToolContext } from 'mcpgw/plugin-api';
import { duckdbError, engineMessage } from './errors';
import type { Column, QueryRequest, RowStream, SqlEngine, TableInfo, TablesPage, TablesRequest } from './engine';
import { resolveFiles, type ResolvedFiles } from './sources';
import type { Entry, MaterializedCache } from './materialize';
import { doubleColumns, exactRow } from './values';

export interface DuckDbOptions {
  /** DuckDB's memory_limit, e.g. "1GB". */
  memoryLimit: string;
  /** Its bound in bytes, named in RESOURCE_LIMIT_EXCEEDED. */
  memoryLimitBytes: number;
  /** Worker threads of one query (DuckDB's `threads`); 0: DuckDB's default (every core). */
  threads: number;
  /** Configured tables: view name → root-relative file or glob. */
  tables: Record<string, string>;
  /** Files one view may read. */
  maxFiles: number;
  /** Materialised configured tables, when configured. */
  materialize?: MaterializedCache;
}

/** A view of a statement: the files it reads, and the materialised entry that holds them when there is one. */
interface ViewSource {
  files: ResolvedFiles;
  entry?: Entry;
}

const IDENT = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

function literal(s: string): string {
  return `'${s.replace(/'/g, "''")}'`;
}

/** The table function that reads these files, by the first file's extension (JSON Lines and JSON otherwise). */
function reader(real: readonly string[]): string {
  const list = `[${real.map(literal).join(', ')}]`;
  const ext = /\.([a-z0-9]+)$/i.exec(real[0] ?? '')?.[1]?.toLowerCase();
  if (ext === 'csv' || ext === 'tsv') return `read_csv_auto(${list})`;
  if (ext === 'parquet') return `read_parquet(${list})`;
  return `read_json_auto(${list})`;
}

/**
 * Runs `work` on `conn` with the request's deadline and cancellation: past `ctx.deadline` (on ctx.clock) or when
 * `ctx.signal` fires, `conn.interrupt()` stops the query, and the rejection becomes CANCELLED.
 */
async function guarded<T>(ctx: ToolContext, conn: DuckDBConnection, work: () => Promise<T>): Promise<T> {
  if (ctx.signal.aborted) throw ctx.error('CANCELLED', 'The request was cancelled.');
  const left = ctx.deadline - ctx.clock.now();
  if (left <= 0) throw deadlineError(ctx);
  let fired: 'deadline' | 'cancel' | null = null;
  const timer = Number.isFinite(left) ? setTimeout(() => { fired = 'deadline'; conn.interrupt(); }, left) : null;
  const onAbort = () => { fired = 'cancel'; conn.interrupt(); };
  ctx.signal.addEventListener('abort', onAbort, { once: true });
  try {
    return await work();
  } catch (err) {
    if (fired === 'deadline') throw deadlineError(ctx);
    if (fired === 'cancel') throw ctx.error('CANCELLED', 'The request was cancelled.');
    throw err;
  } finally {
    if (timer) clearTimeout(timer);
    ctx.signal.removeEventListener('abort', onAbort);
  }
}

function deadlineError(ctx: ToolContext) {
  return ctx.error('CANCELLED', `The query was stopped at the request deadline (requestTimeoutMs ${ctx.limits.requestTimeoutMs} ms).`, {
    hint: 'Narrow the query (filter, aggregate, LIMIT), or ask the administrator for a longer requestTimeoutMs.',
    limit: { name: 'requestTimeoutMs', limit: ctx.limits.requestTimeoutMs },
  });
}

/** DuckDB in-process: one locked-down in-memory instance per statement, reading only files resolved through the sandbox. */
export class DuckDbEngine implements SqlEngine {
  readonly name = 'duckdb';
  constructor(private readonly options: DuckDbOptions) {}

  private roots(ctx: ToolContext): string[] {
    return this.options.materialize ? [ctx.root, this.options.materialize.dir] : [ctx.root];
  }

  /**
   * A fresh instance locked down to `files`: extension auto-install and auto-load off at creation, no temporary
   * folder; then `allowed_paths` (the resolved real paths), `enable_external_access=false`,
   * `lock_configuration=true`, in that order; then the views.
   */
  private async locked(ctx: ToolContext, views: Map<string, ViewSource>, writable: string[] = [], ownFolder?: string): Promise<{ instance: DuckDBInstance; conn: DuckDBConnection }> {
    const config: Record<string, string> = {
      autoinstall_known_extensions: 'false',
      autoload_known_extensions: 'false',
      temp_directory: '',
      memory_limit: this.options.memoryLimit,
    };
    if (this.options.threads > 0) config.threads = String(this.options.threads);
    const instance = await duckdb().DuckDBInstance.create(':memory:', config);
    let conn: DuckDBConnection | null = null;
    try {
      conn = await instance.connect();
      const real = [...new Set([...views.values()].flatMap((v) => (v.entry ? [v.entry.file, `${v.entry.file}.wal`] : v.files.real)).concat(writable))];
      await conn.run(`SET allowed_paths=[${real.map(literal).join(', ')}]`);
      // Only a load (our own statements, never the assistant's) writes: into the materialised tables' folder.
      if (ownFolder) await conn.run(`SET allowed_directories=[${literal(ownFolder)}]`);
      await conn.run('SET enable_external_access=false');
      await conn.run('SET lock_configuration=true');
      const c = conn;
      for (const [name, view] of views) {
        const from = view.entry ? `"m_${name}".data` : reader(view.files.real);
        if (view.entry) {
          await c.run(`ATTACH ${literal(view.entry.file)} AS "m_${name}" (READ_ONLY)`).catch((err: unknown) => {
            throw duckdbError(ctx, err, '', this.roots(ctx), this.options.memoryLimitBytes);
          });
        }
        await guarded(ctx, c, () => c.run(`CREATE VIEW "${name}" AS SELECT * FROM ${from}`)).catch((err: unknown) => {
          throw viewError(ctx, err, name, view.files.given, this.roots(ctx), this.options);
        });
      }
      return { instance, conn };
    } catch (err) {
      conn?.closeSync();
      instance.closeSync();
      throw err;
    }
  }

  /** The views a statement can name: `t` (path), `views`, and the configured tables its text mentions. */
  private async views(ctx: ToolContext, request: QueryRequest): Promise<Map<string, ViewSource>> {
    const views = new Map<string, ViewSource>();
    const wanted: [string, string][] = [];
    for (const [name, p] of Object.entries(this.options.tables)) {
      if (new RegExp(`\\b${name}\\b`, 'i').test(request.sql)) wanted.push([name, p]);
    }
    for (const [name, p] of Object.entries(request.views ?? {})) {
      if (!IDENT.test(name)) throw ctx.error('INVALID_ARGUMENT', `views: ${JSON.stringify(name)} is not a view name (letters, digits, _; not starting with a digit).`);
      wanted.push([name, p]);
    }
    if (request.path !== undefined) wanted.push(['t', request.path]);
    for (const [name, p] of wanted) {
      const files = await resolveFiles(ctx, p, this.options.maxFiles);
      const cache = this.options.materialize;
      const configured = Object.hasOwn(this.options.tables, name) && !(request.views && Object.hasOwn(request.views, name)) && name !== 't';
      if (cache && configured && cache.wants(name)) {
        const entry = cache.entryFor(name, files);
        const kept = await cache.ensure(entry, (tmp) => this.load(ctx, name, files, tmp));
        views.set(name, kept ? { files, entry } : { files });
      } else {
        views.set(name, { files });
      }
    }
    return views;
  }

  /** Loads a configured table's files into a new database file `tmp` (table `data`), in an instance locked down as any. */
  private async load(ctx: ToolContext, name: string, files: ResolvedFiles, tmp: string): Promise<void> {
    const { instance, conn } = await this.locked(ctx, new Map(), files.real, path.dirname(tmp));
    try {
      await conn.run(`ATTACH ${literal(tmp)} AS m`);
      await guarded(ctx, conn, () => conn.run(`CREATE TABLE m.data AS SELECT * FROM ${reader(files.real)}`)).catch((err: unknown) => {
        throw viewError(ctx, err, name, files.given, this.roots(ctx), this.options);
      });
      await conn.run('CHECKPOINT m');
      await conn.run('DETACH m');
    } finally {
      conn.closeSync();
      instance.closeSync();
    }
  }

  async run(ctx: ToolContext, request: QueryRequest): Promise<RowStream> {
    const views = await this.views(ctx, request);
    const { instance, conn } = await this.locked(ctx, views);
    const roots = this.roots(ctx);
    const close = () => {
      try { conn.closeSync(); } catch { /* closed */ }
      try { instance.closeSync(); } catch { /* closed */ }
    };
    try {
      const sql = request.sql;
      const extracted = await conn.extractStatements(sql).catch(async (err: unknown) => {
        throw duckdbError(ctx, err, sql, roots, this.options.memoryLimitBytes, await parsePosition(conn, sql));
      });
      if (extracted.count !== 1) {
        throw ctx.error('INVALID_ARGUMENT', `sql holds ${extracted.count} statements; exactly one SELECT (or EXPLAIN) is run.`, { hint: 'Send one statement per call.' });
      }
      const prepared = await extracted.prepare(0).catch((err: unknown) => { throw duckdbError(ctx, err, sql, roots, this.options.memoryLimitBytes); });
      const type = prepared.statementType;
      if (type !== duckdb().StatementType.SELECT && type !== duckdb().StatementType.EXPLAIN) {
        prepared.destroySync();
        throw ctx.error('ACCESS_DENIED', `Only SELECT and EXPLAIN statements run here (${duckdb().StatementType[type] ?? "this kind of"} statements are refused).`, {
          hint: 'SQL reads; it never writes, attaches, installs or changes settings.',
        });
      }
      const result = await guarded(ctx, conn, () => prepared.stream()).catch((err: unknown) => { throw duckdbError(ctx, err, sql, roots, this.options.memoryLimitBytes); });
      const rows = new DuckDbRows(conn, result, close, [...views.values()].flatMap((v) => v.files.stamps), roots, sql, this.options.memoryLimitBytes);
      rows.materialized = [...views].filter(([, v]) => v.entry).map(([n]) => n);
      return rows;
    } catch (err) {
      close();
      throw err;
    }
  }

  async tables(ctx: ToolContext, request: TablesRequest): Promise<TablesPage> {
    const out: TableInfo[] = [];
    const offset = request.offset ?? 0;
    const names: [string, string, 'table' | 'file'][] = Object.entries(this.options.tables).map(([n, p]) => [n, p, 'table']);
    // One more than the page, to know whether more follow.
    const listing = await ctx.files.list(undefined, { glob: request.glob ?? '*.{json,jsonl,ndjson,csv,tsv,parquet}', max: offset + request.max + 1, signal: ctx.signal, deadline: ctx.deadline });
    for (const f of listing.files) names.push([f.path, f.path, 'file']);
    const more = names.length > offset + request.max;
    for (const [name, p, kind] of names.slice(offset, offset + request.max)) {
      const info: TableInfo = { name, kind, engine: this.name };
      try {
        const files = await resolveFiles(ctx, p, this.options.maxFiles);
        const { instance, conn } = await this.locked(ctx, new Map([['t', { files }]]));
        try {
          const r = await guarded(ctx, conn, () => conn.runAndReadAll('DESCRIBE t'));
          info.columns = r.getRowsJson().map((row) => ({ name: String(row[0]), type: String(row[1]) }));
        } finally {
          conn.closeSync();
          instance.closeSync();
        }
      } catch (err) {
        if (ctx.clock.now() >= ctx.deadline || ctx.signal.aborted) { info.note = 'not described: the request deadline came first'; out.push(info); break; }
        info.note = `not readable as a table: ${(err as Error).message}`.slice(0, 300);
      }
      out.push(info);
    }
    return { tables: out, more };
  }
}

/** Where DuckDB's parser stops in `sql` (json_serialize_sql gives the position its error message leaves out). */
async function parsePosition(conn: DuckDBConnection, sql: string): Promise<number | undefined> {
  try {
    const r = await conn.runAndReadAll('SELECT json_serialize_sql($1::VARCHAR)', [sql]);
    const parsed = JSON.parse(String(r.getRowsJson()[0]?.[0] ?? '{}')) as { position?: string };
    return parsed.position !== undefined ? Number(parsed.position) : undefined;
  } catch {
    return undefined;
  }
}

function viewError(ctx: ToolContext, err: unknown, name: string, given: string, roots: string[], options: DuckDbOptions): Error {
  const mapped = duckdbError(ctx, err, '', roots, options.memoryLimitBytes) as Error & { code?: string };
  if (mapped.code === 'CANCELLED' || mapped.code === 'RESOURCE_LIMIT_EXCEEDED') return mapped;
  return ctx.error(mapped.code === 'ACCESS_DENIED' ? 'ACCESS_DENIED' : 'SYNTAX_ERROR', `${given} (view ${name}) does not read as a table: ${engineMessage(mapped.message, roots)}`, {
    hint: 'The view reads JSON Lines or JSON (read_json_auto), CSV (.csv, .tsv) or Parquet (.parquet).',
  });
}

/** A streaming DuckDB result, chunk by chunk (2,048 rows), values made exact. */
class DuckDbRows implements RowStream {
  readonly engine = 'duckdb';
  readonly columns: Column[];
  readonly warnings: string[] = [];
  materialized: string[] = [];
  private readonly types: DuckDBType[];
  private closed = false;

  constructor(
    private readonly conn: DuckDBConnection,
    private readonly result: DuckDBResult,
    private readonly closer: () => void,
    readonly stamps: RowStream['stamps'],
    private readonly roots: string[],
    private readonly sql: string,
    private readonly memoryLimitBytes: number,
  ) {
    this.types = result.columnTypes();
    const names = result.deduplicatedColumnNames();
    this.columns = names.map((name, i) => ({ name, type: this.types[i]!.toString() }));
    const doubles = doubleColumns(this.columns.map((c) => c.name), this.types);
    if (doubles.length) {
      this.warnings.push(`Columns ${doubles.join(', ')} are binary floating point (DOUBLE/FLOAT): their values passed through doubles and may be inexact, and a sum over them can change from run to run. Cast to DECIMAL or use aggregate for exact sums.`);
    }
  }

  async next(ctx: ToolContext): Promise<unknown[][] | null> {
    if (this.closed) return null;
    let chunk;
    try {
      chunk = await guarded(ctx, this.conn, () => this.result.fetchChunk());
    } catch (err) {
      this.close();
      throw duckdbError(ctx, err, this.sql, this.roots, this.memoryLimitBytes);
    }
    if (!chunk || chunk.rowCount === 0) {
      this.close();
      return null;
    }
    return chunk.convertRows(duckdb().JsonDuckDBValueConverter).map((row) => exactRow(row, this.types, this.roots));
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.closer();
  }
}

