import type { Plugin } from 'mcpgw/plugin-api';

/** mcpgw tool bundle reader: json_open, json_read, json_close with cursors and hard limits (scaffold: registers nothing yet). */
const plugin: Plugin = {
  name: '@mcpgw/tools-reader',
  version: '0.1.0',
  apiVersion: '^1.0.0',
  register() {
    // filled in by its issue
  },
};

export default plugin;
