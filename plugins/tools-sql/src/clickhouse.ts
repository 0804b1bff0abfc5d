import type { ClickHouseClient } from '@clickhouse/client';
import { clickhouse } from './libraries';
import type { ToolContext } from 'mcpgw/plugin-api';
import { checkAndRewrite } from './chsql';
import type { Column, RowStream, SqlEngine, TableInfo, TablesPage, TablesRequest } from './engine';
import { scrub } from './errors';

/** One dataset of the config (`sql.datasets.<name>`). */
export interface DatasetConfig {
  /** The server's HTTP interface, e.g. http://127.0.0.1:8123 (never shown to the assistant). */
  url: string;
  user: string;
  /** The environment variable holding the password (none: an empty password). */
  passwordEnv?: string;
  /** The table or view, `db.table` or `table` (never shown). */
  table: string;
  /** Columns that order the rows for sample_records (default: the first column). */
  orderBy?: string[];
  /** What the dataset is, for sql_tables. */
  description?: string;
  /** ClickHouse's max_execution_time of each query, seconds (the request deadline lowers it). */
  maxExecutionTime: number;
  /** ClickHouse's max_result_rows / max_result_bytes of each query (result_overflow_mode=break: cut, said). */
  maxResultRows: number;
  maxResultBytes: number;
}

const rawJSON = (JSON as unknown as { rawJSON(text: string): unknown }).rawJSON;

/**
 * JSON text parsed with every number's spelling kept: one whose shortest double form differs from its lexeme (`1.00`,
 * big integers) becomes `JSON.rawJSON`, so results come back digit for digit (the plugin kit's parseExactJson keeps
 * values, not spellings).
 */
export function parseExact(text: string): unknown {
  return (JSON.parse as (t: string, r: (k: string, v: unknown, c?: { source?: string }) => unknown) => unknown)(text, (_k, v, c) => {
    if (typeof v === 'number' && c?.source !== undefined && c.source !== String(v)) return rawJSON(c.source);
    return v;
  });
}

/** A ClickHouse type without its Nullable(…) and LowCardinality(…) wrappers. */
export function baseType(type: string): string {
  let t = type;
  for (;;) {
    const m = /^(?:Nullable|LowCardinality)\((.*)\)$/.exec(t);
    if (!m) return t;
    t = m[1]!;
  }
}
const EXACT_TEXT = /^(?:U?Int(?:64|128|256)|Decimal)/;
const FLOAT = /Float(32|64)/;

/** A value of ClickHouse type `type` (JSON output) as an exact JSON value (64-bit integers come quoted). */
export function chValue(value: unknown, type: string): unknown {
  if (typeof value === 'string' && EXACT_TEXT.test(baseType(type)) && /^-?\d+(\.\d+)?$/.test(value)) return rawJSON(value);
  return value;
}

