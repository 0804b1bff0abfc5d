/** Characters of context on each side of a hit in a preview. */
export const PREVIEW_CONTEXT = 20;
/** Longest hit shown whole in a preview; longer hits are cut in the middle. */
const MAX_HIT = 120;

/**
 * A preview: text made of the data's own characters and of markers added to it — `«` and `»` around the hit, `…`
 * where something was cut or left out — with the markers' positions (Unicode code points from the start, ascending),
 * so that a `«`, `»` or `…` the data holds itself is never taken for one.
 */
export interface Preview {
  text: string;
  markers: number[];
}

/** True when `p.text` holds a `«`, `»` or `…` that is not one of its markers (the data's own). */
export function markersNeeded(p: Preview): boolean {
  let n = 0;
  for (let i = p.text.indexOf('«'); i >= 0; i = p.text.indexOf('«', i + 1)) n++;
  for (let i = p.text.indexOf('»'); i >= 0; i = p.text.indexOf('»', i + 1)) n++;
  for (let i = p.text.indexOf('…'); i >= 0; i = p.text.indexOf('…', i + 1)) n++;
  return n > p.markers.length;
}

/** Code points of `s`. */
function codePoints(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length - 1; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) { n--; i++; }
  }
  return n;
}

/** Builds a Preview: `data` appends the data's characters, `mark` one marker character. */
export class PreviewBuilder {
  private parts: string[] = [];
  private length = 0;
  readonly markers: number[] = [];

  data(s: string): this {
    if (s) { this.parts.push(s); this.length += codePoints(s); }
    return this;
  }

  mark(m: '«' | '»' | '…'): this {
    this.markers.push(this.length);
    this.parts.push(m);
    this.length++;
    return this;
  }

  /** Appends a preview built elsewhere, its markers shifted to where it lands. */
  preview(p: Preview): this {
    for (const m of p.markers) this.markers.push(this.length + m);
    this.parts.push(p.text);
    this.length += codePoints(p.text);
    return this;
  }

  build(): Preview {
    return { text: this.parts.join(''), markers: this.markers };
  }
}

/**
 * A one-line preview of a hit: up to PREVIEW_CONTEXT (20) characters either side, the hit marked `«…»`, `…` where
 * the record was cut. Newlines and tabs are shown as spaces. Never splits a surrogate pair.
 */
export function preview(text: string, start: number, end: number): Preview {
  const from = safeIndex(text, Math.max(0, start - PREVIEW_CONTEXT));
  const to = safeIndex(text, Math.min(text.length, end + PREVIEW_CONTEXT));
  const flat = (s: string) => s.replace(/[\r\n\t]/g, ' ');
  const b = new PreviewBuilder();
  if (from > 0) b.mark('…');
  b.data(flat(text.slice(from, start))).mark('«');
  const hit = text.slice(start, end);
  if (hit.length > MAX_HIT) b.data(flat(hit.slice(0, safeIndex(hit, MAX_HIT / 2)))).mark('…').data(flat(hit.slice(safeIndex(hit, hit.length - MAX_HIT / 2))));
  else b.data(flat(hit));
  b.mark('»').data(flat(text.slice(end, to)));
  if (to < text.length) b.mark('…');
  return b.build();
}

/** Moves an index off the second half of a surrogate pair. */
function safeIndex(s: string, i: number): number {
  const c = s.charCodeAt(i);
  return c >= 0xdc00 && c <= 0xdfff ? i + 1 : i;
}

/**
 * A one-line preview of a hit inside one token of a record's text: the token shown decoded-and-re-escaped
 * (so a hit inside `\u00e9` shows as é), up to PREVIEW_CONTEXT characters of the record either side, the hit marked `«…»`.
 * `decoded` is the token's value, the hit `[hs, he)` inside it.
 */
export function tokenPreview(text: string, token: { kind: string; start: number; end: number }, decoded: string, hs: number, he: number): Preview {
  const quoted = token.kind === 'key' || token.kind === 'string';
  const esc = (s: string) => (quoted ? JSON.stringify(s).slice(1, -1) : s);
  // Context from the record text, cut on character boundaries (never half a surrogate pair).
  const beforeStart = safeIndex(text, Math.max(0, token.start - PREVIEW_CONTEXT - 1));
  const afterEnd = safeIndex(text, Math.min(text.length, token.end + PREVIEW_CONTEXT + 1));
  const left = text.slice(beforeStart, token.start) + (quoted ? '"' : '') + esc(decoded.slice(0, hs));
  const hit = esc(decoded.slice(hs, he));
  const right = esc(decoded.slice(he)) + (quoted ? '"' : '') + text.slice(token.end, afterEnd);
  const composed = left + hit + right;
  const p = preview(composed, left.length, left.length + hit.length);
  // `…` where the record goes on past the window, unless the window's own cut already says so
  const b = new PreviewBuilder();
  if (beforeStart > 0 && p.markers[0] !== 0) b.mark('…');
  b.preview(p);
  if (afterEnd < text.length && p.markers[p.markers.length - 1] !== codePoints(p.text) - 1) b.mark('…');
  return b.build();
}
