import type { LazyNode, ProgressReporter, RecordBatch, RecordSource } from './format';
import type { CompiledQuery } from './query';
import type { AggregateOptions, AggregateResult } from './aggregate';
import type { MessagePort } from 'node:worker_threads';

/**
 * How node locations are reported (docs/architecture.md "Two addressing modes").
 * - `record`: each record is `$`; paths are RFC 6901 pointers inside the record (the explorer).
 * - `file`: the whole file is `$` (the reader, `mcpgw query`): when `source.rootIsSequence` the root is the sequence
 *   of records and paths are `/<i>/…`; otherwise record 0 is the root document and paths start at `""`.
 */
export type Addressing = 'record' | 'file';

/** Where a scan continues: the first record not finished, and how many of its units were already returned. */
export interface ScanPosition {
  record: number;
  node: number;
  /** Inside a record evaluated in parts (a large document walked through lazy nodes): where the walk resumes. */
  at?: number[];
}

export interface ScanQueryOptions {
  source: RecordSource;
  query: CompiledQuery;
  addressing: Addressing;
  /** `nodes`: every node (default); `records`: at most the first node of each record (explorer search). */
  unit?: 'nodes' | 'records';
  /** Opaque, JSON-serializable resume position from a previous result's `next` (the prefix is not rescanned). */
  resume?: ScanPosition;
  /** Stop once this many units are collected; `next` is then set when more may follow. Default: no limit. */
  limit?: number;
  /**
   * Keep scanning after `limit` to count every matching unit in `total` (explorer total_matches). With `limit: 0` the
   * scan only counts (search `max_results: 0`, json_read `count: true`): no nodes, values never parsed beyond the
   * check that a counted record is well-formed, and `next` is set only where a deadline stopped the count.
   */
  countAll?: boolean;
  signal?: AbortSignal;
  /**
   * ms since the epoch; past it the scan stops with `complete: false` and a `next` that continues exactly at the
   * first record not finished (a record in evaluation is evaluated again by the next page, not skipped). A page
   * always finishes at least one record, so a walk of pages ends; a record whose evaluation alone runs for half a
   * page's time (and at least 200 ms) is skipped with RESOURCE_LIMIT_EXCEEDED (`limit.name: "requestTimeoutMs"`).
   */
  deadline?: number;
  /** Records scanned of records to scan. */
  onProgress?: (done: number, total: number) => void;
  /**
   * Streaming: the page's nodes are handed to `sink` in order, a batch at a time (awaited: backpressure), instead of
   * being returned in `ScanResult.nodes` (then empty). `limit`, `next`, `total` work as without it. For `mcpgw query`,
   * which prints a whole file's node list without holding it. A sink that returns a number `k` smaller than the
   * batch's length accepts only its first `k` nodes: the scan stops, and `next` is the position of node `k` (the page
   * ends there; a reader stops a page at its byte cap this way).
   */
  sink?: (nodes: ScanNode[]) => void | number | Promise<void | number>;
}

/**
 * One selected node. `record` is the index of the record holding it; `path` is an RFC 6901 pointer in the
 * requested addressing; `value` keeps numbers exact (`JSON.rawJSON` for lexemes a double cannot hold) and key order.
 */
export interface ScanNode {
  record: number;
  path: string;
  /**
   * The value. For a node reached through lazy nodes (`node` set) it is parsed on first access, and reading it
   * throws RESOURCE_LIMIT_EXCEEDED when the value is longer than maxRecordBytes.
   */
  value: unknown;
  /** Where a scan resumes to start at this node (pass as `resume`): lets a consumer stop a page before it. */
  position?: ScanPosition;
  /**
   * Records this scan passed over before this node (plugin API 2.7): a consumer that ends its page before the node
   * reports this many as the page's skipped records (the next page, resumed at `position`, reports the rest).
   */
  skippedBefore?: number;
  /**
   * Records this scan's byte prefilter ruled out before this node without parsing them (plugin API 2.9): a consumer
   * that ends its page before the node reports this many as the page's unparsed records, as with `skippedBefore`.
   */
  unparsedBefore?: number;
  /** The node in the file, when the engine reached it through lazy nodes: its size is known before it is parsed. */
  node?: LazyNode;
}

/**
 * A record the scan passed over: malformed JSON, invalid UTF-8 (`SYNTAX_ERROR`), nesting past maxDepth, or a
 * record whose evaluation alone outlasted the time a page may take (`RESOURCE_LIMIT_EXCEEDED`).
 */
