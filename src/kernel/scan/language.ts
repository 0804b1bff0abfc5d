/**
 * A query language on a worker thread: the plugin module at `entry` (the loader's recorded entry path) is imported
 * and registered against a registry that keeps only the language named `name`, so the thread compiles the same
 * query text the engine was given.
 */
import { pathToFileURL } from 'node:url';
import { container } from 'tsyringe';
import type { Plugin, PluginRegistry } from '../contracts/plugin';
import type { QueryLanguage } from '../contracts/query';
import { McpgwError } from '../errors';
import { recordsToolkit } from '../records';

export async function languageFrom(entry: string, name: string): Promise<QueryLanguage> {
  const mod = (await import(pathToFileURL(entry).href)) as { default?: unknown };
  let plugin = (mod.default ?? mod) as Plugin & { default?: Plugin };
  if (typeof plugin.register !== 'function' && plugin.default) plugin = plugin.default;
  let found: QueryLanguage | undefined;
  const noop = () => undefined;
  const registry: PluginRegistry = {
    apiVersion: '1.0.0', kernelVersion: 'worker',
    registerFormat: noop, registerToolBundle: noop,
    registerQueryLanguage: (l) => { if (l.name === name) found = l; },
    records: recordsToolkit,
    error: (code, message, details) => new McpgwError(code, message, details),
    container,
    log: { error: noop, warn: noop, info: noop, debug: noop },
  };
  await plugin.register(registry, {} as never);
  if (!found) throw new McpgwError('INTERNAL_ERROR', `Worker: ${entry} registers no query language "${name}".`);
  return found;
}