/** What went wrong, in the catalogue. */
function chError(ctx: ToolContext, err: unknown, dataset: string, config: DatasetConfig, map: (p: number) => number, fired: 'deadline' | 'cancel' | null): Error {
  if (fired === 'deadline') return deadlineError(ctx);
  if (fired === 'cancel') return ctx.error('CANCELLED', 'The request was cancelled.');
  const e = err as Error & { code?: string };
  const raw = e?.message ?? String(err);
  const sys = typeof e?.code === 'string' && /^E[A-Z]+$/.test(e.code) ? e.code : /\b(ECONNREFUSED|ECONNRESET|ENOTFOUND|EHOSTUNREACH|ETIMEDOUT|EAI_AGAIN)\b/.exec(raw)?.[1];
  if (sys || /socket hang up|Timeout error/i.test(raw)) {
    return ctx.error('IO_ERROR', `The dataset ${dataset} cannot be reached (${sys ?? 'no answer'}): its ClickHouse server is down or unreachable.`, {
      hint: 'Ask the administrator whether the ClickHouse server behind this dataset is up; other datasets and files still answer.',
    });
  }
  const code = Number(/Code: (\d+)/.exec(raw)?.[1] ?? NaN);
  const inner = /DB::Exception: ([\s\S]*?)(?:, e\.what\(\)|\s*\(version|\s*Stack trace|$)/.exec(raw)?.[1] ?? raw.split('\n')[0]!;
  const table = config.table;
  const message = scrub(inner.split(table).join('t').split(config.url).join('<server>'), []).trim().slice(0, 700);
  if (code === 62) {
    const pos = /failed at position (\d+)/.exec(inner);
    return ctx.error('QUERY_SYNTAX_ERROR', `ClickHouse: ${message.replace(/ \(line \d+, col \d+\)/, '')}`, {
      hint: 'Fix the statement at the position given (ClickHouse SQL).',
      ...(pos ? { location: { position: map(Number(pos[1]) - 1) } } : {}),
    });
  }
  if ([46, 47, 60, 16, 43, 42, 36, 35, 215, 44, 386, 53].includes(code)) {
    return ctx.error('QUERY_SYNTAX_ERROR', `ClickHouse: ${message}`, { hint: 'sql_tables lists the dataset\'s columns and types.' });
  }
  if ([164, 192, 193, 194, 195, 291, 497, 516].includes(code)) {
    return ctx.error('ACCESS_DENIED', `ClickHouse refused: ${message}`, { hint: 'The dataset\'s user may only read; ask the administrator for what it may read.' });
  }
  if ([158, 159, 160, 241, 307, 396, 202].includes(code)) {
    if (code === 159) {
      return ctx.error('CANCELLED', `ClickHouse stopped the query at max_execution_time: ${message}`, {
        hint: 'Narrow the query (filter, aggregate, LIMIT).', limit: { name: 'maxExecutionTime', limit: config.maxExecutionTime },
      });
    }
    return ctx.error('RESOURCE_LIMIT_EXCEEDED', `ClickHouse: ${message}`, { hint: 'Aggregate or filter more.' });
  }
  if (code === 394) return ctx.error('CANCELLED', 'The query was cancelled.');
  return ctx.error('INVALID_ARGUMENT', `ClickHouse: ${message}`, { hint: 'The engine refused the statement; fix it as the message says.' });
}

function deadlineError(ctx: ToolContext) {
  return ctx.error('CANCELLED', `The query was stopped at the request deadline (requestTimeoutMs ${ctx.limits.requestTimeoutMs} ms).`, {
    hint: 'Narrow the query (filter, aggregate, LIMIT), or ask the administrator for a longer requestTimeoutMs.',
    limit: { name: 'requestTimeoutMs', limit: ctx.limits.requestTimeoutMs },
  });
}

function quoteTable(table: string): string {
  return table.split('.').map((p) => `\`${p.replace(/[`\\]/g, '\\$&')}\``).join('.');
}

/** A query's whole answer (ClickHouse's JSONCompact: `meta` and `data`), bounded by the dataset's result limits. */
export interface ChAnswer {
  meta: { name: string; type: string }[];
  data: unknown[][];
  /** The server cut the result at max_result_rows/max_result_bytes. */
  cut: boolean;
}

/**
 * ClickHouse over configured datasets. The assistant names a dataset and writes SQL over the table `t`; the bundle
 * rewrites `t` to the configured table or view, adds max_execution_time (the request deadline's, at most the
 * dataset's), max_result_rows/bytes with result_overflow_mode=break, and aborts the HTTP request at the deadline.
 */
export class ClickHouseEngine implements SqlEngine {
  readonly name = 'clickhouse';
  private readonly clients = new Map<string, ClickHouseClient>();
  constructor(private readonly configured: Record<string, DatasetConfig>) {}

  has(name: string): boolean {
    return Object.hasOwn(this.configured, name);
  }
  datasets(): string[] {
    return this.names();
  }

  names(): string[] {
    return Object.keys(this.configured);
  }
  config(name: string): DatasetConfig {
    return this.configured[name]!;
  }
  quotedTable(name: string): string {
    return quoteTable(this.configured[name]!.table);
  }

  private client(name: string): ClickHouseClient {
    let c = this.clients.get(name);
    if (!c) {
      const d = this.configured[name]!;
      c = clickhouse().createClient({
        url: d.url,
        username: d.user,
        password: d.passwordEnv ? process.env[d.passwordEnv] ?? '' : '',
        request_timeout: 24 * 3600 * 1000, // the request's deadline aborts it
        log: { level: clickhouse().ClickHouseLogLevel.OFF },
        max_open_connections: 4,
      });
      this.clients.set(name, c);
    }
    return c;
  }

