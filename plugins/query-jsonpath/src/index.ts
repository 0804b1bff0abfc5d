import type { Plugin } from 'mcpgw/plugin-api';

/** mcpgw query language plugin: RFC 9535 JSONPath (json-p3) (scaffold: registers nothing yet). */
const plugin: Plugin = {
  name: '@mcpgw/query-jsonpath',
  version: '0.1.0',
  apiVersion: '^1.0.0',
  register() {
    // filled in by its issue
  },
};

export default plugin;
