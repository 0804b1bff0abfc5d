import type { RecordBatch } from '../contracts/format';
import type { RequiredLiterals } from '../contracts/regex';

/**
 * The byte prefilter of a regex over raw JSON records: a record is a candidate when its bytes contain one of the
 * required literals (or a part of it that must appear as bytes), or hold an escape through which a decoded string
 * could differ from the bytes.
 *
 * Case-insensitive literals are searched ASCII-folded. ASCII letters fold only to ASCII letters except `k` (U+212A
 * KELVIN SIGN) and `s` (U+017F LONG S), and non-ASCII letters fold in ways bytes cannot follow cheaply, so each
 * case-insensitive literal is reduced to its longest run of ASCII characters other than k and s; a literal with
 * no such run leaves the pattern without a prefilter.
 */
export class JsonLiteralPrefilter {
  /** The needles as latin1 strings (one char per UTF-8 byte). */
  private readonly needles: string[];
  private readonly single: Buffer | null;
  private readonly multi: RegExp | null;
  /** Any escape can matter (a literal holds `"`, `\`, `/` or a control character); else only `\u`. */
  private readonly anyEscape: boolean;

  private constructor(needles: string[], fold: boolean, anyEscape: boolean) {
    this.needles = needles;
    this.anyEscape = anyEscape;
    if (needles.length === 1 && !fold) {
      this.single = Buffer.from(needles[0]!, 'latin1');
      this.multi = null;
    } else {
      this.single = null;
      this.multi = new RegExp(needles.map(escapeRegExp).join('|'), fold ? 'gi' : 'g');
    }
  }

  /** The prefilter for `required`, or null when every record must be tested. */
  static from(required: RequiredLiterals | null): JsonLiteralPrefilter | null {
    if (!required || required.literals.length === 0) return null;
    const needles: string[] = [];
    for (const literal of required.literals) {
      let needle = literal;
      if (required.caseInsensitive) {
        // eslint-disable-next-line no-control-regex
        needle = (literal.match(/[\x00-\x7f]+/g) ?? []).flatMap((r) => r.split(/[ks]/i)).sort((a, b) => b.length - a.length)[0] ?? '';
      }
      if (needle === '') return null;
      needles.push(Buffer.from(needle, 'utf8').toString('latin1'));
    }
    // eslint-disable-next-line no-control-regex
    const anyEscape = required.literals.some((l) => /["\\/\u0000-\u001f]/.test(l));
    return new JsonLiteralPrefilter([...new Set(needles)], required.caseInsensitive, anyEscape);
  }

  /** See CompiledRegex.candidates. */
  candidates(batch: RecordBatch, onCandidate: (k: number) => boolean | void): void {
    const bytes = batch.bytes;
    const latin1 = this.multi ? bytes.toString('latin1') : null;
    let pos = 0;
    let nextHit = -2; // k of the next record holding a needle; -1 when no more
    const findNext = (fromK: number) => {
      if (fromK >= batch.count) { nextHit = -1; return; }
      pos = Math.max(pos, batch.span(fromK)[0]);
      for (;;) {
        let hit: number;
        let len: number;
        if (latin1) {
          this.multi!.lastIndex = pos;
          const m = this.multi!.exec(latin1);
          hit = m ? m.index : -1;
          len = m ? m[0].length : 0;
        } else {
          hit = bytes.indexOf(this.single!, pos);
          len = this.single!.length;
        }
        if (hit === -1) { nextHit = -1; return; }
        const k = batch.recordAt(hit);
        if (k === -1 || hit + len > batch.span(k)[1]) { pos = hit + 1; continue; }
        nextHit = k;
        pos = batch.span(k)[1];
        return;
      }
    };
    findNext(0);
    let backslash = -2; // the first backslash at or after the current record, -1 when none (searched once per batch region)
    for (let k = 0; k < batch.count; k++) {
      let candidate: boolean;
      if (k === nextHit) {
        candidate = true;
        findNext(k + 1);
      } else {
        const [s, e] = batch.span(k);
        if (backslash !== -1 && backslash < s) backslash = bytes.indexOf(0x5c, s);
        candidate = backslash !== -1 && backslash < e && this.escapes(bytes, backslash, e);
      }
      if (candidate && onCandidate(k) === false) return;
    }
  }

  /** See CompiledRegex.mayMatchJson. */
  mayMatch(bytes: Buffer, start: number, end: number): boolean {
    const backslash = bytes.indexOf(0x5c, start);
    if (backslash !== -1 && backslash < end && this.escapes(bytes, backslash, end)) return true;
    if (this.single) {
      const hit = bytes.indexOf(this.single, start);
      return hit !== -1 && hit + this.single.length <= end;
    }
    const text = bytes.toString('latin1', start, end);
    this.multi!.lastIndex = 0;
    return this.multi!.test(text);
  }

  /**
   * True when `[s, e)` holds an escape that could decode into part of a match. Scans only `[s, e)` byte by byte
   * after the first backslash (callers find that one with indexOf), so a batch costs one pass however many records.
   */
  private escapes(bytes: Buffer, s: number, e: number): boolean {
    for (let i = s; i < e; i++) {
      if (bytes[i] !== 0x5c) continue;
      if (this.anyEscape || bytes[i + 1] === 0x75 /* u */) return true;
      i++; // the escaped character
    }
    return false;
  }

  /** For tests and diagnostics: the byte strings searched (latin1: one char per byte). */
  get searched(): readonly string[] {
    return this.needles;
  }
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}
