import type { Plugin, ToolBundle } from 'mcpgw/plugin-api';
import { bindToolkit } from './toolkit';
import { jsonClose } from './tools/json-close';
import { jsonOpen } from './tools/json-open';
import { jsonRead } from './tools/json-read';

/**
 * Bundle `reader`: the strict reader tool set (the MCP JSON Reader contract) — json_open, json_read,
 * json_close with opaque handles and cursors, hard limits and whole-file addressing (docs/architecture.md "Two addressing modes").
 */
export const readerBundle: ToolBundle = {
  name: 'reader',
  description:
    'Reader tools: json_open gives a file_id (jf_…); json_read takes a JSON Pointer or JSONPath over the whole file (a JSON Lines root is the array of records: "/0/id", "$[*].id") and pages with single-use cursors; json_close frees the handle.',
  tools: [jsonOpen, jsonRead, jsonClose],
};

const plugin: Plugin = {
  name: '@mcpgw/tools-reader',
  version: '0.1.0',
  apiVersion: '^3.0.0',
  register(registry) {
    bindToolkit(registry.toolkit);
    registry.registerToolBundle(readerBundle);
  },
};

export default plugin;
