import type { Plugin } from 'mcpgw/plugin-api';

/** mcpgw query language plugin: RFC 6901 JSON Pointer (scaffold: registers nothing yet). */
const plugin: Plugin = {
  name: '@mcpgw/query-pointer',
  version: '0.1.0',
  apiVersion: '^1.0.0',
  register() {
    // filled in by its issue
  },
};

export default plugin;
