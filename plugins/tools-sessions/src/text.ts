/** Text helpers: character-safe cuts, previews, binary summaries. Lengths are in characters (Unicode code points). */

// Built on first use: creating a grapheme segmenter loads ICU's break-iterator data (~10 ms), which start-up skips.
let segmenter: Intl.Segmenter | undefined;

/** Characters (code points) of `s`. */
export function charLength(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}

/** The UTF-16 offset just after the first `chars` code points of `s` (s.length when shorter). */
function offsetOfChars(s: string, chars: number): number {
  let i = 0;
  for (let n = 0; n < chars && i < s.length; n++) {
    const c = s.charCodeAt(i);
    i += c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00 ? 2 : 1;
  }
  return i;
}

/**
 * The first at most `maxChars` characters of `s`, cut at a grapheme-cluster boundary (never inside a surrogate
 * pair, never between a letter and its combining marks or inside an emoji sequence). `maxChars` 0 or less: no limit.
 */
export function cutText(s: string, maxChars: number): { text: string; truncated: boolean } {
  if (maxChars <= 0 || s.length <= maxChars) return { text: s, truncated: false };
  const at = offsetOfChars(s, maxChars);
  if (at >= s.length) return { text: s, truncated: false };
  // Only the clusters around the cut matter: segment a window that surely holds the cluster containing `at`.
  const from = Math.max(0, at - 64);
  let cut = from;
  for (const seg of (segmenter ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' })).segment(s.slice(from, Math.min(s.length, at + 64)))) {
    const end = from + seg.index + seg.segment.length;
    if (end > at) break;
    cut = end;
  }
  return { text: s.slice(0, cut), truncated: true };
}

/**
 * The last at most `maxChars` characters (code points) of `s` before UTF-16 offset `end`, never starting inside a
 * surrogate pair; `truncated` when text precedes it.
 */
export function textBefore(s: string, end: number, maxChars: number): { text: string; truncated: boolean } {
  let i = Math.min(end, s.length);
  for (let n = 0; n < maxChars && i > 0; n++) {
    i -= i >= 2 && (s.charCodeAt(i - 1) & 0xfc00) === 0xdc00 && (s.charCodeAt(i - 2) & 0xfc00) === 0xd800 ? 2 : 1;
  }
  return { text: s.slice(i, end), truncated: i > 0 };
}

/** `text` shown in a message: at most `maxChars` characters, cut on a character boundary, with its length stated. */
export function shownText(text: string, maxChars = 200): string {
  const { text: cut, truncated } = cutText(text, maxChars);
  return truncated ? `${cut}… (${charLength(text)} characters)` : text;
}

/** One-line preview: whitespace runs collapsed, cut to `maxChars` with "…" when longer. */
export function previewOf(s: string, maxChars: number): string {
  const flat = s.replace(/\s+/g, ' ').trim();
  const { text, truncated } = cutText(flat, maxChars);
  return truncated ? text + '…' : text;
}

/** How a binary payload (base64 image, document) appears in an entry's text instead of its bytes. */
export function binarySummary(kind: string, mediaType: unknown, data: unknown): string {
  const type = typeof mediaType === 'string' && mediaType ? mediaType : 'unknown type';
  const size = typeof data === 'string' ? `, ${data.length.toLocaleString('en-US')} bytes of base64` : '';
  return `[${kind}: ${type}${size}]`;
}

/** Strings longer than this that look like base64 are summarized wherever they appear (tool inputs and results). */
const BASE64_MIN = 4096;
const BASE64_RE = /^[A-Za-z0-9+/=\r\n_-]+$/;

/** `s`, or a summary when it is a long base64 payload (a pasted image, an attachment). */
export function guardBinary(s: string): string {
  if (s.length < BASE64_MIN) return s;
  const sample = s.length > 65536 ? s.slice(0, 32768) + s.slice(-32768) : s;
  if (!BASE64_RE.test(sample) || s.includes(' ')) return s;
  return `[base64 data: ${s.length.toLocaleString('en-US')} bytes]`;
}

/** A value with every long base64 string inside it summarized (objects and arrays copied only where needed). */
export function guardBinaryDeep(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return guardBinary(value);
  if (depth > 64 || value === null || typeof value !== 'object' || isRaw(value)) return value;
  if (Array.isArray(value)) {
    let out: unknown[] | null = null;
    value.forEach((v, i) => {
      const g = guardBinaryDeep(v, depth + 1);
      if (g !== v) (out ??= value.slice())[i] = g;
    });
    return out ?? value;
  }
  let out: Record<string, unknown> | null = null;
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    const g = guardBinaryDeep(v, depth + 1);
    if (g !== v) (out ??= { ...(value as Record<string, unknown>) })[k] = g;
  }
  return out ?? value;
}

/** True for an exact-number lexeme object (`JSON.rawJSON`), as the kernel's exact parse makes them. */
export function isRaw(value: unknown): boolean {
  return (JSON as unknown as { isRawJSON(v: unknown): boolean }).isRawJSON(value);
}
