import { McpgwError, type ErrorLocation } from '../../kernel/errors';
import { escapeToken } from '../paths/pointer';
import { jsonTextStringEnd, skipJsonTextWhitespace } from '../bytes/json-walk';
import { hasIndexLikeName, restoreMemberOrder } from './member-order';

declare global {
  interface JSON {
    /** ES2026 / Node ≥ 21: a value that JSON.stringify writes as the given primitive JSON text. */
    rawJSON(text: string): unknown;
    isRawJSON(value: unknown): boolean;
  }
  interface String {
    /** ES2024 (Node ≥ 20): false when the string holds a lone surrogate. */
    isWellFormed(): boolean;
    /** ES2024: the string with every lone surrogate replaced by U+FFFD. */
    toWellFormed(): string;
  }
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Decodes UTF-8 strictly (WHATWG "fatal"): invalid sequences, overlongs and encoded surrogates
 * are SYNTAX_ERROR at the first bad byte (RFC 8259 §8.1: JSON text exchanged between systems is UTF-8).
 * @param base byte offset of `bytes` in the file, for the error location.
 */
export function decodeUtf8(bytes: Uint8Array, base: number, where: ErrorLocation = {}): string {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    const bad = firstInvalidUtf8(bytes);
    throw new McpgwError('SYNTAX_ERROR', `Invalid UTF-8 at byte ${base + bad}.`, {
      location: { ...where, byte_offset: base + bad },
      hint: 'The file is not valid UTF-8 there; JSON text must be UTF-8 (RFC 8259 §8.1).',
    });
  }
}

/** Offset of the first byte that starts an invalid UTF-8 sequence (or bytes.length). */
export function firstInvalidUtf8(b: Uint8Array): number {
  let i = 0;
  while (i < b.length) {
    const c = b[i]!;
    if (c < 0x80) { i++; continue; }
    let need: number, min: number;
    if (c >= 0xc2 && c <= 0xdf) { need = 1; min = 0x80; }
    else if (c >= 0xe0 && c <= 0xef) { need = 2; min = 0x800; }
    else if (c >= 0xf0 && c <= 0xf4) { need = 3; min = 0x10000; }
    else return i;
    let cp = c & (0x3f >> need);
    for (let k = 1; k <= need; k++) {
      const cc = b[i + k];
      if (cc === undefined || (cc & 0xc0) !== 0x80) return i;
      cp = (cp << 6) | (cc & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return i;
    i += need + 1;
  }
  return b.length;
}

/**
 * Deepest nesting of arrays and objects in JSON text, counted outside strings, stopping as soon
 * as it exceeds `limit` (returns limit + 1 then). Linear, no recursion.
 */
export function nestingDepth(text: string, limit: number): number {
  let depth = 0, max = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) i = jsonTextStringEnd(text, i) - 1;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) { max = depth; if (max > limit) return max; }
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return max;
}

function reviveExact(this: unknown, _key: string, value: unknown, context?: { source?: string }): unknown {
  if (typeof value === 'number' && context?.source !== undefined && String(value) !== context.source) {
    return JSON.rawJSON(context.source);
  }
  return value;
}

export interface ParseSite {
  /** Byte offset of the text in the file. */
  byteOffset: number;
  /** 1-based line of the text's first character. */
  line: number;
  /** 1-based column of the text's first character on that line. */
  column: number;
  recordIndex: number;
  maxDepth: number;
}

/**
 * Numerals that may not survive a double: a fraction or exponent, 16+ digits, or `-0`, starting a
 * token (not after a letter, digit or dot, so `v1.20` and times like `00:01.50` inside strings are
 * mostly skipped). Matches inside strings only cost a slow parse, never a wrong one.
 */
const RISKY_NUMERAL = /(?<![\w.])-?(?:(?:0|[1-9]\d*)\.\d+(?:[eE][+-]?\d+)?|(?:0|[1-9]\d*)[eE][+-]?\d+|[1-9]\d{15,}|0(?![\d.eE]))/g;

/**
 * True when `text` holds a numeral whose shortest double form differs from its lexeme
 * (12345678901234567891, 42.00, 1e3, -0), so that only such records pay for the reviver.
 * Linear; a false positive (a numeral-like run inside a string) only costs the slow parse.
 */
