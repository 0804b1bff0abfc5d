import type { Plugin } from 'mcpgw/plugin-api';

/** mcpgw format plugin: one JSON value per file; a top-level array is a sequence of records (.json, .geojson) (scaffold: registers nothing yet). */
const plugin: Plugin = {
  name: '@mcpgw/format-json',
  version: '0.1.0',
  apiVersion: '^1.0.0',
  register() {
    // filled in by its issue
  },
};

export default plugin;
