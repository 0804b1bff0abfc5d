/**
 * Exact numbers for RFC 9535 comparisons (§2.3.5.2.2: numbers compare by value).
 *
 * Record values carry numbers a double cannot hold as `JSON.rawJSON` objects (src/kernel/records/parse.ts). json-p3
 * would see those as objects (selectable `rawJSON` member, never equal to a number), so evaluation runs on a copy
 * where each raw integer lexeme is a `bigint` and any other raw lexeme (`1.0`, `1e3`, `-0`, long decimals) its
 * double. Query literals that are integers beyond 2^53 become `bigint` too, and the comparison operators of every
 * filter are replaced (on the compiled instance only) by ones that compare `bigint` and `number` mathematically:
 * `9007199254740993n == 9007199254740992` is false, `9007199254740993n > 9007199254740992` is true.
 * Node values are then taken from the original value by location, so they keep their lexemes.
 */
import { JSONPathNodeList, Nothing } from 'json-p3';

const isRaw: (v: unknown) => boolean = (JSON as unknown as { isRawJSON(v: unknown): boolean }).isRawJSON;
const INTEGER = /^-?(0|[1-9][0-9]*)$/;
const NUMERAL = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

/**
 * Integers of more digits than this (written out or spelled with an exponent) compare as their double (±Infinity),
 * not as a bigint: parsing a bigint takes time that grows faster than its length (4 M digits: ~1 s), and every
 * per-value routine must stay linear.
 */
const MAX_EXACT_DIGITS = 1000;

/**
 * The number a numeral denotes for comparisons: its exact value as a `bigint` when it is an integer (whatever its
 * spelling: `12345678901234567891`, `1E400`, `2.50e1`, `100e-2`) that a double cannot hold, else a double (exact for
 * integers up to 2^53; decimals compare as their nearest double).
 */
export function rawToComparable(lexeme: string): number | bigint {
  const n = Number(lexeme);
  if (INTEGER.test(lexeme)) return Number.isSafeInteger(n) || lexeme.length > MAX_EXACT_DIGITS + 1 ? n : BigInt(lexeme);
  const m = NUMERAL.exec(lexeme);
  if (!m || Number.isSafeInteger(n)) return n;
  const digits = m[2]! + (m[3] ?? '');
  let first = 0;
  while (first < digits.length && digits.charCodeAt(first) === 0x30) first++;
  let last = digits.length - 1;
  while (last >= first && digits.charCodeAt(last) === 0x30) last--;
  if (last < first) return n; // zero
  const exp = Number(m[4] ?? 0);
  const lastPower = m[2]!.length - 1 - last + exp; // power of ten of the last non-zero digit
  const firstPower = m[2]!.length - 1 - first + exp;
  if (lastPower < 0 || firstPower >= MAX_EXACT_DIGITS) return n; // not an integer, or too long to spell out
  const value = BigInt(digits.slice(first, last + 1) + '0'.repeat(lastPower));
  return m[1] ? -value : value;
}

/**
 * `value` with every rawJSON number replaced by its comparable (copy-on-write: the same object when there are none).
 * Depth is bounded by the caller (records are parsed under maxDepth).
 */
export function comparable(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (isRaw(value)) return rawToComparable((value as { rawJSON: string }).rawJSON);
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

const isNum = (v: unknown): v is number | bigint => typeof v === 'number' || typeof v === 'bigint';

/** RFC 9535 §2.3.5.2.2 equality, with bigint and number compared by value. */
export function deepEqualsExact(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (isNum(a) && isNum(b)) return a == b; // eslint-disable-line eqeqeq -- exact mixed bigint/number comparison
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqualsExact(a[i], b[i])) return false;
    return true;
  }
  if (a !== null && b !== null && typeof a === 'object' && typeof b === 'object' && !Array.isArray(b)) {
    const ka = Object.keys(a), kb = Object.keys(b);
    if (ka.length !== kb.length) return false;
    for (const k of ka) {
      if (!Object.prototype.hasOwnProperty.call(b, k)) return false;
      if (!deepEqualsExact((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])) return false;
    }
    return true;
  }
  return false;
}

function eq(left: unknown, right: unknown): boolean {
  if (right instanceof JSONPathNodeList) [left, right] = [right, left];
  if (left instanceof JSONPathNodeList) {
    if (right instanceof JSONPathNodeList) {
      if (left.empty() && right.empty()) return true;
      if (left.nodes.length === 1 && right.nodes.length === 1) return deepEqualsExact(left.nodes[0]!.value, right.nodes[0]!.value);
    }
    if (left.empty()) return right === Nothing;
    if (left.nodes.length === 1) return deepEqualsExact(left.nodes[0]!.value, right);
    return false;
  }
  if (left === Nothing && right === Nothing) return true;
  return deepEqualsExact(left, right);
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

function lt(left: unknown, right: unknown): boolean {
  if (typeof left === 'string' && typeof right === 'string') return codePointLess(left, right);
  if (isNum(left) && isNum(right)) return left < right;
  return false;
}

/** RFC 9535 §2.3.5.2.2 comparison operators with exact numbers. */
export function compareExact(left: unknown, op: string, right: unknown): boolean {
  switch (op) {
    case '==': return eq(left, right);
    case '!=': return !eq(left, right);
    case '<': return lt(left, right);
    case '>': return lt(right, left);
    case '>=': return lt(right, left) || eq(left, right);
    case '<=': return lt(left, right) || eq(left, right);
    default: return false;
  }
}
