import type { FormatProbe, JsonWalker } from 'mcpgw/plugin-api';

/** Bytes of a cut probe examined. */
const CUT_SCAN = 256 * 1024;

/**
 * Content detection for one JSON value per file. Reads only the probe bytes; cheap, never throws.
 * Follows strings and nesting (no parsing):
 * - one value spanning several lines (pretty-printed), the whole file in the probe: 0.9
 * - one value on one line, the whole file in the probe: 0.6 (JSON Lines says 0.55 for a one-line
 *   file: a tie within 0.1, so the extension decides; with neither extension, JSON wins)
 * - a container still open at the end of a probe cut from a larger file: 0.8 when it already spans
 *   several lines (pretty-printed; JSON Lines needs two complete lines to say more), 0.5 when the
 *   probe is one unfinished line (a huge one-line array, or a JSON Lines file whose first line is
 *   longer than the probe, for which JSON Lines says 0.45: the extension decides)
 * - a second value after the first (line-aligned values: JSON Lines), RS at byte 0 (JSON-seq),
 *   a byte that cannot start or continue JSON, mismatched brackets: null
 */
export function detectJson(probe: FormatProbe, json: JsonWalker): number | null {
  const { isJsonWhitespace: isWs } = json;
  const b = probe.bytes;
  let i = b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf ? 3 : 0;
  while (i < b.length && isWs(b[i]!)) i++;
  if (i >= b.length) return null;
  const c0 = b[i]!;
  const scalarStart = c0 === 0x22 || c0 === 0x2d || (c0 >= 0x30 && c0 <= 0x39) || c0 === 0x74 || c0 === 0x66 || c0 === 0x6e;
  if (c0 !== 0x7b && c0 !== 0x5b && !scalarStart) return null;
  const wholeFile = probe.size <= b.length;
  const start = i;
  const stack: number[] = [];
  let end = -1;
  if (c0 === 0x7b || c0 === 0x5b) {
    // A probe cut from a larger file is judged on its first 256 KiB: enough to tell one pretty value from lines.
    const limit = wholeFile ? b.length : Math.min(b.length, start + CUT_SCAN);
    for (; i < limit; i++) {
      const c = b[i]!;
      if (c === 0x22) {
        let j = i + 1;
        for (;;) {
          const q = b.indexOf(0x22, j);
          if (q === -1 || q >= limit) return wholeFile ? null : cut(b, start);
          let k = q - 1, bs = 0;
          while (b[k] === 0x5c) { bs++; k--; }
          j = q + 1;
          if ((bs & 1) === 0) break;
        }
        i = j - 1;
      } else if (c === 0x7b || c === 0x5b) stack.push(c);
      else if (c === 0x7d || c === 0x5d) {
        if (stack.pop() !== c - 2) return null;
        if (stack.length === 0) { end = i + 1; break; }
      } else if (c < 0x20 && !isWs(c)) return null;
    }
    if (end === -1) return wholeFile ? null : cut(b, start);
  } else if (c0 === 0x22) {
    let j = i + 1;
    for (;;) {
      const q = b.indexOf(0x22, j);
      if (q === -1) return wholeFile ? null : 0.5;
      let k = q - 1, bs = 0;
      while (b[k] === 0x5c) { bs++; k--; }
      j = q + 1;
      if ((bs & 1) === 0) break;
    }
    end = j;
  } else {
    let j = i;
    while (j < b.length && !isWs(b[j]!)) j++;
    end = j;
    const token = b.subarray(i, j).toString('latin1');
    if (!/^(-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?|true|false|null)$/.test(token)) return null;
  }
  let k = end;
  while (k < b.length && isWs(b[k]!)) k++;
  if (k < b.length) return null; // another value follows: several values (JSON Lines) or garbage
  if (!wholeFile && scalarStart) return 0.5;
  const multiLine = b.subarray(start, end).includes(0x0a);
  return multiLine ? 0.9 : 0.6;
}

/** Confidence for a container cut by the end of the probe. */
function cut(b: Buffer, start: number): number {
  return b.indexOf(0x0a, start) !== -1 ? 0.8 : 0.5;
}
