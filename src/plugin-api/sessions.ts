/**
 * Session sources: where an AI coding assistant (Claude Code, Codex, Copilot CLI, Gemini CLI, Qwen Code, Kimi, or a
 * third party's) keeps its conversations on disk, and how one stored record becomes a normalized entry. A plugin
 * provides one to the session-history plugin's extension point `session-source` (`context.provide('session-source', source)`); the `sessions` tool bundle reads every enabled source
 * through this contract. Sources only describe; the kernel opens and indexes the files (inside the source's home,
 * through `FileAccess.within`), and the bundle pages, searches and counts.
 */

/** Who wrote an entry. `checkpoint`: a bookkeeping marker (file snapshot, context checkpoint), not conversation. */
export type SessionRole = 'user' | 'assistant' | 'tool' | 'system' | 'summary' | 'checkpoint';

/** Tokens of one model response, counted separately. Integers ≥ 0. */
export interface SessionTokens {
  input_tokens: number;
  output_tokens: number;
  /** Prompt tokens read from the provider's cache. */
  cache_read_tokens: number;
  /** Prompt tokens written to the provider's cache. */
  cache_write_tokens: number;
}

/** One tool call made by the assistant. `input` is the call's arguments as a JSON object (never as text). */
export interface SessionToolUse {
  id: string;
  name: string;
  input: Record<string, unknown>;
}

/** The output of a tool call, as text. */
export interface SessionToolResult {
  tool_use_id: string;
  result: string;
  is_error: boolean;
}

/**
 * One entry as a source produces it: the normalized shape without its position (`index`) and before any
 * truncation. `text` holds the entry's words (joined text blocks); binary payloads (base64 images, documents) are
 * summarized by the source (`[image: image/png, 5,242,880 bytes of base64]`), never copied in.
 */
export interface SessionEntryDraft {
  uuid: string | null;
  role: SessionRole;
  /** RFC 3339, as the file has it, or null when the source writes none. */
  timestamp: string | null;
  text: string;
  thinking: string | null;
  tool_uses: SessionToolUse[];
  tool_results: SessionToolResult[];
  model: string | null;
  /** Tokens of the response this entry belongs to (repeated on every entry of a response split over records). */
  usage: SessionTokens | null;
  /**
   * True when the assistant wrote this entry into the conversation, not the person: injected instructions (Codex's
   * AGENTS.md block, `<environment_context>`), slash-command wrappers and caveats, compaction summaries, generated
   * titles. Such entries never count as user messages nor become a session's first prompt. Absent: false.
   */
  injected?: boolean;
}

/** What a record says about its session as a whole (first value seen wins, except `model`: the last one). */
export interface SessionHints {
  session_id?: string;
  /** The project folder the assistant worked in (the real path, not an encoded folder name). */
  cwd?: string;
  git_branch?: string;
  model?: string;
  /**
   * When the session started, RFC 3339: from the source's own session record where it has one (Codex session_meta,
   * Copilot session.start, Gemini's startTime), else the first record's time. Sessions' `created_at` is this time,
   * else the earliest entry's.
   */
  timestamp?: string;
  /** The session's title where the assistant writes one (a rename, a generated title, a thread name). */
  title?: string;
  /** Where `title` came from: `user` (a rename: wins over any other) or `assistant` (generated; the latest one). */
  title_source?: 'user' | 'assistant';
  /** A subagent's session: the id of the session that started it. */
  parent_session_id?: string;
  /** A fork (a copy continued separately): the id of the session it was copied from. */
  forked_from?: string;
}

/**
 * One model response's usage as recorded. `key` identifies the response (Claude: its message id) so that a response
 * written as several records is counted once, with the largest value of each token field among them (a streamed
 * response's first records carry partial counts); records without a key are each counted. A key may carry a
 * refinement after a NUL character (`id\u0000requestId`): records of one key are split by their refinements only when
 * every record of the key has one.
 */
export interface SessionUsageRecord {
  key?: string;
  /** Model responses this record stands for (a per-model total of a whole run, e.g. Copilot's shutdown); absent: 1. */
  responses?: number;
  model?: string;
  tokens: SessionTokens;
  /** RFC 3339, when the record has one (for `since`/`until`). */
  timestamp?: string;
}

/** What `SessionSource.normalize` makes of one record. Any part may be absent. */
export interface NormalizedRecord {
  entry?: SessionEntryDraft;
  hints?: SessionHints;
  /** One response's usage, or several (a record holding per-model totals). */
  usage?: SessionUsageRecord | readonly SessionUsageRecord[];
}

