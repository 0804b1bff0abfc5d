/**
 * Reads an aggregate's values straight from a record's bytes: one pass that checks the whole record is one
 * well-formed JSON value (RFC 8259 grammar, the nesting bound; UTF-8 is checked per batch) and notes where the
 * wanted top-level members are (the last of a repeated name, as JSON.parse keeps), then a walk inside those members
 * for longer paths. Nothing is parsed but the values read: the string of a group key, the lexeme of a number.
 * Values of records parsed anyway (the `each` path) become the same atoms through {@link atomsOfValue}.
 */
import type { PathTokens } from '../../kernel/contracts/aggregate';
import type { Atoms } from './table';
import { T_ARRAY, T_FALSE, T_MISSING, T_NULL, T_NUMBER, T_OBJECT, T_STRING, T_TRUE } from './table';
import { numeralKey } from '../numbers/compare';
import { canonicalPath } from './spec';
import { tokenIndex, tokenName } from '../paths/path-token';
import { JSON_WS, jsonStringEnd, jsonValueEnd, skipJsonWhitespace } from '../bytes/json-walk';

/** The walker's whitespace table, bound here: read through the module's exports at every byte, the record walk was ~10% slower. */
const WS = JSON_WS;
const QUOTE = 0x22, BACKSLASH = 0x5c, LBRACE = 0x7b, RBRACE = 0x7d, LBRACK = 0x5b, RBRACK = 0x5d, COLON = 0x3a, COMMA = 0x2c;

const HEX = new Uint8Array(256);
for (const c of '0123456789abcdefABCDEF') HEX[c.charCodeAt(0)] = 1;
const ESCAPE = new Uint8Array(256);
for (const c of '"\\/bfnrt') ESCAPE[c.charCodeAt(0)] = 1;
/** Bytes that end a run of plain string content: the quote, a backslash, a control character. */
const STOP = new Uint8Array(256);
for (let c = 0; c < 0x20; c++) STOP[c] = 1;
STOP[0x22] = STOP[0x5c] = 1;
const DIGIT = new Uint8Array(256);
for (let c = 0x30; c <= 0x39; c++) DIGIT[c] = 1;

/** Outcome of {@link readRecord}. */
export const OK = 0, MALFORMED = 1, TOO_DEEP = 2;

/**
 * Where the values named by a plan's slots are, per record. A slot's first token selects by the record's type
 * (PathToken, api/path-token.ts): a member name in an object record, an element in an array record; a token may select
 * both (`0`: the member "0" or element 0), one (`{index: 0}`, `{name: "0"}`, `"a"`) or none.
 */
export interface SlotPlan {
  /** The slots' paths (canonical: spec.ts canonicalPath). */
  paths: PathTokens[];
  /** The distinct member names the first tokens select in an object record. */
  tops: string[];
  /** UTF-8 of each top as a member name in JSON (`"name"`, `"0"`), for comparison with unescaped keys. */
  topKeys: Buffer[];
  /** The distinct non-negative element indexes the first tokens select in an array record. */
  indexes: number[];
  /** Per slot: its top (index in `tops`), or -1 (none: an index selector, or the empty path). */
  slotTop: number[];
  /** Per slot: its index (position in `indexes`), or -1 (none: a name, a negative index, or the empty path). */
  slotIndex: number[];
  /** Per slot and token after the first: the member name it selects in an object (undefined: none) and the element
   *  it selects in an array (negative from the end; NaN: none). */
  stepNames: (string | undefined)[][];
  stepIndexes: number[][];
  /** True when a first token is a negative index: the element count is needed (then the record's value is parsed). */
  negative: boolean;
  maxDepth: number;
  /** Per top, then per index (at `2 * tops.length` on): start and end of its value in the current record (-1:
   *  absent). Filled by readRecord; only the part of the record's kind is read (tops: object, indexes: array). */
  spans: Int32Array;
  /** Nesting stack: 1 object, 2 array. */
  stack: Uint8Array;
  /** Set by readRecord: a wanted top-level name occurred more than once in the record (the last one counts). */
  dup: boolean;
}

