import { closeSync, fstatSync, openSync, readSync, writeSync } from 'node:fs';
import { crc32 } from 'node:zlib';
import type { RecordSource } from '../../kernel/contracts/format';
import type { Detection } from '../../kernel/contracts/tool';

/**
 * One persistent index on disk (docs/architecture.md "Persistent index"), our own binary layout, little-endian,
 * 8-byte aligned so the offsets are read back as Float64Array views without copying. The head (everything but the
 * offsets) is read and checked at open; the offsets are stored in blocks of ENTRY_BLOCK records, each with its own
 * CRC-32 and first offset in the head, so a big index is read a block at a time when first used:
 *
 * ```
 *   0  magic "MCPGWIX\n"                 8 bytes
 *   8  layout version                    u32 (ENTRY_VERSION)
 *  12  header bytes H                    u32 (a multiple of 8: where the checkpoints start)
 *  16  entry bytes                       f64
 *  24  dev, ino, size, mtimeMs           4 × f64   the indexed file's identity
 *  56  head CRC-32, tail CRC-32          2 × u32   of the file's first and last FINGERPRINT_BYTES (of `size`)
 *  64  end, record count, checkpoints    3 × f64
 *  88  root type, root is a sequence,    4 × u8    (root type: 0 none, else 1 + ROOT_TYPES index; basis: 0 content,
 *      detection basis, 0                           1 extension, 2 explicit)
 *  92  offset blocks B                   u32 (ceil(count / ENTRY_BLOCK))
 *  96  detection confidence              f64
 * 104  format name, salt, state lengths  u16, u16, u32
 * 112  ctimeMs                           f64       the indexed file's change time (part of its identity)
 * 120  format name, salt, state bytes    UTF-8, UTF-8, bytes; zero-padded to H
 *   H  checkpoint lines                  checkpoints × f64
 *      block table                       B × (first offset f64, CRC-32 of the block's offsets u32, 0 u32)
 *      CRC-32 of every byte before it    u32, then 4 zero bytes
 *   O  record offsets                    count × f64, block b at O + 8 × b × ENTRY_BLOCK
 * ```
 *
 * A reader trusts nothing: magic, version, the lengths (against each other and the file's size) and the head's
 * checksum are checked before anything is used, and a block's checksum and bounds before any of its offsets is; any mismatch is a damaged entry (`DamagedEntry`).
 */
export const ENTRY_MAGIC = Buffer.from('MCPGWIX\n', 'latin1');
/** Change it whenever the layout or the meaning of a field changes: older entries are then damaged, never misread. */
export const ENTRY_VERSION = 3;
/** Records per stored block of offsets (the offset index's own block: 512 KiB of Float64). */
export const ENTRY_BLOCK = 65536;
/** Bytes at each end of a file whose CRC-32 is part of its key. */
export const FINGERPRINT_BYTES = 4096;
const FIXED_HEADER = 120;
const BLOCK_ROW = 16;
const HEAD_TRAILER = 8;
const MAX_STATE = 64 * 1024;
const ROOT_TYPES = ['array', 'object', 'string', 'number', 'boolean', 'null'] as const;
const BASES = ['content', 'extension', 'explicit'] as const;

/** What an entry says about the file it indexes: its identity and the checksums of its first and last blocks. */
export interface EntryKey {
  dev: number;
  ino: number;
  /** Bytes. */
  size: number;
  mtimeMs: number;
  /** Change time (ctime), ms since the epoch: a rewrite moves it even when the modification time is put back. */
  ctimeMs: number;
  headCrc: number;
  tailCrc: number;
}

/** One entry's content, besides its offsets and checkpoints (the offset index's: see Float64OffsetIndex.lazy). */
export interface Entry extends EntryKey {
  format: string;
  /** Who wrote it (mcpgw's version and the formats' plugins): an entry with another salt is stale. */
  salt: string;
  detection: Detection;
  /** `SourceSpec.end`, bytes. */
  end: number;
  rootType?: RecordSource['rootType'];
  rootIsSequence: boolean;
  state: Uint8Array;
}

/** A stored entry that cannot be trusted; `reason` says which check failed (for the log line). */
/**
 * How the cache opens an entry for reading (the kernel's `openRegularFile`, wired by the composition root): without
 * following a symlink or blocking on a FIFO, a descriptor of a regular file; else it throws an error whose `notRegular`
 * says what the path is (`a FIFO`, `a folder`, …), or the file system's error.
 */
export type OpenFile = (path: string) => number;

