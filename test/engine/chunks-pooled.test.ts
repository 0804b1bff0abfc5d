/**
 * The raw chunk reader behind FileAccess.read (byte prefilters over many files): the bytes come back exactly, for
 * small and multi-chunk files and ranges, while several reads are interleaved, after a read stopped early, and a
 * chunk stays valid until the iteration after next although the buffers are reused from file to file.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CHUNK_BYTES, giveBack, readChunks, readChunksPooled, takeBuffer } from '../../src/engine/records/chunks';
import { identityOf } from '../../src/kernel/files/open-file';
import type { OpenedFile } from '../../src/kernel/contracts/format';

let dir: string;
const opened: number[] = [];

beforeAll(() => { dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-pooled-')); });
afterAll(() => {
  for (const fd of opened) try { fs.closeSync(fd); } catch { /* closed */ }
  fs.rmSync(dir, { recursive: true, force: true });
});

/** A file of `size` bytes whose every 4-byte word holds its own offset and `seed` (so misplaced bytes show). */
function makeFile(name: string, size: number, seed: number): { file: OpenedFile; bytes: Buffer } {
  const bytes = Buffer.alloc(size);
  for (let i = 0; i + 4 <= size; i += 4) bytes.writeUInt32LE((i * 2654435761 + seed) >>> 0, i);
  const p = path.join(dir, name);
  fs.writeFileSync(p, bytes);
  const fd = fs.openSync(p, 'r');
  opened.push(fd);
  return { file: { realPath: p, displayPath: name, fd, identity: identityOf(fs.fstatSync(fd)) }, bytes };
}

/**
 * node:fs `read`, observed: each read's position, buffer and a promise settled once it has landed (its bytes written
 * and its callback run). A read at `holdAt` waits until `release()`.
 */
function observedReads(holdAt?: number) {
  const reads: { position: number; buffer: Buffer; landed: Promise<void> }[] = [];
  let release = () => {};
  const read = ((fd: number, buffer: Buffer, offset: number, length: number, position: number, callback: (err: NodeJS.ErrnoException | null, n: number, b: Buffer) => void) => {
    let landed!: () => void;
    reads.push({ position, buffer, landed: new Promise<void>((r) => (landed = r)) });
    const go = () => fs.read(fd, buffer, offset, length, position, (err, n) => {
      callback(err, n, buffer);
      landed();
    });
    if (position === holdAt) release = go;
    else go();
  }) as unknown as typeof fs.read;
  return { read, reads, release: () => release() };
}

async function collect(chunks: AsyncIterable<{ offset: number; bytes: Uint8Array }>): Promise<Buffer> {
  const parts: Buffer[] = [];
  let expected: number | null = null;
  for await (const c of chunks) {
    if (expected !== null) expect(c.offset).toBe(expected);
    expected = c.offset + c.bytes.length;
    parts.push(Buffer.from(c.bytes)); // a copy: the chunk's buffer is reused
  }
  return Buffer.concat(parts);
}

test.each([0, 1, 1000, 64 * 1024, 64 * 1024 + 1, CHUNK_BYTES, CHUNK_BYTES * 2 + 12345])('a %i-byte file reads back exactly, whole and by range', async (size) => {
  const { file, bytes } = makeFile(`f${size}`, size, size);
  expect((await collect(readChunksPooled(file))).equals(bytes)).toBe(true);
  const from = Math.floor(size / 3), to = Math.floor((size * 2) / 3) + 1;
  expect((await collect(readChunksPooled(file, { from, to: Math.min(to, size) }))).equals(bytes.subarray(from, Math.min(to, size)))).toBe(true);
});

test('interleaved reads of different files each get their own bytes', async () => {
  const a = makeFile('ia', CHUNK_BYTES * 2 + 99, 1);
  const b = makeFile('ib', CHUNK_BYTES + 5, 2);
  const ia = readChunksPooled(a.file)[Symbol.asyncIterator]();
  const ib = readChunksPooled(b.file)[Symbol.asyncIterator]();
  const got: Record<string, Buffer[]> = { a: [], b: [] };
  for (let done = 0; done < 2;) {
    done = 0;
    const ra = await ia.next();
    if (ra.done) done++; else got.a!.push(Buffer.from(ra.value.bytes));
    const rb = await ib.next();
    if (rb.done) done++; else got.b!.push(Buffer.from(rb.value.bytes));
  }
  expect(Buffer.concat(got.a!).equals(a.bytes)).toBe(true);
  expect(Buffer.concat(got.b!).equals(b.bytes)).toBe(true);
});

test('a chunk is valid until the iteration after next; a read stopped early leaves the next read correct', async () => {
  const { file, bytes } = makeFile('hold', CHUNK_BYTES * 3, 3);
  const it = readChunksPooled(file)[Symbol.asyncIterator]();
  const first = (await it.next()).value!;
  const copy = Buffer.from(first.bytes);
  await it.next(); // the second chunk: the first one's bytes are still as read
  expect(Buffer.from(first.bytes).equals(copy)).toBe(true);
  expect(copy.equals(bytes.subarray(0, CHUNK_BYTES))).toBe(true);
  await it.return(undefined); // stopped early: its buffers go back for the next read
  const other = makeFile('after', CHUNK_BYTES + 7, 4);
  expect((await collect(readChunksPooled(other.file))).equals(other.bytes)).toBe(true);
});

