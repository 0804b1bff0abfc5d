/**
 * JSON text laid out for reading, one page at a time, in one pass that emits only the page: re-indented (two spaces,
 * `"name": value`, `{}`/`[]` for empty containers, as `JSON.stringify(v, null, 2)` lays a value out) or compact (no
 * whitespace), every string and number lexeme copied as written (escapes stay escaped, 1.50 stays 1.50, key order
 * and repeated names as in the text). Before and after the page the pass only counts bytes, so a page of an 8 MB
 * record costs the page plus one scan without allocation, never the whole laid-out text.
 *
 * Offsets are UTF-8 bytes of the laid-out text. A page starts at the first character at or after `from` and ends on a
 * character boundary that is never inside an escape sequence (`\n`, `\u00e9`, `\ud83d\ude00` stays whole) and never
 * inside a surrogate pair, at most `maxBytes` after its start (but always at least one character or escape, so a
 * reader following `end` always advances). Pages read from `end` to `end` concatenate to the whole laid-out text.
 */
import type { JsonLayout, JsonLayoutMarks, JsonLayoutPage } from '../../kernel/contracts/records';
import { replaceLoneSurrogateEscapes } from '../unicode';
import { jsonTextStringEnd, jsonTextValueEnd, skipJsonTextWhitespace } from '../bytes/json-walk';

const QUOTE = 0x22, BACKSLASH = 0x5c, COMMA = 0x2c, COLON = 0x3a;
const LBRACE = 0x7b, RBRACE = 0x7d, LBRACKET = 0x5b, RBRACKET = 0x5d;

/** UTF-8 bytes of `s` from `i` to `j` (UTF-16 offsets; a pair counts 4, a lone surrogate 3 as U+FFFD). */
function utf8Bytes(s: string, i: number, j: number): number {
  if (j - i > 24) return Buffer.byteLength(s.slice(i, j)); // native; the slice shares the string's memory
  let n = 0;
  for (let k = i; k < j; k++) {
    const c = s.charCodeAt(k);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && k + 1 < j && (s.charCodeAt(k + 1) & 0xfc00) === 0xdc00) { n += 4; k++; }
    else n += 3;
  }
  return n;
}

/** Units of the indivisible piece of a string lexeme starting at `k`: an escape, a surrogate pair, or one unit. */
function pieceLength(s: string, k: number, end: number): number {
  const c = s.charCodeAt(k);
  if (c === BACKSLASH) {
    if (s.charCodeAt(k + 1) !== 0x75) return 2; // \n \" \\ …
    // \uXXXX, and a \uD8xx\uDCxx pair of escapes stays together
    const hi = parseInt(s.slice(k + 2, k + 6), 16);
    if (hi >= 0xd800 && hi <= 0xdbff && s.charCodeAt(k + 6) === BACKSLASH && s.charCodeAt(k + 7) === 0x75) {
      const lo = parseInt(s.slice(k + 8, k + 12), 16);
      if (lo >= 0xdc00 && lo <= 0xdfff) return 12;
    }
    return 6;
  }
  if (c >= 0xd800 && c <= 0xdbff && k + 1 < end && (s.charCodeAt(k + 1) & 0xfc00) === 0xdc00) return 2;
  return 1;
}

/** Laid-out bytes between two places a layout can resume from (`LayoutMarks`). */
export const MARK_EVERY = 16 * 1024;

/**
 * Where the layout of one text with one indent can resume (`JsonLayout.marks`): the state of the pass (the text's
 * UTF-16 offset between two tokens, the laid-out bytes before it, the nesting depth) at least every MARK_EVERY
 * laid-out bytes, and the total. Filled by the first page laid out with it; 24 bytes a mark (about 0.15% of the
 * laid-out text).
 */
export class LayoutMarks implements JsonLayoutMarks {
  /** Laid-out bytes of the whole text; -1 until a pass filled the marks. */
  total = -1;
  /** The text and indent the marks belong to (other ones start afresh). */
  text: string | undefined;
  indent: string | undefined;
  /** Triples (text offset, laid-out bytes before it, depth), by increasing offset. */
  readonly at: number[] = [];

  get complete(): boolean {
    return this.total >= 0;
  }

  /** The last mark at or before laid-out byte `from`: [text offset, bytes, depth]. */
  before(from: number): [number, number, number] {
    const n = this.at.length / 3;
    let lo = 0, hi = n - 1, best = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (this.at[mid * 3 + 1]! <= from) { best = mid; lo = mid + 1; } else hi = mid - 1;
    }
    return best < 0 ? [0, 0, 0] : [this.at[best * 3]!, this.at[best * 3 + 1]!, this.at[best * 3 + 2]!];
  }
}

/**
 * Bytes [from, from + maxBytes) of valid JSON `text` laid out with `indent` ("  ": re-indented; "": compact).
 * @param from byte offset in the laid-out text (default 0); past its end: an empty page at the end
 * @param maxBytes at most this many bytes (at least one character or escape is returned when any remains)
 * @param marks where to resume (`LayoutMarks`): an empty one is filled by this pass (which then lays out the whole
 *   text, counting); a filled one (same text and indent) starts at the last mark before `from` and stops at the
 *   page's end, so the page costs its bytes plus at most MARK_EVERY bytes before it
 */
