import { appendToken } from '../text/pointer';
import type { PathToken } from 'mcpgw/plugin-api';
import { isJsonWhitespace as isTextWhitespace, jsonTextStringEnd as textStringEnd, jsonTextValueEnd as textValueEnd, skipJsonTextWhitespace as skipTextWhitespace, tokenIndex, tokenName } from '../toolkit';

/**
 * Small scanners over JSON text already known to be valid (RFC 8259), on the plugin API's JSON walker. They work on the record's
 * text so that spans, lexemes, escapes and key order stay exactly as in the file. Linear, and
 * iterative where input depth is unbounded (a `maxDepth` limit guards the recursive ones).
 */

// The engine's JSON walker (context.toolkit.json), bound by register (src/toolkit.ts).

export type JsonType = 'object' | 'array' | 'string' | 'number' | 'boolean' | 'null';

/** The JSON type of the value whose text starts at `i`. */
export function typeAt(text: string, i: number): JsonType {
  const c = text[i];
  return c === '{' ? 'object' : c === '[' ? 'array' : c === '"' ? 'string' : c === 't' || c === 'f' ? 'boolean' : c === 'n' ? 'null' : 'number';
}

/** One member of an object or element of an array: `key` (string) or `index`, and its value span. */
export interface Child {
  key: string | number;
  /** Span of the member name literal (objects only). */
  keySpan?: [number, number];
  start: number;
  end: number;
}

/** The members / elements of the container whose text starts at `i`, in order (`[]` for scalars). */
export function* children(text: string, i: number): Generator<Child> {
  const c = text.charCodeAt(i);
  if (c !== 0x7b && c !== 0x5b) return;
  const close = c === 0x7b ? 0x7d : 0x5d;
  let j = skipTextWhitespace(text, i + 1);
  if (text.charCodeAt(j) === close) return;
  for (let k = 0; ; k++) {
    j = skipTextWhitespace(text, j);
    let key: string | number = k;
    let keySpan: [number, number] | undefined;
    if (c === 0x7b) {
      const ke = textStringEnd(text, j);
      keySpan = [j, ke];
      key = JSON.parse(text.slice(j, ke)) as string;
      j = skipTextWhitespace(text, ke) + 1; // the colon
      j = skipTextWhitespace(text, j);
    }
    const end = textValueEnd(text, j);
    yield { key, keySpan, start: j, end };
    j = skipTextWhitespace(text, end);
    if (text.charCodeAt(j) !== 0x2c) return;
    j++;
  }
}

/**
 * The span of the value at `tokens` (path tokens, names already unescaped) inside the JSON value whose text starts
 * at `start`; each token selects by the value it meets (`tokenIndex`, `tokenName`: in an array an index, negative
 * counting from the end as RFC 9535 §2.3.3; in an object a name). With duplicate member names the last one wins (as
 * JSON.parse). `{missing}` when absent: how many tokens resolved.
 */
export function spanAt(text: string, tokens: readonly PathToken[], start = skipTextWhitespace(text, 0)): { start: number; end: number } | { missing: number } {
  let s = start;
  for (let d = 0; d < tokens.length; d++) {
    const t = tokens[d]!;
    const c = text[s];
    let found: Child | undefined;
    if (c === '{') {
      const name = tokenName(t);
      if (name !== undefined) for (const ch of children(text, s)) if (ch.key === name) found = ch;
    } else if (c === '[') {
      const idx = tokenIndex(t);
      if (Number.isInteger(idx)) {
        const all = idx < 0 ? [...children(text, s)] : null;
        const want = all ? all.length + idx : idx;
        if (all) found = all[want];
        else {
          let k = 0;
          for (const ch of children(text, s)) { if (k++ === want) { found = ch; break; } }
        }
      }
    }
    if (!found) return { missing: d };
    s = found.start;
  }
  return { start: s, end: textValueEnd(text, s) };
}

/** JSON text without insignificant whitespace; strings and number lexemes copied verbatim. */
export function compact(text: string): string {
  let out = '';
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) i = textStringEnd(text, i) - 1;
    else if (isTextWhitespace(c)) {
      out += text.slice(from, i);
      from = i + 1;
    }
  }
  return from === 0 ? text : out + text.slice(from);
}

/** A token hit by `forEachToken`. */
export interface Token {
  kind: 'key' | 'string' | 'number' | 'literal';
  /** RFC 6901 pointer of the value (for a key: of its member's value). */
  pointer: string;
  /** Span of the lexeme in the text (strings and keys include their quotes). */
  start: number;
  end: number;
}

/**
 * Visits every member name and scalar of a JSON text in document order (a member's name before its
 * value); stops when `visit` returns true. Iterative (explicit stack), so any depth is safe.
 */
