import type { Plugin, ToolBundle } from 'mcpgw/plugin-api';
import { search } from './search/search';
import { closeFile } from './tools/close-file';
import { getFileInfo, getRecordCount } from './tools/file-info';
import { getRecord } from './tools/get-record';
import { openFile } from './tools/open-file';

/** Bundle `explore`: the Thoth explorer tool set, record by record (DESIGN "Two addressing modes"). */
export const exploreBundle: ToolBundle = {
  name: 'explore',
  description:
    'Explorer tools (Thoth-compatible): open_file returns a handle (file_1, …); then get_record, search, get_file_info, get_record_count; close_file when done. Record indexes are zero-based.',
  tools: [openFile, closeFile, getFileInfo, getRecord, getRecordCount, search],
};

const plugin: Plugin = {
  name: '@mcpgw/tools-explore',
  version: '0.1.0',
  apiVersion: '^1.0.0',
  register(registry) {
    registry.registerToolBundle(exploreBundle);
  },
};

export default plugin;
