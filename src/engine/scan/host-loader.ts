import * as path from 'node:path';
import type { QueryLanguage } from '../../kernel/contracts/query';
import type { RecordsToolkit } from '../../kernel/contracts/records';
import type { EngineToolkit } from '../../kernel/contracts/toolkit';
import type { WorkerPlugin } from '../../kernel/contracts/engine';
import type { Logger } from '../../kernel/contracts/plugin';
import type { MessagePort } from 'node:worker_threads';

/**
 * The query language `name` of `plugin`, loaded on this worker thread by the host's loader (`plugin.loader`), which
 * hands the plugin this engine's records toolkit and toolkit (`context.records`, `context.toolkit`). @throws McpgwError INTERNAL_ERROR
 */
export async function languageOnThread(plugin: WorkerPlugin, name: string, port?: MessagePort): Promise<QueryLanguage> {
  // Threads run the built modules: absent a loader, the kernel's beside this engine (dist/kernel), reached by its path,
  // not imported (the engine imports nothing of the kernel but its contracts, errors and clock).
  const loader = plugin.loader ?? path.resolve(__dirname, '..', '..', 'kernel', 'plugins', 'worker-language.js');
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { languageFrom } = require(loader) as { languageFrom(p: WorkerPlugin, n: string, s: { records: RecordsToolkit; toolkit: EngineToolkit; log?: Logger }): Promise<QueryLanguage> };
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { recordsToolkit } = require('../records') as typeof import('../records');
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { engineToolkit } = require('../toolkit') as typeof import('../toolkit');
  return languageFrom(plugin, name, { records: recordsToolkit, toolkit: engineToolkit, ...(port ? { log: portLogger(port) } : {}) });
}

/**
 * A logger whose lines go to the main thread as `{ type: 'log', level, message, fields }` on the job's port, where the
 * engine writes them to the server's log (a plugin's log lines on a thread are the server's, warn and error included).
 */
export function portLogger(port: MessagePort): Logger {
  const post = (level: keyof Logger) => (message: string, fields?: Record<string, unknown>) => {
    let clean: Record<string, unknown> | undefined;
    try { clean = fields === undefined ? undefined : (JSON.parse(JSON.stringify(fields)) as Record<string, unknown>); } catch { clean = { fields: '[unserializable fields]' }; }
    port.postMessage({ type: 'log', level, message: String(message), ...(clean ? { fields: clean } : {}) });
  };
  return { error: post('error'), warn: post('warn'), info: post('info'), debug: post('debug') };
}

/** What a thread posts for a fault: its code and message, and the stack, so the main thread blames the plugin on it. */
export function fatalMessage(err: unknown): { type: 'fatal'; code: string; message: string; stack?: string } {
  const e = err as { code?: unknown; message?: unknown; stack?: unknown } | null;
  return {
    type: 'fatal',
    code: typeof e?.code === 'string' ? e.code : 'INTERNAL_ERROR',
    message: typeof e?.message === 'string' ? e.message : String(err),
    ...(typeof e?.stack === 'string' ? { stack: e.stack } : {}),
  };
}
