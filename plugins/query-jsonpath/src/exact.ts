/**
 * Exact numbers for RFC 9535 comparisons (§2.3.5.2.2: numbers compare by value).
 *
 * Record values carry numbers a double cannot hold as `JSON.rawJSON` objects (the kernel's exact parse). json-p3
 * would see those as objects (selectable `rawJSON` member, never equal to a number), so evaluation runs on a copy
 * where each of them is an {@link ExactNumber}: a value without members that holds the lexeme. Number literals of the
 * query whose lexeme a double would change (`1.0`, `1e400`, `0.1000000000000000000001`, `9007199254740993`) become
 * one too, and the comparison operators of every filter are replaced (on the compiled instance only) by ones that
 * compare numbers through the kernel's `compareNumerals` (`registry.records`): exactly, in time linear in the lexemes,
 * `1e400 < 1e401`, `-0 == 0`, `0.000…01 > 0`. Plain JavaScript numbers in values stand for their shortest spelling,
 * which is their lexeme (the parse keeps a double only then), so two of them compare as doubles, exactly.
 * Node values are then taken from the original value by location, so they keep their lexemes.
 */
import { JSONPathNodeList, Nothing } from 'json-p3';

const isRaw: (v: unknown) => boolean = (JSON as unknown as { isRawJSON(v: unknown): boolean }).isRawJSON;

/** The kernel's exact comparison of two numbers (RecordsToolkit.compareNumerals): -1, 0 or 1. */
export type CompareNumerals = (a: string | number, b: string | number) => -1 | 0 | 1;

/**
 * A number whose lexeme a double would change, as evaluation sees it: an object without own members (selectors,
 * wildcards and filters find nothing in it, `length()` gives Nothing), compared by value through its lexeme.
 */
export class ExactNumber {
  readonly #lexeme: string;
  constructor(lexeme: string) {
    this.#lexeme = lexeme;
  }
  /** The JSON number lexeme (RFC 8259 §6). */
  get lexeme(): string {
    return this.#lexeme;
  }
  /** The lexeme (json-p3 spells a literal with `String(value)` when it prints a query). */
  toString(): string {
    return this.#lexeme;
  }
}

/** A numeral as evaluation sees it: a double when that spells it (`String(n) === lexeme`), else an {@link ExactNumber}. */
export function exactOf(lexeme: string): number | ExactNumber {
  const n = Number(lexeme);
  return String(n) === lexeme ? n : new ExactNumber(lexeme);
}

/**
 * `value` with every rawJSON number replaced by its comparable (copy-on-write: the same object when there are none).
 * Depth is bounded by the caller (records are parsed under maxDepth).
 */
export function comparable(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (isRaw(value)) return new ExactNumber((value as { rawJSON: string }).rawJSON);
  if (Array.isArray(value)) {
    let out: unknown[] | null = null;
    for (let i = 0; i < value.length; i++) {
      const v = value[i];
      const c = comparable(v);
      if (c !== v) {
        if (!out) out = value.slice();
        out[i] = c;
      }
    }
    return out ?? value;
  }
  let out: Record<string, unknown> | null = null;
  const obj = value as Record<string, unknown>;
  for (const k of Object.keys(obj)) {
    const v = obj[k];
    const c = comparable(v);
    if (c !== v) {
      if (!out) out = copyObject(obj);
      out[k] = c;
    }
  }
  return out ?? value;
}

/** A plain copy keeping key order and own `__proto__` members as data. */
function copyObject(obj: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(obj)) Object.defineProperty(out, k, { value: obj[k], writable: true, enumerable: true, configurable: true });
  return out;
}

/** True when `value` holds a rawJSON number anywhere (then evaluation needs a comparable copy). */
export function hasRaw(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (isRaw(value)) return true;
  if (Array.isArray(value)) {
    for (const v of value) if (hasRaw(v)) return true;
    return false;
  }
  for (const k in value as object) if (hasRaw((value as Record<string, unknown>)[k])) return true;
  return false;
}

