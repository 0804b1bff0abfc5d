import 'reflect-metadata';
import jsonpathPlugin from '../../plugins/query-jsonpath/src/index';
import pointerPlugin from '../../plugins/query-pointer/src/index';
import type { Plugin, QueryLanguage } from '../../src/kernel/contracts';
import { contributionsOf } from './formats';
import { DEFAULT_LIMITS } from '../../src/kernel/config/defaults';
import { AggregateThreads, QueryScanEngine, ThreadPool } from '../../src/kernel/scan';
import type { Limits } from '../../src/kernel/contracts/limits';
import type { Clock } from '../../src/kernel/contracts/clock';

/** Runs a plugin's register() and returns the query languages it registered. */
export async function languagesOf(plugin: Plugin): Promise<QueryLanguage[]> {
  return (await contributionsOf(plugin)).queryLanguages;
}

export async function jsonpath(): Promise<QueryLanguage> {
  return (await languagesOf(jsonpathPlugin))[0]!;
}

export async function pointer(): Promise<QueryLanguage> {
  return (await languagesOf(pointerPlugin))[0]!;
}

/** A single-threaded engine with the default limits (overridable). */
export function engine(limits: Partial<Limits> = {}, clock?: Clock): QueryScanEngine {
  const l = { ...DEFAULT_LIMITS, ...limits };
  return new QueryScanEngine({ limits: () => l, ...(clock ? { clock } : {}) });
}

/** An engine that uses worker threads (always with minBytes 0; regex queries always), importing the built plugins from dist/. */
export function threadedEngine(limits: Partial<Limits> = {}, threads = 2, minBytes = 0): QueryScanEngine {
  const l = { ...DEFAULT_LIMITS, ...limits };
  const entries: Record<string, string> = {
    jsonpath: require.resolve('../../plugins/query-jsonpath/dist/index.js'),
    pointer: require.resolve('../../plugins/query-pointer/dist/index.js'),
  };
  return new QueryScanEngine({ limits: () => l, workers: new ThreadPool({ pluginOf: (n) => (entries[n] ? { entry: entries[n]!, options: {} } : undefined), threads, minBytes }) });
}

/** Thread pools of {@link aggregateEngine}, one per thread count and threshold (their threads serve test after test, as a server's serve call after call). */
const aggregatePools = new Map<string, AggregateThreads>();

/** An engine whose aggregates run on worker threads (always, with minBytes 0), importing the built plugins from dist/. */
export function aggregateEngine(limits: Partial<Limits> = {}, threads = 2, minBytes = 0, clock?: Clock): QueryScanEngine {
  const l = { ...DEFAULT_LIMITS, ...limits };
  const entries: Record<string, string> = {
    jsonpath: require.resolve('../../plugins/query-jsonpath/dist/index.js'),
    pointer: require.resolve('../../plugins/query-pointer/dist/index.js'),
  };
  const make = () => new AggregateThreads({ pluginOf: (n) => (entries[n] ? { entry: entries[n]!, options: {} } : undefined), threads, minBytes, ...(clock ? { clock } : {}) });
  const key = `${threads}:${minBytes}`;
  let pool = clock ? make() : aggregatePools.get(key);
  if (!pool) aggregatePools.set(key, (pool = make()));
  return new QueryScanEngine({ limits: () => l, ...(clock ? { clock } : {}), aggregates: pool });
}
