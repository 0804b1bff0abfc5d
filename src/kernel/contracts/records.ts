import type { BlankLines, OpenOptions, OpenedFile, RecordSource, ProgressReporter, RestoredIndex } from './format';
import type { Limits } from './limits';

/**
 * A growable index of record start offsets (8 bytes a record, in a Float64Array: offsets past
 * 2^32 stay exact) plus a line-number checkpoint every 1,024 records.
 */
export interface OffsetIndex {
  /**
   * Appends record start `offset` (bytes) found on 1-based `line`. The line is kept only for every
   * 1,024th record (a checkpoint); an indexer that does not track lines passes `NaN`, and the kernel's
   * source counts the newlines on first need (one pass from the nearest known checkpoint, then stored).
   */
  push(offset: number, line: number): void;
  readonly count: number;
  /** Start offset of record i, bytes. */
  start(i: number): number;
  /** Line recorded for record `c * 1024` (the checkpoint of record i is `c = floor(i / 1024)`). */
  checkpointLine(c: number): number;
  /** Called once when indexing is done: releases spare capacity. */
  finish(): void;
  /** Stores the line of checkpoint `c` once it is known (kernel indexes implement it; see `push`). */
  setCheckpointLine?(c: number, line: number): void;
}

/** A chunk of the file: `bytes` hold file bytes `[offset, offset + bytes.length)`. */
export interface FileChunk {
  offset: number;
  bytes: Buffer;
}

export interface ChunkReadOptions {
  /** Start offset in bytes (default 0). */
  from?: number;
  /** End offset in bytes, exclusive (default file size). */
  to?: number;
  signal?: AbortSignal;
  onProgress?: ProgressReporter;
}

/** How a framing trims a record's byte range: which bytes around a record are not part of it. */
export interface RecordFraming {
  /** True for bytes to trim at either end of a record (whitespace, separators). */
  isPadding(byte: number): boolean;
  /**
   * Optional framing check of one record before it is parsed: `extent` holds the record's untrimmed
   * bytes `[start(i), start(i+1))` and `[start, end)` its trimmed span inside them. Returns a reason
   * when the framing makes the record malformed (read as SYNTAX_ERROR with the record's location),
   * e.g. RFC 7464 §2.4 "a top-level number not followed by whitespace may be truncated". It runs on every
   * record: one over maxRecordBytes (read in parts, never whole) is given its ends only — its padding and 4 KiB of
   * content at each end, the middle left out — so a check reads the bytes around `start` and `end`, as framing does.
   */
  checkRecord?(extent: Uint8Array, start: number, end: number): string | undefined;
  /**
   * The byte that frames records, when the framing has one (plugin API 2.10): it never occurs inside a record's
   * trimmed span, and every record but the first starts right after it (`where: 'before'`, JSON Lines: LF) or at it
   * (`where: 'at'`, JSON-seq: RS). The engine checks an index it did not just build (a stored one, or one extended
   * over a file that grew) against the file with it, and every record it reads whole
   * (docs/architecture.md "Persistent index").
   */
  separator?: { byte: number; where: 'before' | 'at' };
}

/** The outcome of {@link RecordsToolkit.indexJson}: one JSON text seen as records. */
export interface JsonTextIndex {
  /** Type of the root value (RFC 8259 §3). */
  rootType: 'array' | 'object' | 'string' | 'number' | 'boolean' | 'null';
  /** A top-level array: one record per element; otherwise one record, the whole value. */
  index: OffsetIndex;
  /** `SourceSpec.end`: the offset of the array's closing `]`, or the end of the value. */
  end: number;
  /** Bytes that `SourceSpec.framing` trims: JSON whitespace, plus `,` between array elements. */
  framing: RecordFraming;
  /** Structure already indexed during the pass (pass it on as `SourceSpec.structure` so `node` reuses it). */
  structure: unknown;
  /**
   * A top-level array's state for the persistent index (pass it on as `SourceSpec.saveState`); absent for an object or
   * a scalar, whose index is not stored.
   */
  saveState?(): Uint8Array;
}

export interface SourceSpec {
  file: OpenedFile;
  format: string;
  /** See RecordSource.rootType: the root value's type when the file holds one JSON text (`JsonTextIndex.rootType`). */
  rootType?: JsonTextIndex['rootType'];
  /** See RecordSource.rootIsSequence. */
  rootIsSequence: boolean;
  index: OffsetIndex;
  /** End of the last record, bytes (usually the file size). */
  end: number;
  framing: RecordFraming;
  limits: Limits;
  /** `JsonTextIndex.structure` when the source comes from `indexJson` (lets `node` reuse the containers indexed at open). */
  structure?: unknown;
  /**
   * Growing files: indexes the bytes `[end, to)` appended to the file after `end` (synchronously, e.g. with
   * `RecordsToolkit.chunksSync`), pushing their records onto `index` (a record left open at `end` — a last line
   * without its newline — simply goes on), and returns the new end. Formats whose records are framed by separators
   * (JSON Lines, JSON-seq) supply it; without it a file that grew is SOURCE_CHANGED (see `RecordSource.grow`).
   */
  extend?(to: number): number;
  /**
   * Persistent index: the format's resumable state at `end` (what its indexer needs to go on: e.g. the line number and
   * whether the last line is open), at most 64 KiB. A format that supplies it, and that rebuilds its source from
   * `OpenOptions.restored`, has its index stored in the index cache and read back by later opens of the unchanged
   * file (docs/architecture.md "Persistent index"); without it the kernel never stores the index.
   */
  saveState?(): Uint8Array;
  /** See RecordSource.blankLines: what the format's framing passed over so far (asked for on demand). */
  blankLines?(): BlankLines | undefined;
}

