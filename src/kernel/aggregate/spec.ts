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
    if (i === -1) { i = keys.length; keys.push(k); slots.push([...path]); }
    return i;
  };
  return {
    slots,
    dimensions: dimensions.map((d) => ({ ...d, path: [...d.path], slot: slotOf(d.path) }) as DimensionData),
    metrics: metrics.map((m) => ({ ...m, path: [...m.path], slot: slotOf(m.path) })),
  };
}
