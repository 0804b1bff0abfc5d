/**
 * The byte-level structural scanner for JSON text (RFC 8259 §2–§7), shared by the JSON format's
 * array indexer and by lazy member access (`RecordSource.node`). It never builds values: it follows
 * strings (the JSON walker's `jsonStringBodyEnd`: a short body byte by byte, a long one with `indexOf` of the quote),
 * tracks nesting with a bracket stack, and reports the children of containers down to a chosen
 * depth. Element grammar inside children is left to the parser (a child that does not parse is a
 * malformed record, read as SYNTAX_ERROR); the framing around children is checked here: brackets
 * match, no empty or trailing-comma children, object children start with a member name, nothing
 * follows the root value.
 *
 * Speed: one table lookup per byte outside strings (below the captured depth a comma is a plain byte), and
 * short strings walked in place rather than through a native `indexOf` call each; ~850–950 MB/s on a GeoJSON
 * document and on a pretty-printed array, in process, on this machine (bench/README "document").
 */
import { isJsonWhitespace as isWs, jsonEndsInEscape, jsonStringBodyEnd } from '../bytes/json-walk';

/** A structural fault at a byte offset (converted to SYNTAX_ERROR with line and column by the caller). */
export class JsonScanError extends Error {
  constructor(message: string, readonly offset: number) {
    super(message);
    this.name = 'JsonScanError';
  }
}

export type JsonRootType = 'array' | 'object' | 'string' | 'number' | 'boolean' | 'null';

const QUOTE = 1, OPEN_OBJ = 2, OPEN_ARR = 3, CLOSE_OBJ = 4, CLOSE_ARR = 5, COMMA = 6;
/** Byte classes outside strings; 0: nothing to do (whitespace, digits, letters, ':'). */
const CLS = new Uint8Array(256);
CLS[0x22] = QUOTE; CLS[0x7b] = OPEN_OBJ; CLS[0x5b] = OPEN_ARR; CLS[0x7d] = CLOSE_OBJ; CLS[0x5d] = CLOSE_ARR; CLS[0x2c] = COMMA;
/** The same below the captured depth, where a comma needs nothing (no child is reported there). */
const DEEP = CLS.slice();
DEEP[0x2c] = 0;

/** Scanner modes. */
const BEFORE = 0, IN_ROOT = 1, SCALAR = 2, AFTER = 3, DONE = 4;
/** What the next non-blank byte must be at a captured depth. */
const EXPECT_NONE = 0, EXPECT_FIRST = 1, EXPECT_NEXT = 2;

export interface ScanHooks {
  /**
   * Children of containers at depth ≤ `captureDepth` are reported (the root container is depth 1).
   * 0 reports nothing (validation only). A hook may lower it while scanning (read again after each event).
   */
  captureDepth: number;
  /** A child of the container at `depth` starts at `offset` (array: the value's first byte; object: the member name's quote). */
  onChild?(depth: number, offset: number): void;
  /** A container at `depth` (≤ captureDepth) opens at `offset`. */
  onOpen?(depth: number, offset: number, type: 'object' | 'array'): void;
  /** The container at `depth` (≤ captureDepth) closes: `offset` is its closing bracket. */
  onClose?(depth: number, offset: number): void;
  /** Stop at the end of the root value instead of checking that only whitespace follows (sub-values). */
  stopAtRootEnd?: boolean;
}

/**
 * An incremental scanner: `feed` consecutive byte ranges of the text, then `finish`.
 * @throws JsonScanError on structural faults.
 */
export class JsonStructureScanner {
  private mode = BEFORE;
  private depth = 0;
  private stack = new Uint8Array(64);
  private inString = false;
  /** Inside a string, the previous chunk ended with an odd run of backslashes. */
  private escCarry = false;
  private expect = EXPECT_NONE;
  rootType: JsonRootType | null = null;
  /** A root literal being read (`true`, `false`, `null`) and how many of its letters were seen: checked byte by byte. */
  private literal: string | null = null;
  private literalAt = 0;
  /** Offset of the root value's first byte. */
  rootStart = -1;
  /** Offset just past the root value's last byte. */
  rootEnd = -1;

