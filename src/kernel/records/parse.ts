import { McpgwError, type ErrorLocation } from '../errors';

declare global {
  interface JSON {
    /** ES2026 / Node ≥ 21: a value that JSON.stringify writes as the given primitive JSON text. */
    rawJSON(text: string): unknown;
    isRawJSON(value: unknown): boolean;
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
    if (c === 0x22) {
      // skip the string
      i++;
      while (i < n) {
        const d = text.charCodeAt(i);
        if (d === 0x5c) i += 2;
        else if (d === 0x22) break;
        else i++;
      }
    } else if (c === 0x7b || c === 0x5b) {
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
 * Parses one JSON text keeping every number exact: a number whose shortest double form differs
 * from its lexeme (12345678901234567891, 1.0, 1e3, 0.10000000000000000001) becomes
 * `JSON.rawJSON(lexeme)`, which JSON.stringify writes back digit for digit.
 * `where` is called only on error, to locate it (a record's line costs a read).
 * @throws McpgwError SYNTAX_ERROR with byte offset, line, column and record index;
 *   RESOURCE_LIMIT_EXCEEDED when nesting exceeds `maxDepth`.
 */
export function parseExact(text: string, where: () => ParseSite, maxDepth: number): unknown {
  const depth = nestingDepth(text, maxDepth);
  if (depth > maxDepth) {
    const site = where();
    throw new McpgwError('RESOURCE_LIMIT_EXCEEDED', `Record ${site.recordIndex} nests deeper than maxDepth ${site.maxDepth}.`, {
      limit: { name: 'maxDepth', limit: site.maxDepth },
      location: { byte_offset: site.byteOffset, line: site.line, record_index: site.recordIndex },
      hint: 'Raise limits.maxDepth in the config if such nesting is expected.',
    });
  }
  try {
    return JSON.parse(text, reviveExact);
  } catch (err) {
    throw syntaxError(err, text, where());
  }
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
  const reason = message.replace(/ in JSON at position.*$/s, '').replace(/, ".*" is not valid JSON$/s, '');
  return new McpgwError('SYNTAX_ERROR', `Record ${site.recordIndex} is not valid JSON: ${reason} (line ${line}, column ${column}, byte ${byteOffset}).`, {
    location: { byte_offset: byteOffset, line, column, record_index: site.recordIndex },
  });
}

function countNewlines(s: string): number {
  let n = 0;
  for (let i = s.indexOf('\n'); i !== -1; i = s.indexOf('\n', i + 1)) n++;
  return n;
}
