import { read, readSync } from 'node:fs';
import { crc32 } from 'node:zlib';
import type { BlankLines, FileIdentity, LazyNode, RecordBatch, RecordSource, RecordWarning, BatchOptions, ValidateOptions, ValidationReport } from '../../kernel/contracts/format';
import type { OffsetIndex, SourceSpec } from '../../kernel/contracts/records';
import { McpgwError, osErrorName, type ErrorLocation } from '../../kernel/errors';
import { CHUNK_BYTES, giveBack, takeBuffer, throwIfAborted, unalignedBuffer } from './chunks';
import { CHECKPOINT_EVERY } from './offset-index';
import type { StructureCache } from './json-index';
import { internalsOf, parsePointer, resolvePointer } from './lazy';
import { decodeUtf8, parseExact } from './parse';
import { isJsonWhitespace } from '../bytes/json-walk';
import { validateSource } from './validate';

/** Bytes before the indexed end whose checksum tells that a file only grew. */
const GROW_CHECK_BYTES = 4096;
/** A file that grew by more than this is opened again rather than extended in one synchronous pass. */
const GROW_MAX_BYTES = 256 * 1024 * 1024;
/** Bytes of content kept at each end of a record over maxRecordBytes for its framing check. */
const FRAMING_END = 4096;
/** Record starts checked (one byte each) against the file before an index is extended over a file that grew. */
const BOUNDARY_SAMPLES = 1024;
/** An index of a file up to this size that the engine did not just build is checked whole against the file. */
export const VERIFY_WHOLE_BYTES = 64 * 1024 * 1024;
/** The window `indexFitsFile` reads the file in. */
const VERIFY_WINDOW = 1024 * 1024;

/**
 * A RecordSource over an offset index, shared by every format: record i spans
 * `[start(i), start(i+1))` (or to `end`), with the framing's padding bytes trimmed at both ends.
 * `raw(i)` is one synchronous positional read (4 µs here against 45 µs for an awaited read).
 */
/**
 * The kernel's own options of {@link IndexedRecordSource.batches}, beyond the contract's. `reads`: how many batches'
 * bytes stay valid at once (2 to 4, default 2): a batch's bytes are valid until the consumer asks for the
 * (`reads` − 1)-th batch after it (default: until it asks for the next one), for a consumer that hands a batch to
 * worker threads and takes the next before they are done (aggregate-threads.ts); each one more costs a read buffer
 * (CHUNK_BYTES, from the spares).
 */
export interface KernelBatchOptions extends BatchOptions {
  reads?: number;
}

/** A batch of the kernel's sources: a RecordBatch whose records' extents can be had without reading its bytes. */
export interface KernelBatch extends RecordBatch {
  /**
   * Writes the k1 − k0 + 1 boundaries of records `[k0, k1)`'s extents (each record with the padding around it, from
   * the index, the bytes not read) less `shift` into `out` from index 0: record k0 + j's extent is
   * `[out[j], out[j + 1])`, clipped to the batch's bytes. Trimmed of the source's {@link IndexedRecordSource.padding}
   * (trimmedSpans in scan/plan.ts) they are the spans `span` gives.
   */
  extentsInto(k0: number, k1: number, out: Float64Array, shift: number): void;
}

export class IndexedRecordSource implements RecordSource {
  private paddingTable: Uint8Array | undefined;

  /** The framing's padding bytes (a record's span excludes them at both ends): 1 at each such byte value. */
  get padding(): Uint8Array {
    if (!this.paddingTable) {
      const pad = this.spec.framing.isPadding;
      this.paddingTable = new Uint8Array(256);
      for (let b = 0; b < 256; b++) this.paddingTable[b] = pad(b) ? 1 : 0;
    }
    return this.paddingTable;
  }

  readonly format: string;
  readonly rootType?: SourceSpec['rootType'];
  readonly rootIsSequence: boolean;
  /** As indexed; replaced when the index grows with the file (`grow`). */
  identity: FileIdentity;
  private closed = false;
  /** Containers indexed for `node`, by the offset of their opening bracket. */
  private readonly structure: StructureCache;
  /** Our copy of the spec: `end` moves when the file grows. */
  private readonly spec: SourceSpec;
  /** CRC-32 of the last indexed block (up to GROW_CHECK_BYTES before `end`), when the format can extend its index. */
  private tailCrc: number | null = null;

  constructor(spec: SourceSpec) {
    this.spec = { ...spec };
    this.structure = spec.structure instanceof Map ? (spec.structure as StructureCache) : new Map();
    this.format = spec.format;
    if (spec.rootType !== undefined) this.rootType = spec.rootType;
    this.rootIsSequence = spec.rootIsSequence;
    this.identity = spec.file.identity;
    if (spec.extend) this.tailCrc = this.crcBefore(spec.end);
  }

  /** CRC-32 of the (up to) GROW_CHECK_BYTES bytes before `end`; -1 when they cannot be read. */
  private crcBefore(end: number): number {
    try {
      return crc32(this.readRange(Math.max(0, end - GROW_CHECK_BYTES), end));
    } catch {
      return -1;
    }
  }

