/** mcpgw's kernel: contracts, configuration, plugin loading, the sandbox, records and the MCP server. */
export * from './plugin-api/index';
export { McpgwError, toErrorPayload } from './kernel/errors';
export { Kernel, type KernelOptions } from './kernel/kernel';
export * from './kernel/config';
export { PluginLoadError, type PluginSpec } from './kernel/plugins/loader';
export { Sandbox } from './kernel/files/sandbox';
export { createLogger } from './kernel/log';
