import type { Plugin } from 'mcpgw/plugin-api';
import { compilePointer } from './pointer';

/** mcpgw query language plugin: RFC 6901 JSON Pointer (own members only, strict escapes, `#` fragment form). */
const plugin: Plugin = {
  name: '@mcpgw/query-pointer',
  version: '0.1.0',
  apiVersion: '^3.0.0',
  register(registry) {
    registry.registerQueryLanguage({
      name: 'pointer',
      description: 'RFC 6901 JSON Pointer: "" is the whole document, /a/0/b, ~0 for ~ and ~1 for /, or the #/a/b fragment form',
      compile: (text) => compilePointer(text, registry.error),
    });
  },
};

export default plugin;