export function needsExactParse(text: string): boolean {
  RISKY_NUMERAL.lastIndex = 0;
  let m: RegExpExecArray | null;
  try {
    while ((m = RISKY_NUMERAL.exec(text)) !== null) {
      const lexeme = m[0];
      if (String(Number(lexeme)) !== lexeme) return true;
    }
  } catch (err) {
    // The regular expression engine's backtracking stack overflows on a numeral of millions of digits.
    if (err instanceof RangeError) return hasInexactNumeral(text);
    throw err;
  }
  return false;
}

/**
 * True when a number token of `text` (outside strings) does not survive a round trip through a double: exact, and
 * linear without a regular expression (so without a backtracking stack, whatever the length of a numeral). About
 * twice the time of the expressions above on ordinary records, so it is their fallback.
 */
export function hasInexactNumeral(text: string): boolean {
  const n = text.length;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      i = jsonTextStringEnd(text, i);
      continue;
    }
    if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      let j = i + 1;
      for (; j < n; j++) {
        const d = text.charCodeAt(j);
        if (!((d >= 0x30 && d <= 0x39) || d === 0x2e || d === 0x65 || d === 0x45 || d === 0x2b || d === 0x2d)) break;
      }
      const lexeme = text.slice(i, j);
      if (String(Number(lexeme)) !== lexeme) return true;
      i = j;
      continue;
    }
    i++;
  }
  return false;
}

/** A `\uD800`–`\uDFFF` escape in JSON text (the only way a lone surrogate can enter a parsed value). */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;

/** A non-fatal note about a record (see RecordWarning in contracts/format.ts). */
export interface ParseWarning {
  code: string;
  message: string;
  record_index?: number;
  path?: string;
  byte_offset?: number;
}

/**
 * Replaces lone surrogates (from `\ud800`-style escapes) in every string and member name of `value`
 * by U+FFFD, in place where possible; returns the new value and the pointers of the strings changed.
 * Iterative (no recursion): safe at any depth the parser accepted.
 */
export function replaceLoneSurrogates(value: unknown): { value: unknown; paths: string[] } {
  const paths: string[] = [];
  const fix = (s: string) => (s.isWellFormed() ? s : s.toWellFormed());
  if (typeof value === 'string') {
    if (!value.isWellFormed()) { paths.push(''); return { value: value.toWellFormed(), paths }; }
    return { value, paths };
  }
  const stack: { v: unknown; path: string }[] = [{ v: value, path: '' }];
  while (stack.length) {
    const { v, path } = stack.pop()!;
    if (v === null || typeof v !== 'object' || JSON.isRawJSON(v)) continue;
    if (Array.isArray(v)) {
      for (let k = 0; k < v.length; k++) {
        const e = v[k];
        if (typeof e === 'string') { if (!e.isWellFormed()) { v[k] = fix(e); paths.push(`${path}/${k}`); } }
        else if (e !== null && typeof e === 'object') stack.push({ v: e, path: `${path}/${k}` });
      }
      continue;
    }
    const obj = v as Record<string, unknown>;
    const keys = Object.keys(obj);
    if (keys.some((k) => !k.isWellFormed())) {
      // rebuild to keep member order with the repaired names (last wins, as JSON.parse)
      const entries = keys.map((k) => [k, obj[k]] as const);
      for (const k of keys) delete obj[k];
      for (const [k, e] of entries) {
        const nk = fix(k);
        if (nk !== k) paths.push(`${path}/${escapeToken(nk)}`);
        Object.defineProperty(obj, nk, { value: e, writable: true, enumerable: true, configurable: true }); // `__proto__` too
      }
    }
    for (const k of Object.keys(obj)) {
      const e = obj[k];
      if (typeof e === 'string') { if (!e.isWellFormed()) { obj[k] = fix(e); paths.push(`${path}/${escapeToken(k)}`); } }
      else if (e !== null && typeof e === 'object') stack.push({ v: e, path: `${path}/${escapeToken(k)}` });
    }
  }
  return { value, paths };
}

