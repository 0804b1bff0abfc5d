import type { Plugin, ToolBundle, ToolDefinition } from 'mcpgw/plugin-api';
import { bindToolkit } from './toolkit';
import { endCall } from './files';
import { aggregate } from './aggregate/aggregate';
import { aggregateCommand } from './aggregate/command';
import { search } from './search/search';
import { predicateLanguage } from './search/predicate-language';
import { closeFile } from './tools/close-file';
import { getFileInfo, getRecordCount } from './tools/file-info';
import { getRecord } from './tools/get-record';
import { getValueAtPath } from './tools/get-value';
import { listFiles } from './tools/list-files';
import { openFile } from './tools/open-file';
import { getOutline } from './tools/outline';
import { extractKeys, getSchema, sampleRecords } from './tools/sampling';

/**
 * Bundle `explore`: the Thoth explorer tool set plus list_files and get_outline, record by record (docs/architecture.md
 * "Two addressing modes"). A drop-in for Thoth's clients, it takes arguments leniently (null = default; unknown keys and
 * out-of-enum values ignored with a warning), where the reader set keeps closed argument objects.
 */
export const exploreBundle: ToolBundle = {
  name: 'explore',
  description:
    'Explorer tools (Thoth-compatible): list_files finds files; open_file returns a handle (file_1, …); then get_schema, extract_keys, sample_records, get_outline, get_record, get_value_at_path, search, aggregate (count, group, sum, bucket), get_file_info, get_record_count; close_file when done. Record indexes are zero-based. Optional arguments may be null (= default); unknown ones are ignored with a warning.',
  tools: [listFiles, openFile, closeFile, getFileInfo, getRecord, getRecordCount, search, aggregate, getValueAtPath, extractKeys, sampleRecords, getSchema, getOutline].map(endingUse),
  lenientArguments: true,
};

/** `tool` with its call's use of the files it read ended when it answers (files.ts closeWhenUnused). */
function endingUse<T extends ToolDefinition<any, any>>(tool: T): T {
  return {
    ...tool,
    async handler(args: unknown, ctx: Parameters<T['handler']>[1]) {
      try {
        return await tool.handler(args as never, ctx);
      } finally {
        endCall(ctx);
      }
    },
  };
}

const plugin: Plugin = {
  name: '@mcpgw/tools-explore',
  version: '0.1.0',
  apiVersion: '^3.0.0',
  // search's JSONPath mode, get_value_at_path, the predicates and aggregate compile JSONPath.
  requires: [{ kind: 'queryLanguage', name: 'jsonpath', providedBy: '@mcpgw/query-jsonpath' }],
  register(registry) {
    bindToolkit(registry.toolkit);
    // The record predicates (`$.status = "failed"`): a query language like any other, for search, aggregate's where,
    // json_read and mcpgw query alike.
    registry.registerQueryLanguage(predicateLanguage(registry));
    registry.registerToolBundle(exploreBundle);
    // `mcpgw aggregate FILE`: the aggregate tool at the terminal
    registry.registerCommand?.(aggregateCommand);
  },
};

export default plugin;
