/**
 * The V8 young generation of the engine's worker threads. V8's flags belong to the process, and a semi-space flag
 * overrides a Worker's `resourceLimits`: `serve` starts with 4 MiB semi-spaces for the main thread (bin/mcpgw.js),
 * so without this every worker thread's isolate committed 2 × 4 MiB of young generation, beside Node's own ~12 MiB
 * per thread (an aggregate's two threads: ~10 MiB more memory growth, with no speed gained). Before a thread starts,
 * the semi-space flags are set to {@link WORKER_SEMI_SPACE_MB}: V8 reads them when an isolate is created, so the
 * main thread's heap (created at start) keeps its own. Every worker thread the kernel starts calls this first, so all
 * get the same young generation whichever pool started first.
 */
import * as v8 from 'node:v8';

/** Semi-space size of worker threads, MiB (V8's own starting size; a thread's garbage is short-lived). */
export const WORKER_SEMI_SPACE_MB = 1;

let set = false;

/** Sets the semi-space flags worker threads start with (once per process; later calls do nothing). */
export function workerHeapFlags(): void {
  if (set) return;
  set = true;
  v8.setFlagsFromString(`--min-semi-space-size=${WORKER_SEMI_SPACE_MB}`);
  v8.setFlagsFromString(`--max-semi-space-size=${WORKER_SEMI_SPACE_MB}`);
}
