/**
 * The digest's record reader (session/digest.ts): one pass over a record's bytes that checks them as JSON (RFC 8259,
 * as `JSON.parse` does: the kernel's exact parse gives SYNTAX_ERROR for exactly these) and builds only the members a
 * source's `Projection` names — its ids, types, times, models and token counts — never the texts, tool inputs and
 * tool results that are most of a history's bytes. A source's normalize then runs on what was built, and gives the
 * same statistics as on the whole record (sources/*.ts name, beside each normalize, what it reads for them).
 */

/**
 * What to build of a value: `true` the value whole; an object the named members of an object, each by its own
 * projection (other members are checked, not built); a one-element array each element of an array by that projection.
 * A value of another kind than the projection expects comes back as one that normalize reads the same way: a
 * number, `true`, `false` or `null` as it is, a string as `''` (its text is no statistic), an array where an object
 * is expected as `[]`, an object where an array is expected as `{}`.
 */
export type Projection = true | { readonly [member: string]: Projection } | readonly [Projection];

/** A projection compiled for the byte walk: member names by length, as bytes. */
type Compiled = true | CompiledObject | CompiledArray;
interface CompiledObject { kind: 'object'; byLength: Map<number, { bytes: Uint8Array; name: string; proj: Compiled }[]>; names: Map<string, Compiled> }
interface CompiledArray { kind: 'array'; element: Compiled }

const compiledCache = new WeakMap<object, Compiled>();

export function compile(p: Projection): Compiled {
  if (p === true) return true;
  const hit = compiledCache.get(p);
  if (hit) return hit;
  let out: Compiled;
  if (Array.isArray(p)) out = { kind: 'array', element: compile((p as readonly [Projection])[0]) };
  else {
    const byLength = new Map<number, { bytes: Uint8Array; name: string; proj: Compiled }[]>();
    const names = new Map<string, Compiled>();
    for (const [name, sub] of Object.entries(p as Record<string, Projection>)) {
      const bytes = Buffer.from(name, 'utf8');
      const proj = compile(sub);
      names.set(name, proj);
      let list = byLength.get(bytes.length);
      if (!list) byLength.set(bytes.length, (list = []));
      list.push({ bytes, name, proj });
    }
    out = { kind: 'object', byLength, names };
  }
  compiledCache.set(p, out);
  return out;
}

const QUOTE = 0x22, BACKSLASH = 0x5c, LBRACE = 0x7b, RBRACE = 0x7d, LBRACKET = 0x5b, RBRACKET = 0x5d, COMMA = 0x2c, COLON = 0x3a;
const HEX = new Uint8Array(256);
for (const c of '0123456789abcdefABCDEF') HEX[c.charCodeAt(0)] = 1;
/** The characters a backslash may escape besides `u` (RFC 8259 §7). */
const ESCAPED = new Uint8Array(256);
for (const c of '"\\/bfnrt') ESCAPED[c.charCodeAt(0)] = 1;

/** What a walk built (see `skimRecord`); set by each walk that builds. */
let built: unknown;
/** Containers deeper than this are malformed (the kernel's maxDepth). */
let maxDepth = 2000;
/** The array projection whose elements' byte ranges go to `collected` (see skimRecord). */
let collectFor: Compiled | null = null;
let collected: number[] | null = null;

/**
 * The record `b[s, e)` (valid UTF-8, checked by the caller) checked as one JSON text and built by `proj`; NOT_JSON
 * when it is not one JSON text or nests deeper than `depthLimit` containers. `collect.ranges`, when given, receives
 * the start and end of each element of the arrays built by `collect.projection` (an element of `proj`).
 */
export function skimRecord(b: Buffer, s: number, e: number, proj: Projection, depthLimit: number, collect?: { projection: Projection; ranges: number[] }): unknown {
  maxDepth = depthLimit;
  built = undefined;
  collectFor = collect ? compile(collect.projection) : null;
  collected = collect?.ranges ?? null;
  let i = ws(b, s, e);
  try {
    i = walk(b, i, e, 0, compile(proj));
  } catch (err) {
    if (err instanceof RangeError) return NOT_JSON; // nesting past the stack (a maxDepth configured that high)
    throw err;
  }
  if (i < 0 || ws(b, i, e) !== e) return NOT_JSON;
  return built;
}

/** What skimRecord gives for bytes that are not one JSON text (or nest too deep). */
export const NOT_JSON = Symbol('not JSON');