/**
 * A format's framing pass as a resumable state machine (the indexing kit, {@link RecordsToolkit.openFramed}): fed the
 * file's bytes in order, it pushes the start offset of every record onto the index it was made with (`push(offset,
 * line)`, the line NaN when it does not count lines). It is fed again from where it stopped when the file grows, and
 * its state is stored with the index, so a later open of the unchanged (or grown) file starts from that state instead
 * of a pass (docs/architecture.md "Persistent index").
 */
export interface RecordFramer {
  /** Bytes `[offset, offset + bytes.length)` of the file, each chunk right after the previous one. */
  feed(offset: number, bytes: Uint8Array): void;
  /** The state where it stopped, at most 64 KiB: what `FramedFormat.restore` needs to go on (start it with a tag of yours). */
  saveState(): Uint8Array;
  /** Lines the framing passed over as not records (see RecordSource.blankLines). */
  blankLines?(): BlankLines | undefined;
  /**
   * For a format whose records are not JSON text (CSV, …): record `index`'s text (its bytes trimmed of the framing's
   * padding, strict UTF-8) → its JSON value (numbers a double cannot hold as `JSON.rawJSON`). The kit then presents the
   * record as that value everywhere (`text`/`raw` are its JSON text; `location` points into the file). A malformed
   * record throws a SYNTAX_ERROR (`context.error`): scans skip and report it, validation counts it. Absent: records
   * are JSON texts, parsed exactly by the kernel.
   */
  decode?(text: string, index: number): unknown;
}

/** What a format gives the indexing kit: its name, how its records are trimmed, and how to start or restore its framer. */
export interface FramedFormat {
  /** The format's registered name (`RecordSource.format`). */
  format: string;
  /** The bytes trimmed around a record, its separator byte when it has one, its framing check. */
  framing: RecordFraming;
  /**
   * A framer for a pass that starts at byte `from` of the file (0, or `OpenOptions.from` when `startsAnywhere`),
   * pushing onto `index`.
   */
  start(index: OffsetIndex, from: number): RecordFramer;
  /** A framer going on from a stored state (`saveState`) with the stored `index`; null when the state is not one it saved. */
  restore(index: OffsetIndex, state: Uint8Array): RecordFramer | null;
  /** True when a pass may start at any record start (`OpenOptions.from`, as JSON Lines at a line start); default false. */
  startsAnywhere?: boolean;
}

/**
 * The kernel's byte-level record machinery, handed to format plugins (`registry.records`).
 * Formats supply the framing rules; the kernel supplies reading, indexing and parsing.
 */
