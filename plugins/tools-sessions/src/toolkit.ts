import type { EngineToolkit, MarkedTextKit, WasmEncoder } from 'mcpgw/plugin-api';

/**
 * The engine's helpers this plugin uses, from the toolkit it is handed as `context.toolkit` (a service,
 * docs/writing-plugins.md "What `register` gets"): `register` binds them once, and its modules import them from here.
 * Stateless functions: two kernels in one process hand equal ones. Used before `register` ran, each throws.
 */
const unbound = (): never => {
  throw new Error('@mcpgw/tools-sessions: used before register() handed it the engine toolkit (context.toolkit)');
};

export let ownMarkerCharacters: MarkedTextKit['ownMarkerCharacters'] = unbound;
export let markedField: MarkedTextKit['markedField'] = unbound;
export let codePointLength: MarkedTextKit['codePointLength'] = unbound;
export let leb128: WasmEncoder['leb128'] = unbound;
export let sleb128: WasmEncoder['sleb128'] = unbound;
export let wasmModule: WasmEncoder['module'] = unbound;
/** A new marked-text builder (`toolkit.text.builder()`). */
export let markedText: MarkedTextKit['builder'] = unbound;

/** Called by `register` with `context.toolkit`. */
export function bindToolkit(toolkit: EngineToolkit): void {
  ownMarkerCharacters = toolkit.text.ownMarkerCharacters;
  markedField = toolkit.text.markedField;
  codePointLength = toolkit.text.codePointLength;
  leb128 = toolkit.wasm.leb128;
  sleb128 = toolkit.wasm.sleb128;
  wasmModule = toolkit.wasm.module;
  markedText = toolkit.text.builder;
}
