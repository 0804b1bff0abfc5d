import type { ToolContext } from 'mcpgw/plugin-api';
import { ERROR_CODES } from 'mcpgw/plugin-kit';

/** Something that can build catalogue errors (a tool's or a command's context). */
type ErrorMaker = Pick<ToolContext, 'error' | 'root'>;

/**
 * Engine text made safe to show: the root (as given and as its real path) becomes relative, and any other absolute
 * path (a system file named in SQL, the engine's own folders) becomes `<a path outside the root>`. URLs keep their
 * scheme and host only.
 */
export function scrub(text: string, roots: readonly string[]): string {
  let out = scrubRoots(text, roots);
  out = out.replace(/\b([a-z][a-z0-9+.-]*:\/\/)[^\s"'`)\]]*/gi, (_m, scheme: string) => `${scheme}<url>`);
  out = out.replace(/(?<![\w.:/<>-])(?:\/[^\s"'`,;)\]]+)+\/?/g, '<a path outside the root>');
  return out;
}

/**
 * Only the folders the engine was given (the root, the materialised-table cache) made relative or hidden: for values
 * in results, which are the data's own text (a log line's `GET /api/users` stays as it is).
 */
export function scrubRoots(text: string, roots: readonly string[], hidden: readonly string[] = []): string {
  let out = text;
  for (const r of [...new Set(roots.filter((x) => x.length > 1))].sort((a, b) => b.length - a.length)) {
    out = out.split(`${r}/`).join('').split(r).join('.');
  }
  for (const h of hidden) if (h.length > 1) out = out.split(h).join('<cache>');
  return out;
}

/** The 0-based character offset in `sql` of the caret DuckDB draws under `LINE n: …`, or undefined. */
export function caretPosition(message: string, sql: string): number | undefined {
  const m = /LINE (\d+): (.*)\n( *)\^/.exec(message);
  if (!m) return undefined;
  const line = Number(m[1]);
  const context = m[2]!;
  const column = m[3]!.length - `LINE ${m[1]}: `.length;
  if (column < 0 || context.startsWith('...')) return undefined;
  const lines = sql.split('\n');
  if (line < 1 || line > lines.length) return undefined;
  let offset = 0;
  for (let i = 0; i < line - 1; i++) offset += lines[i]!.length + 1;
  return Math.min(offset + column, sql.length);
}

/** The engine message without its `LINE n:` context (the position is given apart) and scrubbed. */
export function engineMessage(raw: string, roots: readonly string[]): string {
  const first = raw.replace(/^Failed to extract statements: /, '').split(/\n\s*\nLINE \d+:|\nLINE \d+:/)[0]!.trim();
  return scrub(first, roots).slice(0, 700);
}

/**
 * A DuckDB error as a catalogue error: Parser/Binder/Catalog → QUERY_SYNTAX_ERROR with the position, Permission →
 * ACCESS_DENIED, a locked setting → ACCESS_DENIED, Out of Memory → RESOURCE_LIMIT_EXCEEDED, an interrupt → CANCELLED,
 * malformed input → SYNTAX_ERROR, anything else INVALID_ARGUMENT with the (scrubbed) engine message.
 */
export function duckdbError(ctx: ErrorMaker, err: unknown, sql: string, roots: readonly string[], memoryLimitBytes: number, parsePosition?: number): Error {
  const code = err instanceof Error ? (err as Error & { code?: unknown }).code : undefined;
  if (err instanceof Error && typeof code === 'string' && (ERROR_CODES as readonly string[]).includes(code)) return err;
  const raw = err instanceof Error ? err.message : String(err);
  const message = engineMessage(raw, roots);
  const kind = /(?:^|: )(Parser|Binder|Catalog|Permission|Out of Memory|INTERRUPT|Invalid Input|Conversion|IO|Not implemented|Invalid) Error:/.exec(raw)?.[1] ?? '';
  if (kind === 'Parser' || kind === 'Binder' || kind === 'Catalog') {
    const position = caretPosition(raw, sql) ?? parsePosition;
    return ctx.error('QUERY_SYNTAX_ERROR', message, {
      hint: kind === 'Catalog' ? 'sql_tables lists what there is; a file is the view t when given as path.' : 'Fix the statement at the position given.',
      ...(position !== undefined ? { location: { position } } : {}),
    });
  }
  if (kind === 'Permission' || /configuration has been locked|Cannot change configuration option/.test(raw)) {
    return ctx.error('ACCESS_DENIED', `Refused by the SQL sandbox: ${message}`, {
      hint: 'SQL reads only the file given as path (the view t), the views given in views, and configured tables; settings are locked and nothing is written, installed or fetched.',
    });
  }
  if (kind === 'Out of Memory') {
    return ctx.error('RESOURCE_LIMIT_EXCEEDED', message, { hint: 'Aggregate or filter more, or select fewer columns.', limit: { name: "memoryLimit", limit: memoryLimitBytes } });
  }
  if (kind === 'INTERRUPT' || /Interrupted/.test(raw)) {
    return ctx.error('CANCELLED', 'The query was stopped (cancelled, or at the request deadline).', { hint: 'Narrow the query (filter, aggregate, LIMIT) or raise requestTimeoutMs.' });
  }
  if (/Malformed JSON|JSON parse|Invalid JSON|CSV Error|Invalid unicode/i.test(raw)) {
    return ctx.error('SYNTAX_ERROR', message, { hint: 'The file does not read as the table the engine expected; check its format.' });
  }
  return ctx.error('INVALID_ARGUMENT', message, { hint: 'The engine refused the statement; fix it as the message says.' });
}
