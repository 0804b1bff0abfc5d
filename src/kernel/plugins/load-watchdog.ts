import { Worker } from 'node:worker_threads';

/**
 * A bound on loading one plugin (docs/architecture.md "Isolation and blame"): a plugin that busy-loops while it loads
 * or registers, or whose top-level await never settles, cannot hang `check` or `serve`. A thread of its own keeps
 * the time, so a main thread stuck in a synchronous loop is stopped too: past the bound the thread writes the message
 * on stderr and ends the process with exit code 2 through an inspector session on the main thread (which V8 serves
 * between any two instructions of JavaScript). While armed, the thread keeps the process alive (a load awaiting what
 * never settles would otherwise end it without a word).
 */
const THREAD = `
const { parentPort } = require('node:worker_threads');
const { writeSync } = require('node:fs');
let timer;
parentPort.on('message', (m) => {
  clearTimeout(timer);
  if (m.message === undefined) return;
  timer = setTimeout(() => {
    writeSync(2, m.message);
    const session = new (require('node:inspector').Session)();
    session.connectToMainThread();
    session.post('Runtime.evaluate', { expression: 'process.reallyExit(2)' });
  }, m.ms);
});
`;

export class LoadWatchdog {
  private readonly thread = new Worker(THREAD, { eval: true, stdout: false, stderr: false });

  constructor(readonly boundMs: number) {
    this.thread.unref();
  }

  /** Starts the bound for loading `plugin` (as configured, or name@version once known). */
  arm(plugin: string, step: string): void {
    this.thread.ref();
    this.thread.postMessage({ ms: this.boundMs, message: `mcpgw: Plugin ${plugin}: ${step} did not finish within ${this.boundMs} ms (a busy loop, or a top-level await or register() that never settles); start-up stopped. Remove the plugin from the config or fix it (bound: MCPGW_PLUGIN_LOAD_TIMEOUT_MS).\n` });
  }

  disarm(): void {
    this.thread.postMessage({});
    this.thread.unref();
  }

  close(): void {
    void this.thread.terminate();
  }
}
