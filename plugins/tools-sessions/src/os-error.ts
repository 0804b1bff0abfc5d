import type { McpgwError, ToolContext } from 'mcpgw/plugin-api';

/**
 * Operating-system errors in session tools' answers: a system error's own message quotes the absolute paths it was
 * given (the server's folder layout beyond the session homes), so answers name the errno and the path the caller
 * gave, with the kernel's catalogue codes: ENOENT/ENOTDIR NOT_FOUND, EACCES/EPERM ACCESS_DENIED, ELOOP and
 * ENAMETOOLONG INVALID_ARGUMENT, EMFILE/ENFILE RESOURCE_LIMIT_EXCEEDED, anything else IO_ERROR.
 */
export function sessionPathError(ctx: Pick<ToolContext, 'error'>, err: unknown, shown: string): McpgwError {
  switch (errno(err)) {
    case 'ENOENT':
    case 'ENOTDIR':
      return ctx.error('NOT_FOUND', `No such session file: ${shown}`, { hint: 'list_sessions gives the session paths.' });
    case 'EACCES':
    case 'EPERM':
      return ctx.error('ACCESS_DENIED', `Permission denied: ${shown}`);
    case 'ELOOP':
      return ctx.error('INVALID_ARGUMENT', `Too many levels of symbolic links: ${shown}`);
    case 'ENAMETOOLONG':
      return ctx.error('INVALID_ARGUMENT', `The path is longer than the system allows: ${shown}`, { hint: 'Paths are at most 4096 bytes, each name at most 255.' });
    case 'EMFILE':
    case 'ENFILE':
      return ctx.error('RESOURCE_LIMIT_EXCEEDED', `Cannot read ${shown}: the server has too many files open.`);
    default:
      return ctx.error('IO_ERROR', `Cannot read ${shown}: ${reason(err)}`);
  }
}

/** Why something failed, for a warning or a report: a system error by its errno and call, never its message. */
export function reason(err: unknown): string {
  const code = errno(err);
  if (code !== undefined) {
    const syscall = (err as { syscall?: unknown }).syscall;
    return `the system reported ${code}${typeof syscall === 'string' && /^[a-z_]+$/.test(syscall) ? ` (${syscall})` : ''}`;
  }
  return err instanceof Error ? err.message : String(err);
}

/** The catalogue code an error carries; IO_ERROR for a system error (whose `code` is an errno) or anything else. */
export function catalogueCode(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && errno(err) === undefined && /^[A-Z_]+$/.test(code) && !code.startsWith('E') ? code : 'IO_ERROR';
}

/** The errno name of a system error ("ENOENT"), or undefined for anything else (a catalogue error included). */
function errno(err: unknown): string | undefined {
  if (err === null || typeof err !== 'object') return undefined;
  const e = err as { code?: unknown; syscall?: unknown; errno?: unknown };
  return typeof e.code === 'string' && /^E[A-Z0-9]+$/.test(e.code) && (typeof e.syscall === 'string' || typeof e.errno === 'number') ? e.code : undefined;
}

/**
 * Why a record could not be read, without any of its content: a JSON parser's message quotes the record's first
 * characters (`Unexpected token 'A', "API_KEY=sk"... is not valid JSON`), and a line in a session file may hold a
 * secret. Only the kind of fault and where it is (the kernel's `(line L, column C, byte B)`) are kept.
 */
export function contentFreeReason(message: string): string {
  const where = /\((line \d+, column \d+, byte \d+)\)\.?\s*$/.exec(message)?.[1];
  const at = where ? ` (${where})` : '';
  if (/Unexpected end of JSON input|Unterminated string/.test(message)) return `the record ends early: a line still being written or cut off${at}`;
  if (/not valid JSON|in JSON at position|JSON/.test(message)) return `not valid JSON${at}`;
  if (/^the [\w.-]+ source could not read it/.test(message)) return message.replace(/:.*$/s, '');
  if (/^Record \d+ is \d+ bytes, over |^the system reported [A-Z0-9]+( \([a-z_]+\))?$/.test(message)) return message;
  return `unreadable record${at}`;
}
