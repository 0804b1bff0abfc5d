import type { Format, Plugin, PluginContext } from 'mcpgw/plugin-api';
import { detectJsonLines } from './detect';
import { LineIndexer, extender, indexLines, isLinePadding } from './index-lines';

function jsonLinesFormat(registry: PluginContext): Format {
  return {
    name: 'jsonl',
    extensions: ['.jsonl', '.ndjson'],
    emptyText: 'no-records', // blank lines are skipped: a blank file holds no records
    description: 'JSON Lines / NDJSON: one JSON value per line; blank lines are skipped; CRLF and a UTF-8 BOM are accepted; a file that grows (appended lines) extends its index.',
    detect: detectJsonLines,
    async open(file, options) {
      const restored = options.restored && options.from === undefined ? LineIndexer.restore(options.restored.index, options.restored.state) : null;
      const indexer = restored ?? (await indexLines(file, registry.records, options));
      const extend = extender(file, registry.records, indexer);
      return registry.records.createSource({
        file,
        format: 'jsonl',
        rootIsSequence: true,
        index: indexer.index,
        end: indexer.fed,
        saveState: () => indexer.saveState(),
        blankLines: () => indexer.blankLines(),
        framing: { isPadding: isLinePadding, separator: { byte: 0x0a, where: 'before' } },
        limits: options.limits,
        ...(extend ? { extend } : {}),
      });
    },
  };
}

const plugin: Plugin = {
  name: '@mcpgw/format-jsonl',
  version: '0.1.0',
  apiVersion: '^3.0.0',
  register(registry) {
    registry.registerFormat(jsonLinesFormat(registry));
  },
};

export default plugin;
