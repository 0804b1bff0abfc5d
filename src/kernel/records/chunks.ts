import { readSync } from 'node:fs';
import type { ChunkReadOptions, FileChunk } from '../contracts/records';
import type { OpenedFile } from '../contracts/format';
import { McpgwError, osErrorName } from '../errors';

/** Chunk size for streaming passes, bytes. */
export const CHUNK_BYTES = 4 * 1024 * 1024;

/**
 * A buffer of `size` bytes that does not start on a page boundary. Large `allocUnsafe` buffers
 * come back page-aligned, and reads into them were 3× slower on this machine
 * (docs/architecture.md "Decisions"); 64 bytes in, reads run at `cat` speed.
 */
export function unalignedBuffer(size: number): Buffer {
  return Buffer.allocUnsafeSlow(size + 64).subarray(64);
}

/** Throws CANCELLED when the signal has fired. */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new McpgwError('CANCELLED', 'The request was cancelled.');
}

/**
 * Reads `[from, to)` of the file in {@link CHUNK_BYTES} chunks. Reads are synchronous positional
 * reads (a page-cached 4 MiB read is a ~1 ms copy; an awaited read through the libuv pool cost
 * 20–60% more CPU and far more wall time on a loaded 2-core machine, docs/formats.md), and the
 * generator yields to the event loop (`setImmediate`) before every chunk after the first, so the
 * caller's per-chunk work is the longest stretch the loop is blocked. Two buffers alternate: a
 * chunk's bytes are valid until the iteration after next. Reports progress in bytes and checks
 * the signal per chunk.
 * @throws McpgwError IO_ERROR (read failure, or the file shrank), CANCELLED.
 */
export async function* readChunks(file: OpenedFile, options: ChunkReadOptions = {}): AsyncGenerator<FileChunk> {
  const from = options.from ?? 0;
  const to = options.to ?? file.identity.size;
  const total = to - from;
  const buffers = [unalignedBuffer(Math.min(CHUNK_BYTES, Math.max(1, total))), unalignedBuffer(Math.min(CHUNK_BYTES, Math.max(1, total)))];
  let which = 0;
  let position = from;
  while (position < to) {
    if (position > from) await yieldToLoop();
    throwIfAborted(options.signal);
    const current = buffers[which]!;
    which ^= 1;
    const want = Math.min(current.length, to - position);
    let bytesRead: number;
    try {
      bytesRead = readSync(file.fd, current, 0, want, position);
    } catch (err) {
      throw new McpgwError('IO_ERROR', `Reading ${file.displayPath} failed: ${osErrorName(err)}.`, { cause: err });
    }
    if (bytesRead === 0) {
      throw new McpgwError('IO_ERROR', `${file.displayPath} ended at byte ${position}, before its recorded size ${to}: it changed while being read.`);
    }
    const offset = position;
    position += bytesRead;
    options.onProgress?.(position - from, total);
    yield { offset, bytes: current.subarray(0, bytesRead) };
  }
}

/** Lets timers, I/O callbacks and other requests run. */
function yieldToLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * `[from, to)` of the file in {@link CHUNK_BYTES} chunks, read synchronously into one reused buffer (a chunk's bytes
 * are valid until the next one is requested). For extending an index over appended bytes inside a synchronous check.
 * @throws McpgwError IO_ERROR (read failure, or the file shrank).
 */
export function* readChunksSync(file: OpenedFile, options: { from?: number; to?: number } = {}): Generator<FileChunk> {
  const from = options.from ?? 0;
  const to = options.to ?? file.identity.size;
  const buf = unalignedBuffer(Math.min(CHUNK_BYTES, Math.max(1, to - from)));
  let position = from;
  while (position < to) {
    let got: number;
    try {
      got = readSync(file.fd, buf, 0, Math.min(buf.length, to - position), position);
    } catch (err) {
      throw new McpgwError('IO_ERROR', `Reading ${file.displayPath} failed: ${osErrorName(err)}.`, { cause: err });
    }
    if (got === 0) throw new McpgwError('IO_ERROR', `${file.displayPath} ended at byte ${position}, before ${to}: it changed while being read.`);
    yield { offset: position, bytes: buf.subarray(0, got) };
    position += got;
  }
}

/** Reads at most this long get buffers of their own; longer ones take {@link CHUNK_BYTES} buffers from the spares. */
const SMALL_READ = 64 * 1024;
/** Chunk buffers kept between reads at most, and how long they are kept once none is given back, ms. */
const SPARE_MAX = 8;
const SPARE_KEEP_MS = 1000;
const spare: Buffer[] = [];
let spareTimer: NodeJS.Timeout | null = null;

/**
 * A buffer for reads of up to `size` bytes: past {@link SMALL_READ}, a {@link CHUNK_BYTES} one from the spares (or
 * new). A prefilter reads thousands of files one after the other: a fresh multi-megabyte buffer per file cost more
 * (page faults on first touch, then collection) than copying the file's bytes; and a scan's two buffers, fresh per
 * scan, stayed resident until a collection long after it (8 MiB more at the peak per scan of a series).
 */
export function takeBuffer(size: number): Buffer {
  if (size <= SMALL_READ) return unalignedBuffer(size);
  return spare.pop() ?? unalignedBuffer(CHUNK_BYTES);
}

/**
 * Gives chunk buffers back for the next read, once nothing reads into them or from them any more; the spares are let
 * go after {@link SPARE_KEEP_MS} without use.
 */
export function giveBack(buffers: readonly Buffer[]): void {
  for (const b of buffers) if (b.length === CHUNK_BYTES && spare.length < SPARE_MAX) spare.push(b);
  if (spareTimer) clearTimeout(spareTimer);
  spareTimer = setTimeout(() => { spare.length = 0; spareTimer = null; }, SPARE_KEEP_MS);
  spareTimer.unref();
}

/**
 * `[from, to)` of the file in chunks, for byte-level prefilters over many files: synchronous positional reads (a
 * page-cached read is a copy; through the libuv pool the same 1 GiB of session files took ~1.9× the CPU and ~1.5× the
 * wall time here) into two alternating buffers kept for the next file (a chunk's bytes are valid until the
 * iteration after next, and not after the iteration ends). Yields to the event loop before every chunk after the
 * first, and checks the signal per chunk.
 * @throws McpgwError IO_ERROR (read failure, or the file shrank), CANCELLED.
 */
export async function* readChunksPooled(file: OpenedFile, options: { from?: number; to?: number; signal?: AbortSignal } = {}): AsyncGenerator<FileChunk> {
  const from = options.from ?? 0;
  const to = options.to ?? file.identity.size;
  if (to <= from) return;
  const first = Math.min(CHUNK_BYTES, to - from);
  const buffers = [takeBuffer(first)];
  try {
    let which = 0;
    let position = from;
    while (position < to) {
      if (position > from) {
        await yieldToLoop();
        if (buffers.length === 1) buffers.push(takeBuffer(first));
      }
      throwIfAborted(options.signal);
      const current = buffers[which]!;
      which = (which + 1) % 2;
      let n: number;
      try {
        n = readSync(file.fd, current, 0, Math.min(current.length, to - position), position);
      } catch (err) {
        throw new McpgwError('IO_ERROR', `Reading ${file.displayPath} failed: ${osErrorName(err)}.`, { cause: err });
      }
      if (n === 0) throw new McpgwError('IO_ERROR', `${file.displayPath} ended at byte ${position}, before ${to}: it changed while being read.`);
      const offset = position;
      position += n;
      yield { offset, bytes: current.subarray(0, n) };
    }
  } finally {
    giveBack(buffers);
  }
}
