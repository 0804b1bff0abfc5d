import type { OpenedFile, RecordSource, ProgressReporter } from './format';
import type { Limits } from './limits';

/**
 * A growable index of record start offsets (8 bytes a record, in a Float64Array: offsets past
 * 2^32 stay exact) plus a line-number checkpoint every 1,024 records.
 */
export interface OffsetIndex {
  /** Appends record start `offset` (bytes) found on 1-based `line`. */
  push(offset: number, line: number): void;
  readonly count: number;
  /** Start offset of record i, bytes. */
  start(i: number): number;
  /** Line recorded for record `c * 1024` (the checkpoint of record i is `c = floor(i / 1024)`). */
  checkpointLine(c: number): number;
  /** Called once when indexing is done: releases spare capacity. */
  finish(): void;
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
}

export interface SourceSpec {
  file: OpenedFile;
  format: string;
  fileType: string;
  /** See RecordSource.rootIsSequence. */
  rootIsSequence: boolean;
  index: OffsetIndex;
  /** End of the last record, bytes (usually the file size). */
  end: number;
  framing: RecordFraming;
  limits: Limits;
}

/**
 * The kernel's byte-level record machinery, handed to format plugins (`registry.records`).
 * Formats supply the framing rules; the kernel supplies reading, indexing and parsing.
 */
export interface RecordsToolkit {
  /** Reads the file in large chunks (into buffers that are not page-aligned), prefetching the next. Checks the signal per chunk. */
  chunks(file: OpenedFile, options?: ChunkReadOptions): AsyncIterable<FileChunk>;
  createIndex(): OffsetIndex;
  /** A RecordSource over an offset index: raw/text/value/scan/location implemented once for all formats. */
  createSource(spec: SourceSpec): RecordSource;
}
