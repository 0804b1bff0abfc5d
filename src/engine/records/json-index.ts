import { readSync } from 'node:fs';
import type { OpenedFile, ProgressReporter, RestoredIndex } from '../../kernel/contracts/format';
import type { JsonTextIndex, OffsetIndex } from '../../kernel/contracts/records';
import { McpgwError, osErrorName } from '../../kernel/errors';
import { Float64OffsetIndex } from './offset-index';
import { readChunks } from './chunks';
import { JsonScanError, JsonStructureScanner, type ScanHooks } from './json-scan';
import { isJsonWhitespace } from '../bytes/json-walk';

/** The children of one container, found by the structural scanner. */
export interface ContainerIndex {
  type: 'object' | 'array';
  /** Offset of the opening bracket. */
  open: number;
  /** Offset of the closing bracket. */
  close: number;
  /** Child start offsets: an element's first byte, or a member name's opening quote. */
  starts: Float64Array;
  count: number;
  /** Member names, decoded on first need (objects only). */
  keys?: string[];
  /** Indexed at open: kept when the on-demand cache is cleared. */
  pinned?: boolean;
  /** Objects: the index of the last member of each name (the one that wins), built on first lookup. */
  lastIndex?: Map<string, number>;
  /** Objects with repeated names: the index of the first member of each name (where it is shown), built on first lookup. */
  firstIndex?: Map<string, number>;
}

/** Containers already indexed, by the offset of their opening bracket (unique in a file). */
export type StructureCache = Map<number, ContainerIndex>;

/** Containers deeper than the root are kept from the open pass only when they have this many children. */
const KEEP_CHILDREN = 64;

/** A growable list of offsets. */
class Offsets {
  a = new Float64Array(16);
  n = 0;
  push(x: number): void {
    if (this.n === this.a.length) { const g = new Float64Array(this.a.length * 2); g.set(this.a); this.a = g; }
    this.a[this.n++] = x;
  }
  done(): Float64Array { return this.a.slice(0, this.n); }
}

/** Array elements are trimmed of whitespace and the `,` between them. */
const elementPadding = (b: number) => isJsonWhitespace(b) || b === 0x2c;

/**
 * The `indexJson` toolkit service: one streaming structural pass over a JSON text file.
 * See RecordsToolkit.indexJson for the contract.
 */
export async function indexJson(file: OpenedFile, options: { signal?: AbortSignal; onProgress?: ProgressReporter } = {}): Promise<JsonTextIndex> {
  const index = new Float64OffsetIndex();
  const cache: StructureCache = new Map();
  // root members and containers at depth 2 (a top-level object's arrays)
  let root: { type: 'object' | 'array'; open: number; kids: Offsets } | null = null;
  let inner: { type: 'object' | 'array'; open: number; kids: Offsets } | null = null;
  let arrayRoot = false;
  let closeOffset = -1;
  const hooks: ScanHooks = {
    captureDepth: 2,
    onOpen(depth, offset, type) {
      if (depth === 1) {
        root = { type, open: offset, kids: new Offsets() };
        arrayRoot = type === 'array';
        // an array's elements are records: their insides are indexed on demand, not here
        if (arrayRoot) hooks.captureDepth = 1;
      }
      else inner = { type, open: offset, kids: new Offsets() };
    },
    onChild(depth, offset) {
      if (depth === 1) {
        if (arrayRoot) index.push(offset, NaN); // lines are counted on first need (IndexedRecordSource.lineAt)
        else root!.kids.push(offset);
      } else inner!.kids.push(offset);
    },
    onClose(depth, offset) {
      if (depth === 1) {
        closeOffset = offset;
        if (!arrayRoot) cache.set(root!.open, { pinned: true, type: root!.type, open: root!.open, close: offset, starts: root!.kids.done(), count: root!.kids.n });
      } else {
        // in an array root, elements are records: their insides are indexed on demand
        if (!arrayRoot && inner!.kids.n >= KEEP_CHILDREN) {
          cache.set(inner!.open, { pinned: true, type: inner!.type, open: inner!.open, close: offset, starts: inner!.kids.done(), count: inner!.kids.n });
        }
        inner = null;
      }
    },
  };
  const scanner = new JsonStructureScanner(hooks);
  let first = true;
  try {
    for await (const { offset, bytes } of readChunks(file, { signal: options.signal, onProgress: options.onProgress })) {
      let from = 0;
      if (first) {
        first = false;
        if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) from = 3; // RFC 8259 §8.1: MAY ignore a BOM
      }
      scanner.feed(from ? bytes.subarray(from) : bytes, bytes.length - from, offset + from);
    }
    scanner.finish(file.identity.size);
  } catch (err) {
    if (err instanceof JsonScanError) throw scanFault(file, err);
    throw err;
  }
  const rootType = scanner.rootType!;
  if (rootType !== 'array') {
    index.push(scanner.rootStart, lineOfOffset(file.fd, scanner.rootStart));
  }
  index.finish();
  return {
    rootType,
    index,
    end: rootType === 'array' ? closeOffset : scanner.rootEnd,
    framing: { isPadding: rootType === 'array' ? elementPadding : isJsonWhitespace },
    structure: cache,
    ...(rootType === 'array' ? { saveState: arrayState } : {}),
  };
}