  grow(now: FileIdentity): boolean {
    const was = this.identity;
    const extend = this.spec.extend;
    if (!extend || this.closed || now.inode !== was.inode || now.dev !== was.dev || now.size <= was.size) return false;
    if (now.size - was.size > GROW_MAX_BYTES) return false;
    if (this.tailCrc === null || this.tailCrc === -1 || this.crcBefore(this.spec.end) !== this.tailCrc) return false;
    // Unchanged ends do not prove an append (a rewrite in place can keep them): the indexed records must still start
    // where the index says (the whole index for a file up to VERIFY_WHOLE_BYTES, else BOUNDARY_SAMPLES starts).
    if (!this.indexFitsFile()) return false;
    const end = extend(now.size);
    this.spec.end = end;
    this.identity = { ...now };
    this.tailCrc = this.crcBefore(end);
    return true;
  }

  get count(): number {
    return this.spec.index.count;
  }

  /**
   * Called once when a record read shows that the index does not fit the file (a record that does not start after
   * the framing's separator, or holds one): the index cache's entry is dropped (set by the engine's indexer).
   */
  onIndexMismatch: (() => void) | null = null;
  /** Set by the indexing kit (framed.ts) when the source was built from a stored index and state, without a pass. */
  restoredWithoutPass = false;
  /** Set when a read found the index not to fit the file: it is never stored again. */
  indexMismatch = false;

  /**
   * Whether the index fits the file as it is now, by the framing's separator (`RecordFraming.separator`; a framing
   * without one is not checked). `whole` (an index extended over a file that grew) and an index ending at most
   * VERIFY_WHOLE_BYTES in: every record is checked (one read of those bytes: each record starts after, or at, the
   * separator and holds none inside its trimmed span, so no record is skipped, split or joined). Otherwise (a stored
   * index of the file unchanged since, or a big one): every record of the first VERIFY_WINDOW bytes, `samples`
   * record starts spread over the index (a byte each) and the last record.
   */
  indexFitsFile({ whole = true, samples = BOUNDARY_SAMPLES }: { whole?: boolean; samples?: number } = {}): boolean {
    const sep = this.spec.framing.separator;
    const upTo = this.count;
    if (!sep || upTo === 0) return true;
    try {
      if (whole && this.spec.end <= VERIFY_WHOLE_BYTES) return this.recordsFit(0, upTo);
      const index = this.spec.index;
      let k = 1;
      while (k < upTo && index.start(k) < VERIFY_WINDOW) k++;
      if (!this.recordsFit(0, k)) return false;
      const one = Buffer.allocUnsafe(1);
      const step = Math.max(1, Math.floor((upTo - 1) / Math.max(1, samples)));
      for (let i = 1; samples > 0 && i < upTo; i += step) {
        const at = index.start(i) - (sep.where === 'before' ? 1 : 0);
        if (readSync(this.spec.file.fd, one, 0, 1, at) !== 1 || one[0] !== sep.byte) return false;
      }
      return this.recordsFit(upTo - 1, upTo);
    } catch {
      return false;
    }
  }

  /** Whether records [a, b) are framed as the index says (see indexFitsFile), reading their bytes a window at a time. */
  private recordsFit(a: number, b: number): boolean {
    const { index, end } = this.spec;
    const sep = this.spec.framing.separator!;
    const before = sep.where === 'before';
    const pad = this.padding;
    const count = index.count;
    const startOf = (k: number) => (k < count ? index.start(k) : end);
    let i = a;
    while (i < b) {
      const from = Math.max(0, index.start(i) - 1);
      let j = i + 1;
      // Records [i, j) whose extents end within one window (at least one record).
      while (j < b && startOf(j + 1) - from <= VERIFY_WINDOW) j++;
      const to = startOf(j);
      if (j === i + 1 && to - from > VERIFY_WINDOW) {
        if (!this.bigRecordFits(i)) return false;
        i = j;
        continue;
      }
      const buf = this.readRange(from, to);
      let s = index.start(i) - from;
      for (let k = i; k < j; k++) {
        const e = startOf(k + 1) - from;
        if (k > 0 && (before ? s === 0 || buf[s - 1] !== sep.byte : buf[s] !== sep.byte)) return false;
        let x = s, y = e;
        while (x < y && pad[buf[x]!]) x++;
        while (y > x && pad[buf[y - 1]!]) y--;
        const inner = buf.indexOf(sep.byte, x);
        if (inner !== -1 && inner < y) return false;
        s = e;
      }
      i = j;
    }
    return true;
  }

  /** recordsFit for one record over VERIFY_WINDOW: its start, then its trimmed span a window at a time. */
  private bigRecordFits(k: number): boolean {
    const sep = this.spec.framing.separator!;
    const [xs] = this.extent(k);
    if (k > 0) {
      const at = xs - (sep.where === 'before' ? 1 : 0);
      if (this.readRange(at, at + 1)[0] !== sep.byte) return false;
    }
    const [a, b] = this.trimmedExtent(k);
    for (let p = a; p < b; p += VERIFY_WINDOW) {
      if (this.readRange(p, Math.min(b, p + VERIFY_WINDOW)).indexOf(sep.byte) !== -1) return false;
    }
    return true;
  }