export function slotPlan(slots: readonly PathTokens[], maxDepth: number): SlotPlan {
  const paths = slots.map(canonicalPath);
  const tops: string[] = [];
  const indexes: number[] = [];
  let negative = false;
  const slotTop = paths.map((p) => {
    const name = p.length === 0 ? undefined : tokenName(p[0]!);
    if (name === undefined) return -1;
    let i = tops.indexOf(name);
    if (i === -1) { i = tops.length; tops.push(name); }
    return i;
  });
  const slotIndex = paths.map((p) => {
    const index = p.length === 0 ? NaN : tokenIndex(p[0]!);
    if (index < 0) negative = true;
    if (!(index >= 0)) return -1;
    let i = indexes.indexOf(index);
    if (i === -1) { i = indexes.length; indexes.push(index); }
    return i;
  });
  return {
    paths, tops, slotTop, indexes, slotIndex,
    stepNames: paths.map((p) => p.map(tokenName)),
    stepIndexes: paths.map((p) => p.map(tokenIndex)),
    topKeys: tops.map((t) => Buffer.from(JSON.stringify(t))),
    negative,
    maxDepth,
    spans: new Int32Array((tops.length + indexes.length) * 2),
    stack: new Uint8Array(maxDepth + 2),
    dup: false,
  };
}

/** Set by readString: whether the string just read holds a backslash escape. */
let escaped = false;

/** End (after the closing quote) of the string at `p`, checked (escapes, no raw control characters); -1 if bad. */
function readString(b: Buffer, p: number, e: number): number {
  p++;
  escaped = false;
  while (p < e) {
    while (p < e && STOP[b[p]!] === 0) p++;
    if (p >= e) return -1;
    const c = b[p]!;
    if (c === QUOTE) return p + 1;
    if (c === BACKSLASH) {
      escaped = true;
      const d = b[p + 1]!;
      if (d === 0x75) {
        if (p + 5 >= e || !HEX[b[p + 2]!] || !HEX[b[p + 3]!] || !HEX[b[p + 4]!] || !HEX[b[p + 5]!]) return -1;
        p += 6;
        continue;
      }
      if (!ESCAPE[d]) return -1;
      p += 2;
      continue;
    }
    if (c < 0x20) return -1;
    p++;
  }
  return -1;
}

/** End of the number at `p` (RFC 8259 §6 grammar), or -1. */
function readNumber(b: Buffer, p: number, e: number): number {
  if (b[p] === 0x2d) p++;
  let c = b[p]!;
  if (c === 0x30) p++;
  else if (c >= 0x31 && c <= 0x39) { p++; while (p < e && DIGIT[b[p]!] === 1) p++; }
  else return -1;
  if (p < e && b[p] === 0x2e) {
    p++;
    const q = p;
    while (p < e && DIGIT[b[p]!] === 1) p++;
    if (p === q) return -1;
  }
  if (p < e) {
    c = b[p]!;
    if (c === 0x65 || c === 0x45) {
      p++;
      c = b[p]!;
      if (c === 0x2b || c === 0x2d) p++;
      const q = p;
      while (p < e && (c = b[p]!) >= 0x30 && c <= 0x39) p++;
      if (p === q) return -1;
    }
  }
  return p;
}

/** Which top a key `b[ks, ke)` (with quotes) names, or -1. */
function topOfKey(plan: SlotPlan, b: Buffer, ks: number, ke: number, hasEscape: boolean): number {
  const keys = plan.topKeys;
  if (!hasEscape) {
    const len = ke - ks;
    outer: for (let w = 0; w < keys.length; w++) {
      const k = keys[w]!;
      if (k.length !== len) continue;
      for (let q = 1; q < len - 1; q++) if (b[ks + q] !== k[q]) continue outer;
      return w;
    }
    return -1;
  }
  let name: string;
  try { name = JSON.parse(b.toString('utf8', ks, ke)) as string; } catch { return -1; }
  if (!name.isWellFormed()) name = name.toWellFormed();
  for (let w = 0; w < plan.tops.length; w++) if (plan.tops[w] === name) return w;
  return -1;
}

/**
 * Checks that `b[s, e)` is exactly one well-formed JSON value no deeper than `plan.maxDepth` and fills
 * `plan.spans` with the wanted top-level members (object records: `tops`) or elements (array records: `indexes`),
 * and `plan.dup` when a wanted name occurs more than once. Returns OK, MALFORMED or TOO_DEEP.
 */
