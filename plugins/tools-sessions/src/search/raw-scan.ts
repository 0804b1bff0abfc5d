import { readSync } from 'node:fs';
import { FileProbe, type ByteTest, type EscapeTraits } from './prefilter';

/** Bytes read at a time from a descriptor. */
export const RAW_CHUNK_BYTES = 4 * 1024 * 1024;

/**
 * A read buffer of RAW_CHUNK_BYTES that does not start on a page boundary (reads into page-aligned buffers ran about
 * 3× slower on the machine the kernel's chunk reader was measured on; see its `unalignedBuffer`).
 */
export function rawChunkBuffer(): Buffer {
  return Buffer.allocUnsafeSlow(RAW_CHUNK_BYTES + 64).subarray(64);
}

/**
 * Whether the first `size` bytes of open descriptor `fd` may hold a match of `t`, read into `buf` with positional
 * reads (see `FileProbe`; `traits` and `learn` as there). A read that fails, or a file that ends before `size` (it
 * changed), passes: the open that follows reports what happened.
 */
export function descriptorMayMatch(fd: number, size: number, buf: Buffer, t: ByteTest, traits?: EscapeTraits, learn?: (traits: EscapeTraits) => void): boolean {
  const probe = new FileProbe(t, traits);
  let pos = 0;
  while (pos < size) {
    let n: number;
    try {
      n = readSync(fd, buf, 0, Math.min(buf.length, size - pos), pos);
    } catch {
      return true;
    }
    if (n === 0) return true;
    if (probe.push(buf.subarray(0, n))) return true;
    pos += n;
  }
  return probe.end(learn);
}
