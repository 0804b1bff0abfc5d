/** Helpers over parsed record values (numbers that a double cannot hold are `JSON.rawJSON` objects). */
import type { PathToken } from 'mcpgw/plugin-api';
import { tokenIndex, tokenName } from '../toolkit';

declare global {
  interface JSON {
    rawJSON(text: string): unknown;
    isRawJSON(value: unknown): boolean;
  }
}

export type ValueType = 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean' | 'null';

export function isRaw(v: unknown): boolean {
  return typeof v === 'object' && v !== null && JSON.isRawJSON(v);
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !JSON.isRawJSON(v);
}

/**
 * True when the number lexeme has a zero fractional part (JSON Schema 2020-12 Validation §6.1.1:
 * "integer" matches any number with a zero fractional part), decided on the digits, not on a double:
 * the last non-zero significant digit must sit at a power of ten ≥ 0 once the exponent is applied
 * (`1E2`, `2.50e1`, `100e-2`, `-0`, `1E400` are integers; `1e-5`, `150e-2`, `12E-1`, `0.5` are not).
 */
export function lexemeIsInteger(lexeme: string): boolean {
  const m = /^-?(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(lexeme);
  if (!m) return false;
  const digits = m[1]! + (m[2] ?? '');
  let last = digits.length - 1;
  while (last >= 0 && digits.charCodeAt(last) === 0x30) last--;
  if (last < 0) return true; // zero
  // Power of ten of digit j: (integer digits - 1 - j) + exponent.
  return m[1]!.length - 1 - last + Number(m[3] ?? 0) >= 0;
}

/** The JSON Schema type name of a parsed value, `integer` told from `number` on the number's lexeme. */
export function typeOf(v: unknown): ValueType {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  switch (typeof v) {
    case 'string': return 'string';
    case 'boolean': return 'boolean';
    case 'number': return Number.isInteger(v) ? 'integer' : 'number';
    case 'bigint': return 'integer';
    default:
      if (isRaw(v)) return lexemeIsInteger(JSON.stringify(v)) ? 'integer' : 'number';
      return 'object';
  }
}

/**
 * The values at `tokens` inside `value`, each token selecting by the value it meets (`tokenIndex`, `tokenName`:
 * `0`, `[-1]` index arrays and name members of objects; a JSONPath `[0]` only indexes, `['0']` only names). With
 * `spread`, a dot path's or pointer's name (a string not of array-index form) applied to an array descends into
 * each of its elements (so `items.name` reaches the name of every item); a JSONPath name selector never does.
 */
export function valuesAt(value: unknown, tokens: readonly PathToken[], spread = true): unknown[] {
  let cur: unknown[] = [value];
  for (const t of tokens) {
    const next: unknown[] = [];
    for (const v of cur) {
      if (Array.isArray(v)) {
        const idx = tokenIndex(t);
        if (Number.isInteger(idx)) {
          const el = v[idx < 0 ? v.length + idx : idx];
          if (idx < 0 ? v.length + idx >= 0 : idx < v.length) next.push(el);
        } else if (spread && typeof t === 'string') {
          for (const el of v) if (isObject(el) && Object.prototype.hasOwnProperty.call(el, t)) next.push(el[t]);
        }
      } else if (isObject(v)) {
        const name = tokenName(t);
        if (name !== undefined && Object.prototype.hasOwnProperty.call(v, name)) next.push(v[name]);
      }
    }
    cur = next;
  }
  return cur;
}

/** Compares strings by Unicode code point (as Rust and UTF-8 byte order sort), not by UTF-16 unit. */
export function codePointCompare(a: string, b: string): number {
  const ia = a[Symbol.iterator]();
  const ib = b[Symbol.iterator]();
  for (;;) {
    const x = ia.next();
    const y = ib.next();
    if (x.done) return y.done ? 0 : -1;
    if (y.done) return 1;
    const d = x.value.codePointAt(0)! - y.value.codePointAt(0)!;
    if (d !== 0) return d;
  }
}

/**
 * `count` record indexes out of `total` (Thoth's strategies): `first` 0..count-1, `last` the final
 * `count` in ascending order, `even` floor(i·(total−1)/(count−1)) for i in 0..count-1 (count 1 → [0]),
 * duplicates removed. `count` ≥ total gives every record.
 */
export function sampleIndexes(total: number, count: number, strategy: 'first' | 'last' | 'even'): number[] {
  const n = Math.min(count, total);
  if (n <= 0) return [];
  if (strategy === 'first') return Array.from({ length: n }, (_, i) => i);
  if (strategy === 'last') return Array.from({ length: n }, (_, i) => total - n + i);
  if (n === 1) return [0];
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const idx = Math.floor((i * (total - 1)) / (n - 1));
    if (out[out.length - 1] !== idx) out.push(idx);
  }
  return out;
}