export function readRecord(b: Buffer, s: number, e: number, plan: SlotPlan): number {
  const spans = plan.spans;
  spans.fill(-1);
  plan.dup = false;
  const stack = plan.stack;
  const max = plan.maxDepth;
  const wantTops = plan.tops.length > 0;
  const wantIndexes = plan.indexes.length > 0;
  const indexAt = plan.tops.length;
  let p = s, depth = 0;
  /** Top being read at depth 1 (-1: none) and where its value starts. */
  let cur = -1, curStart = 0;
  /** Array record: index of the element at depth 1. */
  let element = 0;
  for (;;) {
    // A value starts here.
    while (p < e && WS[b[p]!]) p++;
    if (p >= e) return MALFORMED;
    if (depth === 1) curStart = p;
    let c = b[p]!;
    if (c === LBRACE) {
      if (depth + 1 > max) return TOO_DEEP;
      p++;
      while (p < e && WS[b[p]!]) p++;
      if (b[p] === RBRACE) p++;
      else {
        stack[++depth] = 1;
        if (b[p] !== QUOTE) return MALFORMED;
        const ks = p;
        p = readString(b, p, e);
        if (p < 0) return MALFORMED;
        if (depth === 1) cur = wantTops ? topOfKey(plan, b, ks, p, escaped) : -1;
        while (p < e && WS[b[p]!]) p++;
        if (b[p] !== COLON) return MALFORMED;
        p++;
        continue;
      }
    } else if (c === LBRACK) {
      if (depth + 1 > max) return TOO_DEEP;
      p++;
      while (p < e && WS[b[p]!]) p++;
      if (b[p] === RBRACK) p++;
      else {
        stack[++depth] = 2;
        if (depth === 1) { element = 0; cur = wantIndexes ? elementSpan(plan, 0, indexAt) : -1; }
        continue;
      }
    } else if (c === QUOTE) {
      p = readString(b, p, e);
      if (p < 0) return MALFORMED;
    } else if (c === 0x74) {
      if (b[p + 1] !== 0x72 || b[p + 2] !== 0x75 || b[p + 3] !== 0x65) return MALFORMED;
      p += 4;
    } else if (c === 0x66) {
      if (b[p + 1] !== 0x61 || b[p + 2] !== 0x6c || b[p + 3] !== 0x73 || b[p + 4] !== 0x65) return MALFORMED;
      p += 5;
    } else if (c === 0x6e) {
      if (b[p + 1] !== 0x75 || b[p + 2] !== 0x6c || b[p + 3] !== 0x6c) return MALFORMED;
      p += 4;
    } else {
      p = readNumber(b, p, e);
      if (p < 0) return MALFORMED;
    }
    if (p > e) return MALFORMED;
    // A value ended at p; close containers and find the next value.
    for (;;) {
      if (depth === 1 && cur >= 0) {
        if (spans[2 * cur] !== -1) plan.dup = true;
        spans[2 * cur] = curStart;
        spans[2 * cur + 1] = p;
        cur = -1;
      }
      while (p < e && WS[b[p]!]) p++;
      if (depth === 0) return p === e ? OK : MALFORMED;
      c = b[p]!;
      if (c === COMMA) {
        p++;
        if (stack[depth] === 1) {
          while (p < e && WS[b[p]!]) p++;
          if (b[p] !== QUOTE) return MALFORMED;
          const ks = p;
          p = readString(b, p, e);
          if (p < 0) return MALFORMED;
          if (depth === 1 && wantTops) cur = topOfKey(plan, b, ks, p, escaped);
          while (p < e && WS[b[p]!]) p++;
          if (b[p] !== COLON) return MALFORMED;
          p++;
        } else if (depth === 1) {
          element++;
          cur = wantIndexes ? elementSpan(plan, element, indexAt) : -1;
        }
        break;
      }
      if ((c === RBRACE && stack[depth] === 1) || (c === RBRACK && stack[depth] === 2)) {
        depth--;
        p++;
        continue; // at depth 1 the container closed was a member's value: its span is set above

      }
      return MALFORMED;
    }
  }
}

/** The span slot of element `element` of an array record (`indexAt` + its position in `plan.indexes`), or -1. */
function elementSpan(plan: SlotPlan, element: number, indexAt: number): number {
  const k = plan.indexes.indexOf(element);
  return k === -1 ? -1 : indexAt + k;
}

