import type { z } from 'zod';
import type { ErrorCode, ErrorDetails, McpgwError } from '../errors';
import type { FormatProbe, OpenedFile, ProgressReporter, RecordSource } from './format';
import type { FileChunk, JsonLayout } from './records';
import type { Clock } from './clock';
import type { Limits } from './limits';
import type { QueryLanguage } from './query';
import type { Logger } from './plugin';
import type { RegexService } from './regex';
import type { ScanEngine } from './scan';

/** MCP tool annotations (MCP spec, "Tool annotations"). */
export interface ToolAnnotations {
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/**
 * One MCP tool. Input and output schemas are zod objects; the server validates arguments with
 * `inputSchema` (closed: unknown keys are INVALID_ARGUMENT, unless the bundle takes `lenientArguments`) and advertises
 * both in tools/list.
 * The handler returns the structuredContent object; the server adds the compact JSON text block.
 */
export interface ToolDefinition<I extends z.ZodObject = z.ZodObject, O extends z.ZodObject = z.ZodObject> {
  readonly name: string;
  readonly title: string;
  /** Under 2,000 characters (clients cut at 2,048). */
  readonly description: string;
  readonly inputSchema: I;
  readonly outputSchema: O;
  readonly annotations?: ToolAnnotations;
  handler(args: z.output<I>, ctx: ToolContext): Promise<z.input<O>> | z.input<O>;
  /**
   * Optional: the tool as advertised once every plugin has loaded, from what they registered — the formats and query
   * languages another plugin may add — so that tools/list names them (a model discovers a plugin's language there).
   * Called once per server (and by `mcpgw list-tools`); `description` replaces the tool's, `inputSchema` its input
   * schema (advertised and used to validate arguments; give the same keys, with registered names in descriptions or
   * enums). Absent: the tool as defined.
   */
  advertise?(registry: RegistryView): { description?: string; inputSchema?: I };
}

/** A named set of tools (`explore`, `reader`, or a third party's), selected by profiles. */
export interface ToolBundle {
  readonly name: string;
  readonly description?: string;
  readonly tools: readonly ToolDefinition<any, any>[];
  /**
   * false: the bundle is left out of the default set (a config without profiles, or a profile naming no bundles); a
   * profile still offers it by naming it in `bundles`, and its plugin may set it from its options (an `enabled`
   * option). For bundles that read private data. Default true.
   */
  readonly offeredByDefault?: boolean;
  /**
   * false: the bundle reads no file under the root (`ctx.files`), so a profile offering only such bundles needs no
   * root folder. Default true.
   */
  readonly needsRoot?: boolean;
  /**
   * true: the bundle's tools take arguments leniently, as a drop-in for clients and prompts written for servers whose
   * schemas allow null and ignore unknown keys (the explorer set). An optional parameter sent as `null` takes its
   * default; a key that is not a parameter is ignored; an optional enum parameter with a value outside its enum takes
   * its default (the tool's fallback). What was ignored is named in the result's `warnings` (`{code:
   * "INVALID_ARGUMENT", message}`, after the tool's own; a tool whose output schema has no `warnings` gets one in its
   * advertised schema). Anything else invalid is still INVALID_ARGUMENT. The advertised input schemas are unchanged
   * (a `null` type on every parameter would cost bytes in every tools/list): say it once in the bundle's description,
   * which joins the server instructions. Default false: closed argument objects, strict values. Since plugin API 2.1.
   */
  readonly lenientArguments?: boolean;
}

/** How a format was chosen at open (`detection` in open results). */
export interface Detection {
  /** `explicit`: the caller named the format; `content`: the bytes decided; `extension`: the name broke a tie. */
  basis: 'explicit' | 'content' | 'extension';
  /** In [0, 1]. */
  confidence: number;
}

/** A file opened through the sandbox and its format. */
export interface OpenedSource {
  source: RecordSource;
  /** Path relative to the root, `/`-separated. */
  path: string;
  realPath: string;
  detection: Detection;
  /** Closes the source and its descriptor. Idempotent. */
  close(): void;
}

/** Sandboxed file access: every path is resolved inside the root (docs/architecture.md "The root is a wall"). */
export interface FileAccess {
  /**
   * Opens `path` (relative to the root, or absolute inside it) as records.
   * @throws ACCESS_DENIED outside the root; INVALID_ARGUMENT for NUL bytes and non-regular files;
   *   NOT_FOUND; UNSUPPORTED_FORMAT when no format recognises it; RESOURCE_LIMIT_EXCEEDED (maxFileBytes);
   *   FORMAT_MISMATCH (only with `strictFormat`, see there).
   * `options.strictFormat` (optional, default false): when `format` names a format explicitly (not `auto`), that
   *   format's `detect` says the probe cannot be it (`null`) and content detection picks another format, the open
   *   fails with FORMAT_MISMATCH naming the likely format in its message and hint, before any indexing. The explicit
   *   format stays authoritative otherwise (a file no format recognises opens with it, and validation reports it).
   * `options.from` (optional): index from this byte offset on, a record start (see `OpenOptions.from`); only formats
   *   framed by separators honour it (check `source.offset(0)`).
   */
  open(path: string, options?: { format?: string; strictFormat?: boolean; signal?: AbortSignal; onProgress?: ProgressReporter; from?: number }): Promise<OpenedSource>;
  /**
   * Checks that the file behind `source` is unchanged — or only grew: a file that was appended to (same device and
   * inode, larger, its indexed prefix unchanged) has its index extended over the new bytes (`source.grow`), so record
   * counts grow and positions and cursors stay valid. @throws SOURCE_CHANGED when it was rewritten, truncated, replaced
   * or removed, or grew in a format that cannot extend its index.
   */
  verify(source: RecordSource, realPath: string): void;
  /**
   * Lists the regular files under folder `path` (relative to the root, default the root), recursively,
   * in path order, with the format each would open as (`null` when no registered format recognises its
   * first 64 KiB). Symlinks are followed only while they stay inside the root; folders are not listed.
   * `glob` (`*`, `**`, `?`, `[…]`, `{a,b}`) filters paths relative to `path`; a glob without `/` matches
   * the base name at any depth. At most `max` files (default 200); `truncated` says more exist, or that the walk
   * stopped at `deadline` (ms since the epoch) with what it had found.
   * @throws ACCESS_DENIED outside the root; NOT_FOUND; INVALID_ARGUMENT (not a folder, bad glob); CANCELLED.
   */
  list(path: string | undefined, options?: { glob?: string; max?: number; offset?: number; countAll?: boolean; signal?: AbortSignal; deadline?: number }): Promise<FileListing>;
  /**
   * A FileAccess over `folders` (absolute paths) instead of the root, each folder a wall as the root is (real-path
   * containment; a symlink that leaves it is refused). `open`, `verify` and `list` take absolute paths inside one of
   * them; `OpenedSource.path` and listed paths are absolute. Folders that do not exist are left out; a path inside
   * none of them is ACCESS_DENIED (without saying whether it exists). The session-history bundle reads the
   * assistants' folders through it.
   */
  within(folders: readonly string[]): FileAccess;
  /**
   * The raw bytes of a file inside the walls, in chunks (`[from, to)`, default the whole file), with no format and no
   * index: for byte-level prefilters that decide whether a file is worth opening. Opened and checked as `open` does;
   * a chunk's bytes are valid until the iteration after next.
   * @throws as `open` (ACCESS_DENIED, NOT_FOUND, INVALID_ARGUMENT), IO_ERROR, CANCELLED.
   */
  read(path: string, options?: { from?: number; to?: number; signal?: AbortSignal }): AsyncIterable<FileChunk>;
  /**
   * A file inside the walls opened for raw reading, checked as `open` checks it, with no format and no index: for a
   * byte prefilter that reads many files on several threads (worker threads share the process's descriptors). Read it
   * only through `fd`, with positional reads of `[0, size)`. Call `close()` once every read of it has ended, on every
   * thread: the number of a closed descriptor is given to the next file opened. (Plugin API 2.5.)
   * @throws McpgwError as `open` (ACCESS_DENIED, NOT_FOUND, INVALID_ARGUMENT), synchronously.
   */
  openRaw?(path: string): RawFile;
}

/** What `FileAccess.openRaw` returns. */
export interface RawFile {
  /** The open descriptor (read-only; never a folder, FIFO, device or socket). */
  readonly fd: number;
  /** Bytes at the open. */
  readonly size: number;
  /** The file's real path. */
  readonly path: string;
  /** Closes the descriptor (once; later calls do nothing). */
  close(): void;
}

/** What `FileAccess.list` returns. Sizes in bytes, times in ms since the epoch. */
export interface FileListing {
  /** The listed folder relative to the root (`""` for the root). */
  folder: string;
  /**
   * `format`: the one open would detect, or null; then `note` says why when the content tells (empty, binary data,
   * UTF-16/UTF-32 text to convert to UTF-8, gzip or zstd data to decompress).
   */
  files: { path: string; size: number; mtimeMs: number; format: string | null; note?: string }[];
  /** True when more files matched than were returned. */
  truncated: boolean;
  /**
   * With `countAll`: every file that matches, those of earlier pages (`offset`) and of later ones included (counted,
   * not opened); absent when the walk stopped early (its deadline, or the entries it visits at most). Plugin API 2.10.
   */
  total?: number;
  /**
   * Entries under the folder the walk could not read, so the listing may miss files: one group per catalogue code
   * (as `osError` maps the system error: ACCESS_DENIED for EACCES/EPERM, INVALID_ARGUMENT for a symbolic link loop
   * (ELOOP), NOT_FOUND for a dangling link or an entry that vanished during the walk…), in the order first met.
   * `count` counts the entries, `paths` names the first 5 as listed paths are named (relative to the root), `message`
   * says what happened to the first. Empty when the walk read everything; absent from older kernels.
   */
  skipped?: ListingSkip[];
}

/** Entries a listing left out for one reason (`FileListing.skipped`). */
export interface ListingSkip {
  code: ErrorCode;
  /** Entries left out with this code. */
  count: number;
  /** The first (at most 5) of them, as listed paths are named. */
  paths: string[];
  /** The catalogue message for the first, e.g. "Permission denied: logs/private". */
  message: string;
}

/** A session's table of opaque ids → values, with idle expiry and a size cap. */
export interface HandleTable<T> {
  /** Stores `value`, returns its new id. @throws RESOURCE_LIMIT_EXCEEDED past `max`. */
  add(value: T): string;
  /** The value; refreshes its idle timer. @throws NOT_FOUND (unknown id), HANDLE_EXPIRED (expired id). */
  get(id: string): T;
  /** Removes the id; true when it existed. Does not call `onEvict`. */
  delete(id: string): boolean;
  /**
   * Removes a single-use id (a cursor) as used up: a later `get` is NOT_FOUND saying it was already used (with
   * `usedHint`). True when it existed. Does not call `onEvict`.
   */
  consume(id: string): boolean;
  readonly size: number;
  entries(): IterableIterator<[string, T]>;
}

export interface HandleTableOptions<T> {
  /** `counter`: `prefix` + 1, 2, …; `random`: `prefix` + 16 random hex digits (not guessable). */
  style: 'counter' | 'random';
  prefix: string;
  /** What the ids denote, for messages ("file handle", "cursor"). */
  noun: string;
  /** The limit `max` stands for, named in RESOURCE_LIMIT_EXCEEDED (`maxOpenFiles`, `maxCursors`). */
  limit: string;
  idleMs: number;
  max: number;
  /** Called when an entry expires or the session ends. */
  onEvict?: (value: T, id: string) => void;
  /** What to do about an expired id (HANDLE_EXPIRED's hint; an unknown id's NOT_FOUND hint ends with it too); default "Open the file again." */
  expiredHint?: string;
  /** What to do about a used-up id (see `consume`); default "Continue from the latest id returned." */
  usedHint?: string;
  /**
   * What frees an id when the table is full (RESOURCE_LIMIT_EXCEEDED's hint); default "Close a `noun` you no longer
   * need." — a table whose ids no tool closes (cursors) says what does free them (paging to the end, expiry).
   */
  fullHint?: string;
  /**
   * When the table holds `max` ids and another is added: `refuse` (default) answers RESOURCE_LIMIT_EXCEEDED; `evict`
   * drops the least recently used id (its `onEvict` runs; a later use of it is HANDLE_EXPIRED saying why). Tables of
   * continuations (cursors), which a client abandons without a word, evict; tables of things a client holds (files)
   * refuse.
   */
  whenFull?: 'refuse' | 'evict';
}

/**
 * A bundle's part of the state of one MCP session (a stdio connection, a 2025-era HTTP session, or a 2026-era
 * principal): its own handle tables and values, which no other bundle sees (names are the bundle's own). It ends
 * with the session.
 */
export interface SessionScope {
  /** The table named `name`, created on first use. */
  handles<T>(name: string, options: HandleTableOptions<T>): HandleTable<T>;
  /** Any per-session value by key, created on first use. */
  get<T>(key: string, create: () => T): T;
}

/** The read-only view of the registry (what every plugin registered) that tools and plugins get. */
export interface RegistryView {
  formats: { list(): readonly { name: string; extensions: readonly string[] }[]; has(name: string): boolean };
  queryLanguages: { get(name: string): QueryLanguage | undefined; list(): readonly QueryLanguage[] };
  /** Detects a format for a probe (used by tools that list files). */
  detect(probe: FormatProbe): { name: string; detection: Detection } | null;
  /** The items provided to extension point `point`, in the order provided (none when no plugin defines it). */
  extensions<T extends { readonly name: string }>(point: string): { list(): readonly T[]; get(name: string): T | undefined };
}

/** What every tool handler receives. Built-in and third-party bundles get exactly this. */
export interface ToolContext {
  readonly registry: RegistryView;
  readonly files: FileAccess;
  readonly session: SessionScope;
  readonly limits: Limits;
  /** Fires when the client cancels (notifications/cancelled) or the connection ends. */
  readonly signal: AbortSignal;
  /** ms since the epoch after which a scan returns what it has with a cursor. */
  readonly deadline: number;
  /** The kernel's clock (contracts/clock.ts): compare `deadline` with `clock.now()`, never with `Date.now()`. */
  readonly clock: Clock;
  /** Sends notifications/progress when the client asked for them (progressToken); otherwise a no-op. */
  progress: ProgressReporter;
  readonly log: Logger;
  error(code: ErrorCode, message: string, details?: ErrorDetails): McpgwError;
  /** Absolute root folder (real path), for messages only; file access goes through `files`. `""` when the profile
   *  offers only bundles that need no root and none was given (then `files.open` is ACCESS_DENIED). */
  readonly root: string;
  /**
   * The query scan engine (contracts/scan.ts): tools evaluate compiled queries over a RecordSource through it, never
   * record by record themselves. Shared server-wide (it enforces Limits.maxConcurrentScans).
   */
  readonly scan: ScanEngine;
  /**
   * Regular expressions in RE2 syntax on a linear-time engine (contracts/regex.ts): compile once (QUERY_SYNTAX_ERROR
   * with the position of a bad construct), match decoded strings in linear time, and prefilter raw JSON records by
   * the literals every match requires. Shared server-wide; compiled patterns hold no per-request state.
   */
  readonly regex: RegexService;
  /**
   * JSON text laid out one page at a time (contracts/records.ts): re-indented or compact, lexemes as written, cut on a
   * character boundary outside escapes; a page costs its bytes plus one counting scan, never the whole laid-out text.
   */
  readonly json: JsonLayout;
  /**
   * How the profile wants answers written (docs/architecture.md "Context budget"); absent where no profile applies
   * (then every setting is its default).
   */
  readonly answers?: AnswerSettings;
}

/** A profile's settings about how answers are written (`.mcpgwrc`: `recordFormat`, `resultText`). */
export interface AnswerSettings {
  /** Record text a tool shows by default: `compact` (one line, the default) or `pretty` (re-indented). */
  readonly recordFormat: 'pretty' | 'compact';
  /**
   * The text block of a result: `auto` (the default: by the client's family, server/client-families.ts — a summary for
   * a client that reads both copies, else full), `full` (its structuredContent as compact JSON) or `summary` (a short
   * line naming what the structuredContent holds). Error results are always full.
   */
  readonly resultText: 'auto' | 'full' | 'summary';
  /**
   * Whether tools that may quote private text (a person's conversation history) mask the secrets in their answers (`.mcpgwrc`:
   * `redactSecrets`, default true; absent counts as true).
   */
  readonly redactSecrets?: boolean;
}

export type { OpenedFile };
