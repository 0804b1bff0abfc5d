import type { Plugin } from 'mcpgw/plugin-api';

/**
 * The compiler, loaded on the first query: json-p3 and the evaluators are not needed to start a server (start-up loads
 * only what serving tools/list needs).
 */
let compiler: typeof import('./compile') | undefined;
// eslint-disable-next-line @typescript-eslint/no-require-imports
const compilerModule = () => (compiler ??= require('./compile') as typeof import('./compile'));

/**
 * mcpgw query language plugin: RFC 9535 JSONPath through json-p3 (all 703 CTS cases), with exact number
 * comparisons, node paths as RFC 6901 pointers, prefilter literals and the record split for whole-file scans.
 */
const plugin: Plugin = {
  name: '@mcpgw/query-jsonpath',
  version: '0.1.0',
  apiVersion: '^3.0.0',
  register(registry) {
    const numerals = registry.records.compareNumerals;
    if (!numerals) throw new Error('@mcpgw/query-jsonpath needs a kernel whose registry.records offers compareNumerals (exact number comparisons).');
    registry.registerQueryLanguage({
      name: 'jsonpath',
      description: 'RFC 9535 JSONPath: $.a.b, $[0], $[-1], $[1:3], $[*], $..name, $[?@.x == "y"], length/count/match/search/value',
      compile: (text, options = {}) => compilerModule().compileJsonPath(text, options, registry.error, numerals),
    });
  },
};

export default plugin;
