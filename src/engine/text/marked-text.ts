import type { MarkedText, MarkedTextBuilder as Builder } from '../../kernel/contracts/toolkit';

/**
 * Marked text (contracts/toolkit.ts `MarkedText`): text a tool shows that mixes the data's own characters with marker
 * characters the tool adds, and where those markers are. An answer carries the positions (`preview_markers`,
 * `description_markers`, …) only when the text holds a marker character of the data's own (`ownMarkerCharacters`);
 * without them every such character is a marker, so answers for text without such characters are unchanged.
 * Plugins reach it as `toolkit.text` (a service), never by import.
 */

/** Code points of `s` (a lone surrogate counts as one). */
export function codePointLength(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length - 1; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) { n--; i++; }
  }
  return n;
}

/** Builds a MarkedText: `data` appends the data's characters, `mark` one marker character. */
export class MarkedTextBuilder implements Builder {
  private parts: string[] = [];
  private length = 0;
  readonly markers: number[] = [];

  data(s: string): this {
    if (s) { this.parts.push(s); this.length += codePointLength(s); }
    return this;
  }

  mark(m: '«' | '»' | '…'): this {
    this.markers.push(this.length);
    this.parts.push(m);
    this.length++;
    return this;
  }

  /** Appends a marked text built elsewhere, its markers shifted to where it lands. */
  append(p: MarkedText): this {
    for (const m of p.markers) this.markers.push(this.length + m);
    this.parts.push(p.text);
    this.length += codePointLength(p.text);
    return this;
  }

  build(): MarkedText {
    return { text: this.parts.join(''), markers: this.markers };
  }
}

/**
 * True when `p.text` holds one of `characters` (default `«`, `»`, `…`: those a tool may add) that is not one of its
 * markers — the data's own — so the answer must say where the markers are. A text whose only markers are `…` passes
 * `'…'`: a `«` of the data's own is then no ambiguity.
 */
export function ownMarkerCharacters(p: MarkedText, characters = '«»…'): boolean {
  let n = 0;
  for (const c of characters) for (let i = p.text.indexOf(c); i >= 0; i = p.text.indexOf(c, i + 1)) n++;
  return n > p.markers.length;
}

/**
 * `name: text` and, only when the text holds a `…` of the data's own, `name_markers: positions` — the sibling field
 * every tool answer uses for a text shortened with `…` (the same shape as a search match's `preview_markers`).
 */
export function markedField<N extends string>(name: N, p: MarkedText): { [K in N]: string } & { [K in `${N}_markers`]?: number[] } {
  const out: Record<string, unknown> = { [name]: p.text };
  if (ownMarkerCharacters(p, '…')) out[`${name}_markers`] = p.markers;
  return out as { [K in N]: string } & { [K in `${N}_markers`]?: number[] };
}