  constructor(private readonly hooks: ScanHooks) {}

  get done(): boolean {
    return this.mode === DONE;
  }

  /** Scans `b[0..n)`, which holds text bytes `[base, base + n)`. */
  feed(b: Uint8Array, n: number, base: number): void {
    let i = 0;
    while (i < n) {
      const capture = this.hooks.captureDepth;
      if (this.inString) {
        i = this.skipString(b, n, i, base);
        continue;
      }
      if (this.mode !== IN_ROOT) {
        if (this.mode === DONE) return;
        i = this.outside(b, n, i, base);
        continue;
      }
      if (this.expect !== EXPECT_NONE) {
        i = this.expectChild(b, n, i, base);
        if (i >= n) break;
      }
      // The hot loop: locals only, one table lookup per byte (commas are plain bytes below the captured depth).
      let depth = this.depth;
      let stack = this.stack;
      let cls = depth > capture ? DEEP : CLS;
      for (;;) {
        let t = 0;
        while (i < n && (t = cls[b[i]!]!) === 0) i++;
        if (i >= n) break;
        if (t === QUOTE) {
          const j = jsonStringBodyEnd(b, i + 1, n);
          if (j >= 0) { i = j; continue; }
          // the string goes on in the next range; remember whether this one ends inside an escape
          this.inString = true;
          this.escCarry = jsonEndsInEscape(b, i + 1, n);
          i = n;
          break;
        }
        if (t === OPEN_OBJ || t === OPEN_ARR) {
          if (depth === stack.length) {
            const grown = new Uint8Array(stack.length * 2);
            grown.set(stack);
            this.stack = stack = grown;
          }
          stack[depth++] = t;
          if (depth > capture) { cls = DEEP; i++; continue; }
          this.hooks.onOpen?.(depth, base + i, t === OPEN_OBJ ? 'object' : 'array');
          this.expect = EXPECT_FIRST;
          this.depth = depth;
          i = this.expectChild(b, n, i + 1, base);
          break;
        }
        if (t === COMMA) {
          if (depth <= capture) {
            this.expect = EXPECT_NEXT;
            this.depth = depth;
            i = this.expectChild(b, n, i + 1, base);
            break;
          }
          i++;
          continue;
        }
        // a closing bracket
        const open = stack[depth - 1];
        if (depth === 0 || open !== t - 2) {
          const want = open === OPEN_OBJ ? "'}'" : open === OPEN_ARR ? "']'" : 'no closing bracket';
          throw new JsonScanError(`Unexpected '${String.fromCharCode(b[i]!)}' (expected ${want})`, base + i);
        }
        if (depth <= capture) this.hooks.onClose?.(depth, base + i);
        depth--;
        if (depth === capture) cls = CLS;
        i++;
        if (depth === 0) {
          this.rootEnd = base + i;
          this.mode = this.hooks.stopAtRootEnd ? DONE : AFTER;
          break;
        }
      }
      this.depth = depth;
    }
  }

  /** Continues a string that began in an earlier range. */
  private skipString(b: Uint8Array, n: number, i: number, base: number): number {
    let j = i;
    if (this.escCarry) { this.escCarry = false; j++; if (j > n) { this.escCarry = true; return n; } }
    const end = jsonStringBodyEnd(b, j, n);
    if (end < 0) {
      this.escCarry = jsonEndsInEscape(b, j, n);
      return n;
    }
    this.inString = false;
    if (this.mode === SCALAR) this.endRoot(base + end);
    return end;
  }

  /** At the end of a root literal: all of its letters were there. */
  private endLiteral(end: number): void {
    if (this.literal !== null && this.literalAt !== this.literal.length) throw this.notALiteral(end - this.literalAt);
    this.literal = null;
  }

  /** A word that is not one of JSON's three literals, where it starts (RFC 8259 §3). */
  private notALiteral(start: number): JsonScanError {
    return new JsonScanError('A word that is not a JSON literal (true, false or null) where a JSON value should start', start);
  }