  /** Runs already-checked SQL on dataset `name` with the limits and the deadline. */
  async query(ctx: ToolContext, name: string, sql: string, map: (p: number) => number = (p) => p): Promise<ChAnswer> {
    const d = this.configured[name]!;
    if (ctx.signal.aborted) throw ctx.error('CANCELLED', 'The request was cancelled.');
    const left = ctx.deadline - ctx.clock.now();
    if (left <= 0) throw deadlineError(ctx);
    const abort = new AbortController();
    let fired: 'deadline' | 'cancel' | null = null;
    const timer = Number.isFinite(left) ? setTimeout(() => { fired = 'deadline'; abort.abort(); }, left) : null;
    const onAbort = () => { fired = 'cancel'; abort.abort(); };
    ctx.signal.addEventListener('abort', onAbort, { once: true });
    const seconds = Math.max(1, Math.min(d.maxExecutionTime, Number.isFinite(left) ? Math.ceil(left / 1000) : d.maxExecutionTime));
    try {
      const rs = await this.client(name).query({
        query: sql,
        format: 'JSONCompact',
        abort_signal: abort.signal,
        clickhouse_settings: {
          max_execution_time: seconds,
          max_result_rows: String(d.maxResultRows) as never,
          max_result_bytes: String(d.maxResultBytes) as never,
          result_overflow_mode: 'break',
        },
      });
      const text = await rs.text();
      const parsed = parseExact(text) as { meta: { name: string; type: string }[]; data: unknown[][] };
      const cut = parsed.data.length >= d.maxResultRows;
      const data = parsed.data.slice(0, d.maxResultRows).map((row) => row.map((v, i) => chValue(v, parsed.meta[i]!.type)));
      return { meta: parsed.meta, data, cut };
    } catch (err) {
      throw chError(ctx, err, name, d, map, fired);
    } finally {
      if (timer) clearTimeout(timer);
      ctx.signal.removeEventListener('abort', onAbort);
    }
  }

  async run(ctx: ToolContext, request: { sql: string; dataset?: string }): Promise<RowStream> {
    const name = request.dataset!;
    const checked = checkAndRewrite(request.sql, quoteTable(this.configured[name]!.table));
    if (!checked.ok) {
      throw ctx.error(checked.code, checked.message, {
        hint: 'Write one SELECT over the table t (the dataset); nothing else is readable, nothing is written.',
        ...(checked.position !== undefined ? { location: { position: checked.position } } : {}),
      });
    }
    const answer = await this.query(ctx, name, checked.sql, checked.map);
    return new ChRows(answer, this.configured[name]!);
  }

  async tables(ctx: ToolContext, request: TablesRequest): Promise<TablesPage> {
    const out: TableInfo[] = [];
    const offset = request.offset ?? 0;
    const names = this.names();
    for (const name of names.slice(offset, offset + request.max)) {
      const d = this.configured[name]!;
      const info: TableInfo = { name, kind: 'dataset', engine: this.name };
      try {
        const r = await this.query(ctx, name, `DESCRIBE TABLE ${quoteTable(d.table)}`);
        info.columns = r.data.map((row) => ({ name: String(row[0]), type: String(row[1]) }));
      } catch (err) {
        info.note = `not described: ${(err as Error).message}`.slice(0, 300);
      }
      if (d.description) info.note = info.note ? `${d.description} (${info.note})` : d.description;
      out.push(info);
    }
    return { tables: out, more: names.length > offset + request.max };
  }

  async close(): Promise<void> {
    await Promise.all([...this.clients.values()].map((c) => c.close()));
    this.clients.clear();
  }
}

/** A ClickHouse answer, already whole (bounded by the dataset's result limits), handed out in pieces. */
class ChRows implements RowStream {
  readonly engine = 'clickhouse';
  readonly columns: Column[];
  readonly warnings: string[] = [];
  readonly stamps = [];
  private at = 0;

  constructor(private readonly answer: ChAnswer, config: DatasetConfig) {
    this.columns = answer.meta.map((m) => ({ name: m.name, type: m.type }));
    const floats = this.columns.filter((c) => FLOAT.test(c.type)).map((c) => c.name);
    if (floats.length) this.warnings.push(`Columns ${floats.join(', ')} are binary floating point (Float32/Float64): their values passed through doubles and may be inexact.`);
    if (answer.cut) this.warnings.push(`The dataset's result limit (${config.maxResultRows} rows or ${config.maxResultBytes} bytes) cut the answer: rows past it are not shown. Aggregate or filter more.`);
  }

  async next(): Promise<unknown[][] | null> {
    if (this.at >= this.answer.data.length) return null;
    const rows = this.answer.data.slice(this.at, this.at + 2048);
    this.at += rows.length;
    return rows;
  }

  close(): void {
    this.at = this.answer.data.length;
  }
}
