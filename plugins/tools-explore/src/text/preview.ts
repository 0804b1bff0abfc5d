import type { MarkedTextBuilder, MarkedText } from 'mcpgw/plugin-api';
import { codePointLength as codePoints, markedText, ownMarkerCharacters } from '../toolkit';

/** Characters of context on each side of a hit in a preview. */
export const PREVIEW_CONTEXT = 20;
/** Longest hit shown whole in a preview; longer hits are cut in the middle. */
const MAX_HIT = 120;

/**
 * A preview: text made of the data's own characters and of markers added to it — `«` and `»` around the hit, `…`
 * where something was cut or left out — with the markers' positions (Unicode code points from the start, ascending),
 * so that a `«`, `»` or `…` the data holds itself is never taken for one (the plugin API's MarkedText).
 */
export type Preview = MarkedText;

/** True when `p.text` holds a `«`, `»` or `…` that is not one of its markers (the data's own). */
export function markersNeeded(p: Preview): boolean {
  return ownMarkerCharacters(p);
}

/** A builder of a Preview (the engine's marked-text builder): `data` appends the data's characters, `mark` one marker character, `append` a Preview. */
export function previewBuilder(): MarkedTextBuilder {
  return markedText();
}

/**
 * A one-line preview of a hit: up to PREVIEW_CONTEXT (20) characters either side, the hit marked `«…»`, `…` where
 * the record was cut. Newlines and tabs are shown as spaces. Never splits a surrogate pair.
 */
export function preview(text: string, start: number, end: number): Preview {
  const from = safeIndex(text, Math.max(0, start - PREVIEW_CONTEXT));
  const to = safeIndex(text, Math.min(text.length, end + PREVIEW_CONTEXT));
  const flat = (s: string) => s.replace(/[\r\n\t]/g, ' ');
  const b = previewBuilder();
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
  const b = previewBuilder();
  if (beforeStart > 0 && p.markers[0] !== 0) b.mark('…');
  b.append(p);
  if (afterEnd < text.length && p.markers[p.markers.length - 1] !== codePoints(p.text) - 1) b.mark('…');
  return b.build();
}
