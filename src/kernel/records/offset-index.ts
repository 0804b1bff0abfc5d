import type { OffsetIndex } from '../contracts/records';

/** Records between line checkpoints. */
export const CHECKPOINT_EVERY = 1024;

/** Offsets per block: 2^16 (512 KiB of Float64). */
const BLOCK_SHIFT = 16;
const BLOCK = 1 << BLOCK_SHIFT;
const BLOCK_MASK = BLOCK - 1;

/**
 * Record start offsets in Float64Array blocks of 65,536 (8 bytes a record; exact up to 2^53 bytes),
 * and the 1-based line of every 1,024th record so a record's line can be recovered by counting
 * newlines from the checkpoint (see `lineAt` in source.ts). Blocks, not one array grown by
 * doubling: growth never copies (pushing 525,280 offsets: ~6 ms against ~70 ms with doubling here),
 * and the spare capacity is at most one block.
 */
export class Float64OffsetIndex implements OffsetIndex {
  private blocks: Float64Array<ArrayBufferLike>[] = [];
  private current: Float64Array<ArrayBufferLike> = new Float64Array(1024);
  private checkpoints: Float64Array<ArrayBufferLike> = new Float64Array(16);
  private n = 0;

  push(offset: number, line: number): void {
    const k = this.n & BLOCK_MASK;
    if (k === 0) {
      this.current = new Float64Array(this.n === 0 ? 1024 : BLOCK);
      this.blocks.push(this.current);
    } else if (k === this.current.length) {
      // the first block starts small (most files are small) and grows once to a full block
      const grown = new Float64Array(BLOCK);
      grown.set(this.current);
      this.current = grown;
      this.blocks[this.blocks.length - 1] = grown;
    }
    if (this.n % CHECKPOINT_EVERY === 0) {
      const c = this.n / CHECKPOINT_EVERY;
      if (c === this.checkpoints.length) {
        const grown = new Float64Array(Math.max(16, this.checkpoints.length * 2));
        grown.set(this.checkpoints);
        this.checkpoints = grown;
      }
      this.checkpoints[c] = line;
    }
    this.current[k] = offset;
    this.n++;
  }

  get count(): number {
    return this.n;
  }

  start(i: number): number {
    return this.blocks[i >>> BLOCK_SHIFT]![i & BLOCK_MASK]!;
  }

  /** The line recorded for checkpoint record `c * CHECKPOINT_EVERY`. */
  checkpointLine(c: number): number {
    return this.checkpoints[c]!;
  }

  setCheckpointLine(c: number, line: number): void {
    this.checkpoints[c] = line;
  }

  /**
   * An index over stored offsets and checkpoint lines (a persistent index read back, see src/kernel/cache/): the
   * blocks are views into `offsets` (no copy); pushing more records goes on after them.
   */
  static fromArrays(offsets: Float64Array, checkpoints: Float64Array): Float64OffsetIndex {
    const index = new Float64OffsetIndex();
    for (let at = 0; at < offsets.length; at += BLOCK) index.blocks.push(offsets.subarray(at, Math.min(offsets.length, at + BLOCK)));
    index.n = offsets.length;
    // push() copies a partly filled last block (a view exactly as long as its records) into a full block of its own
    // before appending, so appended records never write into the stored buffer
    if (index.blocks.length) index.current = index.blocks[index.blocks.length - 1]!;
    index.checkpoints = checkpoints.length ? checkpoints : new Float64Array(16);
    if (checkpoints.length < Math.ceil(index.n / CHECKPOINT_EVERY)) throw new RangeError('fewer checkpoints than records need');
    return index;
  }

  /** Calls `each` with the offsets block by block, in file order (views: valid until the next push). */
  offsetBlocks(each: (offsets: Float64Array) => void): void {
    for (let b = 0; b < this.blocks.length; b++) {
      const block = this.blocks[b]!;
      const used = b === this.blocks.length - 1 ? this.n - b * BLOCK : BLOCK;
      each(used === block.length ? block : block.subarray(0, used));
    }
  }

  /** The line checkpoints of the records pushed so far (a view). */
  usedCheckpoints(): Float64Array {
    return this.checkpoints.subarray(0, Math.ceil(this.n / CHECKPOINT_EVERY));
  }

  /** Gives back the unused tail of the last block and of the checkpoints once indexing is done. */
  finish(): void {
    const used = this.n & BLOCK_MASK;
    if (this.blocks.length && used !== 0) {
      this.current = this.current.slice(0, used);
      this.blocks[this.blocks.length - 1] = this.current;
    }
    this.checkpoints = this.checkpoints.slice(0, Math.ceil(this.n / CHECKPOINT_EVERY));
  }
}
