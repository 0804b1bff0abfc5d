/**
 * On-demand member reads: the values of a few top-level members of a JSON object record, found by walking its bytes
 * (strings skipped with `indexOf('"')`) without parsing the rest. Returns `undefined` whenever the bytes are not a
 * plain object the walk understands (the caller then parses the whole record), so the result is either exactly
 * what a full parse gives for those members or nothing. Duplicate names keep the last (as JSON.parse does).
 */
import { mayNeedExact, parseRecord } from './fast-parse';
import { isJsonWhitespace as isWs, jsonStringEnd as stringEnd, jsonValueEnd as valueEnd } from '../bytes/json-walk';

const QUOTE = 0x22, BACKSLASH = 0x5c, LBRACE = 0x7b, RBRACE = 0x7d, LBRACK = 0x5b, RBRACK = 0x5d, COLON = 0x3a, COMMA = 0x2c;

/**
 * An object holding the named top-level members of the object record `b[s, e)` that it has (absent names absent),
 * with exact values; `undefined` when the record is not a well-formed object this walk can read.
 */
export function readMembers(b: Buffer, s: number, e: number, names: readonly string[], maxDepth: number, occ: Occurrences = new Occurrences()): Record<string, unknown> | undefined {
  const u = occ.next(b, BACKSLASH_U, 0, s);
  // Without escapes a key can only be spelled as JSON.stringify spells it, except that `/` may be written `\/`.
  const slash = hasSlash(names) ? occ.next(b, BACKSLASH_SLASH, 1 + names.length, s) : -1;
  if ((u === -1 || u >= e) && (slash === -1 || slash >= e)) return findMembers(b, s, e, names, occ, maxDepth);
  return walkMembers(b, s, e, names, maxDepth);
}

const slashNames = new WeakMap<readonly string[], boolean>();
function hasSlash(names: readonly string[]): boolean {
  let v = slashNames.get(names);
  if (v === undefined) slashNames.set(names, (v = names.some((n) => n.includes('/'))));
  return v;
}

/**
 * Next occurrences of needles in one batch's bytes, remembered so that records visited in order search each stretch
 * once (a per-record `indexOf` would otherwise run on to the batch's end whenever a needle is rare). One instance per
 * batch: the engine's batch buffers are reused for later batches.
 */
export class Occurrences {
  private readonly from: number[] = [];
  private readonly at: number[] = [];

  /** First offset ≥ `from` of `needle` (slot `slot`) in `b`, or -1. */
  next(b: Buffer, needle: Buffer, slot: number, from: number): number {
    const f = this.from[slot], a = this.at[slot];
    if (f !== undefined && f <= from && (a === -1 || a! >= from)) return a!;
    const pos = b.indexOf(needle, from);
    this.from[slot] = from;
    this.at[slot] = pos;
    return pos;
  }
}

/**
 * The members found by searching for each name's key bytes (`"name"`) with `indexOf` and keeping occurrences at
 * depth 1 (checked by one pass over the bytes before them, strings skipped). Valid when the record has no `\u`
 * escape (a key could then be spelled differently). A raw `"name"` followed by `:` can only be a key: inside a
 * string its quotes would be escaped, and after a closing quote JSON allows no letter.
 */
function findMembers(b: Buffer, s: number, e: number, names: readonly string[], occ: Occurrences, maxDepth: number): Record<string, unknown> | undefined {
  let p = s;
  while (p < e && isWs(b[p]!)) p++;
  if (b[p] !== LBRACE) return undefined;
  let last = e - 1;
  while (last > p && isWs(b[last]!)) last--;
  if (b[last] !== RBRACE) return undefined; // a truncated record: let the full parse report it
  const keys = keyBytes(names);
  // No prototype: `__proto__` and `constructor` are ordinary members here, and plain assignment stays fast.
  const out = Object.create(null) as Record<string, unknown>;
  for (let w = 0; w < keys.length; w++) {
    const kb = keys[w]!;
    let valueAt = -1;
    // the depth is carried from one occurrence to the next (they come in order): one pass over the bytes per name
    let at = p, depth = 0;
    for (let k = occ.next(b, kb, w + 1, p); k !== -1 && k < e; k = occ.next(b, kb, w + 1, k + 1)) {
      let q = k + kb.length;
      while (q < e && isWs(b[q]!)) q++;
      if (b[q] !== COLON) continue;
      let bs = 0;
      for (let r = k - 1; r >= s && b[r] === BACKSLASH; r--) bs++;
      if (bs & 1) continue; // an escaped quote: inside a string
      depth = depthAt(b, at, k, depth);
      at = k;
      if (depth === -1) return undefined;
      if (depth !== 1) continue;
      q++;
      while (q < e && isWs(b[q]!)) q++;
      valueAt = q; // a later duplicate wins, as in JSON.parse
    }
    if (valueAt === -1 || valueAt >= e) continue;
    const c = b[valueAt];
    if (c === LBRACE || c === LBRACK) {
      // a structured member (`properties` of a GeoJSON feature): parsed alone, as the full parse would parse it
      const v = structured(b, valueAt, e, maxDepth);
      if (v === undefined) return undefined;
      out[names[w]!] = v;
      continue;
    }
    const ve = valueEnd(b, valueAt, e, maxDepth); // a string or a scalar here
    if (ve === -1) return undefined;
    const text = b.toString('utf8', valueAt, ve);
    if (mayNeedExact(text)) return undefined;
    let v: unknown;
    try { v = JSON.parse(text); } catch { return undefined; }
    out[names[w]!] = v;
  }
  return out;
}

