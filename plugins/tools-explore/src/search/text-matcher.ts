import type { RecordBatch } from 'mcpgw/plugin-api';
import { caselessFinder, indexOfBytes } from '../toolkit';
import { forEachToken, type Token } from '../json/scan';

/** The first hit of a text search inside a record. */
export interface TextHit {
  token: Token;
  /** The token's decoded text (a string's or key's value; a number's or literal's lexeme). */
  decoded: string;
  /** The hit inside `decoded`, in UTF-16 units. */
  start: number;
  end: number;
  /**
   * A hit in the raw text only (it spans structure, `"status":"failed"`, or an escape as written, `\u00e9`): its span
   * in the record's text, in UTF-16 units; `token` is the first member name or value it touches.
   */
  raw?: { start: number; end: number };
}

/**
 * Text search, record by record, over DECODED member names and values: a string's value after its
 * escapes are decoded (a file storing `\u00e9` matches "é"), member names the same way, numbers and
 * `true` / `false` / `null` by their lexeme — OR over the RAW text of the record, as in the file
 * ({@link TextMatcher.rawMatch}), so that a query spanning structure (`"status":"failed"`) finds what
 * a byte search finds. Case-insensitive unless `matchCase`, by Unicode simple case folding (the `iu`
 * flags: É matches é), in both.
 *
 * Work is done on bytes first: a record is decoded and walked only when its raw bytes can hold a match —
 * they contain the needle (the plugin API's `indexOfBytes` when case-sensitive, its `caselessFinder` for ASCII
 * needles: both search a literal's rarest bytes over the whole batch; a Unicode `iu` expression per record otherwise) or they hold
 * escapes that could decode into it (`\u` always; other escapes when the needle contains
 * `"`, `\`, `/` or a control character).
 */
export class TextMatcher {
  private readonly needle: Buffer;
  /** Bytes a raw prefilter hit spans (the needle, or the ASCII run of a non-ASCII needle that is searched for). */
  private readonly hitBytes: number;
  /** What the raw prefilter searches ignoring ASCII case: the ASCII needle (or run) in lower case, as bytes. */
  private readonly caseless: Buffer | null = null;
  private readonly unicodeFold: RegExp | null = null;
  private readonly decodedRe: RegExp | null;
  /** Needle characters that a short escape (`\n`, `\"`, …) produces. */
  private readonly shortEscapes: boolean;
  /**
   * The UTF-16 code units a `\uXXXX` escape must decode to for it to spell part of a match (the needle's, in both
   * ASCII cases when case-insensitive); null when any `\u` escape may (a case-insensitive needle with non-ASCII
   * characters, `k` or `s`, whose fold partners lie outside ASCII).
   */
  private readonly escapeUnits: Set<number> | null;
  /** Every occurrence in a raw text (rawHits), made on first use. */
  private rawAll: RegExp | null = null;

