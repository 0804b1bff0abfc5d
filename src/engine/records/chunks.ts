import { read, readSync } from 'node:fs';
import type { ChunkReadOptions, FileChunk } from '../../kernel/contracts/records';
import type { OpenedFile } from '../../kernel/contracts/format';
import { McpgwError, osErrorName } from '../../kernel/errors';
import { releaseSoon } from '../memory';

/** Chunk size for streaming passes, bytes. */
export const CHUNK_BYTES = 4 * 1024 * 1024;

/**
 * A buffer of `size` bytes that does not start on a page boundary. Large `allocUnsafe` buffers
 * come back page-aligned, and reads into them were 3× slower on this machine
 * (docs/decisions.md "Unaligned read buffers"); 64 bytes in, reads run at `cat` speed.
 */
export function unalignedBuffer(size: number): Buffer {
  return Buffer.allocUnsafeSlow(size + 64).subarray(64);
}

/**
 * {@link unalignedBuffer} on a SharedArrayBuffer (zero-filled on allocation): worker threads read its bytes where they
 * are, without a copy (aggregate-threads.ts hands slices of a batch read into one to its threads).
 */
function sharedUnalignedBuffer(size: number): Buffer {
  return Buffer.from(new SharedArrayBuffer(size + 64), 64, size);
}

/** Throws CANCELLED when the signal has fired. */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new McpgwError('CANCELLED', 'The request was cancelled.');
}

/**
 * Reads `[from, to)` of the file in {@link CHUNK_BYTES} chunks, the next read in flight while the caller works on the
 * current chunk: each positional read runs on a libuv thread (the copy from the page cache, a core's work) while this
 * thread indexes the chunk before it, so an index pass costs the longer of the two rather than their sum (1 GiB of
 * JSON Lines, fresh processes at load 11 on 2 cores: 380–900 ms of wall time with synchronous reads, 210–640 ms
 * overlapped, the same CPU). Awaiting each read before the next one starts was the slow way (docs/formats.md). Three
 * buffers from the kernel's spares take turns: a chunk's bytes are valid until the iteration after next. Reports
 * progress in bytes and checks the signal per chunk; every chunk but the first comes after a turn of the event loop.
 * `io.read`: the positional read (node:fs `read`; a test gives its own to know when a read lands).
 * @throws McpgwError IO_ERROR (read failure, or the file shrank), CANCELLED.
 */
export async function* readChunks(file: OpenedFile, options: ChunkReadOptions = {}, io: { read: typeof read } = { read }): AsyncGenerator<FileChunk> {
  const from = options.from ?? 0;
  const to = options.to ?? file.identity.size;
  const total = to - from;
  if (total <= 0) return;
  const size = Math.min(CHUNK_BYTES, total);
  const buffers = [takeBuffer(size), takeBuffer(size), takeBuffer(size)];
  let which = 0;
  const start = (position: number): Promise<FileChunk> => {
    const buf = buffers[which]!;
    which = (which + 1) % buffers.length;
    return new Promise((resolve, reject) => {
      io.read(file.fd, buf, 0, Math.min(buf.length, to - position), position, (err, bytesRead) => {
        if (err) reject(new McpgwError('IO_ERROR', `Reading ${file.displayPath} failed: ${osErrorName(err)}.`, { cause: err }));
        else if (bytesRead === 0) reject(new McpgwError('IO_ERROR', `${file.displayPath} ended at byte ${position}, before its recorded size ${to}: it changed while being read.`));
        else resolve({ offset: position, bytes: buf.subarray(0, bytesRead) });
      });
    });
  };
  let pending: Promise<FileChunk> | null = null;
  try {
    throwIfAborted(options.signal);
    pending = start(from);
    while (pending) {
      const chunk: FileChunk = await pending;
      pending = null;
      throwIfAborted(options.signal);
      const next = chunk.offset + chunk.bytes.length;
      if (next < to) pending = start(next);
      options.onProgress?.(next - from, total);
      yield chunk;
    }
  } finally {
    // a read still in flight writes into one of the buffers: they go back once it has landed (or failed)
    const back = () => giveBack(buffers);
    if (pending) pending.then(back, back); else back();
  }
}

