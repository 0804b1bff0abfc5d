/**
 * The public plugin API: everything a plugin author (and every built-in plugin) uses.
 * Plugins import only types from here; runtime services arrive through `PluginRegistry`
 * and `ToolContext`, so one kernel instance serves every plugin.
 */
export * from './contracts';
export type { ErrorCode, ErrorDetails, ErrorLocation, ErrorLimit, ErrorPayload, McpgwError } from './errors';
export { ERROR_CODES } from './errors';
/** The plugin-API version plugins declare compatibility with (`Plugin.apiVersion` is a semver range over it). */
export const PLUGIN_API_VERSION = '1.0.0';