function ws(b: Uint8Array, i: number, e: number): number {
  while (i < e) {
    const c = b[i]!;
    if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) i++;
    else break;
  }
  return i;
}

/** 1 for the bytes a string body holds as they are: all but the quote, the backslash and the control characters. */
const PLAIN = new Uint8Array(256).fill(1);
PLAIN.fill(0, 0, 0x20);
PLAIN[QUOTE] = 0;
PLAIN[BACKSLASH] = 0;

/** Whether the last string `stringEnd` passed over held an escape. */
let escaped = false;

/** The 32-bit words of the memory of the buffer `plainEnd` last ran over (a view of it). */
let words: Int32Array = new Int32Array(0);
let wordsOf: ArrayBufferLike | null = null;

/**
 * `i` moved past the plain bytes of a string body, four at a time while a whole aligned word holds none of the quote,
 * the backslash and the control characters (each test exact for "some byte of the word": `(x - 0x01…) & ~x & 0x80…`
 * is nonzero exactly when a byte of x is zero, `(w - 0x20…) & ~w & 0x80…` exactly when a byte is below 0x20), then
 * byte by byte up to the first byte that is not plain, or `e`.
 */
function plainEnd(b: Uint8Array, i: number, e: number): number {
  // Bytes up to the next word boundary of the underlying memory.
  const off = b.byteOffset;
  while (i < e && ((off + i) & 3) !== 0) {
    if (PLAIN[b[i]!] !== 1) return i;
    i++;
  }
  if (e - i >= 16) {
    if (wordsOf !== b.buffer) {
      wordsOf = b.buffer;
      words = new Int32Array(b.buffer, 0, b.buffer.byteLength >> 2);
    }
    const w32 = words;
    let k = (off + i) >> 2;
    const last = ((off + e) >> 2) - 1;
    while (k <= last) {
      const w = w32[k]!;
      const q = w ^ 0x22222222, s = w ^ 0x5c5c5c5c;
      if (((((w - 0x20202020) | 0) & ~w) | (((q - 0x01010101) | 0) & ~q) | (((s - 0x01010101) | 0) & ~s)) & 0x80808080) break;
      k++;
    }
    i = (k << 2) - off;
  }
  while (i < e && PLAIN[b[i]!] === 1) i++;
  return i;
}

/** The end of the string whose body starts at `i` (past its closing quote), or -1 (unclosed, a control character, a bad escape). */
function stringEnd(b: Uint8Array, i: number, e: number): number {
  escaped = false;
  for (;;) {
    i = plainEnd(b, i, e);
    if (i >= e) return -1;
    const c = b[i]!;
    if (c === QUOTE) return i + 1;
    if (c === BACKSLASH) {
      escaped = true;
      const d = b[i + 1];
      if (d === 0x75) {
        if (i + 5 >= e || !(HEX[b[i + 2]!]! & HEX[b[i + 3]!]! & HEX[b[i + 4]!]! & HEX[b[i + 5]!]!)) return -1;
        i += 6;
      } else if (d !== undefined && ESCAPED[d] === 1 && i + 1 < e) i += 2;
      else return -1;
    } else if (c < 0x20) return -1;
    else i++;
  }
}

function digits(b: Uint8Array, i: number, e: number): number {
  while (i < e && b[i]! >= 0x30 && b[i]! <= 0x39) i++;
  return i;
}

/** The end of the number at `i`, or -1. */
function numberEnd(b: Uint8Array, i: number, e: number): number {
  let j = i;
  if (b[j] === 0x2d) j++;
  if (j >= e) return -1;
  if (b[j] === 0x30) j++;
  else if (b[j]! >= 0x31 && b[j]! <= 0x39) j = digits(b, j + 1, e);
  else return -1;
  if (j < e && b[j] === 0x2e) {
    const k = digits(b, j + 1, e);
    if (k === j + 1) return -1;
    j = k;
  }
  if (j < e && (b[j] === 0x65 || b[j] === 0x45)) {
    j++;
    if (j < e && (b[j] === 0x2b || b[j] === 0x2d)) j++;
    const k = digits(b, j, e);
    if (k === j) return -1;
    j = k;
  }
  return j;
}

function literalEnd(b: Uint8Array, i: number, e: number, word: string): number {
  if (i + word.length > e) return -1;
  for (let k = 0; k < word.length; k++) if (b[i + k] !== word.charCodeAt(k)) return -1;
  return i + word.length;
}

