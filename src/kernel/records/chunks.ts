import { read, readSync } from 'node:fs';
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

/** One positional read through the libuv thread pool (the copy from the page cache happens off the main thread). */
function readAsync(fd: number, buf: Buffer, length: number, position: number): Promise<number> {
  return new Promise((resolve, reject) => read(fd, buf, 0, length, position, (err, n) => (err ? reject(err) : resolve(n))));
}

/**
 * `[from, to)` of the file in chunks read asynchronously, the next read in flight while the caller looks at the
 * current chunk (two buffers alternate: a chunk's bytes are valid until the iteration after next). For byte-level
 * prefilters over many files: the copies run on the thread pool, several files can be read at once.
 * @throws McpgwError IO_ERROR (read failure, or the file shrank), CANCELLED.
 */
export async function* readChunksAsync(file: OpenedFile, options: { from?: number; to?: number; signal?: AbortSignal } = {}): AsyncGenerator<FileChunk> {
  const from = options.from ?? 0;
  const to = options.to ?? file.identity.size;
  if (to <= from) return;
  const size = Math.min(CHUNK_BYTES, to - from);
  const buffers = [unalignedBuffer(size), unalignedBuffer(size)];
  const start = (position: number, which: number) => {
    const want = Math.min(size, to - position);
    return readAsync(file.fd, buffers[which]!, want, position).then(
      (n) => {
        if (n === 0) throw new McpgwError('IO_ERROR', `${file.displayPath} ended at byte ${position}, before ${to}: it changed while being read.`);
        return { offset: position, bytes: buffers[which]!.subarray(0, n) };
      },
      (err) => { throw new McpgwError('IO_ERROR', `Reading ${file.displayPath} failed: ${osErrorName(err)}.`, { cause: err }); },
    );
  };
  let which = 0;
  let pending: Promise<FileChunk> | null = start(from, which);
  while (pending) {
    const chunk: FileChunk = await pending;
    throwIfAborted(options.signal);
    const next = chunk.offset + chunk.bytes.length;
    which ^= 1;
    pending = next < to ? start(next, which) : null;
    yield chunk;
  }
}
