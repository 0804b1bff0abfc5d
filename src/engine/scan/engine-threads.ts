/**
 * The engine's one pool of worker threads: threads running thread-host.ts, kept between jobs and idled down on the
 * kernel's clock (idle-workers.ts), that scans (workers.ts) and aggregates (aggregate-threads.ts) take and give back.
 * A job that leaves its thread clean (every message answered, no failure) gives it back; one that does not (a page
 * stopped mid-batch, a regular expression stuck, a cancel, a failure) terminates it.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { Clock } from '../../kernel/contracts/clock';
import { systemClock } from '../../kernel/clock';
import { IDLE_MS, IdleWorkers } from './idle-workers';
import { workerHeapFlags } from './worker-heap';
import { releaseSoon } from '../memory';

/** The compiled thread script: beside this file, or in dist/ when running from TypeScript sources (tests). */
export function hostScript(): string {
  const here = path.join(__dirname, 'thread-host.js');
  if (fs.existsSync(here)) return here;
  return path.resolve(__dirname, '..', '..', '..', 'dist', 'engine', 'scan', 'thread-host.js');
}

/** Threads a job takes by default: the available parallelism, 1 to 4. */
export function defaultThreads(): number {
  return Math.max(1, Math.min(4, os.availableParallelism?.() ?? 2));
}

/** Starts one engine thread (its young generation kept small, worker-heap.ts). */
export function startHostThread(): Worker {
  workerHeapFlags();
  const worker = new Worker(hostScript());
  worker.unref();
  return worker;
}

export interface EngineThreadsOptions {
  clock?: Clock;
  /** Threads kept idle at most (default {@link defaultThreads}). */
  keep?: number;
  /** How long idle threads are kept, ms (default IDLE_MS). */
  idleMs?: number;
  /**
   * Called once the idle threads are gone (default: a full collection soon, memory.ts releaseSoon): what the jobs left
   * on this thread (their slice and read buffers, garbage) is freed only by a collection.
   */
  onIdleDown?: () => void;
  /** Starts a thread (default {@link startHostThread}). */
  spawn?: () => Worker;
}

/** The pool of engine threads that scans and aggregates share. */
export function engineThreads(options: EngineThreadsOptions = {}): IdleWorkers<Worker> {
  return new IdleWorkers<Worker>({
    spawn: options.spawn ?? startHostThread, clock: options.clock ?? systemClock, idleMs: options.idleMs ?? IDLE_MS,
    keep: options.keep ?? defaultThreads(), onIdleDown: options.onIdleDown ?? (() => releaseSoon()),
  });
}
