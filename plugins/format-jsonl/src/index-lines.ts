import type { BlankLines, OffsetIndex, RecordFramer } from 'mcpgw/plugin-api';

const LF = 0x0a, CR = 0x0d, SP = 0x20, TAB = 0x09;
/** First double of a saved state: names this layout (change it when the state's meaning changes). */
const STATE_TAG = 0x4a4c0002;
/** Blank lines whose numbers are kept (BlankLines.firstLines). */
const FIRST_BLANK = 5;

/** Bytes around a line that are not part of its record: blanks, CR, LF. */
export function isLinePadding(b: number): boolean {
  return b === SP || b === TAB || b === CR || b === LF;
}

/**
 * The line-framing pass as a resumable state machine: fed chunks in file order, it records the start offset of every
 * non-blank line. Lines are split on 0x0A bytes only (NDJSON §3.2, so U+2028/U+2029 inside strings are not breaks);
 * CRLF is accepted; blank and whitespace-only lines (space, tab, CR) are not records (documented default, NDJSON §3.2
 * "MAY ignore empty lines"); a UTF-8 BOM at byte 0 is skipped (RFC 8259 §8.1); a last line without a newline is a
 * record. Per line it costs one `indexOf(0x0A)` (memchr) and usually one byte test. Feeding the bytes appended to a
 * file after the last chunk goes on where it stopped (a last line without its newline simply continues).
 */
export class LineIndexer implements RecordFramer {
  /** 1-based line of the current position; NaN when lines are not tracked. */
  private line = 1;
  private lineStart = 0;
  /** The current line has a non-blank byte (its record is already pushed). */
  private content = false;
  /** Bytes fed so far (the offset the next chunk must start at). */
  fed = 0;
  /** Blank (empty or whitespace-only) lines passed over, and the numbers of the first FIRST_BLANK. */
  private blank = 0;
  private firstBlank: number[] = [];

  /** `from`: where the first chunk will start (a line start); lines are then unknown (NaN) and counted on need. */
  constructor(readonly index: OffsetIndex, from = 0) {
    if (from > 0) {
      this.line = NaN;
      this.lineStart = from;
      this.fed = from;
    }
  }

  /** The blank lines passed over so far (`SourceSpec.blankLines`). */
  blankLines(): BlankLines {
    return { count: this.blank, firstLines: [...this.firstBlank] };
  }

  /**
   * The indexer's state where it stopped, for the persistent index (`SourceSpec.saveState`): 6 doubles, then the
   * numbers of the first blank lines.
   */
  saveState(): Uint8Array {
    return new Uint8Array(Float64Array.of(STATE_TAG, this.line, this.lineStart, this.content ? 1 : 0, this.fed, this.blank, ...this.firstBlank).buffer);
  }

  /** An indexer going on from a stored state (`OpenOptions.restored`); null when `state` is not one this class saved. */
  static restore(index: OffsetIndex, state: Uint8Array): LineIndexer | null {
    if (state.byteLength < 48 || state.byteLength > 48 + 8 * FIRST_BLANK || state.byteLength % 8 !== 0) return null;
    const [tag, line, lineStart, content, fed, blank, ...firstBlank] = new Float64Array(new Uint8Array(state).buffer); // a copy: `state` may be a view at any byte offset
    if (tag !== STATE_TAG || !(fed! >= 0) || !(lineStart! >= 0) || lineStart! > fed! || (content !== 0 && content !== 1)) return null;
    if (!Number.isInteger(blank) || blank! < firstBlank.length || (blank! < FIRST_BLANK && firstBlank.length !== blank)) return null;
    const indexer = new LineIndexer(index);
    indexer.line = line!;
    indexer.lineStart = lineStart!;
    indexer.content = content === 1;
    indexer.fed = fed!;
    indexer.blank = blank!;
    indexer.firstBlank = firstBlank;
    return indexer;
  }

  feed(offset: number, bytes: Uint8Array): void {
    const index = this.index;
    let i = 0;
    if (offset === 0 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) i = this.lineStart = 3;
    const n = bytes.length;
    while (i < n) {
      if (!this.content) {
        let b = bytes[i]!;
        while (b === SP || b === TAB || b === CR) {
          if (++i === n) break;
          b = bytes[i]!;
        }
        if (i === n) break;
        if (b === LF) {
          i++;
          if (this.blank++ < FIRST_BLANK && this.line === this.line) this.firstBlank.push(this.line); // NaN: lines not tracked
          this.line++;
          this.lineStart = offset + i;
          continue;
        }
        this.content = true;
        index.push(this.lineStart, this.line);
      }
      const nl = bytes.indexOf(LF, i);
      if (nl === -1) break; // the line goes on in the next chunk
      i = nl + 1;
      this.line++;
      this.lineStart = offset + i;
      this.content = false;
    }
    this.fed = offset + n;
  }
}
