import type { ErrorLocation } from '../errors';
import type { Limits } from './limits';

/** A file's identity when it was opened; any change between calls is SOURCE_CHANGED. */
export interface FileIdentity {
  /** Bytes. */
  size: number;
  /** Modification time, ms since the epoch. */
  mtimeMs: number;
  inode: number;
  dev: number;
}

/** What a format's `detect` sees: the first `probeBytes` bytes of the file and its name. */
export interface FormatProbe {
  /** Base name of the file, e.g. `events.jsonl`. */
  fileName: string;
  /** Lower-case extension with the dot, e.g. `.jsonl`, or `""`. */
  extension: string;
  /** The first bytes of the file (at most `limits.probeBytes`). */
  bytes: Buffer;
  /** Whole file size in bytes. */
  size: number;
}

/** An opened regular file inside the root, handed to a format's `open`. The kernel owns the descriptor. */
export interface OpenedFile {
  /** Real path (symlinks resolved). */
  realPath: string;
  /** Path relative to the root, with `/` separators, as shown to users. */
  displayPath: string;
  /** Open read-only file descriptor; read with `fs.readSync`/`fs.read` positional reads. */
  fd: number;
  identity: FileIdentity;
}

/** Progress of long work: `done` of `total` (bytes unless said otherwise). */
export type ProgressReporter = (done: number, total: number, message?: string) => void;

export interface OpenOptions {
  limits: Limits;
  signal?: AbortSignal;
  onProgress?: ProgressReporter;
}

/**
 * A format plugin's contribution: how to recognise a file and how to see it as records.
 * Detection is content first, extension as a tie-breaker; an explicit format always wins (DESIGN).
 */
export interface Format {
  /** Registered name: `json`, `jsonl`, `json-seq`, or a third party's. Unique across plugins. */
  readonly name: string;
  /** Extensions with the dot, lower case, e.g. `['.jsonl', '.ndjson']`. */
  readonly extensions: readonly string[];
  /** One line for `mcpgw plugins` and docs. */
  readonly description?: string;
  /**
   * Confidence in [0, 1] that the probe's content is this format, or `null` when it cannot be.
   * Must be cheap and must not throw on any input.
   */
  detect(probe: FormatProbe): number | null;
  /**
   * Builds the record index by one streaming pass and returns the source.
   * @throws McpgwError SYNTAX_ERROR when the framing itself is broken beyond records,
   *   RESOURCE_LIMIT_EXCEEDED, CANCELLED (signal), IO_ERROR.
   */
  open(file: OpenedFile, options: OpenOptions): Promise<RecordSource>;
}

/** Consecutive records delivered by a scan, with the bytes that hold them. Valid until the next batch is requested. */
export interface RecordBatch {
  /** Index of the first record in this batch. */
  readonly first: number;
  /** Number of records in this batch. */
  readonly count: number;
  /** Bytes covering these records; `span` gives each record's range inside it. */
  readonly bytes: Buffer;
  /** Byte range `[start, end)` inside `bytes` of record `first + k` (framing and surrounding whitespace excluded). */
  span(k: number): [start: number, end: number];
  /** The `k` (0-based within the batch) of the record whose span contains byte `offset` of `bytes`, or -1. */
  recordAt(offset: number): number;
  /** Record `first + k` as text, strict UTF-8. @throws SYNTAX_ERROR */
  text(k: number): string;
  /** Record `first + k` parsed exactly, as `RecordSource.value`. @throws SYNTAX_ERROR, RESOURCE_LIMIT_EXCEEDED */
  value(k: number): unknown;
}

export interface ScanOptions {
  /** First record index (inclusive), default 0. */
  from?: number;
  /** Last record index (exclusive), default `count`. */
  to?: number;
  signal?: AbortSignal;
  /** Reports bytes scanned of bytes to scan. */
  onProgress?: ProgressReporter;
}

/**
 * One opened file seen as records `0..count-1` (DESIGN "The contracts"). Built by one streaming
 * pass that stores record offsets, never the file.
 */
export interface RecordSource {
  /** The format's registered name. */
  readonly format: string;
  /** The explorer's `file_type` name: `ndjson`, `json_array`, `json_object`, `json_value`, `json_seq`, or a plugin's. */
  readonly fileType: string;
  /** Framed records, malformed ones included. */
  readonly count: number;
  /**
   * Whole-file addressing (DESIGN "Two addressing modes"): true when the file's root is the sequence of its
   * records (JSON Lines, JSON-seq, a top-level array: record i is `/i`), false when the file is one document
   * (a top-level object or scalar: record 0 is the root `""`).
   */
  readonly rootIsSequence: boolean;
  readonly identity: FileIdentity;
  /** The exact bytes of record i (framing excluded). @throws RESOURCE_LIMIT_EXCEEDED past maxRecordBytes. */
  raw(i: number): Buffer;
  /** Record i as text, strict UTF-8. @throws SYNTAX_ERROR on invalid UTF-8 (with its byte offset). */
  text(i: number): string;
  /**
   * Record i parsed; numbers that a double cannot hold exactly are `JSON.rawJSON` objects of their
   * lexeme, so they serialize digit for digit. @throws SYNTAX_ERROR with location, RESOURCE_LIMIT_EXCEEDED (maxDepth).
   */
  value(i: number): unknown;
  /** Where record i starts: byte offset, line, column 1, record index. */
  location(i: number): ErrorLocation;
  /** Records in file order, in batches; checks the signal between batches. */
  scan(options?: ScanOptions): AsyncIterable<RecordBatch>;
  /** Releases the index; the kernel closes the descriptor. */
  close(): void;
}