/**
 * For a record `b[s, e)` already checked (a well-formed JSON object no deeper than the bound, valid UTF-8) in which
 * each of the plan's top-level names occurs at most once: fills `plan.spans` as {@link readRecord} would, reading
 * members only until every wanted one is found (their values are skipped, not checked again). False when the record
 * is not an object (then readRecord does it).
 */
export function findTops(b: Buffer, s: number, e: number, plan: SlotPlan): boolean {
  const spans = plan.spans;
  const wanted = plan.tops.length;
  spans.fill(-1);
  let p = s;
  while (p < e && WS[b[p]!]) p++;
  if (b[p] !== LBRACE) return false;
  p++;
  let found = 0;
  while (found < wanted) {
    while (p < e && WS[b[p]!]) p++;
    if (b[p] !== QUOTE) break; // the end of the object
    const ks = p;
    let esc = false;
    p++;
    for (;;) {
      const d = b[p]!;
      if (d === QUOTE) break;
      if (d === BACKSLASH) { esc = true; p++; }
      p++;
    }
    p++;
    const top = topOfKey(plan, b, ks, p, esc);
    while (p < e && WS[b[p]!]) p++;
    p++; // the colon
    while (p < e && WS[b[p]!]) p++;
    const end = jsonValueEnd(b, p, e);
    if (top >= 0) {
      spans[2 * top] = p;
      spans[2 * top + 1] = end;
      found++;
    }
    p = end;
    while (p < e && WS[b[p]!]) p++;
    if (b[p] !== COMMA) break;
    p++;
  }
  return true;
}

const keyBytes = new Map<string, Buffer>();

/**
 * The span of what a token selects in the well-formed value at `[vs, ve)`, by the value's type (PathToken): in an
 * object the member named `name` (the last of that name; undefined: none), in an array element `index` (negative
 * from the end; NaN: none). False when it selects nothing.
 */
function childSpan(b: Buffer, vs: number, ve: number, name: string | undefined, index: number, out: [number, number]): boolean {
  const open = b[vs];
  let p = vs + 1;
  if (open === LBRACE) {
    if (name === undefined) return false;
    let kb = keyBytes.get(name);
    if (!kb) { kb = Buffer.from(JSON.stringify(name)); if (keyBytes.size < 1000) keyBytes.set(name, kb); }
    let found = false;
    for (;;) {
      p = skipJsonWhitespace(b, p, ve);
      if (b[p] !== QUOTE) return found;
      const ks = p;
      p = jsonStringEnd(b, p, ve);
      let match = p - ks === kb.length && b.compare(kb, 0, kb.length, ks, p) === 0;
      if (!match) {
        let esc = false;
        for (let q = ks + 1; q < p - 1; q++) if (b[q] === BACKSLASH) { esc = true; break; }
        if (esc) {
          let key = JSON.parse(b.toString('utf8', ks, p)) as string;
          if (!key.isWellFormed()) key = key.toWellFormed();
          match = key === name;
        }
      }
      p = skipJsonWhitespace(b, p, ve);
      p++; // the colon
      p = skipJsonWhitespace(b, p, ve);
      const end = jsonValueEnd(b, p, ve);
      if (match) { out[0] = p; out[1] = end; found = true; }
      p = end;
      p = skipJsonWhitespace(b, p, ve);
      if (b[p] !== COMMA) return found;
      p++;
    }
  }
  if (open !== LBRACK || !Number.isInteger(index)) return false;
  let want = index;
  if (want < 0) {
    // From the end: count the elements first.
    let n = 0;
    let q = vs + 1;
    for (;;) {
      while (q < ve && WS[b[q]!]) q++;
      if (b[q] === RBRACK) break;
      q = jsonValueEnd(b, q, ve);
      n++;
      while (q < ve && WS[b[q]!]) q++;
      if (b[q] !== COMMA) break;
      q++;
    }
    want = n + want;
    if (want < 0) return false;
  }
  for (let i = 0; ; i++) {
    p = skipJsonWhitespace(b, p, ve);
    if (b[p] === RBRACK) return false;
    const end = jsonValueEnd(b, p, ve);
    if (i === want) { out[0] = p; out[1] = end; return true; }
    p = end;
    p = skipJsonWhitespace(b, p, ve);
    if (b[p] !== COMMA) return false;
    p++;
  }
}

const span: [number, number] = [0, 0];