/**
 * Parses one JSON text keeping every number exact: a number whose shortest double form differs
 * from its lexeme (12345678901234567891, 1.0, 1e3, 0.10000000000000000001) becomes
 * `JSON.rawJSON(lexeme)`, which JSON.stringify writes back digit for digit. Only texts that
 * {@link needsExactParse} flags pay for the reviver; the others take plain `JSON.parse`.
 * Escaped lone surrogates (RFC 8259 §8.2) come back as U+FFFD, and one LONE_SURROGATE_REPLACED
 * warning naming the record and the first changed path is pushed to `warnings` when given.
 * Duplicate member names: the last one wins (as JSON.parse). Members come in the file's order, names like array
 * indexes included (member-order.ts).
 * `where` is called only on error or warning, to locate it (a record's line costs a read).
 * `exactNumbers: false` (a caller that only checks syntax, counts members or looks for lone surrogates) skips the
 * numeral scan and the reviver: numbers come back as plain doubles, every other verdict is the same.
 * @throws McpgwError SYNTAX_ERROR with byte offset, line, column and record index;
 *   RESOURCE_LIMIT_EXCEEDED when nesting exceeds `maxDepth`.
 */
export function parseExact(text: string, where: () => ParseSite, maxDepth: number, warnings?: ParseWarning[], checkOnly = false, exactNumbers = true): unknown {
  // Depth d needs at least d bytes: short texts cannot be too deep.
  if (text.length > maxDepth) {
    const depth = nestingDepth(text, maxDepth);
    if (depth > maxDepth) {
      const site = where();
      throw new McpgwError('RESOURCE_LIMIT_EXCEEDED', `Record ${site.recordIndex} nests deeper than maxDepth ${site.maxDepth}.`, {
        limit: { name: 'maxDepth', limit: site.maxDepth },
        location: { byte_offset: site.byteOffset, line: site.line, record_index: site.recordIndex },
        hint: 'Raise limits.maxDepth in the config if such nesting is expected.',
      });
    }
  }
  let value: unknown;
  try {
    // Checking only: the same syntax and depth verdicts without building exact numbers (no reviver walk).
    // Plain numbers (`exactNumbers` false): the same verdicts, member counts and strings, for a caller that only checks.
    value = checkOnly ? (JSON.parse(text), undefined) : exactNumbers && needsExactParse(text) ? JSON.parse(text, reviveExact) : JSON.parse(text);
  } catch (err) {
    if (err instanceof RangeError && /call stack/i.test(err.message)) {
      // The reviver walk is recursive in V8 (~4,500 levels on Node 22's default stack): a maxDepth
      // configured above that is refused cleanly instead of crashing the call.
      const site = where();
      throw new McpgwError('RESOURCE_LIMIT_EXCEEDED', `Record ${site.recordIndex} nests too deeply for this runtime's parser (${err.message}).`, {
        limit: { name: 'maxDepth', limit: maxDepth },
        location: { byte_offset: site.byteOffset, line: site.line, record_index: site.recordIndex },
        hint: 'Lower limits.maxDepth (the default 2000 is safe).',
      });
    }
    throw syntaxError(err, text, where());
  }
  if (!checkOnly && SURROGATE_ESCAPE.test(text)) {
    const fixed = replaceLoneSurrogates(value);
    if (fixed.paths.length) {
      value = fixed.value;
      if (warnings) {
        const site = where();
        const more = fixed.paths.length > 1 ? ` (and ${fixed.paths.length - 1} more)` : '';
        warnings.push({
          code: 'LONE_SURROGATE_REPLACED',
          message: `Record ${site.recordIndex}: a lone UTF-16 surrogate escape at "${fixed.paths[0]}"${more} was replaced by U+FFFD (RFC 8259 §8.2).`,
          record_index: site.recordIndex,
          path: fixed.paths[0]!,
          byte_offset: site.byteOffset,
        });
      }
    }
  }
  // Members named like array indexes ("2") come back where the file has them, not first (member-order.ts).
  if (!checkOnly && value !== null && typeof value === 'object' && hasIndexLikeName(text)) value = restoreMemberOrder(text, value);
  return value;
}

/**
 * Member names in JSON text (strings followed by `:`), counted without parsing. Compared with
 * {@link countMembers} of the parsed value, a difference means duplicate names (RFC 8259 §4).
 */
export function countMemberNames(text: string): number {
  let n = 0;
  let i = text.indexOf('"');
  while (i !== -1) {
    const j = skipJsonTextWhitespace(text, jsonTextStringEnd(text, i));
    if (text.charCodeAt(j) === 0x3a) n++;
    i = text.indexOf('"', j);
  }
  return n;
}