export class DamagedEntry extends Error {
  constructor(readonly reason: string) {
    super(reason);
  }
}

/**
 * Writes an entry to `path` (a new file: the caller writes a temporary name and renames it). `blocks` calls its
 * argument with the record offsets in file order, in pieces of any length (it is called twice: once for the blocks'
 * checksums, once to write them); `checkpoints` are the line checkpoints.
 * Returns the entry's size in bytes. @throws the file system's errors; RangeError for a state over 64 KiB.
 */
export function writeEntry(path: string, entry: Entry, count: number, blocks: (each: (offsets: Float64Array) => void) => void, checkpoints: Float64Array): number {
  const format = Buffer.from(entry.format, 'utf8');
  const salt = Buffer.from(entry.salt, 'utf8');
  if (entry.state.byteLength > MAX_STATE || format.length > 0xffff || salt.length > 0xffff) throw new RangeError('index cache entry: state, format name or salt too long');
  const headerBytes = align8(FIXED_HEADER + format.length + salt.length + entry.state.byteLength);
  const nBlocks = Math.ceil(count / ENTRY_BLOCK);
  const offsetsAt = headerBytes + 8 * checkpoints.length + BLOCK_ROW * nBlocks + HEAD_TRAILER;
  const total = offsetsAt + 8 * count;
  // the block table: each block's first offset and CRC-32, over the offsets cut at ENTRY_BLOCK boundaries
  const table = Buffer.alloc(BLOCK_ROW * nBlocks);
  let seen = 0;
  let crc = 0;
  blocks((offsets) => {
    for (let at = 0; at < offsets.length;) {
      const k = seen % ENTRY_BLOCK;
      const b = (seen - k) / ENTRY_BLOCK;
      if (b >= nBlocks) throw new RangeError(`index cache entry: more than ${count} offsets given`);
      if (k === 0) {
        table.writeDoubleLE(offsets[at]!, BLOCK_ROW * b);
        crc = 0;
      }
      const take = Math.min(offsets.length - at, ENTRY_BLOCK - k);
      const piece = offsets.subarray(at, at + take);
      crc = crc32(new Uint8Array(piece.buffer, piece.byteOffset, piece.byteLength), crc);
      table.writeUInt32LE(crc >>> 0, BLOCK_ROW * b + 8);
      at += take;
      seen += take;
    }
  });
  if (seen !== count) throw new RangeError(`index cache entry: ${seen} offsets given for ${count} records`);
  const header = Buffer.alloc(headerBytes);
  ENTRY_MAGIC.copy(header, 0);
  header.writeUInt32LE(ENTRY_VERSION, 8);
  header.writeUInt32LE(headerBytes, 12);
  header.writeDoubleLE(total, 16);
  header.writeDoubleLE(entry.dev, 24);
  header.writeDoubleLE(entry.ino, 32);
  header.writeDoubleLE(entry.size, 40);
  header.writeDoubleLE(entry.mtimeMs, 48);
  header.writeUInt32LE(entry.headCrc >>> 0, 56);
  header.writeUInt32LE(entry.tailCrc >>> 0, 60);
  header.writeDoubleLE(entry.end, 64);
  header.writeDoubleLE(count, 72);
  header.writeDoubleLE(checkpoints.length, 80);
  header[88] = entry.rootType === undefined ? 0 : 1 + ROOT_TYPES.indexOf(entry.rootType);
  header[89] = entry.rootIsSequence ? 1 : 0;
  header[90] = BASES.indexOf(entry.detection.basis);
  header.writeUInt32LE(nBlocks, 92);
  header.writeDoubleLE(entry.detection.confidence, 96);
  header.writeUInt16LE(format.length, 104);
  header.writeUInt16LE(salt.length, 106);
  header.writeUInt32LE(entry.state.byteLength, 108);
  header.writeDoubleLE(entry.ctimeMs, 112);
  format.copy(header, FIXED_HEADER);
  salt.copy(header, FIXED_HEADER + format.length);
  header.set(entry.state, FIXED_HEADER + format.length + salt.length);

  const fd = openSync(path, 'wx', 0o600);
  try {
    let headCrc = 0;
    const put = (bytes: Uint8Array, inHead: boolean) => {
      if (inHead) headCrc = crc32(bytes, headCrc);
      let done = 0;
      while (done < bytes.byteLength) done += writeSync(fd, bytes, done, bytes.byteLength - done);
    };
    put(header, true);
    put(new Uint8Array(checkpoints.buffer, checkpoints.byteOffset, checkpoints.byteLength), true);
    put(table, true);
    const trailer = Buffer.alloc(HEAD_TRAILER);
    trailer.writeUInt32LE(headCrc >>> 0, 0);
    put(trailer, false);
    blocks((offsets) => put(new Uint8Array(offsets.buffer, offsets.byteOffset, offsets.byteLength), false));
  } finally {
    closeSync(fd);
  }
  return total;
}

