/**
 * Member order as the file has it. A JavaScript object lists integer-like property names ("0", "10", "4294967294")
 * first, in ascending order, then the others in insertion order (ECMA-262 §10.1.11.1 OrdinaryOwnPropertyKeys), so
 * `JSON.parse('{"b":1,"2":2}')` stringifies back as `{"2":2,"b":1}`. RFC 8259 §4 leaves member order to the
 * implementation, but users compare our answers with the file: we give it back as written.
 *
 * {@link restoreMemberOrder} walks the JSON text beside its parsed value and replaces each object whose members the
 * runtime reordered by a proxy over it that lists its names in file order (JSON.stringify, Object.keys and `for…in`
 * follow a proxy's `ownKeys`). Only texts that {@link hasIndexLikeName} flags pay for the walk.
 */
import { jsonTextStringEnd, jsonTextValueEnd, skipJsonTextWhitespace } from '../bytes/json-walk';

/** A member name that is a canonical array index (`"0"`, `"17"`): the only names a runtime moves to the front. */
const INDEX_LIKE_NAME = /"(?:0|[1-9]\d{0,9})"\s*:/;
const INDEX_LIKE = /^(?:0|[1-9]\d{0,9})$/;

/** True when `text` may hold an object member named like an array index (a look-alike inside a string only costs a walk). */
export function hasIndexLikeName(text: string): boolean {
  return INDEX_LIKE_NAME.test(text);
}

interface Frame {
  value: Record<string, unknown> | unknown[];
  array: boolean;
  index: number;
  /** Member names in file order, each once (a duplicate keeps its first place, as JSON.parse does). */
  names: string[];
  seen: Set<string> | null;
  indexLike: boolean;
  parent: Frame | undefined;
  slot: string | number | undefined;
}

/**
 * Returns `value` (the parse of valid JSON `text`, after any repair of lone surrogates) with every object whose own
 * property order differs from its member order in `text` replaced by an order-keeping proxy. Iterative; linear in
 * `text`. Objects are changed in place (a child proxy is stored in its parent); the root may be replaced.
 */
export function restoreMemberOrder(text: string, value: unknown): unknown {
  let result = value;
  let frame: Frame | undefined;
  let slot: string | number | undefined;
  let current: unknown = value;
  let i = skipJsonTextWhitespace(text, 0);
  for (;;) {
    const c = text.charCodeAt(i);
    // The text's container and the value's agree (an earlier occurrence of a repeated name, whose value the last one
    // replaced, may not: it is skipped; so is an exact number, a JSON.rawJSON object).
    const array = c === 0x5b;
    if ((c === 0x7b || array) && current !== null && typeof current === 'object' && Array.isArray(current) === array && !JSON.isRawJSON(current)) {
      frame = { value: current as Frame['value'], array, index: 0, names: [], seen: null, indexLike: false, parent: frame, slot };
      i = skipJsonTextWhitespace(text, i + 1);
      const d = text.charCodeAt(i);
      if (d !== 0x7d && d !== 0x5d) {
        if (array) { slot = 0; current = (frame.value as unknown[])[0]; }
        else { i = readName(text, i, frame); slot = lastName; current = (frame.value as Record<string, unknown>)[lastName]; }
        continue;
      }
    } else {
      i = jsonTextValueEnd(text, i);
    }
    // After a value: continue its container, or close containers.
    for (;;) {
      if (!frame) return result;
      i = skipJsonTextWhitespace(text, i);
      if (text.charCodeAt(i) === 0x2c) {
        i = skipJsonTextWhitespace(text, i + 1);
        if (frame.array) { slot = ++frame.index; current = (frame.value as unknown[])[frame.index]; }
        else { i = readName(text, i, frame); slot = lastName; current = (frame.value as Record<string, unknown>)[lastName]; }
        break;
      }
      i++; // `}` or `]`
      const done = frame;
      frame = frame.parent;
      if (!done.array && done.indexLike && done.names.length > 1) {
        const replaced = inFileOrder(done.value as Record<string, unknown>, done.names);
        if (replaced !== done.value) {
          if (!frame) result = replaced;
          else if (frame.array) (frame.value as unknown[])[done.slot as number] = replaced;
          else Object.defineProperty(frame.value, done.slot as string, { value: replaced });
        }
      }
    }
  }
}

let lastName = '';

/** Reads the member name at `i` (its opening quote) into `frame`; returns the index after the `:` and whitespace. */
function readName(text: string, i: number, frame: Frame): number {
  const end = jsonTextStringEnd(text, i);
  let name = JSON.parse(text.slice(i, end)) as string;
  if (!name.isWellFormed()) name = name.toWellFormed();
  lastName = name;
  if (INDEX_LIKE.test(name)) frame.indexLike = true;
  if (frame.seen) {
    if (!frame.seen.has(name)) { frame.seen.add(name); frame.names.push(name); }
  } else if (frame.names.length < 16) {
    if (!frame.names.includes(name)) frame.names.push(name);
  } else {
    frame.seen = new Set(frame.names);
    if (!frame.seen.has(name)) { frame.seen.add(name); frame.names.push(name); }
  }
  return skipJsonTextWhitespace(text, skipJsonTextWhitespace(text, end) + 1);
}

/** `target` itself when its own string keys already come in `names`' order, else a proxy that lists them so. */
function inFileOrder(target: Record<string, unknown>, names: string[]): Record<string, unknown> {
  const own = Object.keys(target);
  if (own.length === names.length && own.every((k, n) => k === names[n])) return target;
  return new Proxy(target, {
    ownKeys(t) {
      const keys = Reflect.ownKeys(t);
      // Unchanged since the parse (the usual case): the file's order.
      if (keys.length === names.length && names.every((k) => Object.hasOwn(t, k))) return names.slice();
      // Changed by its user: the file's names still there, in file order, then the others in the runtime's order.
      const kept = names.filter((k) => Object.hasOwn(t, k));
      const known = new Set(kept);
      return [...kept, ...keys.filter((k) => typeof k !== 'string' || !known.has(k))];
    },
  });
}
