import 'reflect-metadata';
import jsonpathPlugin from '../../plugins/query-jsonpath/src/index';
import pointerPlugin from '../../plugins/query-pointer/src/index';
import type { CompiledQuery, Plugin, QueryLanguage, RecordSource, ScanNode, ScanPosition, ScanResult } from '../../src/kernel/contracts';
import { contributionsOf } from './formats';
import { DEFAULT_LIMITS } from '../../src/kernel/config/defaults';
import { AggregateThreads, QueryScanEngine, ThreadPool } from '../../src/engine/scan';
import type { Limits } from '../../src/kernel/contracts/limits';
import type { ThreadPoolOptions } from '../../src/engine/scan/workers';
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

/**
 * An engine that uses worker threads (always with minBytes 0; regex queries always), importing the built plugins from
 * dist/. `threadPool`: the threads to take, kept between scans as a server's are (engine-threads.ts `engineThreads`);
 * default a pool of the engine's own that keeps none (each scan starts its threads).
 */
export function threadedEngine(limits: Partial<Limits> = {}, threads = 2, minBytes = 0, threadPool?: ThreadPoolOptions['threadPool']): QueryScanEngine {
  const l = { ...DEFAULT_LIMITS, ...limits };
  const entries: Record<string, string> = {
    jsonpath: require.resolve('../../plugins/query-jsonpath/dist/index.js'),
    pointer: require.resolve('../../plugins/query-pointer/dist/index.js'),
  };
  return new QueryScanEngine({ limits: () => l, workers: new ThreadPool({ pluginOf: (n) => (entries[n] ? { entry: entries[n]!, options: {} } : undefined), threads, minBytes, ...(threadPool ? { threadPool } : {}) }) });
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

/** One page of {@link scanPages}: the engine's result, the nodes the sink took, and the record the page began at. */
export interface ScanPage { result: ScanResult; taken: ScanNode[]; from: number }

/**
 * Every page of `query` over `source` from its start: `limit` nodes a page, and a sink that takes at most `accept`
 * nodes of each batch it is handed (the page then ends before the first it refuses). Throws after `guard` pages.
 */
export async function scanPages(e: QueryScanEngine, source: RecordSource, query: CompiledQuery, limit: number, accept: number, guard = 500): Promise<ScanPage[]> {
  const out: ScanPage[] = [];
  let resume: ScanPosition | undefined;
  let from = 0;
  for (let n = 0; n < guard; n++) {
    const taken: ScanNode[] = [];
    const result = await e.run({
      source, query, addressing: 'file', limit, ...(resume ? { resume } : {}),
      sink: (nodes) => {
        const k = Math.min(accept, nodes.length);
        taken.push(...nodes.slice(0, k));
        return k;
      },
    });
    out.push({ result, taken, from });
    if (!result.next) return out;
    resume = result.next;
    from = result.next.record;
  }
  throw new Error('no end');
}