/** An entry's head read back: its fields, its checkpoints, and where and how its offset blocks are checked. */
export interface EntryHead extends Entry {
  /** Records. */
  count: number;
  checkpoints: Float64Array;
  /** Bytes of the entry file. */
  bytes: number;
  /** Offset blocks (ENTRY_BLOCK records each, the last shorter). */
  blocks: number;
}

/**
 * An entry open for reading: its head, checked, and its offset blocks read on demand (`block`), each checked against
 * the head's table. `close` closes the entry file (a block read after it fails).
 */
export class EntryFile {
  private readonly table: Buffer;
  private readonly offsetsAt: number;
  private fd: number | null;

  private constructor(fd: number, readonly head: EntryHead, table: Buffer, offsetsAt: number) {
    this.fd = fd;
    this.table = table;
    this.offsetsAt = offsetsAt;
  }

  /**
   * Opens the entry at `path` with `openFile` (the cache's, IndexCacheOptions.openFile) and reads and checks its head
   * (not its offsets).
   * @throws DamagedEntry (bad magic, version, lengths, fields or checksum; not a regular file); the file system's errors
   *   (ENOENT: none).
   */
  static open(path: string, openFile: OpenFile): EntryFile {
    // Not following a symlink, not waiting on a FIFO planted at the (predictable) path: a regular file or no entry.
    let fd: number;
    try {
      fd = openFile(path);
    } catch (err) {
      const kind = (err as { notRegular?: unknown }).notRegular;
      if (typeof kind === 'string') throw new DamagedEntry(`${kind}, not a regular file`);
      throw err;
    }
    try {
      const size = fstatSync(fd).size;
      if (size < FIXED_HEADER + HEAD_TRAILER) throw new DamagedEntry(`${size} bytes, shorter than any entry`);
      const fixed = readAt(fd, 0, FIXED_HEADER);
      if (!fixed.subarray(0, 8).equals(ENTRY_MAGIC)) throw new DamagedEntry('not an index cache entry (bad magic)');
      const version = fixed.readUInt32LE(8);
      if (version !== ENTRY_VERSION) throw new DamagedEntry(`layout version ${version}, this mcpgw reads ${ENTRY_VERSION}`);
      const headerBytes = fixed.readUInt32LE(12);
      const total = fixed.readDoubleLE(16);
      if (total !== size) throw new DamagedEntry(`says ${total} bytes but has ${size}`);
      const count = fixed.readDoubleLE(72);
      const cps = fixed.readDoubleLE(80);
      const nBlocks = fixed.readUInt32LE(92);
      const formatLength = fixed.readUInt16LE(104), saltLength = fixed.readUInt16LE(106), stateLength = fixed.readUInt32LE(108);
      const offsetsAt = headerBytes + 8 * cps + BLOCK_ROW * nBlocks + HEAD_TRAILER;
      if (
        headerBytes % 8 !== 0 || headerBytes < FIXED_HEADER + formatLength + saltLength + stateLength || stateLength > MAX_STATE ||
        !Number.isSafeInteger(count) || count < 0 || !Number.isSafeInteger(cps) || cps !== Math.ceil(count / 1024) ||
        nBlocks !== Math.ceil(count / ENTRY_BLOCK) || offsetsAt + 8 * count !== total
      ) {
        throw new DamagedEntry('its lengths do not add up');
      }
      // the head in one buffer of its own (8-byte aligned views of the checkpoints)
      const buf = Buffer.from(new ArrayBuffer(offsetsAt));
      readInto(fd, buf, 0);
      const body = offsetsAt - HEAD_TRAILER;
      if (crc32(buf.subarray(0, body)) !== buf.readUInt32LE(body)) throw new DamagedEntry('its checksum does not match');
      const rootCode = buf[88]!, basis = BASES[buf[90]!];
      if (rootCode > ROOT_TYPES.length || buf[89]! > 1 || basis === undefined) throw new DamagedEntry('a field holds an unknown value');
      const at = FIXED_HEADER;
      const head: EntryHead = {
        dev: buf.readDoubleLE(24),
        ino: buf.readDoubleLE(32),
        size: buf.readDoubleLE(40),
        mtimeMs: buf.readDoubleLE(48),
        ctimeMs: buf.readDoubleLE(112),
        headCrc: buf.readUInt32LE(56),
        tailCrc: buf.readUInt32LE(60),
        end: buf.readDoubleLE(64),
        ...(rootCode ? { rootType: ROOT_TYPES[rootCode - 1]! } : {}),
        rootIsSequence: buf[89] === 1,
        detection: { basis, confidence: buf.readDoubleLE(96) },
        format: buf.toString('utf8', at, at + formatLength),
        salt: buf.toString('utf8', at + formatLength, at + formatLength + saltLength),
        state: new Uint8Array(buf.subarray(at + formatLength + saltLength, at + formatLength + saltLength + stateLength)),
        count,
        checkpoints: new Float64Array(buf.buffer, headerBytes, cps),
        bytes: total,
        blocks: nBlocks,
      };
      const table = buf.subarray(headerBytes + 8 * cps, headerBytes + 8 * cps + BLOCK_ROW * nBlocks);
      // the blocks' first offsets: ascending, from 0 on, before the end
      for (let b = 0, prev = -1; b < nBlocks; b++) {
        const first = table.readDoubleLE(BLOCK_ROW * b);
        if (!(first > prev) || first >= head.end || !(head.end <= head.size)) throw new DamagedEntry('its offsets do not fit its end');
        prev = first;
      }
      return new EntryFile(fd, head, table, offsetsAt);
    } catch (err) {
      closeSync(fd);
      throw err;
    }
  }