export function layoutJsonPage(text: string, options: { indent: string; from?: number; maxBytes: number; marks?: JsonLayoutMarks }): JsonLayoutPage {
  const { indent } = options;
  let marks = options.marks instanceof LayoutMarks ? options.marks : undefined;
  if (marks && marks.complete && (marks.indent !== indent || marks.text !== text)) marks = undefined; // not this text's
  const resume = marks?.complete === true;
  const record = marks !== undefined && !resume;
  if (record) { marks!.text = text; marks!.indent = indent; marks!.at.length = 0; }
  const from = Math.max(0, options.from ?? 0);
  const maxBytes = Math.max(1, options.maxBytes);
  const pretty = indent.length > 0;
  const out: string[] = [];
  let pos = 0; // bytes of laid-out text so far
  let start = -1; // where the page started (bytes), -1 before it
  let end = -1; // where the page stopped (bytes), -1 while it is open
  let limit = 0; // start + maxBytes once started

  /**
   * Lays out `piece` (ASCII structure or a whole lexeme `s[i, j)`): counted only outside the page, cut inside it.
   * Pieces of structure are ASCII; lexemes are cut at characters and escapes.
   */
  /**
   * Structure character `c` at nesting `d` (after the change it makes): its piece (ASCII) is built only when the page
   * needs it; elsewhere only its length is counted.
   */
  const emitStructure = (c: number, d: number): void => {
    const n = !pretty ? 1 : c === COLON ? 2 : 1 + 1 + step * d;
    if (end >= 0 || (start < 0 && pos + n <= from)) { pos += n; return; }
    const ch = String.fromCharCode(c);
    emitAscii(!pretty ? ch : c === COLON ? ': ' : c === RBRACE || c === RBRACKET ? newline(d) + ch : ch + newline(d));
  };
  const emitAscii = (piece: string): void => {
    const n = piece.length;
    if (end >= 0) { pos += n; return; }
    if (start < 0) {
      if (pos + n <= from) { pos += n; return; }
      const skip = from - pos; // ASCII: every byte is a character
      start = from; limit = start + maxBytes;
      pos = from;
      piece = piece.slice(skip);
      return emitAscii(piece);
    }
    const room = limit - pos;
    if (n <= room) { out.push(piece); pos += n; return; }
    if (room > 0) out.push(piece.slice(0, room));
    end = pos + Math.max(room, 0);
    pos += n;
  };
  const emitLexeme = (s: string, i: number, j: number, isString: boolean): void => {
    // Numbers and literals are ASCII: a byte a unit.
    if (end >= 0) { pos += isString ? utf8Bytes(s, i, j) : j - i; return; }
    if (start < 0) {
      const n = isString ? utf8Bytes(s, i, j) : j - i;
      if (pos + n <= from) { pos += n; return; }
      // The page starts inside this lexeme: at the first character at or after `from`.
      let k = i;
      while (k < j && pos < from) {
        const u = pieceLength(s, k, j) === 2 && s.charCodeAt(k) !== BACKSLASH ? 2 : 1; // a surrogate pair, else one unit
        pos += utf8Bytes(s, k, k + u);
        k += u;
      }
      start = pos; limit = start + maxBytes;
      return emitLexeme(s, k, j, isString);
    }
    const room = limit - pos;
    // Fits whole: the common case, one byte count.
    const n = j - i <= room ? utf8Bytes(s, i, j) : room + 1;
    if (n <= room) { out.push(s.slice(i, j)); pos += n; return; }
    // Cut inside: whole characters, whole escapes (numbers and literals are ASCII: any byte is a boundary).
    let k = i, used = 0;
    while (k < j) {
      const u = isString ? pieceLength(s, k, j) : 1;
      const b = utf8Bytes(s, k, k + u);
      if (used + b > room && (used > 0 || pos > start)) break;
      used += b; k += u;
    }
    if (k > i) out.push(s.slice(i, k));
    pos += used;
    end = pos;
    pos += utf8Bytes(s, k, j);
  };

  let depth = 0;
  let i0 = 0;
  if (resume) [i0, pos, depth] = marks!.before(from);
  let nextMark = 0;
  const n = text.length;
  const newline = (d: number) => '\n' + indent.repeat(d);
  const step = indent.length; // indent is ASCII: spaces or tabs
  for (let i = i0; i < n; i++) {
    if (record && pos >= nextMark) { marks!.at.push(i, pos, depth); nextMark = pos + MARK_EVERY; }
    else if (resume && end >= 0) break; // the rest only counted, and the total is known
    const c = text.charCodeAt(i);
    switch (c) {
      case 0x20: case 0x09: case 0x0a: case 0x0d:
        break;
      case QUOTE: {
        const j = jsonTextStringEnd(text, i);
        emitLexeme(text, i, j, true);
        i = j - 1;
        break;
      }
      case LBRACE: case LBRACKET: {
        const j = skipJsonTextWhitespace(text, i + 1);
        const close = c === LBRACE ? RBRACE : RBRACKET;
        if (text.charCodeAt(j) === close) {
          emitAscii(c === LBRACE ? '{}' : '[]');
          i = j;
        } else {
          depth++;
          emitStructure(c, depth);
        }
        break;
      }
      case RBRACE: case RBRACKET:
        depth--;
        emitStructure(c, depth);
        break;
      case COMMA:
        emitStructure(c, depth);
        break;
      case COLON:
        emitStructure(c, depth);
        break;
      default: { // number or literal
        const j = jsonTextValueEnd(text, i);
        emitLexeme(text, i, j, false);
        i = j - 1;
      }
    }
  }
  const total = resume ? marks!.total : pos;
  if (record) marks!.total = pos;
  if (start < 0) start = total; // `from` at or past the end
  if (end < 0) end = total;
  // A page never splits a pair of escapes, so a lone surrogate escape is one in the whole text too (same length: the
  // offsets hold).
  const page = replaceLoneSurrogateEscapes(out.join(''));
  return { text: page.text, start, end, total, ...(page.replaced ? { replaced: page.replaced } : {}) };
}