  private endRoot(end: number): void {
    this.rootEnd = end;
    this.mode = this.hooks.stopAtRootEnd ? DONE : AFTER;
  }

  /** Bytes before, around or after the root value (not inside a container). */
  private outside(b: Uint8Array, n: number, i: number, base: number): number {
    while (i < n) {
      const c = b[i]!;
      if (this.mode === SCALAR) {
        if (isWs(c)) { this.endLiteral(base + i); this.endRoot(base + i); continue; }
        if (CLS[c] !== 0 || c === 0x3a) throw new JsonScanError(`Unexpected '${String.fromCharCode(c)}' after a value`, base + i);
        if (this.literal !== null) {
          if (this.literalAt >= this.literal.length || c !== this.literal.charCodeAt(this.literalAt)) throw this.notALiteral(base + i - this.literalAt);
          this.literalAt++;
        }
        i++;
        continue;
      }
      if (this.mode === DONE) return n;
      if (isWs(c)) { i++; continue; }
      if (this.mode === AFTER) throw new JsonScanError('Unexpected data after the JSON value', base + i);
      // BEFORE: the root value starts here
      this.rootStart = base + i;
      if (c === 0x7b || c === 0x5b) {
        this.rootType = c === 0x7b ? 'object' : 'array';
        this.mode = IN_ROOT;
        return i;
      }
      if (c === 0x22) {
        this.rootType = 'string';
        this.mode = SCALAR;
        this.inString = true;
        return i + 1;
      }
      if (c === 0x74 || c === 0x66 || c === 0x6e) {
        this.rootType = c === 0x6e ? 'null' : 'boolean';
        this.literal = c === 0x74 ? 'true' : c === 0x66 ? 'false' : 'null';
        this.literalAt = 1;
      }
      else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) this.rootType = 'number';
      else throw new JsonScanError(`Unexpected '${printable(c)}' where a JSON value should start`, base + i);
      this.mode = SCALAR;
      i++;
    }
    return n;
  }

  /** After `[`, `{` or `,` at a captured depth: the next non-blank byte starts a child (or closes an empty container). */
  private expectChild(b: Uint8Array, n: number, i: number, base: number): number {
    while (i < n && isWs(b[i]!)) i++;
    if (i >= n) return n;
    const c = b[i]!;
    const inObject = this.stack[this.depth - 1] === OPEN_OBJ;
    const closer = inObject ? 0x7d : 0x5d;
    if (c === closer || c === 0x5d || c === 0x7d) {
      if (this.expect === EXPECT_NEXT) throw new JsonScanError(`Trailing comma before '${String.fromCharCode(c)}'`, base + i);
    } else if (c === 0x2c) {
      throw new JsonScanError(inObject ? "Expected a member name, found ','" : "Expected a value, found ','", base + i);
    } else if (inObject && c !== 0x22) {
      throw new JsonScanError(`Expected a member name (a string), found '${printable(c)}'`, base + i);
    } else {
      this.hooks.onChild?.(this.depth, base + i);
    }
    this.expect = EXPECT_NONE;
    return i;
  }

  /**
   * Ends the text at `end` (exclusive).
   * @throws JsonScanError when the root value is missing or unterminated.
   */
  finish(end: number): void {
    if (this.mode === BEFORE) throw new JsonScanError('No JSON value (the text is empty or blank)', end);
    if (this.inString) throw new JsonScanError('Unterminated string at the end of the text', end);
    if (this.mode === IN_ROOT) {
      const open = this.stack[this.depth - 1] === OPEN_OBJ ? 'object' : 'array';
      throw new JsonScanError(`Unterminated ${open} at the end of the text (${this.depth} level${this.depth === 1 ? '' : 's'} open)`, end);
    }
    if (this.mode === SCALAR) { this.endLiteral(end); this.endRoot(end); }
  }
}

function printable(c: number): string {
  return c >= 0x20 && c < 0x7f ? String.fromCharCode(c) : `0x${c.toString(16).padStart(2, '0')}`;
}
