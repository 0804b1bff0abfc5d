import type { Plugin } from 'mcpgw/plugin-api';

/** mcpgw format plugin: RFC 7464 JSON text sequences (.json-seq) (scaffold: registers nothing yet). */
const plugin: Plugin = {
  name: '@mcpgw/format-jsonseq',
  version: '0.1.0',
  apiVersion: '^1.0.0',
  register() {
    // filled in by its issue
  },
};

export default plugin;