/**
 * The object or array starting at `p` parsed alone, exactly as the whole record's parse gives it (the same
 * `parseRecord`: exact numerals, maxDepth), or undefined when it does not end inside the record or does not parse
 * (the caller then parses the whole record, which reports the fault).
 */
function structured(b: Buffer, p: number, e: number, maxDepth: number): unknown {
  const ve = valueEnd(b, p, e, maxDepth);
  if (ve === -1) return undefined;
  try {
    return parseRecord(b.toString('utf8', p, ve), maxDepth, () => ({ byteOffset: 0, line: 1, column: 1, recordIndex: 0, maxDepth }));
  } catch {
    return undefined;
  }
}

/**
 * Nesting depth at offset `k` (outside strings), counting from offset `p` (outside strings: the record's opening
 * brace, or an earlier key's quote) where it is `depth`; -1 when unclear.
 */
function depthAt(b: Buffer, p: number, k: number, depth: number): number {
  for (let i = p; i < k; i++) {
    const c = b[i]!;
    if (c === QUOTE) {
      const q = stringEnd(b, i, k);
      if (q === -1) return -1;
      i = q - 1;
    } else if (c === LBRACE || c === LBRACK) depth++;
    else if (c === RBRACE || c === RBRACK) depth--;
  }
  return depth;
}

/** The general walker: every top-level member in order (handles escaped key spellings). */
function walkMembers(b: Buffer, s: number, e: number, names: readonly string[], maxDepth: number): Record<string, unknown> | undefined {
  let p = s;
  while (p < e && isWs(b[p]!)) p++;
  if (b[p] !== LBRACE) return undefined;
  p++;
  const out: Record<string, unknown> = {};
  const keys = keyBytes(names);
  let found = 0;
  for (;;) {
    while (p < e && isWs(b[p]!)) p++;
    if (b[p] === RBRACE) break;
    if (b[p] !== QUOTE) return undefined;
    const ke = stringEnd(b, p, e);
    if (ke === -1) return undefined;
    let name: string | undefined;
    for (let w = 0; w < keys.length; w++) {
      const kb = keys[w]!;
      if (kb.length === ke - p && b[p + 1] === kb[1] && b.compare(kb, 0, kb.length, p, ke) === 0) { name = names[w]; break; }
    }
    if (name === undefined && hasBackslash(b, p, ke)) {
      // an escaped spelling of a wanted name
      let decoded: string;
      try { decoded = JSON.parse(b.toString('utf8', p, ke)) as string; } catch { return undefined; }
      if (names.includes(decoded)) name = decoded;
    }
    p = ke;
    while (p < e && isWs(b[p]!)) p++;
    if (b[p] !== COLON) return undefined;
    p++;
    while (p < e && isWs(b[p]!)) p++;
    const ve = valueEnd(b, p, e, maxDepth);
    if (ve === -1) return undefined;
    if (name !== undefined) {
      let v: unknown;
      if (b[p] === LBRACE || b[p] === LBRACK) {
        v = structured(b, p, e, maxDepth);
        if (v === undefined) return undefined;
      } else {
        const text = b.toString('utf8', p, ve);
        if (mayNeedExact(text)) return undefined;
        try { v = JSON.parse(text); } catch { return undefined; }
      }
      if (!Object.prototype.hasOwnProperty.call(out, name)) found++;
      Object.defineProperty(out, name, { value: v, writable: true, enumerable: true, configurable: true });
      if (found === names.length && noneAfter(b, ve, e, keys, names)) {
        // Every name found and none can occur again (no later spelling of it): the rest cannot change the members.
        return out;
      }
    }
    p = ve;
    while (p < e && isWs(b[p]!)) p++;
    if (b[p] === COMMA) { p++; continue; }
    if (b[p] === RBRACE) break;
    return undefined;
  }
  p++;
  while (p < e && isWs(b[p]!)) p++;
  return p === e ? out : undefined;
}

const BACKSLASH_U = Buffer.from('\\u');
const BACKSLASH_SLASH = Buffer.from('\\/');

function hasBackslash(b: Buffer, p: number, e: number): boolean {
  for (let q = p; q < e; q++) if (b[q] === BACKSLASH) return true;
  return false;
}

/** No wanted key and no escape that could spell one (`\u`, or `\/` when a name has `/`) in `b[from, e)`. */
function noneAfter(b: Buffer, from: number, e: number, keys: Buffer[], names: readonly string[]): boolean {
  const rest = b.subarray(from, e);
  if (rest.indexOf(BACKSLASH_U) !== -1) return false;
  if (hasSlash(names) && rest.indexOf(BACKSLASH_SLASH) !== -1) return false;
  for (const kb of keys) if (rest.indexOf(kb) !== -1) return false;
  return true;
}
const keyCache = new WeakMap<readonly string[], Buffer[]>();
function keyBytes(names: readonly string[]): Buffer[] {
  let k = keyCache.get(names);
  if (!k) keyCache.set(names, (k = names.map((n) => Buffer.from(JSON.stringify(n)))));
  return k;
}