/**
 * The greatest cut at or before `end` in `bytes[start, …)` (UTF-8 JSON text as in a file, `start` a character
 * boundary outside any escape) that is a character boundary outside an escape sequence, or `end` itself when it is
 * one; `start` when none is (the caller then takes at least one piece: see {@link jsonPieceEnd}).
 */
export function safeJsonCut(bytes: Uint8Array, start: number, end: number): number {
  let cut = end;
  // Not inside a UTF-8 character.
  while (cut > start && cut < bytes.length && (bytes[cut]! & 0xc0) === 0x80) cut--;
  // Not inside an escape: the nearest backslash run before the cut (an escape is at most 12 bytes: \uD83D\uDE00).
  for (let k = cut - 1; k >= Math.max(start, cut - 12); k--) {
    if (bytes[k] !== BACKSLASH) continue;
    let run = 0;
    while (k - run >= start && bytes[k - run] === BACKSLASH) run++;
    // An odd run: bytes[k] opens an escape. Otherwise it is the second half of a `\\` and opens nothing.
    if (run % 2 === 1) {
      const len = escapeBytes(bytes, k);
      if (k + len > cut) cut = k;
      // \uDE00 cut away from the \uD83D before it: the pair of escapes is one character, keep it whole.
      if (cut === k && k - 6 >= start && bytes[k - 6] === BACKSLASH && escapeBytes(bytes, k - 6) === 12) cut = k - 6;
    }
    break;
  }
  return cut;
}

/** Bytes of the escape sequence opening at `bytes[k]` (a backslash): 2, 6, or 12 for a pair of \u escapes. */
function escapeBytes(bytes: Uint8Array, k: number): number {
  if (bytes[k + 1] !== 0x75) return 2;
  const hex = (at: number) => {
    let v = 0;
    for (let t = at; t < at + 4; t++) {
      const h = bytes[t];
      if (h === undefined) return -1;
      const d = h >= 0x30 && h <= 0x39 ? h - 0x30 : h >= 0x41 && h <= 0x46 ? h - 55 : h >= 0x61 && h <= 0x66 ? h - 87 : -1;
      if (d < 0) return -1;
      v = v * 16 + d;
    }
    return v;
  };
  const hi = hex(k + 2);
  if (hi >= 0xd800 && hi <= 0xdbff && bytes[k + 6] === BACKSLASH && bytes[k + 7] === 0x75) {
    const lo = hex(k + 8);
    if (lo >= 0xdc00 && lo <= 0xdfff) return 12;
  }
  return 6;
}

/** JSON text as in a file (a part cut by safeCut) with its lone surrogate escapes written as `\ufffd`. */
function wellFormedJsonText(text: string): string {
  return replaceLoneSurrogateEscapes(text).text;
}

/** The kernel's JsonLayout, stateless (tests, the CLI). */
export const jsonLayout: JsonLayout = { page: layoutJsonPage, marks: () => new LayoutMarks(), safeCut: safeJsonCut, wellFormedText: wellFormedJsonText };

/**
 * One tool call's `ctx.json`: the kernel's layout, counting the lone surrogate escapes it rewrites (`replaced`), so
 * that the call's answer says so in one warning (server/tool-adapter.ts).
 */
export class CallJsonLayout implements JsonLayout {
  /** Lone surrogate escapes written as `\ufffd` in this call's text, so far. */
  replaced = 0;

  page(text: string, options: { indent: string; from?: number; maxBytes: number; marks?: JsonLayoutMarks }): JsonLayoutPage {
    const page = layoutJsonPage(text, options);
    this.replaced += page.replaced ?? 0;
    return page;
  }

  marks(): JsonLayoutMarks {
    return new LayoutMarks();
  }

  safeCut(bytes: Uint8Array, start: number, end: number): number {
    return safeJsonCut(bytes, start, end);
  }

  wellFormedText(text: string): string {
    const r = replaceLoneSurrogateEscapes(text);
    this.replaced += r.replaced;
    return r.text;
  }
}
