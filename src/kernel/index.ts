/** mcpgw's kernel: contracts, configuration, plugin loading, the sandbox, records and the MCP server. */
export * from './plugin-api';
export { McpgwError, toErrorPayload } from './errors';
export { Kernel, type KernelOptions } from './kernel';
export * from './config';
export { PluginLoadError, type PluginSpec } from './plugins/loader';
export { Sandbox } from './files/sandbox';
export { createLogger } from './log';