  /**
   * Whether the extent `[s, e)` of `buf` (record k's, with the byte before it at s − 1 unless `atFileStart`) is one
   * framed record: it starts after (or at) the separator and its trimmed span holds none.
   */
  private extentFits(k: number, buf: Uint8Array, s: number, e: number, atFileStart: boolean): boolean {
    const sep = this.spec.framing.separator;
    if (!sep) return true;
    if (k > 0) {
      if (sep.where === 'before' ? atFileStart || buf[s - 1] !== sep.byte : buf[s] !== sep.byte) return false;
    }
    const pad = this.padding;
    let a = s, b = e;
    while (a < b && pad[buf[a]!]) a++;
    while (b > a && pad[buf[b - 1]!]) b--;
    const inner = buf.indexOf(sep.byte, a);
    return inner === -1 || inner >= b;
  }

  /** @throws SOURCE_CHANGED, after dropping the stored index, when a record read whole is not one framed record. */
  private indexDoesNotFit(i: number): never {
    if (!this.indexMismatch) {
      this.indexMismatch = true;
      try { this.onIndexMismatch?.(); } catch { /* the cache never fails a read */ }
    }
    throw new McpgwError('SOURCE_CHANGED', `${this.spec.file.displayPath} changed in a way its index cannot follow: record ${i} is not where the index says (the file was rewritten, or a stored index does not fit it).`, {
      hint: 'Open the file again: it is indexed anew.',
      location: { record_index: i, byte_offset: this.spec.index.start(i) },
    });
  }

  blankLines(): BlankLines | undefined {
    const blank = this.spec.blankLines?.();
    return blank && blank.count > 0 ? blank : undefined;
  }

  /**
   * What the index cache stores of this source (docs/architecture.md "Persistent index"): the offset index, its end,
   * the root type and the format's state; null when the format supplies no `saveState` (its index is never stored).
   */
  persistable(): { index: OffsetIndex; end: number; rootType?: SourceSpec['rootType']; rootIsSequence: boolean; state: Uint8Array } | null {
    const save = this.spec.saveState;
    if (!save || this.closed || this.indexMismatch) return null;
    return { index: this.spec.index, end: this.spec.end, ...(this.rootType !== undefined ? { rootType: this.rootType } : {}), rootIsSequence: this.rootIsSequence, state: save() };
  }

  private check(i: number): void {
    if (this.closed) throw new McpgwError('NOT_FOUND', 'The file was closed.');
    if (!Number.isInteger(i) || i < 0 || i >= this.count) {
      throw new McpgwError('INVALID_ARGUMENT', `Record index ${i} is out of range: the file has ${this.count} records (0..${this.count - 1}).`);
    }
  }

  offset(i: number): number {
    this.check(i);
    return this.spec.index.start(i);
  }

  /** Untrimmed byte range of record i. */
  private extent(i: number): [number, number] {
    const { index, end } = this.spec;
    return [index.start(i), i + 1 < index.count ? index.start(i + 1) : end];
  }

  raw(i: number): Buffer {
    return this.readRecord(i).bytes;
  }

  /** Record i's bytes (trimmed), the file offset of their first byte, and the untrimmed extent with the span in it. */
  private readRecord(i: number): { bytes: Buffer; offset: number; extent: Buffer; a: number; b: number } {
    this.check(i);
    const [s, e] = this.extent(i);
    const { maxRecordBytes } = this.spec.limits;
    if (e - s > maxRecordBytes) {
      const length = this.rawLength(i);
      if (length > maxRecordBytes) throw this.oversizedError(i, length, this.location(i));
    }
    // With the byte before it when the framing's separator precedes records: a record read whole is checked to be
    // one framed record (an index that does not fit the file is SOURCE_CHANGED, never a piece or two of records).
    const sep = this.spec.framing.separator;
    const back = sep?.where === 'before' && s > 0 ? 1 : 0;
    const withBefore = this.readRange(s - back, e);
    if (sep && !this.extentFits(i, withBefore, back, withBefore.length, s === 0)) this.indexDoesNotFit(i);
    const buf = back ? withBefore.subarray(1) : withBefore;
    const pad = this.spec.framing.isPadding;
    let a = 0, b = buf.length;
    while (a < b && pad(buf[a]!)) a++;
    while (b > a && pad(buf[b - 1]!)) b--;
    return { bytes: buf.subarray(a, b), offset: s + a, extent: buf, a, b };
  }

  /** @throws RESOURCE_LIMIT_EXCEEDED when record i's `length` (trimmed bytes) is over maxRecordBytes. */
  checkSize(i: number, length: number): void {
    const { maxRecordBytes } = this.spec.limits;
    if (length > maxRecordBytes) {
      throw new McpgwError('RESOURCE_LIMIT_EXCEEDED', `Record ${i} is ${length} bytes, over maxRecordBytes ${maxRecordBytes}.`, {
        limit: { name: 'maxRecordBytes', limit: maxRecordBytes, value: length },
        location: { record_index: i, byte_offset: this.spec.index.start(i) },
        hint: 'Raise limits.maxRecordBytes in the config to read it.',
      });
    }
  }

