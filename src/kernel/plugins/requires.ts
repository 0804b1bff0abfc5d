import type { Requirement } from '../contracts/plugin';
import { PluginLoadError } from './loader';
import type { Registry } from './registry';

const WORDS: Record<Requirement['kind'], string> = {
  format: 'format', queryLanguage: 'query language', bundle: 'tool bundle', extensionPoint: 'extension point', extension: 'extension',
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

/**
 * Checks what was provided to extension points, once all plugins have loaded (a point's plugin may load after the
 * plugins that provide to it): every item's point is defined and its `check` passes, then each point's `complete`.
 * @throws PluginLoadError naming the plugin that provided the item (or that defined the point) and what is wrong
 */
export function checkExtensions(registry: Registry): void {
  for (const [point, items] of registry.extensions) {
    const defined = registry.extensionPoints.get(point);
    for (const { item, plugin } of items.values()) {
      const label = labelOf(registry, plugin);
      if (!defined) {
        const known = [...registry.extensionPoints.keys()];
        throw new PluginLoadError(label, `provides "${item.name}" to extension point "${point}", which no loaded plugin defines.${known.length ? ` Extension points: ${known.join(', ')}.` : ''} Load the plugin that defines it (config "builtins" or "plugins").`);
      }
      const problem = safely(() => defined.item.check?.(item));
      if (problem) throw new PluginLoadError(label, `${defined.item.noun} "${item.name}": ${problem}`);
    }
  }
  for (const [point, { item: def, plugin }] of registry.extensionPoints) {
    const problem = safely(() => def.complete?.([...(registry.extensions.get(point)?.values() ?? [])].map((o) => o.item)));
    if (problem) throw new PluginLoadError(labelOf(registry, plugin), problem);
  }
}

function labelOf(registry: Registry, plugin: string): string {
  const r = registry.plugins.find((p) => p.name === plugin);
  return r ? `${r.name}@${r.version}` : plugin;
}

function safely(f: () => string | undefined): string | undefined {
  try {
    return f();
  } catch (err) {
    return `its check failed: ${(err as Error)?.message ?? String(err)}`;
  }
}

function registered(registry: Registry, r: Requirement): boolean {
  switch (r.kind) {
    case 'format': return registry.formats.has(r.name);
    case 'queryLanguage': return registry.queryLanguages.has(r.name);
    case 'bundle': return registry.bundles.has(r.name);
    case 'extensionPoint': return registry.extensionPoints.has(r.name);
    case 'extension': {
      const at = r.name.indexOf(':');
      return at > 0 && registry.extensionPoints.has(r.name.slice(0, at)) && !!registry.extensions.get(r.name.slice(0, at))?.has(r.name.slice(at + 1));
    }
  }
}
