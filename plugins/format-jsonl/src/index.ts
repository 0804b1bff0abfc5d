import type { Format, Plugin, PluginContext } from 'mcpgw/plugin-api';
import { detectJsonLines } from './detect';
import { LineIndexer, isLinePadding } from './index-lines';

function jsonLinesFormat(registry: PluginContext): Format {
  return {
    name: 'jsonl',
    extensions: ['.jsonl', '.ndjson'],
    emptyText: 'no-records', // blank lines are skipped: a blank file holds no records
    description: 'JSON Lines / NDJSON: one JSON value per line; blank lines are skipped; CRLF and a UTF-8 BOM are accepted; a file that grows (appended lines) extends its index.',
    detect: detectJsonLines,
    // The indexing kit does the rest: the pass, restore from the persistent index, growth (docs/writing-plugins.md "Formats").
    open: (file, options) => registry.records.openFramed(file, options, {
      format: 'jsonl',
      startsAnywhere: true,
      framing: { isPadding: isLinePadding, separator: { byte: 0x0a, where: 'before' } },
      start: (index, from) => new LineIndexer(index, from),
      restore: (index, state) => LineIndexer.restore(index, state),
    }),
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