  /**
   * Why record i (`length` trimmed bytes, over maxRecordBytes) is not read whole: its framing check's SYNTAX_ERROR when
   * the format's framing rejects it (checked on its ends, as for every record), else RESOURCE_LIMIT_EXCEEDED.
   */
  private oversizedError(i: number, length: number, location: ErrorLocation): McpgwError {
    if (this.spec.framing.checkRecord) {
      const [xs, xe] = this.extent(i);
      const [s, e] = this.trimmedExtent(i);
      const ends = this.framingEnds(xs, xe, s, e);
      try {
        this.checkFraming(i, ends.extent, ends.start, ends.end);
      } catch (err) {
        if (err instanceof McpgwError) return err;
        throw err;
      }
    }
    const { maxRecordBytes } = this.spec.limits;
    return new McpgwError('RESOURCE_LIMIT_EXCEEDED', `Record ${i} is ${length} bytes, over maxRecordBytes ${maxRecordBytes}.`, {
      limit: { name: 'maxRecordBytes', limit: maxRecordBytes, value: length },
      location,
      hint: 'Raise limits.maxRecordBytes in the config to read it.',
    });
  }

  /** Applies the framing's own record check. @throws SYNTAX_ERROR */
  checkFraming(i: number, extent: Uint8Array, a: number, b: number): void {
    const check = this.spec.framing.checkRecord;
    if (!check) return;
    const reason = check(extent, a, b);
    if (reason !== undefined) {
      const loc = this.location(i);
      throw new McpgwError('SYNTAX_ERROR', `Record ${i} is malformed: ${reason} (line ${loc.line}, byte ${loc.byte_offset}).`, { location: loc });
    }
  }

  /**
   * The ends of a record too long to read whole, for its framing check (RecordFraming.checkRecord): the padding before
   * its content, up to FRAMING_END bytes of content at each end, and the padding after it, in one buffer (a run longer
   * than twice FRAMING_END keeps FRAMING_END bytes at each of its ends). `start`/`end`: the content's span in it.
   */
  private framingEnds(xs: number, xe: number, s: number, e: number): { extent: Uint8Array; start: number; end: number } {
    const run = (from: number, to: number) => (to - from <= 2 * FRAMING_END
      ? this.readRange(from, to)
      : Buffer.concat([this.readRange(from, from + FRAMING_END), this.readRange(to - FRAMING_END, to)]));
    const head = run(xs, s);
    const body = run(s, e);
    const tail = run(e, xe);
    return { extent: Buffer.concat([head, body, tail]), start: head.length, end: head.length + body.length };
  }

  /** Record i's trimmed byte range `[start, end)` in the file, reading only around its ends. */
  private trimmedExtent(i: number): [number, number] {
    let [s, e] = this.extent(i);
    const pad = this.spec.framing.isPadding;
    while (s < e) {
      const head = this.readRange(s, Math.min(e, s + 4096));
      const lead = countPadding(head, pad, false);
      s += lead;
      if (lead < head.length) break;
    }
    while (e > s) {
      const tail = this.readRange(Math.max(s, e - 4096), e);
      const trail = countPadding(tail, pad, true);
      e -= trail;
      if (trail < tail.length) break;
    }
    return [s, e];
  }

  validate(options?: ValidateOptions): Promise<ValidationReport> {
    return validateSource(this, this.spec.limits, options);
  }

  node(i: number, pointer: string): LazyNode | undefined {
    this.check(i);
    const tokens = parsePointer(pointer);
    const [s, e] = this.trimmedExtent(i);
    if (s >= e) return undefined;
    const { file, limits } = this.spec;
    if (this.spec.framing.checkRecord) {
      // The framing check `value` applies, on every record: one over maxRecordBytes is given its ends only.
      const [xs, xe] = this.extent(i);
      if (xe - xs <= limits.maxRecordBytes) this.checkFraming(i, this.readRange(xs, xe), s - xs, e - xs);
      else {
        const ends = this.framingEnds(xs, xe, s, e);
        this.checkFraming(i, ends.extent, ends.start, ends.end);
      }
    }
    return resolvePointer({ fd: file.fd, displayPath: file.displayPath, maxRecordBytes: limits.maxRecordBytes, maxDepth: limits.maxDepth, cache: this.structure, recordIndex: i }, s, e, tokens);
  }

  /**
   * The elements of the array `node` (a node of this source, from `node()`) seen as a source of their own: record k
   * is element k, read, scanned and walked exactly as the records of a top-level array (the containers indexed so far
   * are shared). Kernel-internal: lets the scan engine stream a large array inside a document as it streams a file's
   * records. Null for anything but an array node made by this source.
   */
  elements(node: LazyNode): ElementSource | null {
    const inner = internalsOf(node);
    if (!inner || node.type !== 'array' || inner.ctx.cache !== this.structure) return null;
    const c = inner.container();
    return new ElementSource({
      ...this.spec,
      rootType: 'array',
      rootIsSequence: true,
      index: new ContainerOffsets(c.starts, c.count),
      end: c.close,
      framing: { isPadding: (b: number) => isJsonWhitespace(b) || b === 0x2c },
      structure: this.structure,
    }, node.byteLength);
  }

