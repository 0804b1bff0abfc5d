/** The built-in plugins, by package name, in load order. They use the same contract as third-party plugins. */
export const BUILTIN_PLUGINS: readonly string[] = [
  '@mcpgw/format-json',
  '@mcpgw/format-jsonl',
  '@mcpgw/format-jsonseq',
  '@mcpgw/query-jsonpath',
  '@mcpgw/query-pointer',
  '@mcpgw/tools-explore',
  '@mcpgw/tools-reader',
  '@mcpgw/tools-sessions',
  '@mcpgw/tools-sql',
];
