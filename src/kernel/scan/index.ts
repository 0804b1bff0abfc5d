export { QueryScanEngine, MATERIALIZE_BYTES } from './engine';
export type { EngineOptions } from './engine';