export interface SkippedRecord {
  record_index: number;
  /** The catalogue code saying why: `SYNTAX_ERROR` or `RESOURCE_LIMIT_EXCEEDED`. */
  code: string;
  /** For RESOURCE_LIMIT_EXCEEDED: the limit (`maxDepth`, `maxNodes`, `requestTimeoutMs`, `maxRecordBytes`). */
  limit?: string;
  line?: number;
  byte_offset?: number;
  message: string;
}

export interface ScanResult {
  /** In node-list order: file order, then document order inside each record. Empty with `sink`. */
  nodes: ScanNode[];
  /** Set when `limit` stopped the scan with more possibly following, or when the deadline stopped it. */
  next: ScanPosition | null;
  /** false only when the deadline stopped the scan (`next` continues it). */
  complete: boolean;
  /** With `countAll`: matching units from the resume position to the end (a lower bound when `complete` is false). */
  total?: number;
  /**
   * Records passed over before `next` (every one in the part scanned when `next` is null): the records after the
   * page's end belong to the page that reaches them, so the pages' counts add up to the file's, each record once.
   */
  skipped: number;
  /** The first (at most 5) of them, in file order. */
  firstSkipped: SkippedRecord[];
  /**
   * Records before `next` (every one in the part scanned when `next` is null) that the query's byte prefilter
   * (`CompiledQuery.requiredLiterals`) ruled out without parsing them (plugin API 2.9): they cannot hold a node the
   * query selects, and a malformed one among them is not in `skipped`. Counted like `skipped` (each record by the
   * page that reaches it, once). Absent or 0 when the query has no prefilter.
   */
  unparsed?: number;
}

/** NUMBER_LIKE_STRINGS (`ScanEngine.numberLikeStrings`): in `count` records `path`'s comparison passed such strings by. */
export interface NumberLikeWarning { code: 'NUMBER_LIKE_STRINGS'; message: string; count: number; path: string }

/** `ScanEngine.queryNotes`: NUMBER_LIKE_STRINGS, or EXISTENCE_TEST (in `count` records `path` selected false or null). */
export interface QueryNote { code: 'NUMBER_LIKE_STRINGS' | 'EXISTENCE_TEST'; message: string; count: number; path: string }

/** What `ScanEngine.missingMembers` found: records examined, and each name none of them has with the nearest ones. */
export interface MissingMembers {
  /** Records examined (from the start of the file, within the engine's bounds). */
  examined: number;
  /** The names no examined record has, each with the nearest names seen (closest first, at most 5). */
  missing: { name: string; nearest: string[] }[];
  /**
   * Some record was examined only in part: a document too large to parse for a hint has its member names read through
   * lazy nodes, large arrays sampled (64 elements spread evenly) and at most 4,096 containers; names elsewhere in it may
   * exist.
   */
  partial?: boolean;
}

/**
 * The kernel's query scan engine (`ctx.scan`): evaluates a compiled query over a record source, prefiltering raw
 * bytes with the query's `requiredLiterals`, reading single members on demand, on worker threads for big scans.
 * At most `Limits.maxConcurrentScans` scans run at once server-wide; a scan waits for a slot until its deadline.
 * @throws McpgwError CANCELLED (signal), RESOURCE_LIMIT_EXCEEDED (`maxConcurrentScans` when no slot frees before the
 *   deadline; `maxDepth` on a single-document file), UNSUPPORTED_QUERY_FEATURE (file addressing of a query that does
 *   not distribute over records on a large file), SOURCE_CHANGED, IO_ERROR.
 */
