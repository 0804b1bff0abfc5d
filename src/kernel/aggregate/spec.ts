/**
 * The aggregate spec as plain data (sent to worker threads): each dimension and metric reads one slot, and slots are
 * the distinct paths, so a path grouped and summed is read once per unit.
 */
import type { AggregateDimension, AggregateMetric, PathTokens } from '../contracts/aggregate';

export type DimensionData = AggregateDimension & { slot: number };
export type MetricData = AggregateMetric & { slot: number };

export interface AggregateSpecData {
  /** The distinct paths read from each unit. */
  slots: PathTokens[];
  dimensions: DimensionData[];
  metrics: MetricData[];
}

export function specData(dimensions: readonly AggregateDimension[], metrics: readonly AggregateMetric[]): AggregateSpecData {
  const slots: PathTokens[] = [];
  const keys: string[] = [];
  const slotOf = (path: PathTokens): number => {
    const k = JSON.stringify(path);
    let i = keys.indexOf(k);
    if (i === -1) { i = keys.length; keys.push(k); slots.push(path); }
    return i;
  };
  return {
    slots,
    dimensions: dimensions.map((d) => { const path = canonicalPath(d.path); return { ...d, path, slot: slotOf(path) } as DimensionData; }),
    metrics: metrics.map((m) => { const path = canonicalPath(m.path); return { ...m, path, slot: slotOf(path) }; }),
  };
}

/** An RFC 6901 array index (§4: `0`, or digits without a leading zero) that a double holds exactly. */
const ARRAY_INDEX = /^(?:0|[1-9][0-9]{0,14})$/;

/**
 * A path with each token of array-index form as a number (`["tags", "0"]` → `["tags", 0]`): the two select the same
 * value wherever they apply (an element of an array, the member `"0"` of an object; PathTokens), so they read one
 * slot, and the readers compare numbers with element positions and strings with member names only. A name with a
 * lone surrogate is made well-formed (U+FFFD), as the readers read the file's names.
 */
export function canonicalPath(path: PathTokens): PathTokens {
  // a name holding a lone surrogate is the one the file's escapes read as (U+FFFD, RFC 8259 §8.2)
  return path.map((t) => (typeof t === 'string' ? (ARRAY_INDEX.test(t) ? Number(t) : t.isWellFormed() ? t : t.toWellFormed()) : t));
}
