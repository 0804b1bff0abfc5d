/**
 * A plugin's own work on the engine's threads (`ScanEngine.thread`, src/engine/scan/task-thread.ts): through a kernel
 * composed with the default engine, a task module of a plugin's (test/fixtures/tasks/echo-task.cjs) runs on a thread
 * of the pool scans and aggregates use, imports the plugin API there, and the thread it was given back on serves the
 * next task (or scan); a terminated or failed thread is never given again.
 */
import 'reflect-metadata';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Tokens, type ScanEngine, type TaskThread } from '../../src/kernel/contracts';
import { createKernel } from '../../src/compose/engine';
import { DEFAULT_LIMITS } from '../../src/kernel/config/defaults';
import { PLUGIN_API_VERSION } from '../../src/kernel/version';

const MODULE = path.resolve(__dirname, '..', 'fixtures', 'tasks', 'echo-task.cjs');
const silent = { error() {}, warn() {}, info() {}, debug() {} };
let tmp: string;
let scan: ScanEngine;
beforeAll(() => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-task-')));
  const kernel = createKernel({ version: '0.1.0', ownDir: tmp, log: silent, importModule: async () => undefined });
  scan = kernel.scope({ root: tmp, limits: DEFAULT_LIMITS }).resolve<ScanEngine>(Tokens.ScanEngine);
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const reply = (t: TaskThread, m: unknown) => new Promise<Record<string, unknown>>((resolve) => {
  t.port.once('message', resolve);
  t.port.postMessage(m);
});

test('a task runs on an engine thread with the plugin API, and its thread, given back, serves the next task', async () => {
  const a = scan.thread!({ module: MODULE, name: 'echo', data: { n: 1 } });
  const first = await reply(a, 'hi');
  expect(first).toMatchObject({ api: PLUGIN_API_VERSION, data: { n: 1 }, got: 'hi' });
  expect(first.threadId).toBeGreaterThan(0); // not the main thread (0)
  a.release();
  const b = scan.thread!({ module: MODULE, name: 'echo', data: 2 });
  const second = await reply(b, 'again');
  expect(second).toMatchObject({ data: 2, got: 'again', threadId: first.threadId });
  // A thread the task ends is not given again.
  b.terminate();
  const c = scan.thread!({ module: MODULE, name: 'echo' });
  expect((await reply(c, 'x')).threadId).not.toBe(first.threadId);
  c.release();
}, 30_000);

test('a module without the named function answers fatal on the port; a thread that exits is reported to the task', async () => {
  const t = scan.thread!({ module: MODULE, name: 'notAFunction' });
  const m = await new Promise<Record<string, unknown>>((resolve) => t.port.once('message', resolve));
  // With the stack of the throw, so blame reaches the task's own code (a plugin's crash on a thread names its place).
  expect(m).toEqual({ type: 'fatal', code: 'INTERNAL_ERROR', message: `Task: ${MODULE} exports no function "notAFunction"`, stack: expect.stringContaining(`exports no function "notAFunction"\n    at `) });
  t.terminate();
  const dying = scan.thread!({ module: MODULE, name: 'echo' });
  await reply(dying, 'warm'); // the task runs
  const failed = new Promise<Error>((resolve) => dying.onFail(resolve));
  dying.port.postMessage('exit');
  expect((await failed).message).toBe('the thread stopped (exit code 7)');
  // The next task gets a live thread.
  const next = scan.thread!({ module: MODULE, name: 'echo', data: 'ok' });
  expect(await reply(next, 'y')).toMatchObject({ data: 'ok', got: 'y' });
  next.release();
}, 30_000);
