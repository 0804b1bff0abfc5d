import type { RecordBatch } from '../../kernel/contracts/format';
import type { RequiredLiterals } from '../../kernel/contracts/regex';
import { indexOfBytes } from '../bytes/bytes';

/**
 * The byte prefilter of a regex over raw JSON records: a record is a candidate when its bytes contain one of the
 * required literals (or a part of it that must appear as bytes), or hold an escape that decodes into a character of
 * one (RFC 8259 §7: `\uXXXX` and the short escapes `\" \\ \/ \b \f \n \r \t`).
 *
 * Why that is exact: a decoded string holding a needle either has all of the needle's characters written as they
 * are — then the raw bytes hold the needle, since a string's unescaped characters stand verbatim between its quotes —
 * or one of them was written as an escape, which decodes to that character. An escape that decodes to anything else
 * (`\u00e9` for a search of `NEEDLE-`) cannot make the record match, so it no longer makes it a candidate. A
 * backslash that starts no valid escape (a malformed record) keeps the record, as does one at the end of the bytes.
 *
 * Case-insensitive literals are searched ASCII-folded. ASCII letters fold only to ASCII letters except `k` (U+212A
 * KELVIN SIGN) and `s` (U+017F LONG S), and non-ASCII letters fold in ways bytes cannot follow cheaply, so each
 * case-insensitive literal is reduced to its longest run of ASCII characters other than k and s; a literal with
 * no such run leaves the pattern without a prefilter. An escape then matters when it decodes to either case of a
 * character of that run.
 *
 * Cost: one `Buffer.indexOf` pass for the needle and one for backslashes over the batch's bytes; records are visited
 * only where one of them hits (no per-record loop).
 */
export class JsonLiteralPrefilter {
  /** The needles as latin1 strings (one char per UTF-8 byte). */
  private readonly needles: string[];
  private readonly single: Buffer | null;
  private readonly multi: RegExp | null;
  /** relevant[u] = 1 when an escape decoding to UTF-16 code unit u could spell part of a needle. */
  private readonly relevant: Uint8Array;
  /**
   * What escapes are looked for: a backslash when a short escape (`\n`, `\"`, …) can matter, else `\u` (far fewer
   * hits). A `\u` found after an escaped backslash (`\\u0041`) is taken for an escape: a candidate too many, never
   * one too few; and its 6 bytes hold no other backslash, so skipping them skips no escape.
   */
  private readonly escapeStart: number | Buffer;

  private constructor(needles: string[], fold: boolean) {
    this.needles = needles;
    if (needles.length === 1 && !fold) {
      this.single = Buffer.from(needles[0]!, 'latin1');
      this.multi = null;
    } else {
      this.single = null;
      this.multi = new RegExp(needles.map(escapeRegExp).join('|'), fold ? 'gi' : 'g');
    }
    this.relevant = new Uint8Array(0x10000);
    for (const needle of needles) {
      const text = Buffer.from(needle, 'latin1').toString('utf8');
      for (let i = 0; i < text.length; i++) {
        const u = text.charCodeAt(i);
        this.relevant[u] = 1;
        if (fold && u < 0x80) {
          this.relevant[String.fromCharCode(u).toLowerCase().charCodeAt(0)] = 1;
          this.relevant[String.fromCharCode(u).toUpperCase().charCodeAt(0)] = 1;
        }
      }
    }
    const short = [0x22, 0x5c, 0x2f, 0x08, 0x0c, 0x0a, 0x0d, 0x09].some((u) => this.relevant[u]);
    this.escapeStart = short ? 0x5c : Buffer.from('\\u', 'latin1');
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
    return new JsonLiteralPrefilter([...new Set(needles)], required.caseInsensitive);
  }

