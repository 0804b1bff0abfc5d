import type { CompiledQuery, ErrorCode, ErrorDetails, McpgwError, SequenceSplit } from 'mcpgw/plugin-api';
import { escapeToken as escape, parsePointer as parseRfc6901, PointerSyntaxError } from 'mcpgw/plugin-kit';

type MakeError = (code: ErrorCode, message: string, details?: ErrorDetails) => McpgwError;

const isRaw: (v: unknown) => boolean = (JSON as unknown as { isRawJSON(v: unknown): boolean }).isRawJSON;
/** RFC 6901 §4: array-index = %x30 / ( %x31-39 *%x30-39 ) */
const ARRAY_INDEX = /^(0|[1-9][0-9]*)$/;

/**
 * Parses an RFC 6901 pointer into reference tokens. `#…` is the URI fragment form (§6): percent-decoded (UTF-8)
 * first. `~1` → `/` then `~0` → `~` (§4, in that order, so `~01` is `~1`); any other `~` is an error.
 * @throws QUERY_SYNTAX_ERROR with the 0-based character position.
 */
export function parsePointer(text: string, makeError: MakeError): string[] {
  try {
    return parseRfc6901(text, { fragment: true });
  } catch (err) {
    if (!(err instanceof PointerSyntaxError)) throw err;
    const location = { position: err.position };
    if (err.reason === 'fragment') {
      throw makeError('QUERY_SYNTAX_ERROR', `JSON Pointer fragment ${JSON.stringify(text)} has a bad percent-encoding.`, {
        location, hint: 'Percent-encode as UTF-8 (RFC 3986), e.g. #/a%20b for the key "a b".',
      });
    }
    if (err.reason === 'start') {
      throw makeError('QUERY_SYNTAX_ERROR', `JSON Pointer ${JSON.stringify(text)} must be "" or start with "/" (character ${err.position}).`, {
        location, hint: 'RFC 6901 §3: a pointer is "" (the whole document) or /token/token…; e.g. /users/0/name.',
      });
    }
    throw makeError('QUERY_SYNTAX_ERROR', `JSON Pointer ${JSON.stringify(text)} has a bad escape at character ${err.position}: "~" must be followed by 0 or 1.`, {
      location, hint: 'RFC 6901 §3: write ~0 for "~" and ~1 for "/".',
    });
  }
}



/** Resolves tokens in `value`: own members only, canonical indexes only; undefined when it points at nothing. */
export function resolveTokens(value: unknown, tokens: readonly string[]): { found: boolean; value?: unknown } {
  let v = value;
  for (const t of tokens) {
    if (Array.isArray(v)) {
      if (!ARRAY_INDEX.test(t)) return { found: false }; // includes "-" (§4: the nonexistent element after the last)
      const i = Number(t);
      if (i >= v.length) return { found: false };
      v = v[i];
    } else if (v !== null && typeof v === 'object' && !isRaw(v)) {
      if (!Object.prototype.hasOwnProperty.call(v, t)) return { found: false };
      v = (v as Record<string, unknown>)[t];
    } else return { found: false };
  }
  return { found: true, value: v };
}

/** Compiles an RFC 6901 pointer. Node list: one node at the pointer's location, or none. */
export function compilePointer(text: string, makeError: MakeError): CompiledQuery {
  const tokens = parsePointer(text, makeError);
  const path = tokens.map((t) => '/' + escape(t)).join('');
  const evaluate = (value: unknown) => {
    const r = resolveTokens(value, tokens);
    return r.found ? [{ path, value: r.value }] : [];
  };
  const compiled: { -readonly [K in keyof CompiledQuery]: CompiledQuery[K] } = { text, language: 'pointer', evaluate };
  // Tokens that can only be member names (not array indexes), for explaining an empty answer.
  const names = tokens.filter((t) => !ARRAY_INDEX.test(t) && t !== '-');
  if (names.length) compiled.memberNames = [...new Set(names)];
  if (tokens.length > 0) compiled.requiredLiterals = undefined;
  // Over a sequence root: the first token picks one record (a canonical index), the rest runs inside it.
  if (tokens.length > 0) {
    const first = tokens[0]!;
    const rest = tokens.slice(1);
    const restPath = rest.map((t) => '/' + escape(t)).join('');
    const inner: CompiledQuery | null = rest.length === 0 ? null : {
      text: restPath, language: 'pointer',
      evaluate: (value: unknown) => { const r = resolveTokens(value, rest); return r.found ? [{ path: restPath, value: r.value }] : []; },
    };
    const split: SequenceSplit = {
      range: (n) => {
        if (!ARRAY_INDEX.test(first) || Number(first) >= n) return { start: 0, end: 0, step: 1 };
        const i = Number(first);
        return { start: i, end: i + 1, step: 1 };
      },
      inner,
    };
    compiled.split = split;
  }
  delete compiled.requiredLiterals;
  // For documents too large to parse: one token segment per reference token.
  compiled.segments = tokens.map((token) => ({ descendant: false, selectors: [{ kind: 'token', token }] }));
  compiled.rest = (k: number) => (k === 0 ? compiled : compilePointer(tokens.slice(k).map((t) => '/' + escape(t)).join(''), makeError));
  return compiled;
}
