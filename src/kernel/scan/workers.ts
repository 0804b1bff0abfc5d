import type { CompiledQuery } from '../contracts/query';
import type { ScanQueryOptions, ScanResult } from '../contracts/scan';
import type { ParseSite } from '../records/parse';
import type { Collector } from './engine';
import type { Plan } from './plan';

/** Runs scans over record ranges on worker threads (filled in below the API). */
export interface WorkerPool {
  /** Whether a scan of a `bytes`-byte file with this query should use workers. */
  wanted(bytes: number, query: CompiledQuery): boolean;
  run(job: { opts: ScanQueryOptions; plan: Plan; from: number; to: number; site: (i: number) => ParseSite; collector: Collector }): Promise<ScanResult>;
}
