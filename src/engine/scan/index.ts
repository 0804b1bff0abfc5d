export { QueryScanEngine, MATERIALIZE_BYTES } from './engine';
export type { EngineOptions } from './engine';
export { ThreadPool, WORKER_MIN_BYTES, NODE_TEXT } from './workers';
export type { WorkerPool, ThreadPoolOptions } from './workers';
export { AggregateThreads } from './aggregate-threads';
export { AGGREGATE_TABLE_BYTES } from './aggregate';
