/**
 * The public plugin API: everything a plugin author (and every built-in plugin) uses, published as
 * `mcpgw/plugin-api` (package.json `exports`, with typings). Plugins import types from here; runtime
 * services arrive through `PluginContext` and `ToolContext`, so one kernel instance serves every plugin.
 * The runtime members hold no state of the kernel: plain data (`PLUGIN_API_VERSION`, `ERROR_CODES`, `Tokens`),
 * the identity helper `definePlugin`, pure functions (`compareNumerals`, the RFC 6901 pointer helpers, the path-token rule, the JSON
 * walker), and test helpers (`FakeClock`, `registerPlugin`). Built-in and third-party plugins import them at run time: the kernel resolves
 * `mcpgw/plugin-api` to its own module for every plugin it loads (plugins/api-module.ts).
 *
 * Versioning: `PLUGIN_API_VERSION` follows semver. A plugin's `apiVersion` is a semver range over it,
 * checked at load time (a mismatch names both versions). Additive changes (new optional members)
 * raise the minor version; anything that can break a plugin raises the major version.
 */
import type { Plugin } from '../kernel/contracts/plugin';

export * from '../kernel/contracts';
/** The session-history plugin's extension points' item types (its `session-source` and `embedder` points). */
export type * from './sessions';
export type { ErrorCode, ErrorDetails, ErrorLocation, ErrorLimit, ErrorPayload, McpgwError } from '../kernel/errors';
export { ERROR_CODES } from '../kernel/errors';
/**
 * Compares two JSON numbers by value, exactly and in linear time: -1, 0 or 1 (src/engine/numbers/compare.ts; RFC 9535
 * §2.3.5.2.2). A runtime export: a plugin that imports it needs mcpgw at run time (a peer, as for `definePlugin`);
 * the same function is `context.records.compareNumerals` for plugins that take nothing from mcpgw at run time.
 */
export { compareNumerals } from '../engine/numbers/compare';
/** The plugin-API version plugins declare compatibility with (`Plugin.apiVersion` is a semver range over it). */
export { PLUGIN_API_VERSION } from '../kernel/version';
/** A clock for tests that moves only when told (contracts/clock.ts): deadlines and expiry without sleeping. */
export { FakeClock } from '../kernel/fake-clock';
/** RFC 6901 JSON Pointer: escape, unescape, append, format and parse reference tokens (src/engine/paths/pointer.ts). */
export { appendToken, escapeToken, formatPointer, parsePointer, PointerSyntaxError, unescapeToken } from '../engine/paths/pointer';
/** What a singular path's token selects: RFC 6901 by the value met, or an RFC 9535 index or name selector (src/engine/paths/path-token.ts). */
export { tokenIndex, tokenName, tokenText } from '../engine/paths/path-token';
/** The hint of an empty answer: query member names no record examined has, with the nearest seen (src/plugin-api/empty-answer-hint.ts). */
export { emptyAnswerHint } from './empty-answer-hint';
/** Byte search on a literal's rarest bytes, exact or ignoring ASCII case (src/engine/bytes/bytes.ts). */
export { caselessFinder, indexOfBytes, indexOfCaseless } from '../engine/bytes/bytes';
/** WebAssembly binary encoding for a plugin's own SIMD loop: LEB128 and a module of one function (src/engine/bytes/wasm.ts). */
export { leb128, sleb128, wasmModule, wasmVec, WasmType, type WasmFunctionSpec } from '../engine/bytes/wasm';
/**
 * The JSON walker (RFC 8259): whitespace, where a string ends, where a value ends, over bytes and over JSON text held as
 * a string (src/engine/bytes/json-walk.ts); the one every reader of the engine and the plugins uses.
 */
export {
  isJsonWhitespace, skipJsonWhitespace, jsonStringEnd, jsonValueEnd, skipJsonTextWhitespace, jsonTextStringEnd, jsonTextValueEnd,
} from '../engine/bytes/json-walk';
/** Text with the markers a tool adds (« » …) and where they are, for answers that tell them from the data's own (src/plugin-api/marked-text.ts). */
export { codePointLength, markedField, MarkedTextBuilder, ownMarkerCharacters, type MarkedText } from './marked-text';
/** Runs a plugin's `register` against a context that captures its contributions, for the plugin's own tests. */
export { registerPlugin, type Contributions } from './testing';

/**
 * Returns `plugin` unchanged; exists only so that TypeScript checks a plugin object against the
 * contract and infers the options type from its `options` schema (a zod schema fits):
 *
 * ```ts
 * export default definePlugin({
 *   name: '@acme/mcpgw-greet', version: '1.0.0', apiVersion: '^2.0.0',
 *   options: z.strictObject({ greeting: z.string().default('hello') }),
 *   register(context, options) { options.greeting; // string },
 * });
 * ```
 *
 * A type-only alternative with the same checking: `export default { … } satisfies Plugin<Options>`.
 * No decorators; a plugin that prefers injection resolves services from `context.container` by `Tokens`.
 */
export function definePlugin<Options = Record<string, unknown>>(plugin: Plugin<Options>): Plugin<Options> {
  return plugin;
}
