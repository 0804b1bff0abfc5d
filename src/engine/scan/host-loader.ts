import * as path from 'node:path';
import type { QueryLanguage } from '../../kernel/contracts/query';
import type { RecordsToolkit } from '../../kernel/contracts/records';
import type { WorkerPlugin } from '../../kernel/contracts/engine';

/**
 * The query language `name` of `plugin`, loaded on this worker thread by the host's loader (`plugin.loader`), which
 * hands the plugin this engine's records toolkit as `registry.records`. @throws McpgwError INTERNAL_ERROR
 */
export async function languageOnThread(plugin: WorkerPlugin, name: string): Promise<QueryLanguage> {
  // Threads run the built modules: absent a loader, the kernel's beside this engine (dist/kernel), reached by its path,
  // not imported (the engine imports nothing of the kernel but its contracts, errors and clock).
  const loader = plugin.loader ?? path.resolve(__dirname, '..', '..', 'kernel', 'plugins', 'worker-language.js');
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { languageFrom } = require(loader) as { languageFrom(p: WorkerPlugin, n: string, s: { records: RecordsToolkit }): Promise<QueryLanguage> };
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { recordsToolkit } = require('../records') as typeof import('../records');
  return languageFrom(plugin, name, { records: recordsToolkit });
}