/** Lets timers, I/O callbacks and other requests run. */
function yieldToLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * One read of a chunk loop: bytes from `position` (at most to `to`) into `buf`, how many were read.
 * @throws IO_ERROR when the read fails, or when the file ends before `to` (it changed while being read)
 */
function readStep(file: OpenedFile, buf: Buffer, position: number, to: number): number {
  let n: number;
  try {
    n = readSync(file.fd, buf, 0, Math.min(buf.length, to - position), position);
  } catch (err) {
    throw new McpgwError('IO_ERROR', `Reading ${file.displayPath} failed: ${osErrorName(err)}.`, { cause: err });
  }
  if (n === 0) throw new McpgwError('IO_ERROR', `${file.displayPath} ended at byte ${position}, before ${to}: it changed while being read.`);
  return n;
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
    const got = readStep(file, buf, position, to);
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
const spareShared: Buffer[] = [];
let spareTimer: NodeJS.Timeout | null = null;

/**
 * A buffer for reads of up to `size` bytes: past {@link SMALL_READ}, a {@link CHUNK_BYTES} one from the spares (or
 * new). A prefilter reads thousands of files one after the other, and a reader's pages each start a scan: a fresh
 * multi-megabyte buffer per file or page cost more (page faults on first touch, then collection: V8 counts the
 * external bytes and collects early) than the reading itself; and a scan's two buffers, fresh per scan, stayed
 * resident until a collection long after it (8 MiB more at the peak per scan of a series). Give it back with
 * {@link giveBack} once no read is writing into it and no batch made from it is in use. `shared`: a {@link CHUNK_BYTES}
 * one on a SharedArrayBuffer, so that worker threads read a batch's bytes where they were read (no copy per slice:
 * aggregate-threads.ts). Only those reads take them: on this thread a copy out of shared memory (into a WebAssembly
 * module's memory, a string) is several times slower than out of an ordinary buffer — the caseless prefilter over
 * shared buffers took 1.9× the time of the exact one, against 1.0× (bench/README, "Quiet run, session 6").
 */
export function takeBuffer(size: number, shared = false): Buffer {
  if (size <= SMALL_READ) return unalignedBuffer(size);
  return shared ? spareShared.pop() ?? sharedUnalignedBuffer(CHUNK_BYTES) : spare.pop() ?? unalignedBuffer(CHUNK_BYTES);
}

/** Whether `b` lies on a SharedArrayBuffer. */
export function isShared(b: Buffer): boolean {
  return b.buffer instanceof SharedArrayBuffer;
}

/**
 * Gives chunk buffers back for the next read, once nothing reads into them or from them any more; the spares are let
 * go after {@link SPARE_KEEP_MS} without use.
 */
export function giveBack(buffers: readonly Buffer[]): void {
  for (const b of buffers) {
    const pool = isShared(b) ? spareShared : spare;
    if (b.length === CHUNK_BYTES && pool.length < SPARE_MAX && !pool.includes(b)) pool.push(b);
  }
  if (spareTimer) clearTimeout(spareTimer);
  spareTimer = setTimeout(dropSpares, SPARE_KEEP_MS);
  spareTimer.unref();
}

/**
 * Lets the spares go, and asks for one full collection: up to {@link SPARE_MAX} × {@link CHUNK_BYTES} (32 MiB) of
 * buffers are only given back to the system when a collection finds them unreachable, and a server gone quiet runs
 * none (after a 64-client load, 32 MiB of ArrayBuffers stayed resident, 1.29× the RSS before it: bench/README).
 */
function dropSpares(): void {
  spareTimer = null;
  if (spare.length + spareShared.length === 0) return;
  spare.length = 0;
  spareShared.length = 0;
  releaseSoon(0);
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
      const n = readStep(file, current, position, to);
      const offset = position;
      position += n;
      yield { offset, bytes: current.subarray(0, n) };
    }
  } finally {
    giveBack(buffers);
  }
}
