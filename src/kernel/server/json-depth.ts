/**
 * Nesting depth of JSON text, measured on its bytes before anything parses it: a protocol message nested past
 * {@link MESSAGE_MAX_DEPTH} is refused at once (a 4 MiB body of brackets nested 2 M deep otherwise cost seconds of
 * parsing and hundreds of MiB, on the event loop every client shares). One pass, no allocation.
 */

/** How deep a JSON-RPC message may nest (arrays and objects); tool arguments need a handful of levels. */
export const MESSAGE_MAX_DEPTH = 512;

/**
 * The byte offset where `bytes` first nests deeper than `max` (outside strings), or -1 when it never does. Malformed
 * text is not judged here (the parser that runs next reports it).
 */
export function depthExceededAt(bytes: Uint8Array, max = MESSAGE_MAX_DEPTH): number {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    if (inString) {
      if (b === 0x5c) i++; // a backslash escapes the next byte (\" \\ …)
      else if (b === 0x22) inString = false;
      continue;
    }
    if (b === 0x22) inString = true;
    else if (b === 0x5b || b === 0x7b) {
      if (++depth > max) return i;
    } else if (b === 0x5d || b === 0x7d) depth--;
  }
  return -1;
}
