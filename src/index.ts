/** mcpgw: the plugin API, the kernel (configuration, plugin loading, the sandbox, the MCP server) and the default engine wired in. */
export type * from './plugin-api/index';
export * from './plugin-kit/index';
export { McpgwError, toErrorPayload } from './kernel/errors';
export { Kernel, type KernelOptions } from './kernel/kernel';
export { createKernel, registerEngine } from './compose/engine';
export * from './kernel/config';
export { PluginLoadError, type PluginSpec } from './kernel/plugins/loader';
export { Sandbox } from './kernel/files/sandbox';
export { createLogger } from './kernel/log';
