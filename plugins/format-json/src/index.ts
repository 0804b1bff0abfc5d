import type { Format, Plugin, PluginContext } from 'mcpgw/plugin-api';
import { detectJson } from './detect';

function jsonFormat(registry: PluginContext): Format {
  return {
    name: 'json',
    extensions: ['.json', '.geojson'],
    emptyText: 'not-a-text', // RFC 8259 §2: a JSON text is a value
    description: 'One JSON value per file (RFC 8259): a top-level array is a sequence of records, an object or scalar is one record whose members are reached lazily.',
    detect: (probe) => detectJson(probe, registry.toolkit.json),
    async open(file, options) {
      // a top-level array's stored index (the persistent index) spares the pass; anything else is indexed
      const text = (options.restored && registry.records.restoreJson?.(options.restored)) || (await registry.records.indexJson(file, { signal: options.signal, onProgress: options.onProgress }));
      return registry.records.createSource({
        file,
        format: 'json',
        rootType: text.rootType,
        rootIsSequence: text.rootType === 'array',
        index: text.index,
        end: text.end,
        framing: text.framing,
        limits: options.limits,
        structure: text.structure,
        ...(text.saveState ? { saveState: text.saveState } : {}),
      });
    },
  };
}

/**
 * mcpgw format plugin: one JSON value per file. A top-level array is indexed by one streaming
 * structural pass (the kernel's `records.indexJson`) into one record per element; a top-level
 * object or scalar is one record, and its members are reached lazily through `RecordSource.node`.
 */
const plugin: Plugin = {
  name: '@mcpgw/format-json',
  version: '0.1.0',
  apiVersion: '^3.0.0',
  register(registry) {
    registry.registerFormat(jsonFormat(registry));
  },
};

export default plugin;
