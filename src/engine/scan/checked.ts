/**
 * Records an aggregate has already checked, per open source: a record whose bytes one aggregate found to be valid
 * UTF-8 and one well-formed JSON value (RFC 8259, within the nesting bound), with each of the top-level names it
 * reads at most once, is read by the next aggregate over the same names without being checked again
 * (`findTops`: only up to the members it needs). A record that was malformed, too deep or held a name twice is never
 * marked, so it is checked (and reported) every time. The marks live as long as the source object — an open file
 * whose identity the kernel verifies on every call (a changed file is SOURCE_CHANGED; one that grew keeps its
 * records and adds unmarked ones).
 *
 * Memory: one byte per record per set of names, at most {@link CHECKED_SETS} sets per source (the oldest dropped),
 * and none for sources of more than {@link CHECKED_MAX_RECORDS} records.
 */
import type { RecordSource } from '../../kernel/contracts/format';

export const CHECKED_SETS = 4;
export const CHECKED_MAX_RECORDS = 32 * 1024 * 1024;

const marks = new WeakMap<RecordSource, Map<string, Uint8Array>>();

/**
 * The marks of `source` for one set of names and nesting bound (`key`): `marks[i] === 1` when record i is checked.
 * Null when the source is too large to keep them. The last record has no mark (the array ends before it: reads give
 * undefined, writes are dropped): when a file grows, the bytes appended may continue its last record, and every
 * other record keeps its bytes. Grown (keeping the marks) when the source gained records.
 */
export function checkedMarks(source: RecordSource, key: string): Uint8Array | null {
  const count = source.count;
  if (count > CHECKED_MAX_RECORDS) return null;
  const length = Math.max(0, count - 1);
  let sets = marks.get(source);
  if (!sets) marks.set(source, (sets = new Map()));
  let m = sets.get(key);
  if (m) sets.delete(key); // most recent last
  if (!m || m.length < length) {
    const grown = new Uint8Array(length);
    if (m) grown.set(m);
    m = grown;
  }
  sets.set(key, m);
  if (sets.size > CHECKED_SETS) sets.delete(sets.keys().next().value!);
  return m;
}

/** The key of a plan's names and bound. */
export function checkedKey(tops: readonly (string | number)[], maxDepth: number): string {
  return JSON.stringify([tops, maxDepth]);
}