/** One session of a source: its main file and, for sources that continue a session in further files, those. */
export interface SessionRef {
  /** The source's own session id (a UUID for most sources). */
  id: string;
  /** Absolute path of the session's (first) file. */
  path: string;
  /**
   * Every file of the session in reading order; absent: `[path]`. Kimi reads its rotated `context_N.jsonl` (the history
   * before a `/clear`) before `context.jsonl`, which stays `path`.
   */
  files?: string[];
  /** A subagent's transcript: the id of the session that started it (listed and counted under it, never merged in). */
  parent_id?: string;
  /** A fork: the id of the session it was copied from. */
  forked_from?: string;
  /** The session was archived by the assistant (Codex `archived_sessions/`). */
  archived?: boolean;
  /** The session's title as the assistant's own index names it (Codex `session_index.jsonl`), when it keeps one. */
  title?: string;
}

/** A project: the folder an assistant worked in, and the sessions recorded for it. */
export interface SessionProject {
  /** Stable id, unique within the source (Claude: the encoded folder name; Codex: the working folder). */
  id: string;
  /** Display name (the project folder's base name). */
  name: string;
  /** The project folder (absolute), or null when the source does not record it. */
  path: string | null;
  sessions: SessionRef[];
}

/** How a session file holds its records. */
export type SessionLayout =
  /** JSON Lines: every line is one record (Claude, Codex, Copilot, Qwen, Kimi). */
  | { kind: 'lines' }
  /**
   * One JSON document per session (Gemini before 0.39): the records are the elements of the array at RFC 6901
   * `entriesPointer`; `hints` maps SessionHints keys to pointers of top-level scalars (`{session_id: "/sessionId"}`).
   * A session file of such a source named `*.jsonl` is read as JSON Lines (Gemini since 0.39).
   */
  | { kind: 'document'; entriesPointer: string; hints?: Partial<Record<keyof SessionHints, string>> };

/** Options of `SessionSource.discover`. */
export interface DiscoverOptions {
  signal?: AbortSignal;
}

/**
 * A session source. Plain data plus pure functions: `discover` lists folders and may read a few head bytes of
 * session files (to learn a project's folder), never whole sessions; `normalize` must not throw on any record (unknown
 * record types become `system` entries holding their raw type, so format drift is never fatal).
 */
export interface SessionSource {
  /** Registered name, lower case (`claude`, `codex`, …): config key `sessions.sources.<name>`, env `MCPGW_<NAME>_HOME`. */
  readonly name: string;
  /** Human name (`Claude Code`). */
  readonly title?: string;
  /** The tool's own folder under the user's home folder (`~/.claude`), used when config and environment name none. */
  defaultHome(userHome: string): string;
  /** The folder under `home` that holds the sessions (`list_sources` base_path), e.g. `<home>/projects`. */
  sessionsRoot(home: string): string;
  readonly layout: SessionLayout;
  /** The projects and sessions under `home`, each session file an absolute path inside `home`. */
  discover(home: string, options?: DiscoverOptions): Promise<SessionProject[]>;
  /** One record (a parsed line, or one element of a document's entries array) normalized; null when it says nothing. */
  normalize(record: unknown): NormalizedRecord | null;
  /**
   * Executable base names of the assistant's running processes (`claude`, `codex`), matched against
   * `/proc/<pid>/cmdline` by `list_active_sessions`. Absent: none are looked for.
   */
  readonly processNames?: readonly string[];
}

/**
 * Turns texts into vectors for `semantic_search`. The built-in one (`glove-sif-100d`) uses static word vectors with
 * SIF weighting and runs offline with no download; a plugin may register a stronger local model (an ONNX model
 * directory the user points to, say) to the extension point `embedder` (`context.provide('embedder', embedder)`), and config `sessions.embedder` selects it.
 * The index is rebuilt when the embedder (name or dimensions) changes.
 */
export interface Embedder {
  /** Registered name, e.g. `glove-sif-100d`. */
  readonly name: string;
  /** Length of every vector. */
  readonly dimensions: number;
  /**
   * true: the index removes the corpus's common component (its first principal direction) from every vector and from
   * queries — the second step of SIF, which static word-vector averages need and contextual models do not.
   */
  readonly removeCommonComponent?: boolean;
  /** One vector per text, in order (texts are paragraphs of at most a few thousand characters). @throws on failure */
  embed(texts: readonly string[], options?: { signal?: AbortSignal }): Promise<Float32Array[]>;
}
