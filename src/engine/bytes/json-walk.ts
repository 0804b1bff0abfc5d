/**
 * The JSON walker: where a string ends, where a value ends, where whitespace ends (RFC 8259 §2, §7), over bytes and
 * over JSON text held as a string. Every reader of the engine and the plugins that walks JSON without parsing it uses
 * these (the structural scanner, on-demand member reads, the aggregate's member check, lazy nodes, the JSON layout,
 * the explorer's spans); a runtime export of the plugin API. Pure functions, no state.
 *
 * Strings: a short body (up to SHORT_STRING bytes) is walked in place with one table lookup a byte, a longer one is
 * searched with `indexOf` of the quote (memchr on a Buffer), each quote found checked by counting the backslashes
 * before it.
 */

/** 1 for the four JSON whitespace bytes (or UTF-16 code units below 256): 0x20, 0x09, 0x0A, 0x0D. */
export const JSON_WS = new Uint8Array(256);
JSON_WS[0x20] = 1; JSON_WS[0x09] = 1; JSON_WS[0x0a] = 1; JSON_WS[0x0d] = 1;

/** 1 for what ends a number or literal (`true`, `false`, `null`): whitespace, `,`, `}`, `]`. */
const SCALAR_END = JSON_WS.slice();
SCALAR_END[0x2c] = 1; SCALAR_END[0x7d] = 1; SCALAR_END[0x5d] = 1;

/** String bodies up to this many bytes are walked in place; the rest of a longer one is searched with `indexOf`. */
const SHORT_STRING = 48;

const QUOTE = 0x22, BACKSLASH = 0x5c, LBRACE = 0x7b, RBRACE = 0x7d, LBRACKET = 0x5b, RBRACKET = 0x5d;

/** True for the four JSON whitespace bytes (or UTF-16 code units): 0x20, 0x09, 0x0A, 0x0D. */
export function isJsonWhitespace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/** The first index at or after `from` (below `to`, default the end) that is not JSON whitespace; `to` when none is. */
export function skipJsonWhitespace(bytes: Uint8Array, from: number, to = bytes.length): number {
  let i = from;
  while (i < to && JSON_WS[bytes[i]!] === 1) i++;
  return i;
}

/**
 * The end (exclusive: past the closing quote) of a string whose body starts at `from` in `b` (the byte after the
 * opening quote, or any later byte that is not inside an escape), or -1 when it does not close before `to`
 * (`jsonEndsInEscape` then says whether `b[from, to)` stops inside an escape).
 */
export function jsonStringBodyEnd(b: Uint8Array, from: number, to: number): number {
  let j = from;
  const lim = j + SHORT_STRING < to ? j + SHORT_STRING : to;
  while (j < lim) {
    const c = b[j]!;
    if (c === QUOTE) return j + 1;
    j += c === BACKSLASH ? 2 : 1; // a backslash skips the byte it escapes
  }
  if (j >= to) return -1;
  for (;;) {
    const q = b.indexOf(QUOTE, j);
    if (q === -1 || q >= to) return -1;
    if (b[q - 1] !== BACKSLASH) return q + 1;
    let k = q - 1, bs = 0;
    while (k >= from && b[k] === BACKSLASH) { bs++; k--; }
    if ((bs & 1) === 0) return q + 1;
    j = q + 1;
  }
}

/** True when the string body bytes `b[from, to)` (`from` not inside an escape) end inside an escape (`\` then nothing). */
export function jsonEndsInEscape(b: Uint8Array, from: number, to: number): boolean {
  let k = to - 1, bs = 0;
  while (k >= from && b[k] === BACKSLASH) { bs++; k--; }
  return (bs & 1) === 1;
}

/** The end (exclusive) of the string whose opening quote is at `p`, or -1 when it does not close before `to`. */
export function jsonStringEnd(b: Uint8Array, p: number, to: number): number {
  return jsonStringBodyEnd(b, p + 1, to);
}

/**
 * The end (exclusive) of the JSON value starting at `p` (no whitespace before it) in `b[p, to)`, or -1: a string or
 * container that does not close before `to`, a container nested deeper than `maxDepth`, or no scalar at `p`.
 * Containers are followed by their brackets and strings, not checked: for bytes known well-formed, or checked after.
 */
export function jsonValueEnd(b: Uint8Array, p: number, to: number, maxDepth = 0x7fffffff): number {
  const c = b[p]!;
  if (c === QUOTE) return jsonStringBodyEnd(b, p + 1, to);
  if (c === LBRACE || c === LBRACKET) {
    let depth = 0;
    for (let q = p; q < to; q++) {
      const d = b[q]!;
      if (d === QUOTE) {
        q = jsonStringBodyEnd(b, q + 1, to) - 1;
        if (q < 0) return -1;
      } else if (d === LBRACE || d === LBRACKET) {
        if (++depth > maxDepth) return -1;
      } else if (d === RBRACE || d === RBRACKET) {
        if (--depth === 0) return q + 1;
      }
    }
    return -1;
  }
  let q = p;
  while (q < to && SCALAR_END[b[q]!] === 0) q++;
  return q > p ? q : -1;
}

// JSON text held as a string (UTF-16 code units; JSON's structural characters are the same ASCII units). For text
// already known valid: what does not close ends at the text's end.

/** The first index at or after `from` in `text` that is not JSON whitespace; `text.length` when none is. */
export function skipJsonTextWhitespace(text: string, from: number): number {
  let i = from;
  while (i < text.length && isJsonWhitespace(text.charCodeAt(i))) i++;
  return i;
}

/**
 * The end (exclusive) of the string literal whose opening quote is at `i` in valid JSON `text` (`text.length` if it
 * does not close). Quotes found with `indexOf`, which on a string beats a walk in place even for short ones.
 */
export function jsonTextStringEnd(text: string, i: number): number {
  let j = i + 1;
  for (;;) {
    const q = text.indexOf('"', j);
    if (q === -1) return text.length;
    let bs = 0;
    for (let k = q - 1; k > i && text.charCodeAt(k) === BACKSLASH; k--) bs++;
    if ((bs & 1) === 0) return q + 1;
    j = q + 1;
  }
}

/** The end (exclusive) of the JSON value starting at `i` (no whitespace before it) in valid JSON `text`. Iterative. */
export function jsonTextValueEnd(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c === QUOTE) return jsonTextStringEnd(text, i);
  if (c !== LBRACE && c !== LBRACKET) {
    let j = i + 1;
    while (j < text.length && !isJsonScalarEnd(text.charCodeAt(j))) j++;
    return j;
  }
  let depth = 0;
  for (let j = i; j < text.length; j++) {
    const d = text.charCodeAt(j);
    if (d === QUOTE) j = jsonTextStringEnd(text, j) - 1;
    else if (d === LBRACE || d === LBRACKET) depth++;
    else if ((d === RBRACE || d === RBRACKET) && --depth === 0) return j + 1;
  }
  return text.length;
}

/** True for what ends a number or literal in JSON text: whitespace, `,`, `}`, `]`. */
export function isJsonScalarEnd(c: number): boolean {
  return c < 256 && SCALAR_END[c] === 1;
}
