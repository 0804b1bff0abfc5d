/**
 * A query language on a worker thread: the plugin that registered it is loaded again here by the kernel's own loader
 * (plugins/loader.ts) — the same import, contract and apiVersion checks, and its options as configured, validated by
 * its own schema — so the thread compiles the query text the engine was given with the plugin configured as on the
 * main thread. A tsyringe container cannot be sent to a thread (its registered functions cannot be cloned), so the
 * thread builds its own from the same inputs. The engine's threads reach this module by its path
 * (`WorkerPlugin.loader`, WORKER_LANGUAGE_MODULE), not by an import: the engine imports nothing of the kernel's plugins.
 */
import 'reflect-metadata';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { container as rootContainer } from 'tsyringe';
import type { QueryLanguage } from '../contracts/query';
import type { RecordsToolkit } from '../contracts/records';
import type { EngineToolkit } from '../contracts/toolkit';
import type { WorkerPlugin } from '../contracts/engine';
import type { Logger } from '../contracts/plugin';
import { Tokens } from '../contracts/tokens';
import { McpgwError } from '../errors';
import { systemClock } from '../clock';
import { loadPlugin, PluginLoadError } from './loader';
import { Registry } from './registry';
import { installApiResolution } from './api-module';

const quiet = { error: () => undefined, warn: () => undefined, info: () => undefined, debug: () => undefined };

/** This module, built (a test runner that maps TypeScript sources runs threads on the built files). */
export const WORKER_LANGUAGE_MODULE = ((here: string) => (fs.existsSync(here) ? here : path.resolve(__dirname, '..', '..', '..', 'dist', 'kernel', 'plugins', 'worker-language.js')))(path.join(__dirname, 'worker-language.js'));

/**
 * The query language `name` of `plugin`, loaded on this thread; `services`: the engine's records toolkit and toolkit its
 * plugin is handed (`context.records`, `context.toolkit`). @throws McpgwError INTERNAL_ERROR
 */
export async function languageFrom(plugin: WorkerPlugin, name: string, services: { records: RecordsToolkit; toolkit: EngineToolkit; log?: Logger }): Promise<QueryLanguage> {
  installApiResolution();
  const registry = new Registry();
  const dir = path.dirname(plugin.entry);
  const container = rootContainer.createChildContainer();
  container.register(Tokens.Records, { useValue: services.records });
  container.register(Tokens.Toolkit, { useValue: services.toolkit });
  try {
    await loadPlugin({ id: plugin.entry, options: plugin.options, fromDir: dir, origin: 'config' },
      { registry, kernelVersion: 'worker', ownDir: dir, container, log: services.log ?? quiet, clock: systemClock });
  } catch (err) {
    if (err instanceof PluginLoadError) throw new McpgwError('INTERNAL_ERROR', `Worker: ${err.message}`);
    throw err;
  }
  const found = registry.queryLanguages.get(name)?.item;
  if (!found) throw new McpgwError('INTERNAL_ERROR', `Worker: ${plugin.entry} registers no query language "${name}".`);
  return found;
}
