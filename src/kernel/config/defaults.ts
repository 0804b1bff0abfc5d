import type { Limits } from '../contracts/limits';

/** Defaults of the limits table in docs/architecture.md "Configuration". */
export const DEFAULT_LIMITS: Readonly<Limits> = Object.freeze({
  maxFileBytes: null,
  maxRecordBytes: 64 * 1024 * 1024,
  maxDepth: 2000,
  maxNodes: 200_000,
  maxResultBytes: 64 * 1024,
  maxMessageBytes: 16 * 1024 * 1024,
  maxItems: 1000,
  maxRecordPreviewBytes: 16 * 1024,
  maxOpenFiles: 32,
  maxCursors: 128,
  handleIdleMs: 900_000,
  cursorIdleMs: 300_000,
  maxConcurrentScans: 4,
  requestTimeoutMs: 30_000,
  detailTimeMs: 1000,
  probeBytes: 4 * 1024 * 1024,
  probeRecords: 32,
});

/** Default bound of the persistent index cache's folder, bytes (config `cacheMaxBytes`). */
export const DEFAULT_CACHE_MAX_BYTES = 1024 * 1024 * 1024;