export interface RecordsToolkit {
  /** Reads the file in large chunks (into buffers that are not page-aligned), prefetching the next. Checks the signal per chunk. */
  chunks(file: OpenedFile, options?: ChunkReadOptions): AsyncIterable<FileChunk>;
  /**
   * The same chunks read synchronously, without yielding (for `SourceSpec.extend`, which runs inside a tool's
   * synchronous identity check).
   */
  chunksSync(file: OpenedFile, options?: Omit<ChunkReadOptions, 'signal' | 'onProgress'>): Iterable<FileChunk>;
  createIndex(): OffsetIndex;
  /** A RecordSource over an offset index: raw/text/value/scan/location/validate/node implemented once for all formats. */
  createSource(spec: SourceSpec): RecordSource;
  /**
   * The indexing kit (plugin API 3.1): a format's `open` made of its framer alone. Restores the source from the
   * persistent index when `options.restored` holds a state the framer recognises (no pass), else runs one streaming
   * pass (cancellation and progress as given); extends the index when the file only grew; presents records through
   * `createSource` (or, with `RecordFramer.decode`, as the JSON values it gives), with malformed-record reports in
   * validation and scans. `open: (file, options) => context.records.openFramed(file, options, framed)`.
   */
  openFramed(file: OpenedFile, options: OpenOptions, framed: FramedFormat): Promise<RecordSource>;
  /**
   * Indexes one JSON text (RFC 8259) by one streaming structural pass: strings and escapes followed,
   * brackets matched, no value parsed, the file never held in memory. A top-level array gets one record
   * per element; an object (whose members and their arrays are indexed for `node`) or a scalar is one
   * record. A UTF-8 BOM at byte 0 is skipped (RFC 8259 §8.1). Yields to the event loop per chunk.
   * @throws McpgwError SYNTAX_ERROR with byte offset, line and column (empty text, unterminated value,
   *   mismatched bracket, empty or trailing-comma element, data after the value); CANCELLED; IO_ERROR.
   */
  indexJson(file: OpenedFile, options?: { signal?: AbortSignal; onProgress?: ProgressReporter }): Promise<JsonTextIndex>;
  /**
   * What `indexJson` would give, from a stored index (`OpenOptions.restored`) of a top-level array whose state came
   * from `JsonTextIndex.saveState`, without reading the file; null when it cannot be used (then index the file).
   * Optional: a kernel without it has no persistent index of JSON texts.
   */
  restoreJson?(restored: RestoredIndex): JsonTextIndex | null;
  /**
   * Compares two numbers by value, exactly (RFC 9535 §2.3.5.2.2): -1, 0 or 1. Each is a JSON number lexeme (RFC 8259
   * §6; a `JSON.rawJSON` number's `rawJSON`) or a finite JavaScript number, which stands for its shortest round-trip
   * spelling `String(n)` (the lexeme the kernel's parsers kept it for). Linear in the lexemes' length, no rounding:
   * `1e400 < 1e401`, `-0 == 0`, `0.1000000000000000000001 > 0.1`. The same function as `compareNumerals` of
   * `mcpgw/plugin-kit`, here for plugins that take nothing from mcpgw at run time.
   * @throws TypeError for a string that is not a JSON number; RangeError for NaN or ±Infinity
   */
  compareNumerals(a: string | number, b: string | number): -1 | 0 | 1;
}

/** One page of laid-out JSON text (`JsonLayout.page`): offsets in UTF-8 bytes of the whole laid-out text. */
export interface JsonLayoutPage {
  /** The page's text. */
  text: string;
  /** Where it starts: the first character at or after the `from` asked for. */
  start: number;
  /** Where it stops (exclusive): read on from here; `end === total` when nothing remains. */
  end: number;
  /** Bytes of the whole laid-out text. */
  total: number;
  /**
   * Escapes of lone surrogates (RFC 8259 §8.2: their meaning is unpredictable, and clients that parse the text reject
   * it) written as `\ufffd` in this page, the same length; absent when there were none.
   */
  replaced?: number;
}

/** Where a layout can resume (`JsonLayout.marks`): opaque, filled by the kernel. */
export interface JsonLayoutMarks {
  /** Bytes of the whole laid-out text once a page filled the marks; -1 before. */
  readonly total: number;
}

/**
 * JSON text laid out for reading one page at a time (`ctx.json`): the explorer's get_record and get_value_at_path and
 * the reader's json_read cut values through it, so a page never ends inside a character or an escape sequence and
 * costs its own bytes plus one counting scan, never the whole laid-out text. Text it returns never spells a lone
 * surrogate: such escapes come back as `\ufffd`, and the tool call's answer says so in a warning.
 */
export interface JsonLayout {
  /**
   * Bytes [from, from + maxBytes) of valid JSON `text` laid out with `indent`: "  " re-indents (as
   * `JSON.stringify(v, null, 2)` lays a value out), "" is compact; every string and number lexeme is copied as written
   * (escapes, key order and repeated names as in the text). The page ends on a character boundary outside any escape
   * (`\u00e9`, and a `\uD83D\uDE00` pair, stay whole), with at least one character or escape when any remains.
   */
  page(text: string, options: { indent: string; from?: number; maxBytes: number; marks?: JsonLayoutMarks }): JsonLayoutPage;
  /**
   * A new, empty set of places where the layout of one text can resume. Pass it with every `page` of the same text and
   * indent: the first page fills it (that pass lays out the whole text once, counting), every later page starts at
   * the last mark before its `from` and stops at its own end, so it costs its bytes plus at most 16 KiB, not the whole
   * text. Keep it with the text while pages of it are read (e.g. with a handle, within a memory budget); it holds 24
   * bytes a 16 KiB of laid-out text, and a reference to the text. Pages are the same with or without marks.
   */
  marks(): JsonLayoutMarks;
  /**
   * JSON text a tool returns without `page` (e.g. a part of a value's text cut with `safeCut`) with every escape of a
   * lone surrogate written as `\ufffd` (the same length), as `page` does. In a tool call, either one makes the answer
   * carry one LONE_SURROGATE_REPLACED warning.
   */
  wellFormedText(text: string): string;
  /**
   * The greatest cut at or before `end` in UTF-8 JSON text `bytes` (read from `start`, a character boundary outside
   * any escape) that is a character boundary outside an escape sequence; `start` when there is none.
   */
  safeCut(bytes: Uint8Array, start: number, end: number): number;
  /** Lone surrogate escapes this layout wrote as `\ufffd` so far (a layout made for one call counts them). */
  readonly replaced?: number;
}