  /**
   * The offsets of block `b` (a Float64Array of its own), after checking its CRC-32, its first offset against the
   * head's table, and that its last offset lies between its first and the next block's first offset (or the end).
   * @throws DamagedEntry; the file system's errors (and an Error once closed).
   */
  block(b: number): Float64Array {
    if (this.fd === null) throw new Error('index cache entry: read after close');
    const { count, end, blocks } = this.head;
    const n = Math.min(ENTRY_BLOCK, count - b * ENTRY_BLOCK);
    if (!(b >= 0 && b < blocks && n > 0)) throw new RangeError(`index cache entry: no block ${b}`);
    const offsets = new Float64Array(n);
    const bytes = Buffer.from(offsets.buffer);
    readInto(this.fd, bytes, this.offsetsAt + 8 * b * ENTRY_BLOCK);
    if (crc32(bytes) !== this.table.readUInt32LE(BLOCK_ROW * b + 8)) throw new DamagedEntry(`offset block ${b}: its checksum does not match`);
    if (offsets[0] !== this.table.readDoubleLE(BLOCK_ROW * b)) throw new DamagedEntry(`offset block ${b}: its first offset is not the table's`);
    const limit = b + 1 < blocks ? this.table.readDoubleLE(BLOCK_ROW * (b + 1)) : end;
    if (!(offsets[n - 1]! >= offsets[0]! && offsets[n - 1]! < limit)) throw new DamagedEntry(`offset block ${b}: its offsets do not fit its end`);
    return offsets;
  }

  close(): void {
    if (this.fd === null) return;
    closeSync(this.fd);
    this.fd = null;
  }
}

/** An entry read back whole: its head and all its offsets (one array), every block checked. */
export interface ReadEntry extends EntryHead {
  offsets: Float64Array;
}

/**
 * Reads and checks the whole entry at `path`.
 * @throws DamagedEntry (bad magic, version, lengths, fields or a checksum); the file system's errors (ENOENT: none).
 */
export function readEntry(path: string, openFile: OpenFile): ReadEntry {
  const file = EntryFile.open(path, openFile);
  try {
    const offsets = new Float64Array(file.head.count);
    for (let b = 0; b < file.head.blocks; b++) offsets.set(file.block(b), b * ENTRY_BLOCK);
    return { ...file.head, offsets };
  } finally {
    file.close();
  }
}

function readAt(fd: number, position: number, length: number): Buffer {
  const buf = Buffer.alloc(length);
  readInto(fd, buf, position);
  return buf;
}

/** Fills `buf` from `position` of the file. @throws DamagedEntry when the file ends first. */
function readInto(fd: number, buf: Uint8Array, position: number): void {
  let done = 0;
  while (done < buf.byteLength) {
    const got = readSync(fd, buf, done, buf.byteLength - done, position + done);
    if (got === 0) throw new DamagedEntry(`shorter than its size while read (${position + done} bytes)`);
    done += got;
  }
}

function align8(n: number): number {
  return (n + 7) & ~7;
}