/** Members of every object in a parsed value. Iterative. */
export function countMembers(value: unknown): number {
  let n = 0;
  const stack: unknown[] = [value];
  while (stack.length) {
    const v = stack.pop();
    if (v === null || typeof v !== 'object' || JSON.isRawJSON(v)) continue;
    if (Array.isArray(v)) { for (const e of v) if (e !== null && typeof e === 'object') stack.push(e); continue; }
    for (const k in v) {
      n++;
      const e = (v as Record<string, unknown>)[k];
      if (e !== null && typeof e === 'object') stack.push(e);
    }
  }
  return n;
}

/**
 * The first duplicate member name in valid JSON text and its RFC 6901 pointer (of the member), or null.
 * A small iterative tokenizer; used only once a count shows duplicates.
 */
export function findDuplicateKey(text: string): { key: string; path: string } | null {
  interface Frame { obj: boolean; keys: Set<string>; key: string; idx: number }
  const stack: Frame[] = [];
  const pointer = () => stack.slice(0, -1).map((f) => (f.obj ? `/${escapeToken(f.key)}` : `/${f.idx}`)).join('');
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      const q = jsonTextStringEnd(text, i) - 1; // the closing quote
      const top = stack[stack.length - 1];
      let j = q + 1;
      while (/\s/.test(text[j] ?? '')) j++;
      if (top?.obj && text[j] === ':') {
        const key = JSON.parse(text.slice(i, q + 1)) as string;
        if (top.keys.has(key)) return { key, path: `${pointer()}/${escapeToken(key)}` };
        top.keys.add(key);
        top.key = key;
      }
      i = q;
    } else if (c === 0x7b) stack.push({ obj: true, keys: new Set(), key: '', idx: 0 });
    else if (c === 0x5b) stack.push({ obj: false, keys: new Set(), key: '', idx: 0 });
    else if (c === 0x7d || c === 0x5d) stack.pop();
    else if (c === 0x2c) { const top = stack[stack.length - 1]; if (top && !top.obj) top.idx++; }
  }
  return null;
}

/** Maps a JSON.parse SyntaxError to SYNTAX_ERROR with the position in the file. */
export function syntaxError(err: unknown, text: string, site: ParseSite): McpgwError {
  const message = err instanceof Error ? err.message : String(err);
  const m = /at position (\d+)/.exec(message);
  let pos = m ? Number(m[1]) : message.includes('end of JSON input') ? text.length : null;
  if (pos === null) {
    const tok = /Unexpected token '(.)'/.exec(message);
    pos = tok ? Math.max(0, text.indexOf(tok[1]!)) : 0;
  }
  const before = text.slice(0, pos);
  const nl = before.lastIndexOf('\n');
  const linesBefore = nl === -1 ? 0 : countNewlines(before);
  const line = site.line + linesBefore;
  const column = nl === -1 ? site.column + pos : pos - nl;
  const byteOffset = site.byteOffset + Buffer.byteLength(before);
  // V8 quotes a snippet of the text (cut anywhere, even inside a surrogate pair): left out; and it names the
  // unexpected UTF-16 unit, which for a character beyond U+FFFF is half of it: the whole character is named instead.
  // V8's own position ("at position N (line 1 column M)", relative to the record) is replaced by the file's, below.
  let reason = message
    .replace(/ at position \d+(?: \(line \d+ column \d+\))?/, '')
    .replace(/ in JSON$/, '')
    .replace(/, (?:\.\.\.)?".*" is not valid JSON$/s, '');
  reason = reason.replace(/'([\uD800-\uDBFF])'/, () => `'${String.fromCodePoint(text.codePointAt(pos!) ?? 0xfffd)}'`).toWellFormed();
  return new McpgwError('SYNTAX_ERROR', `Record ${site.recordIndex} is not valid JSON: ${reason} (line ${line}, column ${column}, byte ${byteOffset}).`, {
    location: { byte_offset: byteOffset, line, column, record_index: site.recordIndex },
  });
}

function countNewlines(s: string): number {
  let n = 0;
  for (let i = s.indexOf('\n'); i !== -1; i = s.indexOf('\n', i + 1)) n++;
  return n;
}
