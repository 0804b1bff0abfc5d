/**
 * Record parsing for scans: the same values as `parseExact` (src/engine/records/parse.ts), faster.
 * A reviver that keeps lexemes costs ~3× a plain JSON.parse; it is only needed when some number lexeme does not
 * survive a round trip through a double (`String(Number(lexeme)) !== lexeme`). That happens only for: more than 15
 * significant digits, a fraction ending in 0 (`1.0`), an exponent, `-0`, or a value below 1e-6 (`0.0000001`).
 * {@link mayNeedExact} finds every such lexeme (a number token: after `:`, `,`, `[` or at the start, ending before
 * whitespace, `,`, `]`, `}` or the end; plus a few harmless look-alikes inside strings, and every `0`); records without any
 * parse with a plain JSON.parse.
 */
import { McpgwError, wellFormed } from '../../kernel/errors';
import { hasInexactNumeral, nestingDepth, parseExact, type ParseSite } from '../records/parse';
import { hasIndexLikeName, restoreMemberOrder } from '../records/member-order';

/** A number token start (after `:`, `,`, `[` or at the start) followed by a lexeme that may not round-trip. */
const NEEDS_EXACT = /(?:^|[:,[])\s*(?:-0|-?(?:[\d.]{16,}(?:[eE][-+]?\d+)?|\d+\.\d*0|\d[\d.]*[eE][-+]?\d+|0\.0{6}\d*))(?=[\s,\]}]|$)/;

export function mayNeedExact(text: string): boolean {
  try {
    return NEEDS_EXACT.test(text);
  } catch (err) {
    // The regular expression engine's backtracking stack overflows on a numeral of millions of digits.
    if (err instanceof RangeError) return hasInexactNumeral(text);
    throw err;
  }
}

/**
 * Parses one record's text exactly. `site` locates errors (called only on error).
 * @throws McpgwError SYNTAX_ERROR, RESOURCE_LIMIT_EXCEEDED (maxDepth)
 */
export function parseRecord(text: string, maxDepth: number, site: () => ParseSite): unknown {
  // Nesting needs at least one byte a level: short texts cannot exceed maxDepth.
  if (text.length > maxDepth || mayNeedExact(text)) return parseExact(text, site, maxDepth);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return parseExact(text, site, maxDepth); // locates the error precisely
  }
  // JSON.parse keeps an escaped lone surrogate; parseExact gives U+FFFD (RFC 8259 §8.2): the same value either way.
  if (hasSurrogateEscape(text)) value = wellFormed(value);
  // Members named like array indexes ("2") come back where the file has them, not first (records/member-order.ts).
  return value !== null && typeof value === 'object' && hasIndexLikeName(text) ? restoreMemberOrder(text, value) : value;
}

/** True when `text` holds a `\uD…` escape (a surrogate, paired or not; an escaped backslash before it may fool it). */
export function hasSurrogateEscape(text: string): boolean {
  for (let i = text.indexOf('\\u'); i !== -1; i = text.indexOf('\\u', i + 2)) {
    const c = text.charCodeAt(i + 2);
    if (c === 0x64 || c === 0x44) return true;
  }
  return false;
}

export { nestingDepth, McpgwError };
