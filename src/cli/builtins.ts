/** The built-in plugins, by package name, in load order. They use the same contract as third-party plugins. */
export const BUILTIN_PLUGINS: readonly string[] = ['@mcpgw/format-jsonl', '@mcpgw/tools-explore'];