  /** Record i's byte length after trimming, reading only its first and last 64 bytes. */
  rawLength(i: number): number {
    this.check(i);
    const [s, e] = this.extent(i);
    const pad = this.spec.framing.isPadding;
    const head = this.readRange(s, Math.min(e, s + 64));
    const lead = countPadding(head, pad, false);
    if (lead === e - s) return 0;
    const tail = this.readRange(Math.max(s, e - 64), e);
    return e - s - lead - countPadding(tail, pad, true);
  }

  private readRange(s: number, e: number): Buffer {
    const buf = Buffer.allocUnsafe(e - s);
    let done = 0;
    while (done < buf.length) {
      let n: number;
      try {
        n = readSync(this.spec.file.fd, buf, done, buf.length - done, s + done);
      } catch (err) {
        throw new McpgwError('IO_ERROR', `Reading ${this.spec.file.displayPath} failed: ${osErrorName(err)}.`, { cause: err });
      }
      if (n === 0) throw new McpgwError('SOURCE_CHANGED', `${this.spec.file.displayPath} is shorter than when it was opened.`, { hint: 'Open the file again.' });
      done += n;
    }
    return buf;
  }

  text(i: number): string {
    const { bytes, offset } = this.readRecord(i);
    return this.decode(i, bytes, offset);
  }

  checkedText(i: number): string {
    const { bytes, offset, extent, a, b } = this.readRecord(i);
    this.checkFraming(i, extent, a, b);
    const text = this.decode(i, bytes, offset);
    this.parseText(i, text, undefined, true);
    return text;
  }

  value(i: number, warnings?: RecordWarning[]): unknown {
    const { bytes, offset, extent, a, b } = this.readRecord(i);
    this.checkFraming(i, extent, a, b);
    return this.parseText(i, this.decode(i, bytes, offset), warnings);
  }

  /**
   * Record i's bytes (file offset `offset`) as strict UTF-8. An invalid byte is SYNTAX_ERROR at its
   * byte offset, with its line and column (located only on error).
   */
  decode(i: number, bytes: Uint8Array, offset: number): string {
    try {
      return decodeUtf8(bytes, offset, { record_index: i });
    } catch (err) {
      const loc = (err as McpgwError).location;
      if (loc?.byte_offset === undefined) throw err;
      const rel = loc.byte_offset - offset;
      const start = this.location(i);
      const before = Buffer.from(bytes.buffer, bytes.byteOffset, rel);
      const nl = before.lastIndexOf(10);
      let lines = 0;
      for (let k = before.indexOf(10); k !== -1; k = before.indexOf(10, k + 1)) lines++;
      const line = start.line! + lines;
      const column = nl === -1 ? start.column! + before.toString('utf8').length : before.subarray(nl + 1).toString('utf8').length + 1;
      throw new McpgwError('SYNTAX_ERROR', `Record ${i}: invalid UTF-8 at byte ${loc.byte_offset} (line ${line}, column ${column}).`, {
        location: { byte_offset: loc.byte_offset, line, column, record_index: i },
        ...((err as McpgwError).hint ? { hint: (err as McpgwError).hint } : {}),
      });
    }
  }

  /** Parses record i's text exactly; locates errors lazily. */
  parseText(i: number, text: string, warnings?: RecordWarning[], checkOnly = false): unknown {
    return parseExact(text, () => {
      const loc = this.location(i);
      return { byteOffset: loc.byte_offset!, line: loc.line!, column: loc.column!, recordIndex: i, maxDepth: this.spec.limits.maxDepth };
    }, this.spec.limits.maxDepth, warnings, checkOnly);
  }

  location(i: number): ErrorLocation {
    this.check(i);
    const [s, e] = this.extent(i);
    const head = this.readRange(s, Math.min(e, s + 256));
    // Leading padding may hold newlines (blank lines before the record).
    let a = 0, line = this.lineAt(i), column = this.columnAt(s);
    const pad = this.spec.framing.isPadding;
    while (a < head.length && pad(head[a]!)) {
      if (head[a] === 0x0a) { line++; column = 1; } else column++;
      a++;
    }
    return { byte_offset: s + a, line, column, record_index: i };
  }

  /** 1-based column (in characters) of byte `s`: characters since the previous LF (looked for up to 64 KiB back). */
  private columnAt(s: number): number {
    if (s === 0) return 1;
    const most = Math.min(s, 1 << 16);
    // Lines are mostly short: 512 bytes back first, the whole 64 KiB only when those hold no LF.
    for (let back = Math.min(most, 512); ; back = Math.min(most, back * 16)) {
      const buf = this.readRange(s - back, s);
      const nl = buf.lastIndexOf(10);
      if (nl === -1 && back < most) continue;
      if (nl === buf.length - 1) return 1;
      let from = nl === -1 ? 0 : nl + 1;
      if (from === 0 && s === back && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) from = 3; // the BOM is not text
      return buf.subarray(from).toString('utf8').length + 1;
    }
  }