/**
 * Fills `atoms` with the value at each slot of `plan` for the record `b[s, e)` that {@link readRecord} just read.
 * `parse` parses the JSON text of an array or object value exactly (for its canonical form).
 */
export function atomsOfRecord(b: Buffer, s: number, e: number, plan: SlotPlan, atoms: Atoms, parse: (text: string) => unknown): void {
  const { paths, spans } = plan;
  // An array record reads its elements' spans, any other its members' (a scalar record has neither). Without wanted
  // elements, an array record's member spans are all absent: no need to look at the record's first byte.
  let slotSpan = plan.slotTop, indexAt = 0;
  if (plan.indexes.length > 0) {
    let q = s;
    while (q < e && WS[b[q]!]) q++;
    if (b[q] === LBRACK) { slotSpan = plan.slotIndex; indexAt = plan.tops.length; }
  }
  for (let slot = 0; slot < paths.length; slot++) {
    const length = paths[slot]!.length;
    let vs: number, ve: number;
    if (length === 0) {
      vs = s; ve = e;
      while (vs < ve && WS[b[vs]!]) vs++;
      while (ve > vs && WS[b[ve - 1]!]) ve--;
    } else {
      const top = slotSpan[slot]!;
      if (top === -1 || (vs = spans[2 * (indexAt + top)]!) < 0) { atoms.types[slot] = T_MISSING; atoms.texts[slot] = ''; continue; }
      ve = spans[2 * (indexAt + top) + 1]!;
      if (length > 1) {
        const names = plan.stepNames[slot]!, indexes = plan.stepIndexes[slot]!;
        let ok = true;
        for (let k = 1; k < length; k++) {
          if (!childSpan(b, vs, ve, names[k], indexes[k]!, span)) { ok = false; break; }
          vs = span[0]; ve = span[1];
        }
        if (!ok) { atoms.types[slot] = T_MISSING; atoms.texts[slot] = ''; continue; }
      }
    }
    atomAt(b, vs, ve, atoms, slot, parse);
  }
}

/** Strings up to this many bytes are looked up in the recent-strings table before they are decoded. */
const SHORT_BYTES = 48;
const RECENT = 1024;
/** Recently decoded short strings (bytes, length, text) by a hash of their bytes. */
const recentBytes = new Uint8Array(RECENT * SHORT_BYTES);
const recentLength = new Int32Array(RECENT).fill(-1);
const recentText = new Array<string>(RECENT).fill('');

/**
 * The UTF-8 text of `b[s, e)` (valid UTF-8, no escapes). A short one is taken from the recent strings when the same
 * bytes were decoded before: a group key read in millions of records is decoded once, not allocated per record.
 */
function decodeShort(b: Buffer, s: number, e: number): string {
  const len = e - s;
  if (len > SHORT_BYTES) return b.toString('utf8', s, e);
  let h = len;
  for (let q = s; q < e; q++) h = (Math.imul(h, 31) + b[q]!) | 0;
  const slot = (h ^ (h >>> 13)) & (RECENT - 1);
  const at = slot * SHORT_BYTES;
  if (recentLength[slot] === len) {
    let q = 0;
    while (q < len && recentBytes[at + q] === b[s + q]) q++;
    if (q === len) return recentText[slot]!;
  }
  const text = b.toString('utf8', s, e);
  for (let q = 0; q < len; q++) recentBytes[at + q] = b[s + q]!;
  recentLength[slot] = len;
  recentText[slot] = text;
  return text;
}

function atomAt(b: Buffer, vs: number, ve: number, atoms: Atoms, slot: number, parse: (text: string) => unknown): void {
  const c = b[vs];
  if (c === QUOTE) {
    atoms.types[slot] = T_STRING;
    let esc = false;
    for (let q = vs + 1; q < ve - 1; q++) if (b[q] === BACKSLASH) { esc = true; break; }
    if (!esc) atoms.texts[slot] = decodeShort(b, vs + 1, ve - 1);
    else {
      const v = JSON.parse(b.toString('utf8', vs, ve)) as string;
      if (v.isWellFormed()) atoms.texts[slot] = v;
      else { atoms.texts[slot] = v.toWellFormed(); atoms.replaced++; }
    }
  } else if (c === LBRACE || c === LBRACK) {
    const raw = b.toString('utf8', vs, ve);
    atoms.types[slot] = c === LBRACE ? T_OBJECT : T_ARRAY;
    atoms.texts[slot] = canonicalJson(parse(raw));
    atoms.raws[slot] = raw;
  } else if (c === 0x74) { atoms.types[slot] = T_TRUE; atoms.texts[slot] = ''; }
  else if (c === 0x66) { atoms.types[slot] = T_FALSE; atoms.texts[slot] = ''; }
  else if (c === 0x6e) { atoms.types[slot] = T_NULL; atoms.texts[slot] = ''; }
  else { atoms.types[slot] = T_NUMBER; atoms.texts[slot] = b.toString('latin1', vs, ve); }
}

