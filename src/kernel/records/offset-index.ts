import type { OffsetIndex } from '../contracts/records';

/** Records between line checkpoints. */
export const CHECKPOINT_EVERY = 1024;

/**
 * Record start offsets in a growable Float64Array (8 bytes a record; exact up to 2^53 bytes),
 * and the 1-based line of every 1,024th record so a record's line can be recovered by counting
 * newlines from the checkpoint (see `lineOf` in source.ts).
 */
export class Float64OffsetIndex implements OffsetIndex {
  private starts = new Float64Array(1024);
  private checkpoints = new Float64Array(16);
  private n = 0;

  push(offset: number, line: number): void {
    if (this.n === this.starts.length) {
      const grown = new Float64Array(this.starts.length * 2);
      grown.set(this.starts);
      this.starts = grown;
    }
    if (this.n % CHECKPOINT_EVERY === 0) {
      const c = this.n / CHECKPOINT_EVERY;
      if (c === this.checkpoints.length) {
        const grown = new Float64Array(this.checkpoints.length * 2);
        grown.set(this.checkpoints);
        this.checkpoints = grown;
      }
      this.checkpoints[c] = line;
    }
    this.starts[this.n++] = offset;
  }

  get count(): number {
    return this.n;
  }

  start(i: number): number {
    return this.starts[i]!;
  }

  /** The line recorded for checkpoint record `c * CHECKPOINT_EVERY`. */
  checkpointLine(c: number): number {
    return this.checkpoints[c]!;
  }

  /** Gives back the unused tail of the arrays once indexing is done. */
  finish(): void {
    this.starts = this.starts.slice(0, this.n);
    this.checkpoints = this.checkpoints.slice(0, Math.ceil(this.n / CHECKPOINT_EVERY));
  }
}
