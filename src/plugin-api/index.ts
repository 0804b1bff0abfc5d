/**
 * `mcpgw/plugin-api`: the plugin contracts, types only. Its version is the plugin-API version (`PLUGIN_API_VERSION`,
 * a value of `mcpgw/plugin-kit`): a plugin's `apiVersion` is a semver range over it, checked when the plugin loads.
 * Additive changes (new optional members) raise the minor version; anything that can break a plugin raises the major
 * (docs/plugin-api-changelog.md). This module emits no runtime value (test/architecture.test.ts checks it): the
 * runtime helpers a plugin may import are `mcpgw/plugin-kit`'s; everything else arrives through `PluginContext` and
 * `ToolContext`, so one kernel instance serves every plugin.
 *
 * Constants are string-literal types here and values in the kit: an error code is an `ErrorCode`
 * (`ctx.error('NOT_FOUND', …)`; the list is the kit's `ERROR_CODES`), a service token a `ServiceToken` (`'mcpgw:clock'`;
 * the table is the kit's `Tokens`).
 */
import type { Tokens } from '../kernel/contracts/tokens';

export type * from '../kernel/contracts';
/** The session-history plugin's extension points' item types (its `session-source` and `embedder` points). */
export type * from './sessions';
export type { ErrorCode, ErrorDetails, ErrorLocation, ErrorLimit, ErrorPayload, McpgwError } from '../kernel/errors';
/** What `registerPlugin` (mcpgw/plugin-kit) captured of a plugin's `register`. */
export type { Contributions } from '../plugin-kit/register-plugin';
/** The token table's type (the value is `Tokens` in mcpgw/plugin-kit). */
export type ServiceTokens = typeof Tokens;
/** The name of a kernel service a plugin may resolve from its container: `'mcpgw:clock'`, `'mcpgw:records'`, … */
export type ServiceToken = ServiceTokens[keyof ServiceTokens];
