import { read } from 'node:fs';
import type { ChunkReadOptions, FileChunk } from '../contracts/records';
import type { OpenedFile } from '../contracts/format';
import { McpgwError } from '../errors';

/** Chunk size for streaming passes, bytes. */
export const CHUNK_BYTES = 4 * 1024 * 1024;

/**
 * A buffer of `size` bytes that does not start on a page boundary. Large `allocUnsafe` buffers
 * come back page-aligned, and reads into them were 3× slower on this machine
 * (../shared/bench/README.md); 64 bytes in, reads run at `cat` speed.
 */
export function unalignedBuffer(size: number): Buffer {
  return Buffer.allocUnsafeSlow(size + 64).subarray(64);
}

function readAt(fd: number, buffer: Buffer, length: number, position: number): Promise<number> {
  return new Promise((resolve, reject) => {
    read(fd, buffer, 0, length, position, (err, bytesRead) => (err ? reject(err) : resolve(bytesRead)));
  });
}

/** Throws CANCELLED when the signal has fired. */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new McpgwError('CANCELLED', 'The request was cancelled.');
}

/**
 * Reads `[from, to)` of the file in {@link CHUNK_BYTES} chunks, the next read in flight while the
 * caller works on the current chunk (two buffers alternate; a chunk's bytes are valid until the
 * iteration after next). Reports progress in bytes and checks the signal per chunk.
 * @throws McpgwError IO_ERROR (read failure, or the file shrank), CANCELLED.
 */
export async function* readChunks(file: OpenedFile, options: ChunkReadOptions = {}): AsyncGenerator<FileChunk> {
  const from = options.from ?? 0;
  const to = options.to ?? file.identity.size;
  const total = to - from;
  const buffers = [unalignedBuffer(CHUNK_BYTES), unalignedBuffer(CHUNK_BYTES)];
  let which = 0;
  let position = from;
  const start = (pos: number, buf: Buffer) =>
    readAt(file.fd, buf, Math.min(CHUNK_BYTES, to - pos), pos).catch((err: Error) => {
      throw new McpgwError('IO_ERROR', `Reading ${file.displayPath} failed: ${err.message}`, { cause: err });
    });
  let pending: Promise<number> | null = position < to ? start(position, buffers[which]!) : null;
  while (pending) {
    const bytesRead = await pending;
    throwIfAborted(options.signal);
    const current = buffers[which]!;
    const offset = position;
    if (bytesRead === 0) {
      throw new McpgwError('IO_ERROR', `${file.displayPath} ended at byte ${offset}, before its recorded size ${to}: it changed while being read.`);
    }
    position += bytesRead;
    which ^= 1;
    pending = position < to ? start(position, buffers[which]!) : null;
    options.onProgress?.(position - from, total);
    yield { offset, bytes: current.subarray(0, bytesRead) };
  }
}