  constructor(readonly query: string, readonly matchCase: boolean) {
    this.needle = Buffer.from(query, 'utf8');
    this.hitBytes = this.needle.length;
    // eslint-disable-next-line no-control-regex
    this.shortEscapes = /["\\/\u0000-\u001f]/.test(query);
    if (matchCase) this.decodedRe = null;
    else {
      this.decodedRe = new RegExp(escapeRegExp(query), 'iu');
      // ASCII needles fold by ASCII rules on raw bytes, unless a letter has a non-ASCII fold partner (k: K, s: ſ).
      // eslint-disable-next-line no-control-regex
      if (/^[\x00-\x7f]*$/.test(query) && !/[ks]/i.test(query)) {
        this.caseless = Buffer.from(query.toLowerCase(), 'latin1');
      } else {
        // A non-ASCII needle: its longest ASCII run without k/s (ASCII letters fold only to ASCII letters then)
        // must appear in the raw bytes of any record that matches without \u escapes; search for that run.
        // eslint-disable-next-line no-control-regex
        const run = (query.match(/[\x00-\x7f]+/g) ?? []).flatMap((r) => r.split(/[ks]/i)).sort((a, b) => b.length - a.length)[0] ?? '';
        if (run.length >= 3) {
          this.caseless = Buffer.from(run.toLowerCase(), 'latin1');
          this.hitBytes = run.length;
        } else {
          this.unicodeFold = new RegExp(escapeRegExp(query), 'iu');
        }
      }
    }
    // eslint-disable-next-line no-control-regex
    if (!matchCase && (!/^[\x00-\x7f]*$/.test(query) || /[ks]/i.test(query))) this.escapeUnits = null;
    else {
      this.escapeUnits = new Set();
      for (let i = 0; i < query.length; i++) {
        const ch = query[i]!;
        this.escapeUnits.add(ch.charCodeAt(0));
        if (!matchCase) { this.escapeUnits.add(ch.toLowerCase().charCodeAt(0)); this.escapeUnits.add(ch.toUpperCase().charCodeAt(0)); }
      }
    }
    // The engine compiles an expression on its first use: compile them now, so that one it refuses (too large)
    // is a SyntaxError here, where the caller turns it into INVALID_ARGUMENT, not in the middle of a scan.
    for (const re of [this.decodedRe, this.unicodeFold]) if (re) { re.test(''); re.lastIndex = 0; }
  }

  /**
   * The first matching token of a record's text, in document order (a name before its value), or null. With
   * `parsed` (the record's value from {@link parseKeepingLexemes}), a token counts only if the record as parsed holds it: a member whose name repeats
   * later in its object is replaced by the later one (the last value wins), so text inside it is not in the record.
   */
  match(text: string, parsed?: unknown): TextHit | null {
    return firstHit((onHit) => this.each(text, parsed, onHit));
  }

  /**
   * The first occurrence of the query in a record's raw text (its JSON text as in the file: quotes, colons, escapes as
   * written), `[start, end)` in UTF-16 units, or null. The same folding as the decoded match. A raw-text match is a
   * byte match: the prefilter ({@link candidates}) already found the bytes, this places them.
   */
  rawMatch(text: string): { start: number; end: number } | null {
    if (this.decodedRe) {
      const m = this.decodedRe.exec(text);
      return m ? { start: m.index, end: m.index + m[0].length } : null;
    }
    const i = text.indexOf(this.query);
    return i === -1 ? null : { start: i, end: i + this.query.length };
  }

  /**
   * Hits in the raw text that no decoded hit covers, one per member name or value (the first it touches), in document
   * order: what a byte search finds that {@link matchAll} does not (a query spanning structure, or escapes as
   * written). With `parsed`, only tokens the parsed value holds (see {@link match}). At most `max` hits.
   */
  rawHits(text: string, decodedHits: readonly TextHit[], parsed?: unknown, max = Infinity): TextHit[] {
    const spans = this.rawSpans(text);
    if (spans.length === 0) return [];
    const taken = new Set(decodedHits.map((h) => h.token.start));
    const last = spans[spans.length - 1]!.end;
    // the tokens the spans touch, with their decoded text
    const tokens: { token: Token; decoded: string }[] = [];
    forEachToken(text, (token) => {
      tokens.push({ token, decoded: decodedToken(text, token) });
      return token.start >= last; // a span between tokens belongs to the next one: keep one token past the last span
    });
    // A span counts only when the record as parsed holds every token it touches: not a member that a repeated name
    // replaced, even when the span starts at the name that survives.
    const held = (t: { token: Token; decoded: string }) => parsed === undefined || holds(parsed, t.token, t.decoded);
    const hits: TextHit[] = [];
    let t = 0;
    let firstOf = -1; // the token whose hit was last decided
    for (const span of spans) {
      while (t < tokens.length && tokens[t]!.token.end <= span.start) t++;
      if (t >= tokens.length) break;
      if (t === firstOf) continue; // one hit per first touched token
      const first = tokens[t]!;
      if (taken.has(first.token.start)) continue;
      let all = held(first);
      for (let u = t + 1; u < tokens.length && tokens[u]!.token.start < span.end && all; u++) all = held(tokens[u]!);
      if (!all) continue;
      firstOf = t;
      hits.push({ token: first.token, decoded: first.decoded, start: 0, end: 0, raw: span });
      if (hits.length >= max) break;
    }
    return hits;
  }

  /** Every occurrence of the query in a raw text, without overlaps, in order: `[start, end)` in UTF-16 units. */
  rawSpans(text: string): { start: number; end: number }[] {
    const spans: { start: number; end: number }[] = [];
    const all = this.rawAll ??= new RegExp(this.decodedRe ? this.decodedRe.source : escapeRegExp(this.query), this.decodedRe ? 'giu' : 'g');
    all.lastIndex = 0;
    for (let m = all.exec(text); m; m = all.exec(text)) {
      spans.push({ start: m.index, end: m.index + m[0].length });
      if (m[0].length === 0) all.lastIndex++;
    }
    return spans;
  }

  /** The most bytes a raw hit can span: the query's UTF-8 bytes, or 3× that when case folds (`K` is 3 bytes as `K`). */
  get maxHitBytes(): number {
    return this.needle.length * (this.matchCase ? 1 : 3);
  }

  /** Every matching token of a JSON text, in document order (one hit per token: its first occurrence). */
  matchAll(text: string, parsed?: unknown): TextHit[] {
    return allHits((onHit) => this.each(text, parsed, onHit));
  }

  /** Calls `onHit` for each matching token in document order; stops when it returns true. */
  private each(text: string, parsed: unknown, onHit: (hit: TextHit) => boolean | void): void {
    eachTokenHit(text, parsed, false, (decoded) => {
      if (this.decodedRe) {
        const m = this.decodedRe.exec(decoded);
        return m ? { start: m.index, end: m.index + m[0].length } : null;
      }
      const start = decoded.indexOf(this.query);
      return start === -1 ? null : { start, end: start + this.query.length };
    }, onHit);
  }

  /**
   * Calls `onCandidate(k)` for each record of the batch, in order, whose bytes can hold a match.
   * Stops when it returns false.
   */
  candidates(batch: RecordBatch, onCandidate: (k: number) => boolean | void): void {
    const bytes = batch.bytes;
    const escapesMayMatch = this.escapeScan(bytes);
    if (this.unicodeFold) {
      for (let k = 0; k < batch.count; k++) {
        const [s, e] = batch.span(k);
        if (escapesMayMatch(s, e) || this.unicodeFold.test(bytes.toString('utf8', s, e))) {
          if (onCandidate(k) === false) return;
        }
      }
      return;
    }
    // Records holding a raw hit, found over the whole batch at once.
    const folded = this.caseless ? caselessFinder(bytes, this.caseless) : null;
    let nextHitRecord = -2; // k of the next record with a raw hit, -1 when there are no more
    let pos = 0;
    const findNext = (fromK: number) => {
      if (fromK >= batch.count) { nextHitRecord = -1; return; }
      pos = Math.max(pos, batch.span(fromK)[0]);
      for (;;) {
        const hit = folded ? folded(pos) : indexOfBytes(bytes, this.needle, pos);
        if (hit === -1) { nextHitRecord = -1; return; }
        const k = batch.recordAt(hit);
        if (k === -1) { pos = hit + 1; continue; }
        const [, e] = batch.span(k);
        if (hit + this.hitBytes > e) { pos = hit + 1; continue; }
        nextHitRecord = k;
        pos = e;
        return;
      }
    };
    findNext(0);
    // Records whose escapes may spell part of the needle, found over the whole batch too: the escapes are searched
    // (a backslash when a short escape matters, else `\u`), and records are visited only where one of them hits.
    const escape = this.shortEscapes ? 0x5c : BACKSLASH_U;
    let escPos = 0;
    const nextEscapeRecord = (fromK: number): number => {
      if (fromK >= batch.count) return -1;
      escPos = Math.max(escPos, batch.span(fromK)[0]);
      for (;;) {
        const i = bytes.indexOf(escape, escPos);
        if (i === -1) return -1;
        const k = batch.recordAt(i);
        if (k === -1) { escPos = i + 1; continue; }
        const [, e] = batch.span(k);
        if (this.escapeMatters(bytes, i, e)) { escPos = e; return k; }
        escPos = i + 2;
      }
    };
    let nextEscape = nextEscapeRecord(0);
    for (;;) {
      const k = nextHitRecord === -1 ? nextEscape : nextEscape === -1 ? nextHitRecord : Math.min(nextHitRecord, nextEscape);
      if (k === -1) return;
      if (onCandidate(k) === false) return;
      if (k === nextHitRecord) findNext(k + 1);
      if (k === nextEscape) nextEscape = nextEscapeRecord(k + 1);
    }
  }

  /**
   * Whether the escape at `bytes[i]` (a backslash), in a record ending at `e`, may spell part of the needle: any
   * escape when a short escape can (the needle has `"`, `\`, `/` or a control character); else a `\uXXXX` that
   * decodes to one of {@link escapeUnits}, or a malformed one.
   */
  private escapeMatters(bytes: Uint8Array, i: number, e: number): boolean {
    if (this.shortEscapes) return true;
    if (bytes[i + 1] !== 0x75 /* u */) return false;
    const u = i + 6 <= e ? hex4(bytes, i + 2) : -1;
    return u < 0 || this.escapeUnits === null || this.escapeUnits.has(u);
  }

  /**
   * For the records of one batch, asked in increasing order: `(s, e) => true` when the record `[s, e)` holds escapes
   * that could decode into part of the needle: a short escape when the needle has such characters, a `\uXXXX` that
   * decodes to one of {@link escapeUnits} (or a malformed one). The batch's backslashes are searched once, front to
   * back (a search per record that ran to the batch's end made a batch without backslashes cost one 4 MiB scan per
   * record); an escape that decodes to another character (`\u00e9` for a search of "NEEDLE") makes no candidate.
   */
  private escapeScan(bytes: Buffer): (s: number, e: number) => boolean {
    let next = -2; // the first backslash not yet passed (-1: none left; -2: not searched yet)
    return (s, e) => {
      if (next === -1) return false;
      if (next < s) next = bytes.indexOf(0x5c, s);
      while (next !== -1 && next < e) {
        if (this.escapeMatters(bytes, next, e)) return true;
        next = bytes.indexOf(0x5c, next + 2);
      }
      return false;
    };
  }
}

const isRawJson = (v: unknown): boolean => (JSON as unknown as { isRawJSON(x: unknown): boolean }).isRawJSON(v);

/**
 * Parses a record keeping the lexeme of every number a double would spell differently (`1.0`, `1e3`), as
 * `JSON.rawJSON`, so that {@link TextMatcher.match} can tell which spelling a repeated member kept.
 */
export function parseKeepingLexemes(text: string): unknown {
  return JSON.parse(text, (_k, v: unknown, ctx?: { source?: string }) => (typeof v === 'number' && ctx?.source !== undefined && String(v) !== ctx.source ? (JSON as unknown as { rawJSON(t: string): unknown }).rawJSON(ctx.source) : v));
}

/**
 * True when the parsed record (from {@link parseKeepingLexemes}) holds the token at its pointer: a name whose member exists, a string or scalar equal to
 * the value there. False for a token inside a member that a later member of the same name replaced.
 */
export function holds(parsed: unknown, token: Token, decoded: string): boolean {
  let v: unknown = parsed;
  if (token.pointer !== '') {
    for (const raw of token.pointer.slice(1).split('/')) {
      const t = raw.replace(/~1/g, '/').replace(/~0/g, '~');
      if (Array.isArray(v)) {
        if (!/^(0|[1-9]\d*)$/.test(t) || Number(t) >= v.length) return false;
        v = v[Number(t)];
      }
      else if (v !== null && typeof v === 'object' && Object.prototype.hasOwnProperty.call(v, t)) v = (v as Record<string, unknown>)[t];
      else return false;
    }
  }
  switch (token.kind) {
    case 'key': return true;
    case 'string': return v === decoded;
    case 'number': return isRawJson(v) ? (v as { rawJSON: string }).rawJSON === decoded : typeof v === 'number' && String(v) === decoded;
    default: return (v === null || typeof v === 'boolean') && String(v) === decoded;
  }
}

export function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\\/]/g, '\\$&');
}

