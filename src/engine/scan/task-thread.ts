/**
 * A plugin's own work on one of the engine's threads (`ScanEngine.thread`): the thread comes from the pool scans and
 * aggregates share (engine-threads.ts) and gets the task as a job (`{ type: 'job', kind: 'task', init }`, thread-host.ts)
 * with a port of its own. The host's loader (`loader`, the kernel's, reached by its path) loads the plugin's module
 * there the way plugins are loaded, so it may import the plugin API. `release()` gives the thread back (its port
 * closed: the task's listeners go with it), `terminate()` ends it.
 */
import { MessageChannel, type Worker } from 'node:worker_threads';
import type { TaskThread, ThreadTask } from '../../kernel/contracts/scan';
import type { IdleWorkers } from './idle-workers';

/** What thread-host.ts hands the task's loader on the thread. */
export interface TaskInit {
  port: import('node:worker_threads').MessagePort;
  module: string;
  name: string;
  data: unknown;
  /** Absolute path of the host's module that loads `module` on the thread (`runTask(init)`). */
  loader: string;
}

export function taskThread(pool: IdleWorkers<Worker>, loader: string, task: ThreadTask): TaskThread {
  const [worker] = pool.take(1) as [Worker];
  const { port1, port2 } = new MessageChannel();
  const failListeners: ((err: Error) => void)[] = [];
  let held = true;
  /** Lets go of the thread once: its port closed, then `then` (give it back, end it, or tell the task it failed). */
  const letGo = (then: () => void) => {
    if (!held) return;
    held = false;
    worker.off('error', onError);
    worker.off('exit', onExit);
    port1.close();
    then();
  };
  const onError = (err: Error) => letGo(() => failListeners.forEach((l) => l(err)));
  const onExit = (code: number) => onError(new Error(`the thread stopped (exit code ${code})`));
  worker.on('error', onError);
  worker.on('exit', onExit);
  const init: TaskInit = { port: port2, module: task.module, name: task.name, data: task.data, loader };
  worker.postMessage({ type: 'job', kind: 'task', init }, [port2]);
  return {
    port: port1,
    onFail: (l) => void failListeners.push(l),
    release: () => letGo(() => pool.give(worker)),
    terminate: () => letGo(() => pool.discard(worker)),
  };
}
