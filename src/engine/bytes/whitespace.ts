/**
 * JSON whitespace (RFC 8259 §2: space, horizontal tab, line feed, carriage return), a runtime export of the plugin
 * API for format plugins that frame records in bytes. Pure functions.
 */

/** True for the four JSON whitespace bytes (or UTF-16 code units): 0x20, 0x09, 0x0A, 0x0D. */
export function isJsonWhitespace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/** The first index at or after `from` (below `to`, default the end) that is not JSON whitespace; `to` when none is. */
export function skipJsonWhitespace(bytes: Uint8Array, from: number, to = bytes.length): number {
  let i = from;
  while (i < to && isJsonWhitespace(bytes[i]!)) i++;
  return i;
}
