import type { Format, Plugin, PluginContext } from 'mcpgw/plugin-api';
import { bindToolkit } from './toolkit';
import { RS, SequenceIndexer, checkSequenceRecord, detectSequence, indexSequence, isSequencePadding, sequenceExtender } from './sequence';

function sequenceFormat(registry: PluginContext): Format {
  return {
    name: 'json-seq',
    extensions: ['.json-seq'],
    emptyText: 'no-records',
    description: 'RFC 7464 JSON text sequences: each JSON text introduced by RS (0x1E) and ended by LF; a truncated element is one malformed record.',
    detect: detectSequence,
    async open(file, options) {
      const restored = options.restored ? SequenceIndexer.restore(options.restored.index, options.restored.state) : null;
      const indexer = restored ?? (await indexSequence(file, registry.records, options));
      const extend = sequenceExtender(file, registry.records, indexer);
      return registry.records.createSource({
        file,
        format: 'json-seq',
        rootIsSequence: true,
        index: indexer.index,
        ...(extend ? { extend } : {}),
        end: indexer.fed,
        saveState: () => indexer.saveState(),
        framing: { isPadding: isSequencePadding, checkRecord: checkSequenceRecord, separator: { byte: RS, where: 'at' } },
        limits: options.limits,
      });
    },
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
