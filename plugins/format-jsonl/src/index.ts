import type { Format, Plugin, PluginRegistry } from 'mcpgw/plugin-api';
import { detectJsonLines } from './detect';
import { indexLines, isLinePadding } from './index-lines';

function jsonLinesFormat(registry: PluginRegistry): Format {
  return {
    name: 'jsonl',
    extensions: ['.jsonl', '.ndjson'],
    description: 'JSON Lines / NDJSON: one JSON value per line; blank lines are skipped; CRLF and a UTF-8 BOM are accepted.',
    detect: detectJsonLines,
    async open(file, options) {
      const index = await indexLines(file, registry.records, options);
      return registry.records.createSource({
        file,
        format: 'jsonl',
        fileType: 'ndjson',
        rootIsSequence: true,
        index,
        end: file.identity.size,
        framing: { isPadding: isLinePadding },
        limits: options.limits,
      });
    },
  };
}

const plugin: Plugin = {
  name: '@mcpgw/format-jsonl',
  version: '0.1.0',
  apiVersion: '^1.0.0',
  register(registry) {
    registry.registerFormat(jsonLinesFormat(registry));
  },
};

export default plugin;
