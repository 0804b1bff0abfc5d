import type { ErrorLocation } from '../errors';
import type { Limits } from './limits';
import type { OffsetIndex } from './records';

/** A file's identity when it was opened; any change between calls is SOURCE_CHANGED. */
export interface FileIdentity {
  /** Bytes. */
  size: number;
  /** Modification time, ms since the epoch. */
  mtimeMs: number;
  /**
   * Change time (ctime), ms since the epoch: moved by every write and metadata change, and, unlike the modification
   * time, never set back by a user (`touch -r`), so a same-size rewrite with its modification time restored shows.
   */
  ctimeMs: number;
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
  /**
   * Index only from this byte offset on (a record start the caller knows, e.g. where it stopped reading before): the
   * bytes before it are not read and its records are not in the source (record 0 starts here; their lines are then
   * counted from the file start only if an error needs one). Formats framed by separators (JSON Lines) honour it;
   * others index the whole file. See `RecordSource.offset` to tell which happened.
   */
  from?: number;
  /**
   * A persistent index read back from the index cache (docs/architecture.md "Persistent index"): the records of the
   * file's bytes `[0, end)` as an earlier pass found them, and the format's own state as its `SourceSpec.saveState`
   * gave it. A format that supports it builds its source from these without reading the file (and extends the index
   * through `SourceSpec.extend` when the kernel then finds the file grew); one that does not simply ignores it. A
   * `state` the format does not recognise means: index the file as usual.
   */
  restored?: RestoredIndex;
}

/** See {@link OpenOptions.restored}. */
export interface RestoredIndex {
  /** The stored offsets and line checkpoints (more records may be pushed onto it). */
  index: OffsetIndex;
  /** `SourceSpec.end` as it was stored, bytes. */
  end: number;
  rootType?: RecordSource['rootType'];
  /** The format's own resumable state (`SourceSpec.saveState`), at most 64 KiB. */
  state: Uint8Array;
}

/**
 * A format plugin's contribution: how to recognise a file and how to see it as records.
 * Detection is content first, extension as a tie-breaker; an explicit format always wins (docs/architecture.md "Records and formats").
 */