export interface ScanEngine {
  run(options: ScanQueryOptions): Promise<ScanResult>;
  /** Count, group, sum and bucket (contracts/aggregate.ts); the same slots, prefilters, threads and deadline. */
  aggregate(options: AggregateOptions): Promise<AggregateResult>;
  /**
   * One of the same server-wide scan slots, for a scan a tool runs itself (the explorer's text search): waits in
   * arrival order until a slot frees; resolves to the function that gives it back (idempotent). Hold it only while
   * scanning. @throws RESOURCE_LIMIT_EXCEEDED (limit `maxConcurrentScans`) when none frees before `deadline` (ms since
   * the epoch), CANCELLED when `signal` fires first.
   */
  slot(deadline: number | undefined, signal: AbortSignal | undefined): Promise<() => void>;
  /**
   * Explains an empty answer: which of `names` (a query's `CompiledQuery.memberNames`) no record examined has as a
   * member name at any depth, with the nearest names the records do have (edit distance). Examines records from the
   * start of the file: at most 1,000 records and 8 MiB, stopping once every name is seen; malformed records add
   * nothing; a record over 1 MiB is not parsed but looked into through lazy nodes (`partial` when sampled).
   * @throws CANCELLED, IO_ERROR
   */
  missingMembers(source: RecordSource, names: readonly string[], signal?: AbortSignal): Promise<MissingMembers>;
  /**
   * Optional (API 3.2): a count-only scan of each of `query.numberLikeChecks()` in its addressing, under `deadline`;
   * a warning for each that selects any. A check that cannot run gives none. @throws CANCELLED
   */
  numberLikeStrings?(query: CompiledQuery, options: Pick<ScanQueryOptions, 'source' | 'addressing' | 'unit' | 'signal' | 'deadline'>): Promise<NumberLikeWarning[]>;
  /** Optional (API 3.3): as numberLikeStrings, for every check (`numberLikeChecks`, `existenceChecks`). @throws CANCELLED */
  queryNotes?(query: CompiledQuery, options: Pick<ScanQueryOptions, 'source' | 'addressing' | 'unit' | 'signal' | 'deadline'>): Promise<QueryNote[]>;
  /**
   * Optional (API 2.12): one of the engine's pooled threads for a plugin's own work (`ThreadTask`). Absent: do the work
   * on this thread. @throws Error when no thread can be started.
   */
  thread?(task: ThreadTask): TaskThread;
  /**
   * The record loop over a caller's matcher (API 3.0; a tool's own search is a matcher, not a loop of its own): batches
   * in file order, the matcher's prefilter, `match` on each candidate, hits to `onHit` in file order. Runs in the
   * caller's scan slot. @throws McpgwError CANCELLED, IO_ERROR, SOURCE_CHANGED; whatever `match` or `onHit` throws
   */
  match<H>(options: MatchScanOptions<H>): Promise<MatchScanResult>;
}

/** A caller's per-record test that the engine's record loop runs (`ScanEngine.match`). */
export interface RecordMatcher<H> {
  /** A byte prefilter: `onCandidate(k)` for each record that may match, in order, until it returns false. Absent: all. */
  candidates?(batch: RecordBatch, onCandidate: (k: number) => boolean | void): void;
  /** Record `k` of `batch` tested: its hit, or null. A record it cannot read it reports itself (and answers null). */
  match(batch: RecordBatch, k: number): H | null;
  /** A record longer than maxRecordBytes (a batch of one, `oversized`): its hit found another way, or null. Absent: `match`. */
  oversized?(record: number): H | null;
}

export interface MatchScanOptions<H> {
  source: RecordSource;
  matcher: RecordMatcher<H>;
  /** First record (default 0). */
  from?: number;
  /** Last record, exclusive (default the source's count). */
  to?: number;
  signal?: AbortSignal;
  /** ms on the engine's clock: once past it, the scan stops after the batch in progress (`stoppedAt`). */
  deadline?: number;
  onProgress?: ProgressReporter;
  /** A hit, in file order; `unparsedBefore`: records the prefilter ruled out before it. False ends the scan there. */
  onHit(record: number, hit: H, unparsedBefore: number): boolean;
}

export interface MatchScanResult {
  /** The first record not scanned when the deadline stopped the scan; null when it reached the end or `onHit` ended it. */
  stoppedAt: number | null;
  /** Records the prefilter ruled out (never given to `match`) in the part scanned. */
  unparsed: number;
}

/**
 * Work a plugin runs on an engine thread (`ScanEngine.thread`): the thread loads `module` (absolute path of a built file
 * of the plugin's; it may import the plugin kit) and calls its export `name(port, data)`; `data` is cloned.
 */
export interface ThreadTask {
  module: string;
  name: string;
  data?: unknown;
}

/** A thread a task holds: the caller's end of the port; `release()` (all answered: back to the pool) or `terminate()`. */
export interface TaskThread {
  readonly port: MessagePort;
  /** Called once when the thread fails or exits while held (its work is lost). */
  onFail(listener: (err: Error) => void): void;
  release(): void;
  terminate(): void;
}