/** An escaped UTF-16 surrogate (the only way a lone surrogate can enter a parsed value). */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;

/** Buffer's own UTF-8 decoder without its argument checks (Node's `Buffer#utf8Slice`), else `toString`. */
const utf8 = (b: Buffer, s: number, e: number): string => b.utf8Slice(s, e);

/** Strings of up to this many bytes are looked up among the ASCII strings decoded before (ids, kinds, models repeat). */
const SEEN_BYTES = 48;
const SEEN_SLOTS = 1024;
const seen: (string | undefined)[] = new Array<string | undefined>(SEEN_SLOTS);

/**
 * The string of the checked, escape-free string body `b[s, e)`: a short one is taken from `seen` when an earlier one
 * had the same bytes (only ASCII strings are kept there: one char a byte, so equal char codes are equal bytes),
 * else decoded; no native call and no new string for the ids, kinds and models that repeat line after line.
 */
function stringOf(b: Buffer, s: number, e: number): string {
  const n = e - s;
  if (n === 0) return '';
  if (n > SEEN_BYTES) return utf8(b, s, e);
  const slot = (n * 31 + b[s]! * 7 + b[e - 1]! * 131 + b[s + (n >> 1)]! * 17) & (SEEN_SLOTS - 1);
  const hit = seen[slot];
  if (hit !== undefined && hit.length === n) {
    let k = 0;
    while (k < n && hit.charCodeAt(k) === b[s + k]) k++;
    if (k === n) return hit;
  }
  const str = utf8(b, s, e);
  if (str.length === n) seen[slot] = str;
  return str;
}

/** The double of the checked JSON number `b[s, e)`: up to 15 digits (exact in a double) added up here, else `Number`. */
function numberOf(b: Buffer, s: number, e: number): number {
  let k = s;
  const negative = b[k] === 0x2d;
  if (negative) k++;
  if (e - k <= 15) {
    let n = 0;
    for (; k < e; k++) {
      const d = b[k]! - 0x30;
      if (d < 0 || d > 9) break;
      n = n * 10 + d;
    }
    if (k === e) return negative ? -n : n;
  }
  return Number(b.latin1Slice(s, e));
}

/**
 * The value of checked JSON text `b[s, e)`, as the kernel's exact parse gives it but for numbers (doubles); a string
 * `stringEnd` just passed over (`escaped` says whether it held an escape).
 */
function parsed(b: Buffer, s: number, e: number): unknown {
  const c = b[s]!;
  if (c === QUOTE) {
    if (!escaped) return stringOf(b, s + 1, e - 1);
  } else if (c !== LBRACE && c !== LBRACKET) {
    if (c === 0x74) return true;
    if (c === 0x66) return false;
    if (c === 0x6e) return null;
    return numberOf(b, s, e);
  }
  const text = utf8(b, s, e);
  const v: unknown = JSON.parse(text);
  return SURROGATE_ESCAPE.test(text) ? wellFormed(v) : v;
}

/**
 * Checks the value at `i` (no whitespace before it) and builds it by `proj` into `built` (null `proj`: only checked,
 * `built` untouched). Returns where the value ends, or -1.
 */
function walk(b: Buffer, i: number, e: number, depth: number, proj: Compiled | null): number {
  if (i >= e) return -1;
  const c = b[i]!;
  if (c === LBRACE || c === LBRACKET) {
    if (depth >= maxDepth) return -1;
    // The value whole: built as JSON.parse builds it, in the same pass.
    if (proj === true) return c === LBRACE ? objectEnd(b, i, e, depth, null, true) : arrayEnd(b, i, e, depth, null, true);
    if (proj === null) return c === LBRACE ? objectEnd(b, i, e, depth, null) : arrayEnd(b, i, e, depth, null);
    if (c === LBRACE) {
      if (proj.kind === 'object') return objectEnd(b, i, e, depth, proj);
      const end = objectEnd(b, i, e, depth, null);
      built = {};
      return end;
    }
    if (proj.kind === 'array') return arrayEnd(b, i, e, depth, proj);
    const end = arrayEnd(b, i, e, depth, null);
    built = [];
    return end;
  }
  let end: number;
  if (c === QUOTE) end = stringEnd(b, i + 1, e);
  else if (c === 0x74) end = literalEnd(b, i, e, 'true');
  else if (c === 0x66) end = literalEnd(b, i, e, 'false');
  else if (c === 0x6e) end = literalEnd(b, i, e, 'null');
  else end = numberEnd(b, i, e);
  if (end >= 0 && proj !== null) built = proj === true || c !== QUOTE ? parsed(b, i, end) : '';
  return end;
}

