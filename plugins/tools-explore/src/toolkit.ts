import type { ByteSearch, EngineToolkit, JsonWalker, MarkedTextKit, PathTokenRules } from 'mcpgw/plugin-api';

/**
 * The engine's helpers this plugin uses, from the toolkit it is handed as `context.toolkit` (a service,
 * docs/writing-plugins.md "What `register` gets"): `register` binds them once, and its modules import them from here.
 * Stateless functions: two kernels in one process hand equal ones. Used before `register` ran, each throws.
 */
const unbound = (): never => {
  throw new Error('@mcpgw/tools-explore: used before register() handed it the engine toolkit (context.toolkit)');
};

export let isJsonWhitespace: JsonWalker['isJsonWhitespace'] = unbound;
export let skipJsonTextWhitespace: JsonWalker['skipJsonTextWhitespace'] = unbound;
export let jsonTextStringEnd: JsonWalker['jsonTextStringEnd'] = unbound;
export let jsonTextValueEnd: JsonWalker['jsonTextValueEnd'] = unbound;
export let indexOfBytes: ByteSearch['indexOfBytes'] = unbound;
export let caselessFinder: ByteSearch['caselessFinder'] = unbound;
export let tokenName: PathTokenRules['tokenName'] = unbound;
export let tokenIndex: PathTokenRules['tokenIndex'] = unbound;
export let tokenText: PathTokenRules['tokenText'] = unbound;
export let ownMarkerCharacters: MarkedTextKit['ownMarkerCharacters'] = unbound;
export let markedField: MarkedTextKit['markedField'] = unbound;
export let codePointLength: MarkedTextKit['codePointLength'] = unbound;
/** A new marked-text builder (`toolkit.text.builder()`). */
export let markedText: MarkedTextKit['builder'] = unbound;
export let emptyAnswerHint: EngineToolkit['emptyAnswerHint'] = unbound;
export let arrayHolding: EngineToolkit['arrayHolding'] = unbound;

/** Called by `register` with `context.toolkit`. */
export function bindToolkit(toolkit: EngineToolkit): void {
  isJsonWhitespace = toolkit.json.isJsonWhitespace;
  skipJsonTextWhitespace = toolkit.json.skipJsonTextWhitespace;
  jsonTextStringEnd = toolkit.json.jsonTextStringEnd;
  jsonTextValueEnd = toolkit.json.jsonTextValueEnd;
  indexOfBytes = toolkit.bytes.indexOfBytes;
  caselessFinder = toolkit.bytes.caselessFinder;
  tokenName = toolkit.paths.tokenName;
  tokenIndex = toolkit.paths.tokenIndex;
  tokenText = toolkit.paths.tokenText;
  ownMarkerCharacters = toolkit.text.ownMarkerCharacters;
  markedField = toolkit.text.markedField;
  codePointLength = toolkit.text.codePointLength;
  markedText = toolkit.text.builder;
  emptyAnswerHint = toolkit.emptyAnswerHint;
  arrayHolding = toolkit.arrayHolding;
}
