import type { Format, Plugin, PluginContext } from 'mcpgw/plugin-api';
import { bindToolkit } from './toolkit';
import { RS, SequenceIndexer, checkSequenceRecord, detectSequence, isSequencePadding } from './sequence';

function sequenceFormat(registry: PluginContext): Format {
  return {
    name: 'json-seq',
    extensions: ['.json-seq'],
    emptyText: 'no-records',
    description: 'RFC 7464 JSON text sequences: each JSON text introduced by RS (0x1E) and ended by LF; a truncated element is one malformed record.',
    detect: detectSequence,
    // The indexing kit does the rest: the pass, restore from the persistent index, growth (docs/writing-plugins.md "Formats").
    open: (file, options) => registry.records.openFramed(file, options, {
      format: 'json-seq',
      framing: { isPadding: isSequencePadding, checkRecord: checkSequenceRecord, separator: { byte: RS, where: 'at' } },
      start: (index) => new SequenceIndexer(index),
      restore: (index, state) => SequenceIndexer.restore(index, state),
    }),
  };
}

/** mcpgw format plugin: RFC 7464 JSON text sequences (.json-seq). */
const plugin: Plugin = {
  name: '@mcpgw/format-jsonseq',
  version: '0.1.0',
  apiVersion: '^3.0.0',
  register(registry) {
    bindToolkit(registry.toolkit);
    registry.registerFormat(sequenceFormat(registry));
  },
};

export default plugin;
