import type { OffsetIndex, OpenOptions, OpenedFile, RecordsToolkit } from 'mcpgw/plugin-api';

const LF = 0x0a, CR = 0x0d, SP = 0x20, TAB = 0x09;

/** Bytes around a line that are not part of its record: blanks, CR, LF. */
export function isLinePadding(b: number): boolean {
  return b === SP || b === TAB || b === CR || b === LF;
}

/**
 * One streaming pass over the file that records the start offset of every non-blank line.
 * Lines are split on 0x0A bytes only (NDJSON §3.2, so U+2028/U+2029 inside strings are not breaks);
 * CRLF is accepted; blank and whitespace-only lines (space, tab, CR) are not records (documented
 * default, NDJSON §3.2 "MAY ignore empty lines"); a UTF-8 BOM at byte 0 is skipped (RFC 8259 §8.1);
 * a last line without a newline is a record. Per line it costs one `indexOf(0x0A)` (memchr) and
 * usually one byte test.
 * @returns the index and the 1-based line count of the file.
 */
export async function indexLines(file: OpenedFile, records: RecordsToolkit, options: OpenOptions): Promise<OffsetIndex> {
  const index = records.createIndex();
  let line = 1;
  let lineStart = 0;
  let content = false; // the current line has a non-blank byte
  let first = true;
  for await (const { offset, bytes } of records.chunks(file, { signal: options.signal, onProgress: options.onProgress })) {
    let i = 0;
    if (first) {
      first = false;
      if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) i = lineStart = 3;
    }
    const n = bytes.length;
    while (i < n) {
      if (!content) {
        let b = bytes[i]!;
        while (b === SP || b === TAB || b === CR) {
          if (++i === n) break;
          b = bytes[i]!;
        }
        if (i === n) break;
        if (b === LF) {
          i++;
          line++;
          lineStart = offset + i;
          continue;
        }
        content = true;
        index.push(lineStart, line);
      }
      const nl = bytes.indexOf(LF, i);
      if (nl === -1) break; // the line goes on in the next chunk
      i = nl + 1;
      line++;
      lineStart = offset + i;
      content = false;
    }
  }
  index.finish();
  return index;
}