const isRawJson = (v: unknown): v is { rawJSON: string } => JSON.isRawJSON(v);

/**
 * One spelling per JSON value (for keys and distinct values of arrays and objects): members sorted by name (UTF-16
 * order), numbers canonical (`1.0` → `1`), strings as JSON.stringify writes them. Iterative in depth.
 */
export function canonicalJson(value: unknown): string {
  const out: string[] = [];
  type Frame = { v: unknown } | { close: string } | { sep: string };
  const stack: Frame[] = [{ v: value }];
  while (stack.length) {
    const f = stack.pop()!;
    if ('close' in f) { out.push(f.close); continue; }
    if ('sep' in f) { out.push(f.sep); continue; }
    const v = f.v;
    if (v === null) out.push('null');
    else if (typeof v === 'number') out.push(numeralKey(v));
    else if (typeof v === 'string' || typeof v === 'boolean') out.push(JSON.stringify(v));
    else if (isRawJson(v)) out.push(numeralKey(v.rawJSON));
    else if (Array.isArray(v)) {
      out.push('[');
      stack.push({ close: ']' });
      for (let i = v.length - 1; i >= 0; i--) {
        stack.push({ v: v[i] });
        if (i > 0) stack.push({ sep: ',' });
      }
    } else {
      const o = v as Record<string, unknown>;
      const keys = Object.keys(o).sort();
      out.push('{');
      stack.push({ close: '}' });
      for (let i = keys.length - 1; i >= 0; i--) {
        stack.push({ v: o[keys[i]!] });
        stack.push({ sep: (i > 0 ? ',' : '') + JSON.stringify(keys[i]) + ':' });
      }
    }
  }
  return out.join('');
}

/**
 * The value at `path` in a parsed value, or undefined: each token selects by the value's type (PathToken,
 * api/path-token.ts): an element of an array (negative from the end), an own member of an object.
 */
function valueAt(v: unknown, path: PathTokens): unknown {
  for (const t of path) {
    if (v === null || typeof v !== 'object' || isRawJson(v)) return undefined;
    if (Array.isArray(v)) {
      const n = tokenIndex(t);
      const i = n < 0 ? v.length + n : n;
      if (!(i >= 0 && i < v.length)) return undefined;
      v = v[i];
    } else {
      const name = tokenName(t);
      if (name === undefined || !Object.prototype.hasOwnProperty.call(v, name)) return undefined;
      v = (v as Record<string, unknown>)[name];
    }
  }
  return v;
}

/** The atoms at `paths` of a parsed value (numbers as their lexemes: plain doubles round-trip, others are rawJSON). */
export function atomsOfValue(value: unknown, paths: readonly PathTokens[], atoms: Atoms): void {
  for (let slot = 0; slot < paths.length; slot++) {
    const v = valueAt(value, paths[slot]!);
    let t: number, x = '';
    if (v === undefined) t = T_MISSING;
    else if (v === null) t = T_NULL;
    else if (v === true) t = T_TRUE;
    else if (v === false) t = T_FALSE;
    else if (typeof v === 'number') { t = T_NUMBER; x = String(v); }
    else if (typeof v === 'string') { t = T_STRING; x = v; }
    else if (isRawJson(v)) { t = T_NUMBER; x = v.rawJSON; }
    else {
      t = Array.isArray(v) ? T_ARRAY : T_OBJECT;
      x = canonicalJson(v);
      atoms.raws[slot] = JSON.stringify(v);
    }
    atoms.types[slot] = t;
    atoms.texts[slot] = x;
  }
}

export function newAtoms(slots: number): Atoms {
  return { types: new Uint8Array(slots), texts: new Array<string>(slots).fill(''), raws: new Array<string>(slots).fill(''), replaced: 0 };
}
