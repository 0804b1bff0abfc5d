/**
 * What one token of a singular path selects (contracts/aggregate.ts `PathToken`), a service of the engine toolkit
 * (`context.toolkit.paths`): the one rule every reader of paths applies, in the kernel's aggregate and in plugins alike.
 * - a string or a number decides by the value it meets (RFC 6901 §4): in an array a number (negative counts from the
 *   end) or a string of array-index form (`0`, digits without a leading zero) is an element; in an object the token
 *   as a string names a member. JSON Pointers and dot paths read so;
 * - `{index}` is an RFC 9535 index selector (§2.3.3): an element of an array (negative from the end), nothing in an
 *   object;
 * - `{name}` is an RFC 9535 name selector (§2.3.1): a member of an object, nothing in an array.
 * Pure functions.
 */
import type { PathToken } from '../../kernel/contracts/aggregate';

/** RFC 6901 §4 array-index form: `0`, or digits without a leading zero. */
const ARRAY_INDEX = /^(?:0|[1-9][0-9]*)$/;

/** The member name `token` selects in an object, or undefined (an index selector selects none). */
export function tokenName(token: PathToken): string | undefined {
  if (typeof token === 'string') return token;
  if (typeof token === 'number') return String(token);
  return 'name' in token ? token.name : undefined;
}

/**
 * The element `token` selects in an array, negative counting from the end (the caller adds the length), or NaN
 * (a name selector, or a string not of array-index form: `-1`, `01`, `-` select nothing in an array).
 */
export function tokenIndex(token: PathToken): number {
  if (typeof token === 'number') return token;
  if (typeof token === 'string') return ARRAY_INDEX.test(token) ? Number(token) : NaN;
  return 'index' in token ? token.index : NaN;
}

/** The token as RFC 6901 reference-token text, for a pointer or a message: `{index: 0}` → `"0"`, `{name: "a"}` → `"a"`. */
export function tokenText(token: PathToken): string {
  return typeof token === 'object' ? ('index' in token ? String(token.index) : token.name) : String(token);
}
