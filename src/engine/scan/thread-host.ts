/**
 * The entry of the engine's worker threads: one kind of thread, kept between jobs in one pool (engine-threads.ts over
 * idle-workers.ts) that scans, aggregates and plugins' tasks share. Each job comes on the parent port as
 * `{ type: 'job', kind: 'scan' | 'aggregate' | 'task', init }` with a port of its own (`init.port`) and runs as the
 * scan worker (worker.ts), the aggregate worker (aggregate-worker.ts) or a plugin's task (task-thread.ts) says, until
 * it ends (its port closed, or `{ type: 'end' }` on it; the thread may then get another job) or the engine terminates
 * the thread (a job it did not leave clean). A kind's module loads at its first job.
 */
import { parentPort } from 'node:worker_threads';
import type { WorkerInit } from './worker';
import type { AggregateWorkerInit } from './aggregate-worker';
import type { TaskInit } from './task-thread';

export type HostJob =
  | { type: 'job'; kind: 'scan'; init: WorkerInit }
  | { type: 'job'; kind: 'task'; init: TaskInit }
  | { type: 'job'; kind?: 'aggregate'; init: AggregateWorkerInit };

parentPort?.on('message', (m: HostJob) => {
  if (m.type !== 'job') return;
  /* eslint-disable @typescript-eslint/no-require-imports */
  if (m.kind === 'scan') void (require('./worker') as typeof import('./worker')).runScanJob(m.init);
  else if (m.kind === 'task') (require(m.init.loader) as { runTask(init: TaskInit): void }).runTask(m.init);
  else void (require('./aggregate-worker') as typeof import('./aggregate-worker')).runAggregateJob(m.init);
  /* eslint-enable @typescript-eslint/no-require-imports */
});