export function forEachToken(text: string, visit: (t: Token) => boolean | void): boolean {
  type Frame = { pointer: string; obj: boolean; k: number };
  const stack: Frame[] = [];
  let i = skipTextWhitespace(text, 0);
  let pointer = '';
  for (;;) {
    // at a value
    const c = text.charCodeAt(i);
    if (c === 0x7b || c === 0x5b) {
      const obj = c === 0x7b;
      stack.push({ pointer, obj, k: 0 });
      i = skipTextWhitespace(text, i + 1);
      if (text.charCodeAt(i) === (obj ? 0x7d : 0x5d)) {
        stack.pop();
        i++;
      } else {
        const f = stack[stack.length - 1]!;
        if (obj) {
          const ke = textStringEnd(text, i);
          const name = JSON.parse(text.slice(i, ke)) as string;
          pointer = appendToken(f.pointer, name);
          if (visit({ kind: 'key', pointer, start: i, end: ke })) return true;
          i = skipTextWhitespace(text, skipTextWhitespace(text, ke) + 1);
        } else pointer = appendToken(f.pointer, 0);
        continue;
      }
    } else {
      const end = textValueEnd(text, i);
      const kind = c === 0x22 ? 'string' : c === 0x74 || c === 0x66 || c === 0x6e ? 'literal' : 'number';
      if (visit({ kind, pointer, start: i, end })) return true;
      i = end;
    }
    // after a value: next sibling or close containers
    for (;;) {
      const f = stack[stack.length - 1];
      if (!f) return false;
      i = skipTextWhitespace(text, i);
      if (text.charCodeAt(i) === 0x2c) {
        i = skipTextWhitespace(text, i + 1);
        f.k++;
        if (f.obj) {
          const ke = textStringEnd(text, i);
          const name = JSON.parse(text.slice(i, ke)) as string;
          pointer = appendToken(f.pointer, name);
          if (visit({ kind: 'key', pointer, start: i, end: ke })) return true;
          i = skipTextWhitespace(text, skipTextWhitespace(text, ke) + 1);
        } else pointer = appendToken(f.pointer, f.k);
        break;
      }
      i++; // the closing bracket
      stack.pop();
    }
  }
}

/**
 * The members of the object whose text starts at `i`, one per name as the parsed value has them (RFC 8259 §4 leaves
 * repeated names to the parser; JSON.parse and every tool here take the last value, at the name's first position):
 * each name's first key span with its last value span. Elements of an array as they are.
 */
export function members(text: string, i: number): Child[] {
  const all = [...children(text, i)];
  if (text.charCodeAt(i) !== 0x7b) return all;
  const at = new Map<string, number>();
  const out: Child[] = [];
  for (const ch of all) {
    const k = at.get(ch.key as string);
    if (k === undefined) { at.set(ch.key as string, out.length); out.push(ch); }
    else out[k] = { ...out[k]!, start: ch.start, end: ch.end };
  }
  return out;
}

/**
 * Start offsets, in text order, of the objects of valid JSON text that repeat a member name. One iterative pass
 * (strings skipped with indexOf), a set of names for each open object.
 */
export function objectsRepeatingNames(text: string): number[] {
  interface Frame { start: number; names: Set<string> | null; repeats: boolean }
  const stack: Frame[] = [];
  const out: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      const e = textStringEnd(text, i);
      const top = stack[stack.length - 1];
      if (top?.names) {
        const j = skipTextWhitespace(text, e);
        if (text.charCodeAt(j) === 0x3a) {
          const lexeme = text.slice(i, e);
          const name = lexeme.includes('\\') ? (JSON.parse(lexeme) as string) : lexeme.slice(1, -1);
          if (top.names.has(name)) top.repeats = true;
          else top.names.add(name);
        }
      }
      i = e - 1;
    } else if (c === 0x7b) stack.push({ start: i, names: new Set(), repeats: false });
    else if (c === 0x5b) stack.push({ start: i, names: null, repeats: false });
    else if (c === 0x7d || c === 0x5d) {
      const f = stack.pop();
      if (f?.repeats) out.push(f.start);
    }
  }
  return out.sort((a, b) => a - b);
}

/**
 * Valid JSON text with every object that repeats a member name rewritten as the parsed value has it: each name once,
 * at its first position, with its last value (compact inside rewritten objects); everything else, lexemes and
 * escapes included, as in the text. The text itself when no name repeats.
 */
export function mergeRepeatedNames(text: string): string {
  const starts = objectsRepeatingNames(text);
  if (starts.length === 0) return text;
  const emit = (from: number, to: number): string => {
    let out = '';
    let pos = from;
    for (let k = lowerBound(starts, from); k < starts.length && starts[k]! < to; k = lowerBound(starts, pos)) {
      const s = starts[k]!;
      out += text.slice(pos, s) + rewrite(s);
      pos = textValueEnd(text, s);
    }
    return out + text.slice(pos, to);
  };
  const rewrite = (s: number): string =>
    '{' + members(text, s).map((m) => `${text.slice(m.keySpan![0], m.keySpan![1])}:${emit(m.start, m.end)}`).join(',') + '}';
  return emit(0, text.length);
}

function lowerBound(a: number[], x: number): number {
  let lo = 0, hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (a[mid]! < x) lo = mid + 1; else hi = mid;
  }
  return lo;
}
