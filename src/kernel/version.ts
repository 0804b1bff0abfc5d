/**
 * The plugin-API version (semver), the one place it is written. A plugin's `apiVersion` is a semver range over it,
 * checked when the plugin loads (on the main thread and again on each worker thread that loads it). Additive changes
 * (new optional members) raise the minor version; anything that can break a plugin raises the major version.
 */
export const PLUGIN_API_VERSION = '3.3.0';

/**
 * What changed from plugin API 1 to 2, told to the author of a 1.x plugin when it is refused (one sentence each).
 * docs/writing-plugins.md "Moving to plugin API 2" says the same at length.
 */
export const API_2_CHANGES =
  'register() now receives a PluginContext (was PluginRegistry) whose container is mcpgw\'s own Container; tools read ' +
  'ctx.registry (was ctx.registries) and ctx.clock, and ctx.session is private to their bundle; a plugin may declare ' +
  'what it needs in `requires`; a record source reads batches() (was scan()) and states its rootType (fileType left the kernel contracts)';

/**
 * What changed from plugin API 2 to 3, told to the author of a 2.x plugin when it is refused (docs/plugin-api-changelog.md
 * says the same at length).
 */
export const API_3_CHANGES =
  'mcpgw/plugin-api is types only: import definePlugin, the pointer helpers, compareNumerals, ERROR_CODES, Tokens, FakeClock and ' +
  'registerPlugin from mcpgw/plugin-kit; the JSON walker, byte search, marked text, WebAssembly encoding, path-token rules and ' +
  'emptyAnswerHint are no longer exports but services on context.toolkit; tool results are checked against their outputSchema';