test('a file that shrank is IO_ERROR; a cancelled read is CANCELLED', async () => {
  const { file } = makeFile('shrink', 1000, 5);
  fs.truncateSync(file.realPath, 10);
  await expect(collect(readChunksPooled(file))).rejects.toMatchObject({ code: 'IO_ERROR' });
  const big = makeFile('cancel', CHUNK_BYTES * 2, 6);
  const ac = new AbortController();
  const it = readChunksPooled(big.file, { signal: ac.signal })[Symbol.asyncIterator]();
  await it.next();
  ac.abort();
  await expect(it.next()).rejects.toMatchObject({ code: 'CANCELLED' });
});

describe('readChunks (index passes: the next read in flight while the caller works on the current chunk)', () => {
  test.each([0, 1, 1000, 64 * 1024 + 1, CHUNK_BYTES, CHUNK_BYTES * 3 + 12345])('a %i-byte file reads back exactly, whole and by range, with progress', async (size) => {
    const { file, bytes } = makeFile(`r${size}`, size, size + 1);
    const progress: number[] = [];
    expect((await collect(readChunks(file, { onProgress: (done) => progress.push(done) }))).equals(bytes)).toBe(true);
    expect(progress).toEqual(size === 0 ? [] : Array.from({ length: Math.ceil(size / CHUNK_BYTES) }, (_, k) => Math.min(size, (k + 1) * CHUNK_BYTES)));
    const from = Math.floor(size / 3), to = Math.floor((size * 2) / 3) + 1;
    expect((await collect(readChunks(file, { from, to: Math.min(to, size) }))).equals(bytes.subarray(from, Math.min(to, size)))).toBe(true);
  });

  test('a chunk is valid until the iteration after next, while the read after it lands; stopping early spoils no later read', async () => {
    const { file, bytes } = makeFile('rhold', CHUNK_BYTES * 4 + 5, 7);
    const io = observedReads();
    const it = readChunks(file, {}, io)[Symbol.asyncIterator]();
    const first = (await it.next()).value!;
    const copy = Buffer.from(first.bytes);
    const second = (await it.next()).value!;
    // the third read is in flight now: it lands (writes its buffer) before anything is checked
    expect(io.reads.map((r) => r.position)).toEqual([0, CHUNK_BYTES, 2 * CHUNK_BYTES]);
    await io.reads[2]!.landed;
    expect(io.reads[2]!.buffer.subarray(0, 64).equals(bytes.subarray(2 * CHUNK_BYTES, 2 * CHUNK_BYTES + 64))).toBe(true);
    expect(new Set(io.reads.map((r) => r.buffer)).size).toBe(3); // three buffers take turns
    expect(Buffer.from(first.bytes).equals(copy)).toBe(true);
    expect(copy.equals(bytes.subarray(0, CHUNK_BYTES))).toBe(true);
    expect(Buffer.from(second.bytes).equals(bytes.subarray(CHUNK_BYTES, 2 * CHUNK_BYTES))).toBe(true);
    await it.return(undefined);
    const other = makeFile('rafter', CHUNK_BYTES * 2 + 7, 8);
    const [x, y] = await Promise.all([collect(readChunks(other.file)), collect(readChunksPooled(file))]);
    expect(x.equals(other.bytes)).toBe(true);
    expect(y.equals(bytes)).toBe(true);
  });

  test('stopped while a read is in flight: its buffers go back to the spares only once it has landed', async () => {
    const { file, bytes } = makeFile('rflight', CHUNK_BYTES * 4, 11);
    const io = observedReads(2 * CHUNK_BYTES); // the third read waits until released
    const it = readChunks(file, {}, io)[Symbol.asyncIterator]();
    await it.next();
    await it.next();
    const flying = io.reads[2]!;
    expect(flying.position).toBe(2 * CHUNK_BYTES);
    await it.return(undefined);
    // while it flies, no later read may be handed its buffer (nor the others of the stopped read): every spare is
    // taken (there are at most 8) and none of them is one of the stopped read's
    const ours = (list: Buffer[]) => list.filter((b) => io.reads.some((r) => r.buffer === b)).length;
    const taken = Array.from({ length: 8 }, () => takeBuffer(CHUNK_BYTES));
    expect(ours(taken)).toBe(0);
    io.release();
    await flying.landed;
    await new Promise((r) => setImmediate(r)); // the stopped read's cleanup runs once the read has settled
    expect(flying.buffer.subarray(0, 64).equals(bytes.subarray(2 * CHUNK_BYTES, 2 * CHUNK_BYTES + 64))).toBe(true);
    // given back now: the spares (empty before) are the stopped read's three buffers
    const after = Array.from({ length: 3 }, () => takeBuffer(CHUNK_BYTES));
    expect(ours(after)).toBe(3);
    expect(after.some((b) => b === flying.buffer)).toBe(true);
    giveBack([...taken, ...after]);
  });

  test('a file that shrank is IO_ERROR; a cancelled read is CANCELLED', async () => {
    const { file } = makeFile('rshrink', 1000, 9);
    fs.truncateSync(file.realPath, 10);
    await expect(collect(readChunks(file))).rejects.toMatchObject({ code: 'IO_ERROR' });
    const big = makeFile('rcancel', CHUNK_BYTES * 2, 10);
    const ac = new AbortController();
    const it = readChunks(big.file, { signal: ac.signal })[Symbol.asyncIterator]();
    await it.next();
    ac.abort();
    await expect(it.next()).rejects.toMatchObject({ code: 'CANCELLED' });
  });
});
