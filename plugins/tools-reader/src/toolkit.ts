import type { EngineToolkit } from 'mcpgw/plugin-api';

/**
 * The engine's helpers this plugin uses, from the toolkit it is handed as `context.toolkit` (a service,
 * docs/writing-plugins.md "What `register` gets"): `register` binds them once, and its modules import them from here.
 * Stateless functions: two kernels in one process hand equal ones. Used before `register` ran, each throws.
 */
const unbound = (): never => {
  throw new Error('@mcpgw/tools-reader: used before register() handed it the engine toolkit (context.toolkit)');
};

export let emptyAnswerHint: EngineToolkit['emptyAnswerHint'] = unbound;

/** Called by `register` with `context.toolkit`. */
export function bindToolkit(toolkit: EngineToolkit): void {
  emptyAnswerHint = toolkit.emptyAnswerHint;
}