  /** See CompiledRegex.candidates. */
  candidates(batch: RecordBatch, onCandidate: (k: number) => boolean | void): void {
    const bytes = batch.bytes;
    const count = batch.count;
    if (count === 0) return;
    const latin1 = this.multi ? bytes.toString('latin1') : null;
    let hitPos = 0;
    let escPos = 0;
    /** The first record at or after `fromK` whose bytes hold a needle, or -1. */
    const nextHit = (fromK: number): number => {
      if (fromK >= count) return -1;
      hitPos = Math.max(hitPos, batch.span(fromK)[0]);
      for (;;) {
        const [hit, len] = this.find(bytes, latin1, hitPos);
        if (hit === -1) return -1;
        const k = batch.recordAt(hit);
        if (k === -1 || hit + len > batch.span(k)[1]) { hitPos = hit + 1; continue; }
        hitPos = batch.span(k)[1];
        return k;
      }
    };
    /** The first record at or after `fromK` holding an escape that matters, or -1. */
    const nextEscape = (fromK: number): number => {
      if (fromK >= count) return -1;
      escPos = Math.max(escPos, batch.span(fromK)[0]);
      for (;;) {
        const at = bytes.indexOf(this.escapeStart, escPos);
        if (at === -1) return -1;
        const skip = this.harmless(bytes, at);
        if (skip > 0) { escPos = at + skip; continue; }
        const k = batch.recordAt(at);
        if (k === -1 || at >= batch.span(k)[1]) { escPos = at + 1; continue; }
        escPos = batch.span(k)[1];
        return k;
      }
    };
    let h = nextHit(0);
    let x = nextEscape(0);
    while (h !== -1 || x !== -1) {
      const k = h === -1 ? x : x === -1 ? h : Math.min(h, x);
      if (onCandidate(k) === false) return;
      if (h === k) h = nextHit(k + 1);
      if (x === k) x = nextEscape(k + 1);
    }
  }

  /** See CompiledRegex.mayMatchJson. */
  mayMatch(bytes: Buffer, start: number, end: number): boolean {
    for (let at = bytes.indexOf(this.escapeStart, start); at !== -1 && at < end; ) {
      const skip = this.harmless(bytes, at);
      if (skip === 0 || at + skip > end) return true;
      at = bytes.indexOf(this.escapeStart, at + skip);
    }
    if (this.single) {
      const hit = indexOfBytes(bytes, this.single, start);
      return hit !== -1 && hit + this.single.length <= end;
    }
    const text = bytes.toString('latin1', start, end);
    this.multi!.lastIndex = 0;
    return this.multi!.test(text);
  }

  /** [position, length] of the first needle at or after `from`, position -1 when none. */
  private find(bytes: Buffer, latin1: string | null, from: number): [number, number] {
    if (latin1 === null) return [indexOfBytes(bytes, this.single!, from), this.single!.length];
    this.multi!.lastIndex = from;
    const m = this.multi!.exec(latin1);
    return m ? [m.index, m[0].length] : [-1, 0];
  }

  /**
   * The length of the escape at `at` (a backslash) when it decodes to a character no needle holds (2 or 6 bytes),
   * else 0: it matters, or it is not a valid escape.
   */
  private harmless(bytes: Buffer, at: number): number {
    const c = bytes[at + 1];
    let unit: number;
    switch (c) {
      case 0x22: case 0x5c: case 0x2f: unit = c; break; // \" \\ \/
      case 0x62: unit = 0x08; break; // \b
      case 0x66: unit = 0x0c; break; // \f
      case 0x6e: unit = 0x0a; break; // \n
      case 0x72: unit = 0x0d; break; // \r
      case 0x74: unit = 0x09; break; // \t
      case 0x75: { // \uXXXX
        unit = 0;
        for (let i = at + 2; i < at + 6; i++) {
          const d = HEX[bytes[i] ?? 0x100]!;
          if (d === 0xff) return 0;
          unit = (unit << 4) | d;
        }
        return this.relevant[unit] ? 0 : 6;
      }
      default: return 0;
    }
    return this.relevant[unit] ? 0 : 2;
  }

  /** For tests and diagnostics: the byte strings searched (latin1: one char per byte). */
  get searched(): readonly string[] {
    return this.needles;
  }
}

/** Hex digit values by byte (0xff: not a hex digit); index 0x100 stands for "past the end". */
const HEX = (() => {
  const t = new Uint8Array(0x101).fill(0xff);
  for (let d = 0; d < 10; d++) t[0x30 + d] = d;
  for (let d = 0; d < 6; d++) { t[0x41 + d] = 10 + d; t[0x61 + d] = 10 + d; }
  return t;
})();

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}