  /** 1-based line on which record i's extent starts: its checkpoint's line plus the newlines between. */
  private lineAt(i: number): number {
    const c = Math.floor(i / CHECKPOINT_EVERY);
    const first = c * CHECKPOINT_EVERY;
    const { index } = this.spec;
    // Records located one after another (a page's nodes, a listing) count on from the last one, not from the checkpoint.
    const last = this.lastLine;
    if (last && last.record <= i && Math.floor(last.record / CHECKPOINT_EVERY) === c) {
      const line = last.line + this.countNewlines(index.start(last.record), index.start(i));
      this.lastLine = { record: i, line };
      return line;
    }
    let line = index.checkpointLine(c);
    if (Number.isNaN(line)) line = this.fillCheckpoints(c);
    line += this.countNewlines(index.start(first), index.start(i));
    this.lastLine = { record: i, line };
    return line;
  }

  /** The record {@link lineAt} last answered for, and its line (record starts never move: the index only grows). */
  private lastLine: { record: number; line: number } | null = null;

  /**
   * Lines of checkpoints that the indexer left unknown (NaN, see OffsetIndex.push): counted from the
   * nearest known checkpoint before `c` (or the file start) and stored, so each byte is counted once.
   */
  private fillCheckpoints(c: number): number {
    const { index } = this.spec;
    let k = c;
    while (k > 0 && Number.isNaN(index.checkpointLine(k - 1))) k--;
    let line = k === 0 ? 1 : index.checkpointLine(k - 1);
    let pos = k === 0 ? 0 : index.start((k - 1) * CHECKPOINT_EVERY);
    for (; k <= c; k++) {
      const at = index.start(k * CHECKPOINT_EVERY);
      line += this.countNewlines(pos, at);
      pos = at;
      index.setCheckpointLine?.(k, line);
    }
    return line;
  }

