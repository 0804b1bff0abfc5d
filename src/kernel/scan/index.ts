export { QueryScanEngine, MATERIALIZE_BYTES } from './engine';
export type { EngineOptions } from './engine';
export { ThreadPool, WORKER_MIN_BYTES, NODE_TEXT } from './workers';
export type { WorkerPool, ThreadPoolOptions } from './workers';
