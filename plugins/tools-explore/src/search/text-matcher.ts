import type { RecordBatch } from 'mcpgw/plugin-api';


/**
 * Finds the records of a batch whose raw text contains the needle, calling `onRecord(k, hitByte)`
 * once per matching record with the byte offset of its first hit inside the record.
 * - Case-sensitive: `Buffer.indexOf` over the whole batch (memchr-based), never per record.
 * - Case-insensitive, ASCII needle: a regular expression over the batch as latin1 (one byte one
 *   character) in which only ASCII letters fold (`[aA]`), so bytes of other characters never
 *   match by accident.
 * - Case-insensitive, non-ASCII needle: each record decoded and searched with a Unicode
 *   case-insensitive expression (`iu`).
 * Searching is over the record's text as written in the file (escapes included).
 */
export class TextMatcher {
  private readonly needle: Buffer;
  private readonly asciiFold: RegExp | null = null;
  private readonly unicodeFold: RegExp | null = null;

  constructor(readonly query: string, readonly matchCase: boolean) {
    this.needle = Buffer.from(query, 'utf8');
    if (!matchCase) {
      // eslint-disable-next-line no-control-regex
      if (/^[\x00-\x7f]*$/.test(query)) {
        const pattern = [...query].map((ch) => (/[a-zA-Z]/.test(ch) ? `[${ch.toLowerCase()}${ch.toUpperCase()}]` : escapeRegExp(ch))).join('');
        this.asciiFold = new RegExp(pattern, 'g');
      } else {
        this.unicodeFold = new RegExp(escapeRegExp(query), 'giu');
      }
    }
  }

  /** Calls `onRecord(k, start, end)` for each matching record; start/end are byte offsets of the first hit within the record's span. Stops when it returns false. */
  scan(batch: RecordBatch, onRecord: (k: number, start: number, end: number) => boolean | void): void {
    if (this.unicodeFold) return this.scanDecoded(batch, onRecord);
    const bytes = batch.bytes;
    const latin1 = this.asciiFold ? bytes.toString('latin1') : null;
    let pos = 0;
    const len = this.needle.length;
    while (pos <= bytes.length - len) {
      let hit: number;
      if (latin1) {
        this.asciiFold!.lastIndex = pos;
        const m = this.asciiFold!.exec(latin1);
        hit = m ? m.index : -1;
      } else hit = bytes.indexOf(this.needle, pos);
      if (hit === -1) return;
      const k = batch.recordAt(hit);
      if (k === -1) { pos = hit + 1; continue; }
      const [s, e] = batch.span(k);
      if (hit < s || hit + len > e) {
        // in padding, or across the end of the record: look again after it
        pos = hit < s ? hit + 1 : Math.max(hit + 1, e);
        continue;
      }
      if (onRecord(k, hit - s, hit - s + len) === false) return;
      pos = e; // one hit per record is enough
    }
  }

  private scanDecoded(batch: RecordBatch, onRecord: (k: number, start: number, end: number) => boolean | void): void {
    const re = this.unicodeFold!;
    for (let k = 0; k < batch.count; k++) {
      const [s, e] = batch.span(k);
      const text = batch.bytes.toString('utf8', s, e);
      re.lastIndex = 0;
      const m = re.exec(text);
      if (!m) continue;
      const start = Buffer.byteLength(text.slice(0, m.index));
      if (onRecord(k, start, start + Buffer.byteLength(m[0])) === false) return;
    }
  }
}

export function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\\/]/g, '\\$&');
}
