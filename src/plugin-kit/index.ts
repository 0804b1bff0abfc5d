/**
 * `mcpgw/plugin-kit`: the few runtime helpers a plugin (and its tests) may import — at most 20 runtime exports,
 * checked by test/architecture.test.ts. The contracts (types) are `mcpgw/plugin-api`'s; the engine's helpers (JSON
 * walker, byte search, marked text, WebAssembly encoding, path-token rules) are services on the plugin's context
 * (`context.toolkit`), not exports. The kernel resolves `mcpgw/plugin-kit` to its own module for every plugin it
 * loads, on worker threads too (src/kernel/plugins/api-module.ts), so a plugin shares the running kernel's helpers.
 *
 * Runtime exports: definePlugin; PLUGIN_API_VERSION; ERROR_CODES and Tokens (the values of plugin-api's `ErrorCode`
 * and `ServiceToken`); compareNumerals, parseExactJson and libraryNumbers (exact numbers); the RFC 6901 pointer helpers
 * (escapeToken, unescapeToken, appendToken, formatPointer, parsePointer, PointerSyntaxError); FakeClock, registerPlugin
 * and testTools (the tool tester) for tests.
 */
import type { Plugin } from '../kernel/contracts/plugin';

export { ERROR_CODES } from '../kernel/errors';
export { Tokens } from '../kernel/contracts/tokens';
/** The plugin-API version (semver) plugins declare compatibility with: `Plugin.apiVersion` is a range over it. */
export { PLUGIN_API_VERSION } from '../kernel/version';
/**
 * Compares two JSON numbers by value, exactly and in linear time: -1, 0 or 1 (RFC 9535 §2.3.5.2.2); each a lexeme
 * (a `JSON.rawJSON` number's `rawJSON`) or a finite JavaScript number, which stands for its shortest spelling.
 */
export { compareNumerals } from '../engine/numbers/compare';
/** RFC 6901 JSON Pointer: escape, unescape, append, format and parse reference tokens. */
export { appendToken, escapeToken, formatPointer, parsePointer, PointerSyntaxError, unescapeToken } from '../engine/paths/pointer';
/**
 * Exact numbers for a query language built on an off-the-shelf library: JSON text, or a value as the engine hands it,
 * in the "library form" (numbers a double holds are numbers; the others `JSON.rawJSON(lexeme)`; src/plugin-kit/exact-json.ts).
 */
export { libraryNumbers, parseExactJson } from './exact-json';
/** A clock for tests that moves only when told (contracts/clock.ts): deadlines and expiry without sleeping. */
export { FakeClock } from '../kernel/fake-clock';
/** Runs a plugin's `register` against a context that captures its contributions, for the plugin's own tests. */
export { registerPlugin, type Contributions } from './register-plugin';
/**
 * The tool tester: a plugin's tools driven in-process through a real MCP client over the SDK's in-memory transport,
 * every result checked against the tool's output schema (src/plugin-kit/tool-tester.ts).
 */
export { testTools, type ToolCallResult, type ToolResultMismatch, type ToolTester, type ToolTesterOptions } from './tool-tester';

/**
 * Returns `plugin` unchanged; exists only so that TypeScript checks a plugin object against the contract and infers
 * the options type from its `options` schema (a zod schema fits):
 *
 * ```ts
 * export default definePlugin({
 *   name: '@acme/mcpgw-greet', version: '1.0.0', apiVersion: '^3.0.0',
 *   options: z.strictObject({ greeting: z.string().default('hello') }),
 *   register(context, options) { options.greeting; // string },
 * });
 * ```
 *
 * A type-only alternative with the same checking: `export default { … } satisfies Plugin<Options>` (mcpgw/plugin-api).
 */
export function definePlugin<Options = Record<string, unknown>>(plugin: Plugin<Options>): Plugin<Options> {
  return plugin;
}
