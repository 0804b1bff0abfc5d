import type { EngineToolkit } from '../kernel/contracts/toolkit';
import { caselessFinder, indexOfBytes, indexOfCaseless } from './bytes/bytes';
import { isJsonWhitespace, jsonStringEnd, jsonTextStringEnd, jsonTextValueEnd, jsonValueEnd, skipJsonTextWhitespace, skipJsonWhitespace } from './bytes/json-walk';
import { leb128, sleb128, wasmModule, wasmVec, WasmType } from './bytes/wasm';
import { tokenIndex, tokenName, tokenText } from './paths/path-token';
import { codePointLength, markedField, MarkedTextBuilder, ownMarkerCharacters } from './text/marked-text';
import { arrayHolding, emptyAnswerHint } from './scan/empty-answer-hint';

/**
 * The engine's stateless helpers as one service (`Tokens.Toolkit`, contracts/toolkit.ts), registered by the
 * composition root and handed to plugins as `PluginContext.toolkit` (on worker threads too). Plain functions, no state.
 */
export const engineToolkit: EngineToolkit = Object.freeze({
  json: Object.freeze({ isJsonWhitespace, skipJsonWhitespace, jsonStringEnd, jsonValueEnd, skipJsonTextWhitespace, jsonTextStringEnd, jsonTextValueEnd }),
  bytes: Object.freeze({ indexOfBytes, caselessFinder, indexOfCaseless }),
  paths: Object.freeze({ tokenName, tokenIndex, tokenText }),
  text: Object.freeze({ builder: () => new MarkedTextBuilder(), ownMarkerCharacters, markedField, codePointLength }),
  wasm: Object.freeze({ leb128, sleb128, vec: wasmVec, types: WasmType, module: wasmModule }),
  emptyAnswerHint,
  arrayHolding,
});