/** First double of a stored top-level array's state (change it when what an array's index means changes). */
const ARRAY_STATE_TAG = 0x4a410001;
const arrayState = (): Uint8Array => new Uint8Array(Float64Array.of(ARRAY_STATE_TAG).buffer);

/**
 * A top-level array's index as an earlier `indexJson` pass stored it (the persistent index): its elements' offsets,
 * the closing bracket as its end. Null for anything else (an object or a scalar is indexed again: its members'
 * structure is not stored), or a state `indexJson` did not write.
 */
export function restoreJsonIndex(restored: RestoredIndex): JsonTextIndex | null {
  if (restored.rootType !== 'array' || restored.state.byteLength !== 8) return null;
  if (new Float64Array(new Uint8Array(restored.state).buffer)[0] !== ARRAY_STATE_TAG) return null;
  return { rootType: 'array', index: restored.index, end: restored.end, framing: { isPadding: elementPadding }, structure: new Map(), saveState: arrayState };
}

/** Turns a scanner fault into SYNTAX_ERROR with byte offset, line and column. */
export function scanFault(file: { fd: number; displayPath: string }, err: JsonScanError, recordIndex?: number): McpgwError {
  const { line, column } = lineColumn(file.fd, err.offset);
  return new McpgwError('SYNTAX_ERROR', `${file.displayPath} is not valid JSON: ${err.message} (line ${line}, column ${column}, byte ${err.offset}).`, {
    location: { byte_offset: err.offset, line, column, ...(recordIndex !== undefined ? { record_index: recordIndex } : {}) },
  });
}

/** 1-based line of a byte offset, counting newlines from the file start (error and single-record paths only). */
export function lineOfOffset(fd: number, offset: number): number {
  return lineColumn(fd, offset).line;
}

/** 1-based line and column (in characters) of a byte offset. */
export function lineColumn(fd: number, offset: number): { line: number; column: number } {
  const buf = Buffer.allocUnsafe(Math.min(1 << 20, Math.max(1, offset)));
  let line = 1, lastNl = -1, pos = 0;
  while (pos < offset) {
    const n = readSync(fd, buf, 0, Math.min(buf.length, offset - pos), pos);
    if (n === 0) break;
    for (let k = buf.indexOf(10, 0); k !== -1 && k < n; k = buf.indexOf(10, k + 1)) { line++; lastNl = pos + k; }
    pos += n;
  }
  const lineStart = lastNl + 1;
  const head = Buffer.allocUnsafe(Math.min(offset - lineStart, 1 << 16));
  const got = head.length ? readSync(fd, head, 0, head.length, offset - head.length) : 0;
  const chars = head.subarray(0, got).toString('utf8').length + (offset - lineStart - head.length);
  return { line, column: chars + 1 };
}

/**
 * Indexes the direct children of the container whose opening bracket is at `open` by a synchronous
 * structural scan of its bytes (1 MiB reads, or `held` when it covers them), stopping at its closing bracket.
 * @throws JsonScanError (broken structure), McpgwError IO_ERROR.
 */
export function indexContainerSync(fd: number, open: number, limit: number, held?: { buf: Buffer; base: number }): ContainerIndex {
  const kids = new Offsets();
  let type: 'object' | 'array' = 'array';
  let close = -1;
  const scanner = new JsonStructureScanner({
    captureDepth: 1,
    stopAtRootEnd: true,
    onOpen: (_d, _o, t) => { type = t; },
    onChild: (_d, o) => kids.push(o),
    onClose: (_d, o) => { close = o; },
  });
  let pos = open;
  if (held) {
    // the bytes are in memory already (`held` covers [open, limit))
    scanner.feed(held.buf.subarray(open - held.base, limit - held.base), limit - open, open);
    pos = limit;
  }
  const buf = held ? Buffer.alloc(0) : Buffer.allocUnsafe(Math.min(1 << 20, Math.max(64, limit - open)));
  while (!scanner.done && pos < limit) {
    let n: number;
    try { n = readSync(fd, buf, 0, Math.min(buf.length, limit - pos), pos); }
    catch (err) { throw new McpgwError('IO_ERROR', `Reading failed: ${osErrorName(err)}.`, { cause: err }); }
    if (n === 0) break;
    scanner.feed(buf, n, pos);
    pos += n;
  }
  if (!scanner.done) scanner.finish(limit);
  if (close < 0) throw new JsonScanError('Unterminated container', limit);
  return { type, open, close, starts: kids.done(), count: kids.n };
}

export type { OffsetIndex };