export interface Format {
  /** Registered name: `json`, `jsonl`, `json-seq`, or a third party's. Unique across plugins. */
  readonly name: string;
  /** Extensions with the dot, lower case, e.g. `['.jsonl', '.ndjson']`. */
  readonly extensions: readonly string[];
  /** One line for `mcpgw plugins` and docs. */
  readonly description?: string;
  /**
   * What an empty or whitespace-only file is in this format, for list_files' note: `no-records` (a sequence of
   * records holding none: JSON Lines, JSON-seq) or `not-a-text` (a document that must hold a value, which open
   * refuses as SYNTAX_ERROR: JSON, RFC 8259 §2). Absent: the note says only that the file is empty or blank.
   */
  readonly emptyText?: 'no-records' | 'not-a-text';
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

/**
 * Consecutive records delivered by a scan, with the bytes that hold them. Valid until the next batch is requested.
 * A record longer than maxRecordBytes comes alone in a batch without its bytes (`span` is empty) whose
 * `text`/`value` throw RESOURCE_LIMIT_EXCEEDED, so a scan goes on past it.
 */
export interface RecordBatch {
  /**
   * True for the batch of one record longer than maxRecordBytes: it has no bytes (its span is empty) and its
   * `text`/`value` throw RESOURCE_LIMIT_EXCEEDED. A consumer that can read the record in parts (RecordSource.node)
   * does so; any other reports it — never passes over it silently.
   */
  readonly oversized?: boolean;
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
  /**
   * Record `first + k` parsed exactly, as `RecordSource.value` (warnings, when an array is given, as there).
   * @throws SYNTAX_ERROR, RESOURCE_LIMIT_EXCEEDED
   */
  value(k: number, warnings?: RecordWarning[]): unknown;
  /**
   * The format's framing check of record `first + k` (`RecordFraming.checkRecord`, e.g. RFC 7464 §2.1 and §2.4), the
   * one `value` applies: present when the format has one. A consumer that parses a record from `bytes` itself calls
   * it first, so every scan skips and reports what `value` rejects. @throws SYNTAX_ERROR (the record's location)
   */
  checkFraming?(k: number): void;
}

/**
 * A non-fatal note about a record that a tool passes on in its result's `warnings`.
 * Codes: `LONE_SURROGATE_REPLACED` (an escaped lone UTF-16 surrogate, RFC 8259 §8.2, came back as U+FFFD),
 * `DUPLICATE_KEY` (RFC 8259 §4: a member name repeated in one object; the last one wins), or a format's own.
 */
export interface RecordWarning {
  code: string;
  message: string;
  record_index?: number;
  /** RFC 6901 pointer inside the record (the first place concerned). */
  path?: string;
  /** Where the record starts, bytes. */
  byte_offset?: number;
  line?: number;
}

/** Options of {@link RecordSource.validate}. */
export interface ValidateOptions {
  /**
   * `probe` (default): the first records within `probeRecords` and `probeBytes` (at least one record);
   * `full`: every record.
   */
  mode?: 'probe' | 'full';
  /** Probe bounds; default the source's limits (`probeBytes`, `probeRecords`). */
  probeBytes?: number;
  probeRecords?: number;
  signal?: AbortSignal;
  /**
   * ms since the epoch (a tool's `ctx.deadline`): past it, validation stops after the current batch and returns the
   * report so far with `complete: false` (checked between batches). Default: none.
   */
  deadline?: number;
  /** The clock `deadline` is on: ms since the epoch (pass a tool's `ctx.clock.now`). Default: the system clock. */
  now?: () => number;
  /** Bytes examined of bytes to examine. */
  onProgress?: ProgressReporter;
}

/**
 * What a validation pass found (`RecordSource.validate`). Record indexes are 0-based; lines 1-based; offsets in bytes.
 * Kernel names are camelCase; each bundle maps them to its own wire shape (the explorer's and the reader's `validation`).
 */
export interface ValidationReport {
  mode: 'probe' | 'full';
  /** True when every record of the file was examined. */
  complete: boolean;
  recordsExamined: number;
  /** Bytes of the records examined; when `complete`, the whole file's size (the framing between them was read too). */
  bytesExamined: number;
  /** Records that are not valid JSON (SYNTAX_ERROR when read), deeper than maxDepth, or broken framing. */
  malformedRecords: number;
  /** The first malformed records (at most 5), in file order. */
  firstMalformed: { recordIndex: number; code: string; message: string; byteOffset?: number; line?: number; column?: number }[];
  /** The first error of all (the first of `firstMalformed`), with its location as an error payload carries it. */
  firstError?: { code: string; message: string; location?: ErrorLocation };
  /** Records longer than maxRecordBytes: not parsed whole; examined in parts through lazy nodes when the source has `node`. */
  oversizedRecords: number;
  /** Records holding an object with a repeated member name (the last one wins everywhere). */
  duplicateKeys: number;
  firstDuplicateKey?: { recordIndex: number; key: string; path: string };
  /** Records in which escaped lone surrogates are replaced by U+FFFD when read. */
  loneSurrogates: number;
}

/**
 * One JSON value inside a record, reached without parsing the record (see {@link RecordSource.node}).
 * Offsets and lengths are bytes of the file; the node's bytes are its exact JSON text.
 */
export interface LazyNode {
  type: 'object' | 'array' | 'string' | 'number' | 'boolean' | 'null';
  /** File offset of the value's first byte. */
  byteOffset: number;
  /** Bytes of the value's text (surrounding whitespace excluded). */
  byteLength: number;
  /**
   * Members of an object or elements of an array (absent for scalars). Computed on first access by
   * one synchronous scan of the container's bytes, then cached.
   */
  readonly childCount?: number;
  /**
   * Children `[from, to)` in document order: `key` (member name; duplicates are listed as they appear)
   * for object members, `index` for array elements. Absent for scalars.
   * @throws INVALID_ARGUMENT for a bad range.
   */
  children?(from: number, to: number): { key?: string; index?: number; node: LazyNode }[];
  /**
   * Objects: the member named `name` that counts (the last of repeated names, as everywhere), with its index among
   * the children, or undefined when there is none. Names are decoded once per container and looked up by a map.
   */
  member?(name: string): { index: number; node: LazyNode } | undefined;
  /**
   * The value parsed exactly (as `RecordSource.value`).
   * @throws RESOURCE_LIMIT_EXCEEDED past maxRecordBytes or maxDepth; SYNTAX_ERROR.
   */
  value(warnings?: RecordWarning[]): unknown;
  /**
   * The value's exact JSON text from the file, strict UTF-8 (nothing parsed).
   * @throws RESOURCE_LIMIT_EXCEEDED past maxRecordBytes; SYNTAX_ERROR (invalid UTF-8, at its byte offset).
   */
  text?(): string;
  /**
   * Bytes `[from, to)` of the value's text (default all of it), e.g. to read a value larger than any answer in parts.
   * @throws INVALID_ARGUMENT (a range outside the value), RESOURCE_LIMIT_EXCEEDED (more than maxRecordBytes at once).
   */
  bytes?(from?: number, to?: number): Buffer;
}

/** Which records `RecordSource.batches` reads, and its cancellation and progress. */
export interface BatchOptions {
  /** First record index (inclusive), default 0. */
  from?: number;
  /** Last record index (exclusive), default `count`. */
  to?: number;
  signal?: AbortSignal;
  /** Reports bytes scanned of bytes to scan. */
  onProgress?: ProgressReporter;
}

/**
 * One opened file seen as records `0..count-1` (docs/architecture.md "Contracts"). Built by one streaming
 * pass that stores record offsets, never the file.
 */
/** See RecordSource.blankLines. */
export interface BlankLines {
  count: number;
  /** 1-based line numbers of the first five (fewer when some were before an `OpenOptions.from` start). */
  firstLines: number[];
}

export interface RecordSource {
  /** The format's registered name. */
  readonly format: string;
  /**
   * The type of the file's root value when the file is one JSON text (format `json`: `array`, `object`, or a scalar's
   * type); absent for formats that frame a sequence of texts (JSON Lines, JSON-seq). Each bundle names files in its own
   * words from this and `format` (the explorer's `file_type`).
   */
  readonly rootType?: 'array' | 'object' | 'string' | 'number' | 'boolean' | 'null';
  /** Framed records, malformed ones included. */
  readonly count: number;
  /**
   * Lines the framing passed over as not records (JSON Lines: empty and whitespace-only lines, NDJSON §3.2): how many,
   * and the 1-based line numbers of the first five. Absent for formats that skip none, or when there were none.
   */
  blankLines?(): BlankLines | undefined;
  /**
   * Whole-file addressing (docs/architecture.md "Two addressing modes"): true when the file's root is the sequence of its
   * records (JSON Lines, JSON-seq, a top-level array: record i is `/i`), false when the file is one document
   * (a top-level object or scalar: record 0 is the root `""`).
   */
  readonly rootIsSequence: boolean;
  /** The file's identity as indexed (it changes only when the index grows with the file, see `grow`). */
  readonly identity: FileIdentity;
  /**
   * The exact bytes of record i (framing excluded). @throws RESOURCE_LIMIT_EXCEEDED past maxRecordBytes (SYNTAX_ERROR
   * instead when the framing check, applied to the ends of such a record, rejects it).
   */
  raw(i: number): Buffer;
  /** Record i as text, strict UTF-8. @throws SYNTAX_ERROR on invalid UTF-8 (with its byte offset). */
  text(i: number): string;
  /**
   * Record i as text, after every check `value(i)` makes (framing, strict UTF-8, maxDepth, JSON syntax) and with its
   * errors, without building the value (no exact numbers, no reviver walk): for tools that show the text only.
   * Optional: a format that lacks it is read through value().
   */
  checkedText?(i: number): string;
  /**
   * Record i parsed; numbers that a double cannot hold exactly are `JSON.rawJSON` objects of their
   * lexeme, so they serialize digit for digit. Key order is kept; a repeated member name: the last wins.
   * Escaped lone surrogates (`"\ud800"`, RFC 8259 §8.2) come back as U+FFFD, never as lone surrogates;
   * when `warnings` is given, a LONE_SURROGATE_REPLACED {@link RecordWarning} naming the record is pushed
   * onto it (the value stays a pure function of the record; the caller carries warnings to its result).
   * @throws SYNTAX_ERROR with location, RESOURCE_LIMIT_EXCEEDED (maxDepth, maxRecordBytes).
   */
  value(i: number, warnings?: RecordWarning[]): unknown;
  /** Where record i starts: byte offset, line, column 1, record index. */
  location(i: number): ErrorLocation;
  /**
   * The byte offset where record i's extent begins (padding before it included), read from the index without
   * touching the file. Kernel sources implement it.
   */
  offset?(i: number): number;
  /**
   * Records in file order, in batches (reading them, not evaluating anything: a scan is the scan engine's evaluation
   * of a query over these batches); checks the signal between batches.
   */
  batches(options?: BatchOptions): AsyncIterable<RecordBatch>;
  /**
   * Validates records by parsing them (as `value` does), streaming with progress and cancellation:
   * `probe` mode examines a bounded prefix (the check at open), `full` mode every record (the reader
   * set's `validation: "full"`). Also counts duplicate member names and lone surrogate escapes.
   * Kernel sources (`records.createSource`) always implement it.
   * @throws CANCELLED (signal), IO_ERROR, SOURCE_CHANGED.
   */
  validate?(options?: ValidateOptions): Promise<ValidationReport>;
  /**
   * Lazy access inside record i without parsing it: the value at RFC 6901 `pointer` (`""` is the
   * record itself), or `undefined` when the pointer names nothing (a missing member, an index past
   * the end, a step into a scalar). Containers on the way are indexed by the kernel's byte-level
   * structural scanner, one container at a time, and cached per container (a top-level object's
   * members and their arrays are indexed at open), so reading `/features/5` of a 1 GiB GeoJSON
   * FeatureCollection reads one element. Synchronous: the cost of a first visit is one scan of the
   * containers on the path that are not yet indexed. A repeated member name resolves to the last one.
   * @throws INVALID_ARGUMENT (bad pointer syntax, RFC 6901 §3; record index out of range), SYNTAX_ERROR
   *   (broken structure on the way), IO_ERROR.
   */
  node?(i: number, pointer: string): LazyNode | undefined;
  /**
   * The file now has identity `now`: when it only grew — same device and inode, larger, and the last indexed block
   * (up to 4 KiB before the indexed end) unchanged — the index is extended over the appended bytes (records keep their
   * indexes, `count` grows, `identity` becomes `now`) and true is returned; false when it cannot be (then the file
   * changed: SOURCE_CHANGED). Kernel sources implement it for formats that supply `SourceSpec.extend`.
   */
  grow?(now: FileIdentity): boolean;
  /** Releases the index; the kernel closes the descriptor. */
  close(): void;
}
