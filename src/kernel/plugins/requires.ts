import type { Requirement } from '../contracts/plugin';
import { PluginLoadError } from './loader';
import type { Registry } from './registry';

const WORDS: Record<Requirement['kind'], string> = {
  format: 'format', queryLanguage: 'query language', bundle: 'tool bundle', sessionSource: 'session source', embedder: 'embedder',
};

/**
 * Checks what every loaded plugin `requires` (docs/architecture.md "Plugin API"), once all have loaded, so the order
 * of plugins does not matter. @throws PluginLoadError (start-up stops, exit 2) for the first requirement no loaded
 * plugin registers, naming the plugin that requires it, what it requires and the package that provides it.
 */
export function checkRequirements(registry: Registry): void {
  for (const plugin of registry.plugins) {
    for (const r of plugin.requires ?? []) {
      if (registered(registry, r)) continue;
      const from = r.providedBy ? ` Load ${r.providedBy}, which provides it (config "builtins" or "plugins").` : ' Load a plugin that provides it (config "plugins").';
      throw new PluginLoadError(`${plugin.name}@${plugin.version}`, `requires ${WORDS[r.kind]} "${r.name}", which no loaded plugin registers.${from}`);
    }
  }
}

function registered(registry: Registry, r: Requirement): boolean {
  switch (r.kind) {
    case 'format': return registry.formats.has(r.name);
    case 'queryLanguage': return registry.queryLanguages.has(r.name);
    case 'bundle': return registry.bundles.has(r.name);
    case 'sessionSource': return registry.sessionSources.has(r.name);
    case 'embedder': return registry.embedders.has(r.name);
  }
}