/** `\u` as bytes: what is searched for when only `\uXXXX` escapes can spell part of the needle. */
const BACKSLASH_U = Buffer.from('\\u', 'latin1');

/** The code unit of the four hex digits at `bytes[i..i+4)`, or -1 when they are not four hex digits. */
function hex4(bytes: Uint8Array, i: number): number {
  let u = 0;
  for (let k = i; k < i + 4; k++) {
    const c = bytes[k]!;
    const d = c >= 0x30 && c <= 0x39 ? c - 0x30 : c >= 0x61 && c <= 0x66 ? c - 0x57 : c >= 0x41 && c <= 0x46 ? c - 0x37 : -1;
    if (d < 0) return -1;
    u = u * 16 + d;
  }
  return u;
}

/**
 * The token walk both text matchers share (TextMatcher, regex.ts's RegexMatcher): each member name and string value of a
 * JSON text (with `stringsOnly` false, each number and literal too) in document order, decoded, and where `find` finds
 * the query in it; a token counts only where the parsed record holds it (`parsed`, see {@link holds}). Stops when
 * `onHit` returns true.
 */
export function eachTokenHit(text: string, parsed: unknown, stringsOnly: boolean, find: (decoded: string) => { start: number; end: number } | null, onHit: (hit: TextHit) => boolean | void): void {
  forEachToken(text, (token) => {
    if (stringsOnly && token.kind !== 'key' && token.kind !== 'string') return false;
    const decoded = decodedToken(text, token);
    const at = find(decoded);
    if (!at) return false;
    if (parsed !== undefined && !holds(parsed, token, decoded)) return false;
    return onHit({ token, decoded, start: at.start, end: at.end }) === true;
  });
}

/** What a token of a JSON text says: a name or string decoded (escapes applied), a number or literal as written. */
export function decodedToken(text: string, token: Token): string {
  const lexeme = text.slice(token.start, token.end);
  if (token.kind !== 'key' && token.kind !== 'string') return lexeme;
  return lexeme.includes('\\') ? (JSON.parse(lexeme) as string) : lexeme.slice(1, -1);
}

/** The first hit `each` reports (it stops there), or null. */
export function firstHit(each: (onHit: (hit: TextHit) => boolean) => void): TextHit | null {
  let hit: TextHit | null = null;
  each((h) => { hit = h; return true; });
  return hit;
}

/** Every hit `each` reports, in its order. */
export function allHits(each: (onHit: (hit: TextHit) => void) => void): TextHit[] {
  const hits: TextHit[] = [];
  each((h) => void hits.push(h));
  return hits;
}
