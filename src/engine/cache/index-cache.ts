import { mkdirSync, readdirSync, readSync, renameSync, statSync, unlinkSync, utimesSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { crc32 } from 'node:zlib';
import type { FileIdentity, RecordSource } from '../../kernel/contracts/format';
import type { Logger } from '../../kernel/contracts/plugin';
import type { Detection } from '../../kernel/contracts/tool';
import { McpgwError } from '../../kernel/errors';
import { Float64OffsetIndex, OFFSET_BLOCK } from '../records/offset-index';
import { DamagedEntry, ENTRY_BLOCK, EntryFile, FINGERPRINT_BYTES, writeEntry, type EntryHead, type EntryKey, type OpenFile } from './entry';

/** Files smaller than this are indexed faster than an entry is read and written: they are never stored. */
export const CACHE_MIN_FILE_BYTES = 1024 * 1024;
/** Temporary files older than this are left-overs of a process that died while writing: removed when seen. */
const STALE_TEMP_MS = 60 * 60 * 1000;
const ENTRY_SUFFIX = '.idx';

export interface IndexCacheOptions {
  /** The cache folder (created on first write). */
  dir: string;
  /** Bound of the folder's entries, bytes (least recently used go first). */
  maxBytes: number;
  /** Who writes: mcpgw's version and the formats' plugins and versions; entries written with another salt are stale. */
  salt: string;
  /** Opens an entry for reading (see OpenFile): the kernel's safe open of a file in a folder others may write into. */
  openFile: OpenFile;
  /** Damaged entries are reported at `warn`, failures to write at `debug`. */
  log: Logger;
  /** Smaller files are not stored (default CACHE_MIN_FILE_BYTES). */
  minFileBytes?: number;
  /** The time entries are touched with (ms since the epoch); default Date.now. */
  now?: () => number;
  /**
   * Entries of more offset blocks than this (65,536 records each) are read a block at a time when first used;
   * smaller ones whole at open (default LAZY_FROM_BLOCKS).
   */
  lazyFromBlocks?: number;
}

/** Entries of more blocks than this are read lazily: 4 blocks = 262,144 records = 2 MiB of offsets, ~2 ms to read. */
export const LAZY_FROM_BLOCKS = 4;

/** A stored index that fits the file as it is now: `same` (unchanged) or `grown` (the stored bytes, then more). */
export interface CacheHit {
  fit: 'same' | 'grown';
  entry: EntryHead;
  /** The file's identity as stored (for `grown`, the smaller size the index covers). */
  identity: FileIdentity;
  /** The stored offsets and checkpoints as an offset index (appending goes on after them). */
  index: Float64OffsetIndex;
}

/** What `save` stores of a source (see IndexedRecordSource.persistable). */
export interface Persistable {
  index: { count: number };
  end: number;
  rootType?: RecordSource['rootType'];
  rootIsSequence: boolean;
  state: Uint8Array;
}

/**
 * The persistent index cache (docs/architecture.md "Persistent index"): one entry file per indexed file, named by its
 * device and inode, holding its record index (entry.ts). An entry is used only when the file's device, inode, size,
 * modification time and change time and the CRC-32 of its first and last 4 KiB match it (`same`), or when the file only grew
 * from it (same device and inode, the first and last 4 KiB of the stored size unchanged: `grown`). Entries are
 * written to a temporary file and renamed into place, so concurrent servers see a whole entry or none; the folder is
 * kept under `maxBytes` by removing the least recently used entries (a hit touches its entry's modification time).
 * A damaged entry is removed, logged, and the file indexed again; no failure of the cache fails an open.
 */
export class IndexCache {
  readonly dir: string;
  private readonly minFileBytes: number;
  private readonly now: () => number;

  /** A debug line of the index cache's (the engine's indexer notes an open that made no pass). */
  note(message: string, fields: Record<string, unknown>): void {
    this.options.log.debug(`index cache: ${message}`, fields);
  }

  constructor(private readonly options: IndexCacheOptions) {
    this.dir = options.dir;
    this.minFileBytes = options.minFileBytes ?? CACHE_MIN_FILE_BYTES;
    this.now = options.now ?? Date.now;
  }

  /** Whether a file of `size` bytes is stored at all. */
  wants(size: number): boolean {
    return size >= this.minFileBytes && os.endianness() === 'LE';
  }

  /** The entry file of a device and inode. */
  entryPath(dev: number, ino: number): string {
    return path.join(this.dir, `${dev.toString(16)}-${ino.toString(16)}${ENTRY_SUFFIX}`);
  }

  /**
   * The stored index of the file open as `fd` with identity `now`, when one fits it; null otherwise (none, stale,
   * another file, changed, damaged — a damaged one is removed and logged).
   */
  lookup(fd: number, now: FileIdentity): CacheHit | null {
    if (!this.wants(now.size)) return null;
    const file = this.entryPath(now.dev, now.inode);
    let opened: EntryFile;
    try {
      opened = EntryFile.open(file, this.options.openFile);
    } catch (err) {
      if (err instanceof DamagedEntry) this.discard(file, err.reason);
      else if ((err as NodeJS.ErrnoException).code !== 'ENOENT') this.options.log.debug('index cache: an entry could not be read', { entry: path.basename(file), error: String(err) });
      return null;
    }
    const entry = opened.head;
    let index: Float64OffsetIndex | null = null;
    const state = { atOpen: true };
    try {
      if (entry.salt !== this.options.salt || entry.dev !== now.dev || entry.ino !== now.inode) return null;
      let fit: CacheHit['fit'];
      // The change time too: a rewrite in place can put the size and the modification time back (`touch -r`), never it.
      if (entry.size === now.size && entry.mtimeMs === now.mtimeMs && entry.ctimeMs === now.ctimeMs) fit = 'same';
      else if (entry.size < now.size) fit = 'grown';
      else return null;
      const print = fingerprint(fd, entry.size);
      if (print === null || print.headCrc !== entry.headCrc || print.tailCrc !== entry.tailCrc) return null;
      try {
        index = Float64OffsetIndex.lazy(entry.count, entry.checkpoints, this.blockSource(file, opened, state));
      } catch {
        this.discard(file, 'its checkpoints do not fit its records');
        return null;
      }
      // A small entry, or one a grown file's index goes on from, is read whole now: a damaged block is then a miss.
      if (fit === 'grown' || entry.blocks <= (this.options.lazyFromBlocks ?? LAZY_FROM_BLOCKS)) {
        try {
          index.readAll();
        } catch (err) {
          if (!(err instanceof McpgwError)) this.options.log.debug('index cache: an entry could not be read', { entry: path.basename(file), error: String(err) });
          index = null;
          return null;
        }
      }
      state.atOpen = false;
      this.touch(file);
      this.options.log.debug(`index cache: ${fit === 'same' ? 'the stored index fits the file' : 'the stored index covers the file\'s first bytes; the rest is indexed'}`, { entry: path.basename(file), records: entry.count, lazy: index.unreadBlocks > 0 });
      return { fit, entry, identity: { dev: entry.dev, inode: entry.ino, size: entry.size, mtimeMs: entry.mtimeMs, ctimeMs: entry.ctimeMs }, index };
    } finally {
      if (!index) opened.close();
    }
  }

  /**
   * The blocks of an open entry for a lazily read index. A damaged block is a damaged entry found late: the entry is
   * removed and logged as at open, and the read fails with IO_ERROR (the open that read it succeeded; the next open
   * indexes the file anew). Any other failure to read is IO_ERROR too.
   */
  private blockSource(file: string, opened: EntryFile, state: { atOpen: boolean }): { block(b: number): Float64Array; close(): void } {
    if (ENTRY_BLOCK !== OFFSET_BLOCK) throw new RangeError('index cache: the entry\'s blocks are not the offset index\'s');
    return {
      block: (b) => {
        try {
          return opened.block(b);
        } catch (err) {
          const reason = err instanceof DamagedEntry ? err.reason : String(err);
          if (err instanceof DamagedEntry) this.discard(file, reason, state.atOpen ? 'the file is indexed again' : 'the next open indexes the file again');
          throw new McpgwError('IO_ERROR', `The stored index of this file cannot be read (${reason}); it was removed: open the file again, and it is indexed anew.`, {
            hint: 'Close the file and open it again.',
          });
        }
      },
      close: () => opened.close(),
    };
  }

  /**
   * Stores the index of the file open as `fd`, indexed as `identity`, then keeps the folder under its bound.
   * Never throws: a failure to write is logged at debug and the entry is simply not there.
   */
  save(fd: number, identity: FileIdentity, format: string, detection: Detection, source: Persistable): void {
    if (!this.wants(identity.size) || !(source.index instanceof Float64OffsetIndex)) return;
    const index = source.index;
    const bytes = 8 * index.count;
    if (bytes > this.options.maxBytes) return;
    const print = fingerprint(fd, identity.size);
    if (print === null) return;
    const key: EntryKey = { dev: identity.dev, ino: identity.inode, size: identity.size, mtimeMs: identity.mtimeMs, ctimeMs: identity.ctimeMs, ...print };
    const file = this.entryPath(identity.dev, identity.inode);
    const temp = `${file}.${process.pid}.${Math.random().toString(36).slice(2, 10)}.tmp`;
    try {
      mkdirSync(this.dir, { recursive: true, mode: 0o700 });
      const written = writeEntry(
        temp,
        { ...key, format, salt: this.options.salt, detection, end: source.end, ...(source.rootType !== undefined ? { rootType: source.rootType } : {}), rootIsSequence: source.rootIsSequence, state: source.state },
        index.count,
        (each) => index.offsetBlocks(each),
        index.usedCheckpoints(),
      );
      renameSync(temp, file);
      this.touch(file);
      this.options.log.debug('index cache: stored an index', { entry: path.basename(file), records: index.count, bytes: written });
      if (written > 0) this.evict(file);
    } catch (err) {
      try { unlinkSync(temp); } catch { /* not written */ }
      this.options.log.debug('index cache: an entry could not be written', { entry: path.basename(file), error: String(err) });
    }
  }

  /** Removes the least recently used entries until the folder's entries total at most `maxBytes`; keeps `keep`. */
  evict(keep?: string): void {
    let names: string[];
    try { names = readdirSync(this.dir); } catch { return; }
    const entries: { file: string; bytes: number; used: number }[] = [];
    let total = 0;
    const now = this.now();
    for (const name of names) {
      const file = path.join(this.dir, name);
      let st;
      try { st = statSync(file); } catch { continue; }
      if (!st.isFile()) continue;
      if (name.endsWith('.tmp')) {
        if (now - st.mtimeMs > STALE_TEMP_MS) removeQuietly(file);
        continue;
      }
      if (!name.endsWith(ENTRY_SUFFIX)) continue;
      entries.push({ file, bytes: st.size, used: st.mtimeMs });
      total += st.size;
    }
    if (total <= this.options.maxBytes) return;
    entries.sort((a, b) => a.used - b.used);
    for (const e of entries) {
      if (total <= this.options.maxBytes) break;
      if (e.file === keep) continue;
      if (removeQuietly(e.file)) total -= e.bytes;
    }
  }

  /** Removes the entry of a file whose stored index was found not to fit it (logged at warn). */
  forget(identity: { dev: number; inode: number }): void {
    const file = this.entryPath(identity.dev, identity.inode);
    if (removeQuietly(file)) this.options.log.warn('index cache: discarded an entry that does not fit its file; the file is indexed again', { entry: path.basename(file) });
  }

  private touch(file: string): void {
    const t = this.now() / 1000;
    try { utimesSync(file, t, t); } catch { /* removed meanwhile: nothing to keep fresh */ }
  }

  private discard(file: string, reason: string, then = 'the file is indexed again'): void {
    removeQuietly(file);
    this.options.log.warn(`index cache: discarded a damaged entry (${reason}); ${then}`, { entry: path.basename(file) });
  }
}

/**
 * CRC-32 of the first and of the last FINGERPRINT_BYTES of the file's first `size` bytes (the two overlap or
 * coincide in a small file); null when they cannot be read whole.
 */
export function fingerprint(fd: number, size: number): { headCrc: number; tailCrc: number } | null {
  const n = Math.min(FINGERPRINT_BYTES, size);
  const buf = Buffer.allocUnsafe(n);
  const readAt = (position: number): boolean => {
    let done = 0;
    while (done < n) {
      let got: number;
      try { got = readSync(fd, buf, done, n - done, position + done); } catch { return false; }
      if (got === 0) return false;
      done += got;
    }
    return true;
  };
  if (!readAt(0)) return null;
  const headCrc = crc32(buf);
  if (!readAt(size - n)) return null;
  return { headCrc, tailCrc: crc32(buf) };
}

function removeQuietly(file: string): boolean {
  try {
    unlinkSync(file);
    return true;
  } catch {
    return false;
  }
}