/**
 * Checks the object at `i` (`{`) and, with `proj`, builds its named members into `built`; with `all`, every member
 * (as JSON.parse does: a repeated name keeps its first place and its last value, `__proto__` is a member).
 */
function objectEnd(b: Buffer, i: number, e: number, depth: number, proj: CompiledObject | null, all = false): number {
  const out: Record<string, unknown> | null = proj || all ? {} : null;
  i = ws(b, i + 1, e);
  if (i < e && b[i] === RBRACE) {
    if (out) built = out;
    return i + 1;
  }
  for (;;) {
    if (i >= e || b[i] !== QUOTE) return -1;
    const ks = i + 1;
    i = stringEnd(b, ks, e);
    if (i < 0) return -1;
    let sub: Compiled | null = null;
    let name = '';
    if (all) {
      sub = true;
      name = escaped ? (parsed(b, ks - 1, i) as string) : stringOf(b, ks, i - 1);
    } else if (proj) {
      const ke = i - 1;
      const list = proj.byLength.get(ke - ks);
      if (list) {
        for (const cand of list) {
          let k = 0;
          while (k < cand.bytes.length && b[ks + k] === cand.bytes[k]) k++;
          if (k === cand.bytes.length) { sub = cand.proj; name = cand.name; break; }
        }
      }
      if (!sub && escaped) {
        // A name written with escapes: decoded, then looked up.
        {
          const decoded = parsed(b, ks - 1, i) as string;
          const hit = proj.names.get(decoded);
          if (hit) { sub = hit; name = decoded; }
        }
      }
    }
    i = ws(b, i, e);
    if (i >= e || b[i] !== COLON) return -1;
    i = ws(b, i + 1, e);
    i = walk(b, i, e, depth + 1, sub);
    if (i < 0) return -1;
    if (sub && out) {
      if (name === '__proto__') Object.defineProperty(out, name, { value: built, writable: true, enumerable: true, configurable: true });
      else out[name] = built;
    }
    i = ws(b, i, e);
    if (i < e && b[i] === COMMA) { i = ws(b, i + 1, e); continue; }
    if (i < e && b[i] === RBRACE) {
      if (out) built = out;
      return i + 1;
    }
    return -1;
  }
}

/** Checks the array at `i` (`[`) and, with `proj`, builds each element by its element projection into `built` (with `all`, whole). */
function arrayEnd(b: Buffer, i: number, e: number, depth: number, proj: CompiledArray | null, all = false): number {
  const out: unknown[] | null = proj || all ? [] : null;
  const element: Compiled | null = all ? true : proj ? proj.element : null;
  i = ws(b, i + 1, e);
  if (i < e && b[i] === RBRACKET) {
    if (out) built = out;
    return i + 1;
  }
  const ranges = proj !== null && proj === collectFor ? collected : null;
  for (;;) {
    const start = i;
    i = walk(b, i, e, depth + 1, element);
    if (i < 0) return -1;
    if (out) out.push(built);
    if (ranges) ranges.push(start, i);
    i = ws(b, i, e);
    if (i < e && b[i] === COMMA) { i = ws(b, i + 1, e); continue; }
    if (i < e && b[i] === RBRACKET) {
      if (out) built = out;
      return i + 1;
    }
    return -1;
  }
}

/** ES2024 string methods (Node 20+), not in this package's TypeScript library. */
type WellFormed = string & { isWellFormed(): boolean; toWellFormed(): string };
declare module 'node:buffer' {
  interface Buffer {
    utf8Slice(start: number, end: number): string;
    latin1Slice(start: number, end: number): string;
  }
}

const fix = (s: string): string => ((s as WellFormed).isWellFormed() ? s : (s as WellFormed).toWellFormed());

/** `value` with every lone surrogate of its strings and member names replaced by U+FFFD (member order kept). */
export function wellFormed(value: unknown): unknown {
  if (typeof value === 'string') return fix(value);
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(wellFormed);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) Object.defineProperty(out, fix(k), { value: wellFormed(v), writable: true, enumerable: true, configurable: true });
  return out;
}
