/**
 * The one catalogue of error codes shared by every tool bundle, format and query language
 * (docs/architecture.md "Error results"). Tools never invent codes: they throw {@link McpgwError} (or any
 * error object carrying one of these codes) and the server turns it into an MCP tool result
 * with `isError: true` and structuredContent `{ error: ErrorPayload }`.
 */
export const ERROR_CODES = [
  'INVALID_ARGUMENT',
  'NOT_FOUND',
  'ACCESS_DENIED',
  'HANDLE_EXPIRED',
  'UNSUPPORTED_FORMAT',
  'FORMAT_MISMATCH',
  'SYNTAX_ERROR',
  'QUERY_SYNTAX_ERROR',
  'UNSUPPORTED_QUERY_FEATURE',
  'RESOURCE_LIMIT_EXCEEDED',
  'SOURCE_CHANGED',
  'IO_ERROR',
  'CANCELLED',
  'INTERNAL_ERROR',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/** Where in a file or query an error sits. Offsets in bytes (0-based); line and column 1-based. */
export interface ErrorLocation {
  byte_offset?: number;
  line?: number;
  column?: number;
  record_index?: number;
  /** RFC 6901 pointer inside the record, or a character position in a query (as `position`). */
  path?: string;
  /** 0-based character position in a query text (QUERY_SYNTAX_ERROR). */
  position?: number;
}

/** Which limit was hit (RESOURCE_LIMIT_EXCEEDED): its name as in the limits table, the limit, and the value seen. */
export interface ErrorLimit {
  name: string;
  limit: number;
  value?: number;
}

/** The error object carried by every error result, in structuredContent and in the text block. */
export interface ErrorPayload {
  code: ErrorCode;
  message: string;
  hint?: string;
  location?: ErrorLocation;
  limit?: ErrorLimit;
}

/** Messages are capped at this many bytes (docs/architecture.md "Error results"). */
export const MAX_MESSAGE_BYTES = 1024;

export interface ErrorDetails {
  hint?: string;
  location?: ErrorLocation;
  limit?: ErrorLimit;
  cause?: unknown;
  /**
   * The plugin that raised the error (its package name), set by the `error()` of a plugin's or a tool's context.
   * Logged with the error and named in an INTERNAL_ERROR's message; never part of the payload otherwise.
   */
  plugin?: string;
}

/** An error with a catalogue code. Thrown by kernel and plugins; rendered as an error result by the server. */
export class McpgwError extends Error {
  readonly code: ErrorCode;
  readonly hint?: string;
  readonly location?: ErrorLocation;
  readonly limit?: ErrorLimit;
  /** The plugin that raised it (ErrorDetails.plugin), when a plugin's or a tool's context made it. */
  readonly plugin?: string;

  constructor(code: ErrorCode, message: string, details: ErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = 'McpgwError';
    this.code = code;
    if (details.hint !== undefined) this.hint = details.hint;
    if (details.location !== undefined) this.location = details.location;
    if (details.limit !== undefined) this.limit = details.limit;
    if (details.plugin !== undefined) this.plugin = details.plugin;
  }

  toPayload(): ErrorPayload {
    const payload: ErrorPayload = { code: this.code, message: capMessage(this.message) };
    if (this.hint !== undefined) payload.hint = capMessage(this.hint);
    if (this.location !== undefined) payload.location = capLocation(this.location);
    if (this.limit !== undefined) payload.limit = this.limit;
    return payload;
  }
}

/**
 * The `error()` of a plugin's or a tool's context: catalogue errors tagged with the plugin that raised them
 * (`plugin`: its package name; undefined for the kernel's own contexts).
 */
export function errorFactory(plugin?: string): (code: ErrorCode, message: string, details?: ErrorDetails) => McpgwError {
  return (code, message, details) => new McpgwError(code, message, plugin === undefined ? details : { ...details, plugin });
}

const CODE_SET: ReadonlySet<string> = new Set(ERROR_CODES);

/** True for a catalogue code. */
export function isErrorCode(code: unknown): code is ErrorCode {
  return typeof code === 'string' && CODE_SET.has(code);
}

/**
 * Any thrown value → the error payload. McpgwError and error-like objects with a catalogue
 * `code` (a third-party plugin may throw its own class) keep their code; an AbortError
 * becomes CANCELLED; anything else becomes INTERNAL_ERROR whose message names the cause.
 */
export function toErrorPayload(error: unknown): ErrorPayload {
  if (error instanceof McpgwError) return error.toPayload();
  if (error !== null && typeof error === 'object') {
    const e = error as { code?: unknown; message?: unknown; hint?: unknown; location?: unknown; limit?: unknown; name?: unknown };
    if (isErrorCode(e.code)) {
      const p: ErrorPayload = { code: e.code, message: capMessage(String(e.message ?? e.code)) };
      if (typeof e.hint === 'string') p.hint = capMessage(e.hint);
      if (e.location && typeof e.location === 'object') p.location = capLocation(e.location as ErrorLocation);
      if (e.limit && typeof e.limit === 'object') p.limit = e.limit as ErrorLimit;
      return p;
    }
    if (e.name === 'AbortError') return { code: 'CANCELLED', message: 'The request was cancelled.' };
    // A system error that no caller mapped: its message quotes absolute paths (the server's folder layout).
    if (isSystemError(error)) return { code: 'IO_ERROR', message: `A file operation failed: ${osErrorName(error)}.` };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { code: 'INTERNAL_ERROR', message: capMessage(`Internal error: ${message}`) };
}

/** True for Node's system errors (`code` "ENOENT"…, with `syscall` or a numeric `errno`), whose messages quote paths. */
export function isSystemError(error: unknown): boolean {
  if (error === null || typeof error !== 'object') return false;
  const e = error as { code?: unknown; syscall?: unknown; errno?: unknown };
  return typeof e.code === 'string' && /^E[A-Z0-9]+$/.test(e.code) && (typeof e.syscall === 'string' || typeof e.errno === 'number');
}

/**
 * A system error named without its message (which quotes the absolute paths it was given): "the system reported EIO
 * (read)". For messages that must not reveal the server's folder layout.
 */
export function osErrorName(error: unknown): string {
  const e = (error ?? {}) as { code?: unknown; syscall?: unknown };
  const code = typeof e.code === 'string' && /^E[A-Z0-9]+$/.test(e.code) ? e.code : 'an error';
  return typeof e.syscall === 'string' && /^[a-z_]+$/.test(e.syscall) ? `the system reported ${code} (${e.syscall})` : `the system reported ${code}`;
}

/**
 * Cuts a message to {@link MAX_MESSAGE_BYTES} bytes of UTF-8 on a character boundary, marking the cut with its
 * length: "… [cut: 1048620 bytes in all]" (a message quoting a huge input stays small, and says so).
 */
export function capMessage(message: string): string {
  const bytes = Buffer.byteLength(message);
  if (bytes <= MAX_MESSAGE_BYTES) return message;
  const mark = `… [cut: ${bytes} bytes in all]`;
  return cutToBytes(message, MAX_MESSAGE_BYTES - Buffer.byteLength(mark)) + mark;
}

/** The longest prefix of `s` of at most `max` bytes of UTF-8, not ending inside a surrogate pair. */
function cutToBytes(s: string, max: number): string {
  let cut = s.slice(0, max);
  while (Buffer.byteLength(cut) > max) cut = cut.slice(0, Math.max(0, cut.length - Math.ceil((Buffer.byteLength(cut) - max) / 3)));
  if (/[\uD800-\uDBFF]$/.test(cut)) cut = cut.slice(0, -1);
  return cut;
}

/** A location whose strings (a pointer, a path) are capped like messages. */
function capLocation(location: ErrorLocation): ErrorLocation {
  let out: ErrorLocation | null = null;
  for (const [k, v] of Object.entries(location)) {
    if (typeof v === 'string' && Buffer.byteLength(v) > MAX_MESSAGE_BYTES) (out ??= { ...location })[k as keyof ErrorLocation] = capMessage(v) as never;
  }
  return out ?? location;
}

/** User input shown in a message: as given up to `max` characters, else cut with its length stated (`aaaa… (1048576 characters)`). */
export function shownInput(text: string, max = 200): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max).replace(/[\uD800-\uDBFF]$/, '')}… (${text.length} characters)`;
}

/*
 * Text the server emits is well-formed Unicode: strings never hold half a surrogate pair (a JSON text on the wire could
 * only carry it as a `\udXXX` escape, which many clients cannot decode). Kernel and engine both cut and check text so.
 */

/** `text` cut to at most `max` UTF-16 units without splitting a surrogate pair. */
export function clipText(text: string, max: number): string {
  if (text.length <= max) return text;
  const c = text.charCodeAt(max - 1);
  return text.slice(0, c >= 0xd800 && c <= 0xdbff ? max - 1 : max);
}

/**
 * `value` with every string and member name well-formed: a lone surrogate (none should remain: messages and previews
 * are cut on character boundaries) becomes U+FFFD. Returns `value` itself when nothing needed fixing (the common
 * case costs one `isWellFormed` per string). Iterative; results are bounded by maxResultBytes.
 */
export function wellFormed<T>(value: T): T {
  if (typeof value === 'string') return (value.isWellFormed() ? value : value.toWellFormed()) as T;
  if (value === null || typeof value !== 'object' || !needsFix(value)) return value;
  return fix(value) as T;
}

/** `value` (a JSON value) with every lone surrogate replaced by U+FFFD, copied where needed. */
export function fixSurrogates<T>(value: T): T {
  return fix(value) as T;
}

function needsFix(root: object): boolean {
  const stack: unknown[] = [root];
  while (stack.length) {
    const v = stack.pop();
    if (typeof v === 'string') { if (!v.isWellFormed()) return true; continue; }
    if (v === null || typeof v !== 'object' || JSON.isRawJSON(v)) continue;
    if (Array.isArray(v)) { for (const x of v) stack.push(x); continue; }
    for (const k of Object.keys(v)) {
      if (!k.isWellFormed()) return true;
      stack.push((v as Record<string, unknown>)[k]);
    }
  }
  return false;
}

function fix(v: unknown): unknown {
  if (typeof v === 'string') return v.isWellFormed() ? v : v.toWellFormed();
  if (v === null || typeof v !== 'object' || JSON.isRawJSON(v)) return v;
  if (Array.isArray(v)) return v.map(fix);
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v)) Object.defineProperty(out, k.isWellFormed() ? k : k.toWellFormed(), { value: fix((v as Record<string, unknown>)[k]), writable: true, enumerable: true, configurable: true });
  return out;
}
