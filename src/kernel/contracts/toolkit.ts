import type { CompiledQuery } from './query';
import type { Addressing } from './scan';
import type { RecordSource } from './format';
import type { PathToken } from './aggregate';
import type { ToolContext } from './tool';

/**
 * The engine's stateless helpers a plugin may use (`Tokens.Toolkit`; `PluginContext.toolkit`): the JSON walker, byte
 * search, path-token rules, marked text, WebAssembly encoding and the empty-answer hint. They are services, not
 * exports of a module: a plugin is handed the running engine's, as it is handed `records` (docs/architecture.md
 * "Plugin API"). A plugin keeps what it needs from `register`'s context (the built-ins bind it once per module).
 */
export interface EngineToolkit {
  readonly json: JsonWalker;
  readonly bytes: ByteSearch;
  readonly paths: PathTokenRules;
  readonly text: MarkedTextKit;
  readonly wasm: WasmEncoder;
  /**
   * For an empty answer of `query` over `source`: the sentence that explains it by the member names no record
   * examined has (with the nearest names seen), or by the query matching when `$` is read the other way; undefined
   * when there is nothing to say. Within the call's `limits.detailTimeMs` and deadline.
   */
  emptyAnswerHint(ctx: ToolContext, source: RecordSource, query: CompiledQuery, addressing?: Addressing): Promise<string | undefined>;
  /** In a one-document file: a JSONPath to the elements of its (first top-level) array holding one of `names` (`$.items[*]`). */
  arrayHolding(source: RecordSource, names: readonly string[]): string | undefined;
}

/** The JSON walker (RFC 8259) over bytes, and over valid JSON text held as a string; -1 (bytes) when a string or value does not end before `to`. */
export interface JsonWalker {
  isJsonWhitespace(byte: number): boolean;
  skipJsonWhitespace(bytes: Uint8Array, from: number, to?: number): number;
  /** The end (exclusive) of the string whose opening quote is at `quoteAt`, or -1. */
  jsonStringEnd(bytes: Uint8Array, quoteAt: number, to: number): number;
  /** The end (exclusive) of the value starting at `at`, or -1; nesting past `maxDepth` is -1 too. */
  jsonValueEnd(bytes: Uint8Array, at: number, to: number, maxDepth?: number): number;
  skipJsonTextWhitespace(text: string, from: number): number;
  jsonTextStringEnd(text: string, quoteAt: number): number;
  jsonTextValueEnd(text: string, at: number): number;
}

/** Byte search on a literal's rarest bytes, exact or ignoring ASCII case (fast where `Buffer#indexOf` crawls). */
export interface ByteSearch {
  /** What `hay.indexOf(needle, from)` gives. */
  indexOfBytes(hay: Buffer, needle: Buffer, from: number): number;
  /** A finder of `needle` ignoring ASCII case in `hay` (which must not change): `find(from)` → position or -1. */
  caselessFinder(hay: Buffer, needle: Buffer): (from: number) => number;
  indexOfCaseless(hay: Buffer, needle: Buffer, from: number): number;
}

/** What one token of a singular path (`PathToken`) selects: RFC 6901 by the value met, or an RFC 9535 index or name selector. */
export interface PathTokenRules {
  /** The member name the token selects in an object, or undefined. */
  tokenName(token: PathToken): string | undefined;
  /** The element it selects in an array (negative from the end), or NaN. */
  tokenIndex(token: PathToken): number;
  /** The token as RFC 6901 reference-token text. */
  tokenText(token: PathToken): string;
}

/**
 * Text a tool shows that mixes the data's own characters with marker characters the tool adds — `«` and `»` around
 * a hit, `…` where text was cut — and where those markers are (code points from the text's start, ascending).
 */
export interface MarkedText {
  text: string;
  markers: number[];
}

/** Builds a MarkedText: `data` appends the data's characters, `mark` one marker character, `append` another marked text. */
export interface MarkedTextBuilder {
  readonly markers: number[];
  data(s: string): this;
  mark(m: '«' | '»' | '…'): this;
  append(p: MarkedText): this;
  build(): MarkedText;
}

/** Marked text (see MarkedText): the builder and the rules every answer field of marked text follows. */
export interface MarkedTextKit {
  builder(): MarkedTextBuilder;
  /** True when the text holds one of `characters` (default `«»…`) of the data's own, so the answer must give the positions. */
  ownMarkerCharacters(p: MarkedText, characters?: string): boolean;
  /** `{name: text}` and, only when the text holds a `…` of the data's own, `name_markers: positions`. */
  markedField<N extends string>(name: N, p: MarkedText): { [K in N]: string } & { [K in `${N}_markers`]?: number[] };
  /** Code points of `s` (a lone surrogate counts as one). */
  codePointLength(s: string): number;
}

/** One module of `WasmEncoder.module`: its function, its memory, and their names (WebAssembly core 2.0 §5). */
export interface WasmFunctionSpec {
  name: string;
  /** Parameter types (`WasmEncoder.types` values) and the result type, if any. */
  params: number[];
  result?: number;
  /** Local variables after the parameters, as runs of one type: `[[count, type], …]`. */
  locals: [number, number][];
  /** The instructions, ending with `end` (0x0B). */
  body: number[];
  /** Imported (`import: [module, field]`, at least `pages`), or the module's own exported under `export`. */
  memory: { import: [string, string]; pages: number } | { export: string; pages: number };
}

/** WebAssembly binary encoding for a plugin's own SIMD loop: LEB128 numbers and a module of one function over one memory. */
export interface WasmEncoder {
  leb128(n: number): number[];
  sleb128(n: number): number[];
  vec(items: number[][]): number[];
  readonly types: { readonly i32: number; readonly i64: number; readonly f32: number; readonly f64: number; readonly v128: number };
  module(spec: WasmFunctionSpec): Uint8Array;
}
