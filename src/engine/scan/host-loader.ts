import * as path from 'node:path';
import type { QueryLanguage } from '../../kernel/contracts/query';
import type { RecordsToolkit } from '../../kernel/contracts/records';
import type { EngineToolkit } from '../../kernel/contracts/toolkit';
import type { WorkerPlugin } from '../../kernel/contracts/engine';

/**
 * The query language `name` of `plugin`, loaded on this worker thread by the host's loader (`plugin.loader`), which
 * hands the plugin this engine's records toolkit and toolkit (`context.records`, `context.toolkit`). @throws McpgwError INTERNAL_ERROR
 */
export async function languageOnThread(plugin: WorkerPlugin, name: string): Promise<QueryLanguage> {
  // Threads run the built modules: absent a loader, the kernel's beside this engine (dist/kernel), reached by its path,
  // not imported (the engine imports nothing of the kernel but its contracts, errors and clock).
  const loader = plugin.loader ?? path.resolve(__dirname, '..', '..', 'kernel', 'plugins', 'worker-language.js');
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { languageFrom } = require(loader) as { languageFrom(p: WorkerPlugin, n: string, s: { records: RecordsToolkit; toolkit: EngineToolkit }): Promise<QueryLanguage> };
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { recordsToolkit } = require('../records') as typeof import('../records');
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { engineToolkit } = require('../toolkit') as typeof import('../toolkit');
  return languageFrom(plugin, name, { records: recordsToolkit, toolkit: engineToolkit });
}