const isNum = (v: unknown): v is number | ExactNumber => typeof v === 'number' || v instanceof ExactNumber;
const lexemeOf = (v: number | ExactNumber): string | number => (typeof v === 'number' ? v : v.lexeme);

/** RFC 9535 §2.3.5.2.2 comparisons with exact numbers, over the kernel's `compareNumerals`. */
export interface ExactComparisons {
  /** `left op right` for op `==`, `!=`, `<`, `<=`, `>`, `>=` (node lists of one node compare as their value). */
  compare(left: unknown, op: string, right: unknown): boolean;
  /** Deep equality: numbers by value, arrays element by element, objects member by member. */
  equals(a: unknown, b: unknown): boolean;
}

export function exactComparisons(numerals: CompareNumerals): ExactComparisons {
  const deepEquals = (a: unknown, b: unknown): boolean => {
    if (a === b) return true;
    if (isNum(a) || isNum(b)) return isNum(a) && isNum(b) && numerals(lexemeOf(a), lexemeOf(b)) === 0;
    if (Array.isArray(a)) {
      if (!Array.isArray(b) || a.length !== b.length) return false;
      for (let i = 0; i < a.length; i++) if (!deepEquals(a[i], b[i])) return false;
      return true;
    }
    if (a !== null && b !== null && typeof a === 'object' && typeof b === 'object' && !Array.isArray(b)) {
      const ka = Object.keys(a), kb = Object.keys(b);
      if (ka.length !== kb.length) return false;
      for (const k of ka) {
        if (!Object.prototype.hasOwnProperty.call(b, k)) return false;
        if (!deepEquals((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])) return false;
      }
      return true;
    }
    return false;
  };

  const eq = (left: unknown, right: unknown): boolean => {
    if (right instanceof JSONPathNodeList) [left, right] = [right, left];
    if (left instanceof JSONPathNodeList) {
      if (right instanceof JSONPathNodeList) {
        if (left.empty() && right.empty()) return true;
        if (left.nodes.length === 1 && right.nodes.length === 1) return deepEquals(left.nodes[0]!.value, right.nodes[0]!.value);
      }
      if (left.empty()) return right === Nothing;
      if (left.nodes.length === 1) return deepEquals(left.nodes[0]!.value, right);
      return false;
    }
    if (left === Nothing && right === Nothing) return true;
    return deepEquals(left, right);
  };

  const lt = (left: unknown, right: unknown): boolean => {
    if (typeof left === 'string' && typeof right === 'string') return codePointLess(left, right);
    if (isNum(left) && isNum(right)) return numerals(lexemeOf(left), lexemeOf(right)) < 0;
    return false;
  };

  return {
    equals: deepEquals,
    compare(left, op, right) {
      switch (op) {
        case '==': return eq(left, right);
        case '!=': return !eq(left, right);
        case '<': return lt(left, right);
        case '>': return lt(right, left);
        case '>=': return lt(right, left) || eq(left, right);
        case '<=': return lt(left, right) || eq(left, right);
        default: return false;
      }
    },
  };
}

/**
 * `a < b` by Unicode code point (RFC 9535 §2.3.5.2.2: strings compare by their Unicode scalar values). JavaScript's
 * `<` compares UTF-16 units, which orders U+FF61 after U+1F600 (0xFF61 > 0xD83D); UTF-16 order differs from code point
 * order only where a unit in U+E000–U+FFFF meets a surrogate.
 */
export function codePointLess(a: string, b: string): boolean {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i), y = b.charCodeAt(i);
    if (x === y) continue;
    // Surrogates (U+D800–U+DFFF) stand for code points above U+FFFF: rank them above U+E000–U+FFFF.
    const rx = x >= 0xd800 && x <= 0xdfff ? x + 0x2000 : x >= 0xe000 ? x - 0x800 : x;
    const ry = y >= 0xd800 && y <= 0xdfff ? y + 0x2000 : y >= 0xe000 ? y - 0x800 : y;
    return rx < ry;
  }
  return a.length < b.length;
}
