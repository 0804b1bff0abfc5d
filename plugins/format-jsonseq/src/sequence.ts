import type { FormatProbe, OffsetIndex, RecordFramer } from 'mcpgw/plugin-api';
import { isJsonWhitespace as isWs } from './toolkit';

/** RFC 7464 §2: the record separator that introduces every JSON text. */
export const RS = 0x1e;
const LF = 0x0a;
/** First double of a saved state: names this layout (change it when the state's meaning changes). */
const STATE_TAG = 0x4a530001;

/** Bytes around an element that are not part of it: RS and JSON whitespace (LF ends each element). */
export function isSequencePadding(b: number): boolean {
  return b === RS || isWs(b);
}

/**
 * Content detection: RFC 7464 texts start with RS (0x1E): 1.0 when the first byte that is not JSON whitespace is RS
 * (whitespace before it is framing, as between texts; no JSON text or line of JSON Lines starts with RS); anything
 * else: null (a `.json-seq` file that does not start with RS is left to content detection of the other formats, then
 * to its extension).
 */
export function detectSequence(probe: FormatProbe): number | null {
  const bytes = probe.bytes;
  let k = 0;
  while (k < bytes.length && isWs(bytes[k]!)) k++;
  return bytes[k] === RS ? 1 : null;
}

/**
 * RFC 7464 §2.3/§2.4 framing checks of one element, before it is parsed: an element must be
 * introduced by RS, and a top-level number not followed by whitespace may have been truncated
 * (a number's end cannot be told from a cut), so it is malformed.
 */
export function checkSequenceRecord(extent: Uint8Array, start: number, end: number): string | undefined {
  if (extent[0] !== RS) return 'it is not introduced by a record separator (RS, 0x1E; RFC 7464 §2.1)';
  const c = extent[start];
  if (c !== undefined && (c === 0x2d || (c >= 0x30 && c <= 0x39))) {
    const after = extent[end];
    if (after === undefined || !isWs(after)) return 'a top-level number not followed by whitespace may be truncated (RFC 7464 §2.4)';
  }
  return undefined;
}

/**
 * The element-framing pass as a resumable state machine: fed chunks in file order, it records where every element
 * starts: at its RS. Consecutive RS bytes (only whitespace between them) are not empty records (RFC 7464 §2.1); an
 * element runs to the next RS, so a truncated or unparseable element is one malformed record and the next RS
 * resynchronises (§2.3). Content before the first RS is one record, malformed for want of its RS. Per element it
 * costs one `indexOf(RS)` (memchr) plus the whitespace after the RS; lines are left to the source (counted on first
 * need). Feeding the bytes appended to the file goes on where it stopped.
 */
export class SequenceIndexer implements RecordFramer {
  private pending = -1; // offset of an RS whose element has not shown content yet
  private leading = true; // before the first RS
  /** Bytes fed so far. */
  fed = 0;

  constructor(readonly index: OffsetIndex) {}

  /** The indexer's state where it stopped, for the persistent index (`SourceSpec.saveState`): 4 doubles. */
  saveState(): Uint8Array {
    return new Uint8Array(Float64Array.of(STATE_TAG, this.pending, this.leading ? 1 : 0, this.fed).buffer);
  }

  /** An indexer going on from a stored state (`OpenOptions.restored`); null when `state` is not one this class saved. */
  static restore(index: OffsetIndex, state: Uint8Array): SequenceIndexer | null {
    if (state.byteLength !== 32) return null;
    const [tag, pending, leading, fed] = new Float64Array(new Uint8Array(state).buffer); // a copy: `state` may be a view at any byte offset
    if (tag !== STATE_TAG || !(fed! >= 0) || !(pending! >= -1) || pending! >= fed! || (leading !== 0 && leading !== 1)) return null;
    const indexer = new SequenceIndexer(index);
    indexer.pending = pending!;
    indexer.leading = leading === 1;
    indexer.fed = fed!;
    return indexer;
  }

  feed(offset: number, bytes: Uint8Array): void {
    // Lines are not tracked here: the kernel's source counts them on first need (OffsetIndex.push with NaN).
    const push = (at: number) => this.index.push(at, NaN);
    const n = bytes.length;
    let i = 0;
    while (i < n) {
      if (this.pending >= 0 || this.leading) {
        while (i < n && isWs(bytes[i]!)) i++;
        if (i === n) break;
        if (bytes[i] === RS) { this.pending = offset + i; this.leading = false; i++; continue; }
        if (this.pending >= 0) { push(this.pending); this.pending = -1; }
        else { push(offset + i); this.leading = false; }
      }
      const next = bytes.indexOf(RS, i);
      if (next === -1) { i = n; break; }
      this.pending = offset + next;
      i = next + 1;
    }
    this.fed = offset + n;
  }
}
