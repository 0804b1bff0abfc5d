import { compareNumerals } from '../engine/numbers/compare';
import { nestingDepth } from '../engine/records/parse';
import { hasIndexLikeName, restoreMemberOrder } from '../engine/records/member-order';
import { McpgwError } from '../kernel/errors';

/**
 * Exact numbers for a third-party query language built on an off-the-shelf JavaScript library (which reads numbers
 * as doubles). One representation, the "library form":
 * - a number whose value a double holds — its shortest spelling `String(n)` has the lexeme's value, as for `10`,
 *   `1.0`, `1e3`, `0.1`, `-0` — is a plain JavaScript number. Such numbers compare, sort and add in the library as
 *   their decimal values do: between two of them, the order of the doubles is the order of the values.
 * - any other number — an integer past 2^53 that no double holds (`9007199254740993`), more significant digits than a
 *   double keeps (`0.10000000000000000001`), past a double's range (`1e400`) — is `JSON.rawJSON(lexeme)`: an object
 *   `JSON.stringify` (and so the server) writes back digit for digit, whose `rawJSON` is the lexeme. A library sees
 *   it as an object: it never rounds it, but neither compares it (JMESPath's `<` gives null, `==` false). Compare
 *   such values with `compareNumerals(a, b)` (it takes `n.rawJSON` or a number), e.g. by evaluating the library's
 *   comparison nodes yourself (docs/writing-plugins.md "Query languages").
 * The values the engine hands `evaluate(value)` keep every number whose spelling a double changes (`1.0`, `1e3`) as
 * `JSON.rawJSON` too; `libraryNumbers(value)` turns those into the library form.
 */

/** True when `n` (the double `lexeme` parses to) holds the lexeme's value: `String(n)` is a spelling of it. */
function heldByDouble(n: number, lexeme: string): boolean {
  const shortest = String(n);
  return shortest === lexeme || (Number.isFinite(n) && compareNumerals(shortest, lexeme) === 0);
}

function revive(this: unknown, _key: string, value: unknown, context?: { source?: string }): unknown {
  if (typeof value === 'number' && context?.source !== undefined && !heldByDouble(value, context.source)) return JSON.rawJSON(context.source);
  return value;
}

/** Nesting past which `parseExactJson` refuses a text (the server's default `maxDepth`). */
const MAX_DEPTH = 2000;

/**
 * Parses JSON text into the library form (above): numbers a double holds are numbers, every other number is
 * `JSON.rawJSON(lexeme)`. Members in the text's order (names like array indexes too); the last of repeated member
 * names wins (as `JSON.parse`).
 * @throws SyntaxError as JSON.parse does; McpgwError RESOURCE_LIMIT_EXCEEDED (limit maxDepth) for nesting past `maxDepth` (default 2000)
 */
export function parseExactJson(text: string, options: { maxDepth?: number } = {}): unknown {
  const maxDepth = options.maxDepth ?? MAX_DEPTH;
  if (text.length > maxDepth && nestingDepth(text, maxDepth) > maxDepth) {
    throw new McpgwError('RESOURCE_LIMIT_EXCEEDED', `The JSON text nests deeper than maxDepth ${maxDepth}.`, { limit: { name: 'maxDepth', limit: maxDepth } });
  }
  const value: unknown = JSON.parse(text, revive as (this: unknown, key: string, value: unknown) => unknown);
  return hasIndexLikeName(text) ? restoreMemberOrder(text, value) : value;
}

/**
 * `value` (as the engine hands it to a query language: `JSON.rawJSON` for every number whose spelling a double would
 * change) in the library form: each `JSON.rawJSON` number a double holds becomes that number; the rest stay. A new
 * value where something changed (the engine's is never written to), else `value` itself. Iterative: any depth.
 */
export function libraryNumbers(value: unknown): unknown {
  const convert = (v: unknown): unknown => {
    if (v === null || typeof v !== 'object') return v;
    if (JSON.isRawJSON(v)) {
      const lexeme = (v as { rawJSON: string }).rawJSON;
      const n = Number(lexeme);
      return lexeme.length > 0 && lexeme[0] !== '"' && heldByDouble(n, lexeme) ? n : v;
    }
    return PENDING;
  };
  const top = convert(value);
  if (top !== PENDING) return top;
  // containers: copy-on-write, depth first, without recursion
  const root = { v: value as object, copy: null as Record<string, unknown> | unknown[] | null };
  const stack: { node: typeof root; keys: string[]; at: number; parent: { node: typeof root; key: string } | null }[] = [
    { node: root, keys: Object.keys(root.v), at: 0, parent: null },
  ];
  while (stack.length) {
    const frame = stack[stack.length - 1]!;
    if (frame.at === frame.keys.length) {
      stack.pop();
      if (frame.parent && frame.node.copy) put(frame.parent.node, frame.parent.key, frame.node.copy);
      continue;
    }
    const key = frame.keys[frame.at++]!;
    const child = (frame.node.v as Record<string, unknown>)[key];
    const c = convert(child);
    if (c === PENDING) {
      const node = { v: child as object, copy: null };
      stack.push({ node, keys: Object.keys(child as object), at: 0, parent: { node: frame.node, key } });
    } else if (c !== child) put(frame.node, key, c);
  }
  return root.copy ?? value;
}

const PENDING = Symbol('container');

/**
 * Sets `key` of the node's copy, made on its first change (an array stays an array; members keep their insertion
 * order), as an own data property (a member named `__proto__` too).
 */
function put(node: { v: object; copy: Record<string, unknown> | unknown[] | null }, key: string, value: unknown): void {
  node.copy ??= Array.isArray(node.v) ? [...node.v] : { ...(node.v as Record<string, unknown>) };
  Object.defineProperty(node.copy, key, { value, writable: true, enumerable: true, configurable: true });
}