  /** LF bytes in `[from, to)` of the file. */
  private countNewlines(from: number, to: number): number {
    let n = 0, pos = from;
    if (pos >= to) return 0;
    const buf = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, to - pos));
    while (pos < to) {
      const got = readSync(this.spec.file.fd, buf, 0, Math.min(buf.length, to - pos), pos);
      if (got === 0) break;
      for (let k = buf.indexOf(10, 0); k !== -1 && k < got; k = buf.indexOf(10, k + 1)) n++;
      pos += got;
    }
    return n;
  }

  /**
   * Reads record-aligned chunks: each read covers whole records (up to CHUNK_BYTES, or one record
   * when it is longer), so no bytes are copied between chunks; the next read is in flight while
   * the caller works on the current batch. A batch's bytes are valid until the next batch is asked for (with
   * `options.reads` = n, until the (n − 1)-th after it is), and not once the iteration has ended: the read buffers
   * (two, or n) come from the kernel's spares, and what an iteration read and did
   * not hand out (the rest of its last batch, the read in flight) is kept for a second ({@link Leftover}), so that
   * an iteration resuming there — a reader's or a search's next page, which starts at the record its cursor names —
   * takes those bytes instead of reading them again; then the buffers go back to the spares.
   */
  async *batches(options: KernelBatchOptions = {}): AsyncGenerator<KernelBatch> {
    const from = Math.max(0, options.from ?? 0);
    const to = Math.min(this.count, options.to ?? this.count);
    if (from >= to) return;
    const { index, end, file } = this.spec;
    const pad = this.spec.framing.isPadding;
    const boundary = (r: number) => (r < index.count ? index.start(r) : end);
    const totalBytes = boundary(to) - boundary(from);
    // The plan for the read that starts at record r: records r..last-1.
    const plan = (r: number): number => {
      const limit = index.start(r) + CHUNK_BYTES;
      let lo = r + 1, hi = to;
      while (lo < hi) {
        const mid = (lo + hi + 1) >>> 1;
        if (boundary(mid) <= limit) lo = mid; else hi = mid - 1;
      }
      return lo;
    };
    /** Records `[r, min(g.last, to))` of a batch read earlier: its bytes from record r's start. */
    const cut = (g: Got, r: number): Got => {
      const last = Math.min(g.last, to);
      const s = index.start(r) - g.base, e = boundary(last) - g.base;
      return { bytes: g.bytes.subarray(s, e), first: r, last, base: g.base + s, length: e - s };
    };
    // No read is longer than the range (one record past CHUNK_BYTES gets its own buffer): a small file or range
    // takes what it needs, not 2 × CHUNK_BYTES per scan.
    const size = Math.max(1, Math.min(CHUNK_BYTES, totalBytes));
    // Reads handed to worker threads (`reads`) go into new buffers on shared memory (chunks.ts takeBuffer), the others
    // into ordinary ones; a kept iteration's buffers serve either (a batch not on shared memory is copied for threads).
    const shared = options.reads !== undefined;
    let kept = this.takeLeftover();
    if (kept && !kept.buffers.every((b) => b.length >= size)) {
      // a short range's buffers (a probe of the first records) are too small for this one
      releaseLeftover(kept);
      kept = null;
    }
    // Buffers take turns (`which`: the next read's): a batch's bytes are overwritten by the read after buffers.length − 1
    // more, which starts when the batch buffers.length − 1 after it is handed out.
    const reads = Math.max(2, Math.min(4, Math.floor(options.reads ?? 2)));
    const buffers = kept ? kept.buffers : [takeBuffer(size, shared), takeBuffer(size, shared)];
    let which = kept ? kept.which : 0;
    // More turns than kept: the new buffers go in at `which`, so they are read into before the kept ones come round.
    if (buffers.length < reads) buffers.splice(which, 0, ...Array.from({ length: reads - buffers.length }, () => takeBuffer(size, shared)));
    const startRead = (r: number, last: number): Promise<Got> => {
      const s = index.start(r);
      const length = boundary(last) - s;
      const { maxRecordBytes } = this.spec.limits;
      if (last === r + 1 && length > maxRecordBytes) {
        const size = this.rawLength(r);
        if (size > maxRecordBytes) {
          // Not read: the batch holds the record without its bytes, and reading it throws.
          const oversized = this.oversizedError(r, size, { record_index: r, byte_offset: s });
          return Promise.resolve({ bytes: Buffer.alloc(0), first: r, last, base: s, length, oversized });
        }
      }
      let buf = buffers[which]!;
      if (length > buf.length) buf = unalignedBuffer(length);
      which = (which + 1) % buffers.length;
      return readFully(file.fd, buf.subarray(0, length), s, file.displayPath).then((bytes) => ({ bytes, first: r, last, base: s, length }));
    };
    /** The batch to hand out next when it is already read; else `pending` reads the one starting at `pendingFirst`. */
    let ready: Got | null = null;
    let pending: Promise<Got> | null = null;
    let pendingFirst = -1;
    /** A kept read in flight that this iteration does not use: its buffer is not free until it lands. */
    let unused: Promise<Got> | null = null;
    let current: Got | null = null;
    try {
      if (kept && kept.count === index.count && kept.end === end) {
        // The last iteration's bytes, when this one starts inside them (its current batch, or the read it left in flight).
        const holds = (g: Got) => !g.oversized && g.first <= from && from < g.last;
        if (kept.current && holds(kept.current)) {
          ready = cut(kept.current, from);
          if (kept.pending && kept.pendingFirst === kept.current.last && kept.current.last < to) {
            pending = kept.pending;
            pendingFirst = kept.pendingFirst;
          } else unused = kept.pending;
        } else if (kept.pending) {
          const g = await kept.pending.catch(() => null); // a read that failed is made again
          if (g && holds(g)) ready = cut(g, from);
        }
      } else if (kept) unused = kept.pending;
      if (!ready) {
        if (unused) await unused.then(() => undefined, () => undefined);
        unused = null;
        pendingFirst = from;
        pending = startRead(from, plan(from));
      }
      let done = 0;
      for (;;) {
        let got: Got;
        if (ready) { got = ready; ready = null; }
        else if (pending) { got = await pending; pending = null; }
        else break;
        if (got.last > to) got = cut(got, got.first); // a kept read may run past this iteration's range
        throwIfAborted(options.signal);
        if (!pending && got.last < to) {
          if (unused) { await unused.then(() => undefined, () => undefined); unused = null; }
          pendingFirst = got.last;
          pending = startRead(got.last, plan(got.last));
        }
        done += got.length;
        options.onProgress?.(done, totalBytes);
        current = got;
        yield got.oversized ? oversizedBatch(got.first, got.oversized) : makeBatch(got.bytes, got.base, got.first, got.last - got.first, index, end, pad, this, this.spec.framing.checkRecord !== undefined);
      }
    } finally {
      // A read in flight (this iteration's next, or a kept one it did not use) holds its buffer until it lands.
      this.keepLeftover(pending ? { buffers, which, current, pending, pendingFirst, count: index.count, end }
        : { buffers, which, current, pending: unused, pendingFirst: -1, count: index.count, end });
    }
  }

  /** What the last iteration of `batches` read and did not hand out, kept for {@link LEFTOVER_KEEP_MS}. */
  private leftover: (Leftover & { timer: NodeJS.Timeout }) | null = null;

  private takeLeftover(): Leftover | null {
    const kept = this.leftover;
    if (!kept) return null;
    clearTimeout(kept.timer);
    this.leftover = null;
    return kept;
  }

  private keepLeftover(kept: Leftover): void {
    const previous = this.takeLeftover();
    if (previous) releaseLeftover(previous);
    if (this.closed) { releaseLeftover(kept); return; }
    const timer = setTimeout(() => { if (this.leftover?.timer === timer) releaseLeftover(this.takeLeftover()!); }, LEFTOVER_KEEP_MS);
    timer.unref();
    this.leftover = { ...kept, timer };
  }

  close(): void {
    this.closed = true;
    const kept = this.takeLeftover();
    if (kept) releaseLeftover(kept);
  }
}

/** One read of `batches`: records `[first, last)` in `bytes`, which start at file offset `base`. */
type Got = { bytes: Buffer; first: number; last: number; base: number; length: number; oversized?: McpgwError };

/**
 * The state an iteration of `batches` ended in: its buffers (`which`: the one the next read goes into), the last
 * batch it handed out, the read it left in flight (in the buffer before `which`), and the index's count and end then (an index
 * that grew since is not resumed from).
 */
interface Leftover {
  buffers: Buffer[];
  which: number;
  current: Got | null;
  pending: Promise<Got> | null;
  /** The first record of `pending`'s read (-1: a read no iteration goes on with). */
  pendingFirst: number;
  count: number;
  end: number;
}

/** How long an iteration's unread rest is kept for the next page, ms. */
const LEFTOVER_KEEP_MS = 1000;

