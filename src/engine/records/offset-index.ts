import type { OffsetIndex } from '../../kernel/contracts/records';

/** Where a lazily read index's blocks come from (`Float64OffsetIndex.lazy`). */
export interface BlockSource {
  /** The offsets of block `b` (BLOCK of them, the last block fewer). @throws what reading it throws */
  block(b: number): Float64Array;
  /** Called once every block was read, or the index is released. */
  close(): void;
}

/** Records between line checkpoints. */
export const CHECKPOINT_EVERY = 1024;

/** Offsets per block: 2^16 (512 KiB of Float64). */
const BLOCK_SHIFT = 16;
const BLOCK = 1 << BLOCK_SHIFT;
/** Offsets per block of the index (a lazily read index's `BlockSource` gives blocks of this many). */
export const OFFSET_BLOCK = BLOCK;
const BLOCK_MASK = BLOCK - 1;

/**
 * Record start offsets in Float64Array blocks of 65,536 (8 bytes a record; exact up to 2^53 bytes),
 * and the 1-based line of every 1,024th record so a record's line can be recovered by counting
 * newlines from the checkpoint (see `lineAt` in source.ts). Blocks, not one array grown by
 * doubling: growth never copies (pushing 525,280 offsets: ~6 ms against ~70 ms with doubling here),
 * and the spare capacity is at most one block.
 */
export class Float64OffsetIndex implements OffsetIndex {
  /** A lazily read index's blocks not read yet are holes (see `lazy`). */
  private blocks: Float64Array<ArrayBufferLike>[] = [];
  /** Where the blocks of a lazily read index come from; null once every block is in memory. */
  private source: BlockSource | null = null;
  private unread = 0;
  private current: Float64Array<ArrayBufferLike> = new Float64Array(1024);
  private checkpoints: Float64Array<ArrayBufferLike> = new Float64Array(16);
  private n = 0;

  push(offset: number, line: number): void {
    if (this.source) this.readAll();
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
    const b = i >>> BLOCK_SHIFT;
    return (this.blocks[b] ?? this.read(b))[i & BLOCK_MASK]!;
  }

  /** The line recorded for checkpoint record `c * CHECKPOINT_EVERY`. */
  checkpointLine(c: number): number {
    return this.checkpoints[c]!;
  }

  setCheckpointLine(c: number, line: number): void {
    this.checkpoints[c] = line;
  }

  /**
   * An index whose blocks of BLOCK offsets are read from `source` when first used (a big persistent index read back:
   * see src/kernel/cache/): `count` records, the checkpoints in memory. Pushing more records reads every block first.
   * A block that cannot be read throws from whatever asked for one of its offsets (`source.block`'s error).
   */
  static lazy(count: number, checkpoints: Float64Array, source: BlockSource): Float64OffsetIndex {
    const index = new Float64OffsetIndex();
    const blocks = Math.ceil(count / BLOCK);
    index.blocks = new Array<Float64Array>(blocks);
    index.n = count;
    index.checkpoints = checkpoints.length ? checkpoints : new Float64Array(16);
    if (checkpoints.length < Math.ceil(count / CHECKPOINT_EVERY)) throw new RangeError('fewer checkpoints than records need');
    if (blocks > 0) {
      index.source = source;
      index.unread = blocks;
    } else {
      source.close();
    }
    return index;
  }

  /** Blocks of a lazily read index still to be read (0 for any other). */
  get unreadBlocks(): number {
    return this.unread;
  }

  /** Lets go of a lazily read index's source (its file) once the index is no longer used; idempotent. */
  release(): void {
    this.source?.close();
    this.source = null;
  }

  private read(b: number): Float64Array<ArrayBufferLike> {
    if (!this.source || b >= this.blocks.length) throw new RangeError(`no record ${b * BLOCK} in an index of ${this.n}`);
    const block = this.source.block(b);
    if (block.length !== Math.min(BLOCK, this.n - b * BLOCK)) throw new RangeError(`block ${b} of a lazily read index holds ${block.length} offsets`);
    this.blocks[b] = block;
    if (--this.unread === 0) this.release();
    return block;
  }

  /** Reads every block of a lazily read index now (nothing for any other). @throws what reading a block throws */
  readAll(): void {
    for (let b = 0; b < this.blocks.length; b++) if (!this.blocks[b]) this.read(b);
    this.release();
    if (this.blocks.length) this.current = this.blocks[this.blocks.length - 1]!;
  }

  /** Calls `each` with the offsets block by block, in file order (views: valid until the next push). */
  offsetBlocks(each: (offsets: Float64Array) => void): void {
    if (this.source) this.readAll();
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
    if (this.source) {
      // a lazily read index holds blocks of exactly their records: only the checkpoints' spare capacity goes
      this.checkpoints = this.checkpoints.slice(0, Math.ceil(this.n / CHECKPOINT_EVERY));
      return;
    }
    const used = this.n & BLOCK_MASK;
    if (this.blocks.length && used !== 0) {
      this.current = this.current.slice(0, used);
      this.blocks[this.blocks.length - 1] = this.current;
    }
    this.checkpoints = this.checkpoints.slice(0, Math.ceil(this.n / CHECKPOINT_EVERY));
  }
}
