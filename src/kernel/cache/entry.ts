import { closeSync, fstatSync, openSync, readSync, writeSync } from 'node:fs';
import { crc32 } from 'node:zlib';
import type { RecordSource } from '../contracts/format';
import type { Detection } from '../contracts/tool';

/**
 * One persistent index on disk (docs/architecture.md "Persistent index"), our own binary layout, little-endian,
 * 8-byte aligned so the offsets are read back as a Float64Array view without copying:
 *
 * ```
 *   0  magic "MCPGWIX\n"                 8 bytes
 *   8  layout version                    u32 (ENTRY_VERSION)
 *  12  header bytes H                    u32 (a multiple of 8: where the offsets start)
 *  16  entry bytes (trailer included)    f64
 *  24  dev, ino, size, mtimeMs           4 × f64   the indexed file's identity
 *  56  head CRC-32, tail CRC-32          2 × u32   of the file's first and last FINGERPRINT_BYTES (of `size`)
 *  64  end, record count, checkpoints    3 × f64
 *  88  root type, root is a sequence,    4 × u8    (root type: 0 none, else 1 + ROOT_TYPES index; basis: 0 content,
 *      detection basis, 0                           1 extension, 2 explicit)
 *  92  0                                 u32
 *  96  detection confidence              f64
 * 104  format name, salt, state lengths  u16, u16, u32
 * 112  format name, salt, state bytes    UTF-8, UTF-8, bytes; zero-padded to H
 *   H  record offsets                    count × f64
 *      checkpoint lines                  checkpoints × f64
 *      CRC-32 of every byte before it    u32, then 4 zero bytes
 * ```
 *
 * A reader trusts nothing: magic, version, the lengths (against each other and the file's size) and the checksum
 * are all checked before any offset is used; any mismatch is a damaged entry (`DamagedEntry`).
 */
export const ENTRY_MAGIC = Buffer.from('MCPGWIX\n', 'latin1');
/** Change it whenever the layout or the meaning of a field changes: older entries are then damaged, never misread. */
export const ENTRY_VERSION = 1;
/** Bytes at each end of a file whose CRC-32 is part of its key. */
export const FINGERPRINT_BYTES = 4096;
const FIXED_HEADER = 112;
const TRAILER = 8;
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
  headCrc: number;
  tailCrc: number;
}

/** One entry's content. `offsets` and `checkpoints` are the offset index's (see Float64OffsetIndex.fromArrays). */
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
export class DamagedEntry extends Error {
  constructor(readonly reason: string) {
    super(reason);
  }
}

/**
 * Writes an entry to `path` (a new file: the caller writes a temporary name and renames it). `blocks` calls its
 * argument with the record offsets in file order, block by block; `checkpoints` are the line checkpoints.
 * Returns the entry's size in bytes. @throws the file system's errors; RangeError for a state over 64 KiB.
 */
export function writeEntry(path: string, entry: Entry, count: number, blocks: (each: (offsets: Float64Array) => void) => void, checkpoints: Float64Array): number {
  const format = Buffer.from(entry.format, 'utf8');
  const salt = Buffer.from(entry.salt, 'utf8');
  if (entry.state.byteLength > MAX_STATE || format.length > 0xffff || salt.length > 0xffff) throw new RangeError('index cache entry: state, format name or salt too long');
  const headerBytes = align8(FIXED_HEADER + format.length + salt.length + entry.state.byteLength);
  const total = headerBytes + 8 * count + 8 * checkpoints.length + TRAILER;
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
  header.writeDoubleLE(entry.detection.confidence, 96);
  header.writeUInt16LE(format.length, 104);
  header.writeUInt16LE(salt.length, 106);
  header.writeUInt32LE(entry.state.byteLength, 108);
  format.copy(header, FIXED_HEADER);
  salt.copy(header, FIXED_HEADER + format.length);
  header.set(entry.state, FIXED_HEADER + format.length + salt.length);

  const fd = openSync(path, 'wx', 0o600);
  try {
    let crc = 0;
    const put = (bytes: Uint8Array) => {
      crc = crc32(bytes, crc);
      let done = 0;
      while (done < bytes.byteLength) done += writeSync(fd, bytes, done, bytes.byteLength - done);
    };
    put(header);
    let written = 0;
    blocks((offsets) => {
      written += offsets.length;
      put(new Uint8Array(offsets.buffer, offsets.byteOffset, offsets.byteLength));
    });
    if (written !== count) throw new RangeError(`index cache entry: ${written} offsets given for ${count} records`);
    put(new Uint8Array(checkpoints.buffer, checkpoints.byteOffset, checkpoints.byteLength));
    const trailer = Buffer.alloc(TRAILER);
    trailer.writeUInt32LE(crc >>> 0, 0);
    writeSync(fd, trailer, 0, TRAILER);
  } finally {
    closeSync(fd);
  }
  return total;
}

