/**
 * A plugin's task on an engine thread (`ScanEngine.thread`): its module loaded here with the plugin API resolved as on
 * the main thread (api-module.ts). The engine's threads reach this file by its path (WORKER_TASK_MODULE).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { MessagePort } from 'node:worker_threads';
import { installApiResolution } from './api-module';

/** This module, built (a test runner that maps TypeScript sources runs threads on the built files). */
export const WORKER_TASK_MODULE = ((here: string) => (fs.existsSync(here) ? here : path.resolve(__dirname, '..', '..', '..', 'dist', 'kernel', 'plugins', 'worker-task.js')))(path.join(__dirname, 'worker-task.js'));

/** Runs task `name` of `module` on this thread; a module without that function gets a `{ type: 'fatal' }` on its port. */
export function runTask(init: { port: MessagePort; module: string; name: string; data: unknown }): void {
  installApiResolution();
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const fn = (require(init.module) as Record<string, unknown>)[init.name];
    if (typeof fn !== 'function') throw new Error(`${init.module} exports no function "${init.name}"`);
    (fn as (port: MessagePort, data: unknown) => void)(init.port, init.data);
  } catch (err) {
    init.port.postMessage({ type: 'fatal', code: 'INTERNAL_ERROR', message: `Task: ${(err as Error).message}`, ...(typeof (err as Error).stack === 'string' ? { stack: (err as Error).stack } : {}) });
  }
}