/** Gives a leftover's buffers back to the spares once the read it left in flight has landed (or failed). */
function releaseLeftover(kept: Leftover): void {
  const back = () => giveBack(kept.buffers);
  if (kept.pending) kept.pending.then(back, back); else back();
}

/** A source over the elements of one array inside a record (see IndexedRecordSource.elements). */
export class ElementSource extends IndexedRecordSource {
  /** @param byteSize bytes of the array's text (the engine's thresholds look at this, not the file's size). */
  constructor(spec: SourceSpec, readonly byteSize: number) {
    super(spec);
  }
}

/** An OffsetIndex over a container's child offsets (no line checkpoints known: lines are counted on first need). */
class ContainerOffsets implements OffsetIndex {
  private readonly lines: Float64Array;
  constructor(private readonly starts: Float64Array, readonly count: number) {
    this.lines = new Float64Array(Math.ceil(count / CHECKPOINT_EVERY)).fill(NaN);
  }
  push(): void { throw new Error('ContainerOffsets is read-only'); }
  start(i: number): number { return this.starts[i]!; }
  checkpointLine(c: number): number { return this.lines[c]!; }
  setCheckpointLine(c: number, line: number): void { this.lines[c] = line; }
  finish(): void {}
}

/** A batch of one record longer than maxRecordBytes: no bytes (an empty span), and reading it throws `error`. */
function oversizedBatch(first: number, error: McpgwError): KernelBatch {
  return {
    oversized: true, first, count: 1, bytes: Buffer.alloc(0),
    span: () => [0, 0],
    extentsInto: (k0, k1, out, shift) => { out[0] = -shift; out[1] = -shift; },
    recordAt: (offset: number) => (offset === 0 ? 0 : -1),
    text: () => { throw error; },
    value: () => { throw error; },
  };
}

function countPadding(buf: Buffer, pad: (b: number) => boolean, fromEnd: boolean): number {
  let n = 0;
  if (fromEnd) { for (let k = buf.length - 1; k >= 0 && pad(buf[k]!); k--) n++; }
  else { for (let k = 0; k < buf.length && pad(buf[k]!); k++) n++; }
  return n;
}

function makeBatch(
  bytes: Buffer, base: number, first: number, count: number,
  index: SourceSpec['index'], end: number, pad: (b: number) => boolean, source: IndexedRecordSource, checks: boolean,
): KernelBatch {
  const batch: KernelBatch = {
    first, count, bytes,
    span(k: number): [number, number] {
      const i = first + k;
      let s = index.start(i) - base;
      let e = (i + 1 < index.count ? index.start(i + 1) : end) - base;
      if (e > bytes.length) e = bytes.length;
      while (s < e && pad(bytes[s]!)) s++;
      while (e > s && pad(bytes[e - 1]!)) e--;
      return [s, e];
    },
    extentsInto(k0: number, k1: number, out: Float64Array, shift: number): void {
      const n = index.count;
      for (let k = k0; k <= k1; k++) {
        const i = first + k;
        out[k - k0] = Math.min((i < n ? index.start(i) : end) - base, bytes.length) - shift;
      }
    },
    recordAt(offset: number): number {
      const abs = base + offset;
      let lo = first, hi = first + count - 1;
      if (abs < index.start(lo)) return -1;
      while (lo < hi) {
        const mid = (lo + hi + 1) >>> 1;
        if (index.start(mid) <= abs) lo = mid; else hi = mid - 1;
      }
      return lo - first;
    },
    text(k: number): string {
      const [s, e] = batch.span(k);
      source.checkSize(first + k, e - s);
      return source.decode(first + k, bytes.subarray(s, e), base + s);
    },
    value(k: number, warnings?: RecordWarning[]): unknown {
      const [s, e] = batch.span(k);
      const i = first + k;
      source.checkSize(i, e - s);
      framing(k, s, e);
      const text = source.decode(i, bytes.subarray(s, e), base + s);
      return source.parseText(i, text, warnings);
    },
  };
  /** The framing check of record `first + k` whose trimmed span in `bytes` is `[s, e)`. @throws SYNTAX_ERROR */
  const framing = (k: number, s: number, e: number): void => {
    if (!checks) return;
    const i = first + k;
    const es = index.start(i) - base;
    const ee = Math.min(bytes.length, (i + 1 < index.count ? index.start(i + 1) : end) - base);
    source.checkFraming(i, bytes.subarray(es, ee), s - es, e - es);
  };
  if (checks) batch.checkFraming = (k: number) => { const [s, e] = batch.span(k); framing(k, s, e); };
  return batch;
}

function readFully(fd: number, buf: Buffer, position: number, displayPath: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    let done = 0;
    const step = () => {
      read(fd, buf, done, buf.length - done, position + done, (err, n) => {
        if (err) return reject(new McpgwError('IO_ERROR', `Reading ${displayPath} failed: ${osErrorName(err)}.`, { cause: err }));
        if (n === 0) return reject(new McpgwError('SOURCE_CHANGED', `${displayPath} is shorter than when it was opened.`, { hint: 'Open the file again.' }));
        done += n;
        if (done < buf.length) step(); else resolve(buf);
      });
    };
    if (buf.length === 0) resolve(buf); else step();
  });
}
