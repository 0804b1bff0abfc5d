/**
 * The aggregate spec as plain data (sent to worker threads): each dimension and metric reads one slot, and slots are
 * the distinct paths, so a path grouped and summed is read once per unit.
 */
import type { AggregateDimension, AggregateMetric, PathToken, PathTokens } from '../../kernel/contracts/aggregate';

export type DimensionData = AggregateDimension & { slot: number };
export type MetricData = AggregateMetric & { slot: number };

export interface AggregateSpecData {
  /** The distinct paths read from each unit. */
  slots: PathTokens[];
  dimensions: DimensionData[];
  metrics: MetricData[];
  /**
   * Only the groups whose key hashes to `index` modulo `count` (the others' units are passed over): one pass of an
   * exact aggregate over more groups than its memory bound holds (scan/aggregate.ts, runPartitioned).
   */
  partition?: { index: number; count: number };
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
/** RFC 6901 §4 array-index form, any length. */
const INDEX_FORM = /^(?:0|[1-9][0-9]*)$/;

/** A name with a lone surrogate made well-formed (U+FFFD), as the readers read the file's names (RFC 8259 §8.2). */
const wellFormed = (name: string): string => (name.isWellFormed() ? name : name.toWellFormed());

/**
 * A path with one spelling per meaning (PathToken), so that paths that select the same values read one slot and
 * paths that do not never share one: a string of array-index form becomes a number (`["tags", "0"]` → `["tags", 0]`:
 * both an element of an array and the member "0" of an object); a name selector whose name is not of array-index
 * form becomes the plain string (`{name: "a"}` → `"a"`: neither selects anything in an array); an index selector
 * `{index: 0}` and a name selector `{name: "0"}` stay as they are (each selects where the other does not). Names are
 * made well-formed. Plain data: it crosses `postMessage` and `JSON.stringify` unchanged.
 */
export function canonicalPath(path: PathTokens): PathTokens {
  return path.map((t): PathToken => {
    if (typeof t === 'number') return t;
    if (typeof t === 'string') return ARRAY_INDEX.test(t) ? Number(t) : wellFormed(t);
    if ('index' in t) return { index: t.index };
    const name = wellFormed(t.name);
    return INDEX_FORM.test(name) ? { name } : name;
  });
}