/** An entry read back: its fields, and views of its offsets and checkpoints (into one buffer read at once). */
export interface ReadEntry extends Entry {
  offsets: Float64Array;
  checkpoints: Float64Array;
  /** Bytes of the entry file. */
  bytes: number;
}

/**
 * Reads and checks the entry at `path`.
 * @throws DamagedEntry (bad magic, version, lengths, fields or checksum); the file system's errors (ENOENT: none).
 */
export function readEntry(path: string): ReadEntry {
  const fd = openSync(path, 'r');
  let buf: Buffer;
  try {
    const size = fstatSync(fd).size;
    if (size < FIXED_HEADER + TRAILER) throw new DamagedEntry(`${size} bytes, shorter than any entry`);
    // allocUnsafeSlow: a buffer of its own at byte offset 0 (8-byte aligned views), not zero-filled first
    buf = Buffer.allocUnsafeSlow(size);
    let done = 0;
    while (done < size) {
      const got = readSync(fd, buf, done, size - done, done);
      if (got === 0) throw new DamagedEntry(`shorter than its size while read (${done} of ${size} bytes)`);
      done += got;
    }
  } finally {
    closeSync(fd);
  }
  return decodeEntry(buf);
}

/** Checks and decodes an entry's bytes (`buf.byteOffset` must be a multiple of 8). @throws DamagedEntry */
export function decodeEntry(buf: Buffer): ReadEntry {
  if (buf.length < FIXED_HEADER + TRAILER) throw new DamagedEntry(`${buf.length} bytes, shorter than any entry`);
  if (!buf.subarray(0, 8).equals(ENTRY_MAGIC)) throw new DamagedEntry('not an index cache entry (bad magic)');
  const version = buf.readUInt32LE(8);
  if (version !== ENTRY_VERSION) throw new DamagedEntry(`layout version ${version}, this mcpgw reads ${ENTRY_VERSION}`);
  const headerBytes = buf.readUInt32LE(12);
  const total = buf.readDoubleLE(16);
  if (total !== buf.length) throw new DamagedEntry(`says ${total} bytes but has ${buf.length}`);
  const count = buf.readDoubleLE(72);
  const cps = buf.readDoubleLE(80);
  const formatLength = buf.readUInt16LE(104), saltLength = buf.readUInt16LE(106), stateLength = buf.readUInt32LE(108);
  if (
    headerBytes % 8 !== 0 || headerBytes < FIXED_HEADER + formatLength + saltLength + stateLength || stateLength > MAX_STATE ||
    !Number.isSafeInteger(count) || count < 0 || !Number.isSafeInteger(cps) || cps !== Math.ceil(count / 1024) ||
    headerBytes + 8 * count + 8 * cps + TRAILER !== total
  ) {
    throw new DamagedEntry('its lengths do not add up');
  }
  const body = total - TRAILER;
  const stored = buf.readUInt32LE(body);
  if (crc32(buf.subarray(0, body)) !== stored) throw new DamagedEntry('its checksum does not match');
  const rootCode = buf[88]!, basis = BASES[buf[90]!];
  if (rootCode > ROOT_TYPES.length || buf[89]! > 1 || basis === undefined) throw new DamagedEntry('a field holds an unknown value');
  if (buf.byteOffset % 8 !== 0) throw new RangeError('decodeEntry needs an 8-byte aligned buffer');
  const at = FIXED_HEADER;
  return {
    dev: buf.readDoubleLE(24),
    ino: buf.readDoubleLE(32),
    size: buf.readDoubleLE(40),
    mtimeMs: buf.readDoubleLE(48),
    headCrc: buf.readUInt32LE(56),
    tailCrc: buf.readUInt32LE(60),
    end: buf.readDoubleLE(64),
    ...(rootCode ? { rootType: ROOT_TYPES[rootCode - 1]! } : {}),
    rootIsSequence: buf[89] === 1,
    detection: { basis, confidence: buf.readDoubleLE(96) },
    format: buf.toString('utf8', at, at + formatLength),
    salt: buf.toString('utf8', at + formatLength, at + formatLength + saltLength),
    state: new Uint8Array(buf.subarray(at + formatLength + saltLength, at + formatLength + saltLength + stateLength)),
    offsets: new Float64Array(buf.buffer, buf.byteOffset + headerBytes, count),
    checkpoints: new Float64Array(buf.buffer, buf.byteOffset + headerBytes + 8 * count, cps),
    bytes: total,
  };
}

function align8(n: number): number {
  return (n + 7) & ~7;
}
