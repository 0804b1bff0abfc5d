/** Text helpers: character-safe cuts, previews, binary summaries. Lengths are in characters (Unicode code points). */
import type { MarkedTextBuilder, MarkedText } from 'mcpgw/plugin-api';
import { markedText } from './toolkit';

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
export function offsetOfChars(s: string, chars: number): number {
  let i = 0;
  for (let n = 0; n < chars && i < s.length; n++) {
    const c = s.charCodeAt(i);
    i += c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00 ? 2 : 1;
  }
  return i;
}

/** A character keys and tokens are made of (letters, digits, `+ / = _ -`). */
export const TOKEN_CHAR = /[A-Za-z0-9+/=_-]/;

/**
 * A run of token characters this long is never cut through by a preview or a part: the cut moves to the run's start
 * (its end, for a cut from the left), so that a secret is shown whole — and then found by the redaction — or not at
 * all, never as a prefix no rule recognizes.
 */
export const LONG_TOKEN = 20;

/** Where a cut at UTF-16 offset `at` lands once moved out of a long token run (toward `from`, never past it). */
function outOfToken(s: string, at: number, backward: boolean, from: number): number {
  if (at <= 0 || at >= s.length || !TOKEN_CHAR.test(s[at - 1]!) || !TOKEN_CHAR.test(s[at]!)) return at;
  let a = at, b = at;
  while (a > 0 && TOKEN_CHAR.test(s[a - 1]!)) a--;
  while (b < s.length && TOKEN_CHAR.test(s[b]!)) b++;
  if (b - a < LONG_TOKEN) return at;
  return backward ? Math.max(a, from) : Math.min(b, from);
}

/**
 * The first at most `maxChars` characters of `s`, cut at a grapheme-cluster boundary (never inside a surrogate
 * pair, never between a letter and its combining marks or inside an emoji sequence), and never inside a run of
 * LONG_TOKEN or more token characters (the cut moves to the run's start when that leaves something). `maxChars` 0 or
 * less: no limit.
 */
export function cutText(s: string, maxChars: number): { text: string; truncated: boolean } {
  if (maxChars <= 0 || s.length <= maxChars) return { text: s, truncated: false };
  let at = offsetOfChars(s, maxChars);
  if (at >= s.length) return { text: s, truncated: false };
  const moved = outOfToken(s, at, true, 0);
  if (moved > 0) at = moved;
  // Between two ASCII characters (not CR LF) is always a grapheme-cluster boundary: no segmentation needed (most cuts).
  const before = s.charCodeAt(at - 1), after = s.charCodeAt(at);
  if (before < 0x80 && after < 0x80 && !(before === 13 && after === 10)) return { text: s.slice(0, at), truncated: true };
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
 * A part of a long text: the characters (code points) of `s` from `offset`, at most `maxChars` of them (0 = no limit),
 * cut at a grapheme-cluster boundary as cutText cuts — but never empty while characters remain (a cluster longer than
 * `maxChars` comes whole), so a reader following `next` always advances. `next` is where the rest starts (absent at
 * the end); `length` is the whole text's characters. An offset past the end gives an empty part at the end.
 */
export function textPart(s: string, offset: number, maxChars: number): { text: string; next?: number; length: number } {
  const length = charLength(s);
  const from = offsetOfChars(s, offset);
  const rest = from === 0 ? s : s.slice(from);
  let { text, truncated } = cutText(rest, maxChars);
  if (text === '' && truncated) {
    const first = (segmenter ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' })).segment(rest.slice(0, 256))[Symbol.iterator]().next();
    text = first.done ? rest.slice(0, offsetOfChars(rest, 1)) : first.value.segment;
    truncated = text.length < rest.length;
  }
  const start = Math.min(offset, length);
  return { text, ...(truncated ? { next: start + charLength(text) } : {}), length };
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
  // Never from inside a long token run: from its end (at most `end`).
  i = outOfToken(s, i, false, Math.min(end, s.length));
  return { text: s.slice(i, end), truncated: i > 0 };
}

/** `text` shown in a message: at most `maxChars` characters, cut on a character boundary, with its length stated. */
export function shownText(text: string, maxChars = 200): string {
  const { text: cut, truncated } = cutText(text, maxChars);
  return truncated ? `${cut}… (${charLength(text)} characters)` : text;
}

/**
 * One-line preview: whitespace runs collapsed, cut to `maxChars` with a `…` marker when longer; `markers` says where
 * that `…` is (code points), so a `…` of the text's own is told apart (answers add `<field>_markers`: markedField).
 */
export function previewOf(s: string, maxChars: number): MarkedText {
  const { text, truncated } = previewCut(s, maxChars);
  return truncated ? markedText().data(text).mark('…').build() : { text, markers: [] };
}

/**
 * previewOf's text before its marker: whitespace runs collapsed, the first `maxChars` characters, and whether the text
 * went on. Needs no engine toolkit (the session digest runs it on engine threads; see session/digest.ts).
 */
export function previewCut(s: string, maxChars: number): { text: string; truncated: boolean } {
  // Only the start of a long text is flattened: enough of it to give maxChars characters (and one more, to know
  // whether it was cut), growing while whitespace runs eat it, never the whole of a multi-megabyte tool result.
  let take = maxChars * 2 + 64;
  let flat: string;
  for (;;) {
    const whole = take >= s.length;
    flat = (whole ? s : s.slice(0, take)).replace(/\s+/g, ' ');
    flat = whole ? flat.trim() : flat.trimStart();
    if (whole || charLength(flat) > maxChars + 1) break;
    take *= 4;
  }
  return cutText(flat, maxChars);
}

/** How a binary payload (base64 image, document) appears in an entry's text instead of its bytes. */
export function binarySummary(kind: string, mediaType: unknown, data: unknown): string {
  const type = typeof mediaType === 'string' && mediaType ? mediaType : 'unknown type';
  const size = typeof data === 'string' ? `, ${data.length.toLocaleString('en-US')} bytes of base64` : '';
  return `[${kind}: ${type}${size}]`;
}

/** Strings at least this long that are base64 data are summarized wherever they appear (tool inputs and results). */
const BASE64_MIN = 4096;
/** Distinct alphabet symbols a base64 encoding of binary data shows in its first 4 KiB (it uses all 64; hex: 16-22). */
const BASE64_MIN_SYMBOLS = 40;
const DATA_URL_RE = /^data:([\w.+-]+\/[\w.+-]+)?(?:;[\w.+-]+=[^;,]*)*;base64,/;

/**
 * Whether `s` (no `data:` prefix) is base64 data (RFC 4648 section 4, or section 5's URL-safe alphabet): one alphabet,
 * `=` padding only at the end making the length a multiple of 4 (URL-safe may omit it), line breaks only as MIME/PEM
 * wrapping (every line but the last of one length ≥ 60 and a multiple of 4), and at least 40 distinct symbols — so
 * hex digests one per line, a run of one letter or an identifier list are text, not data.
 */
export function isBase64Data(s: string): boolean {
  if (s.length < BASE64_MIN) return false;
  let body = s;
  if (s.includes('\n')) {
    const lines = s.replace(/\r?\n$/, '').split(/\r?\n/);
    const width = lines[0]!.length;
    if (width < 60 || width % 4 !== 0) return false;
    for (let i = 1; i < lines.length; i++) if (lines[i]!.length > width || (i < lines.length - 1 && lines[i]!.length !== width)) return false;
    body = lines.join('');
  }
  const pad = body.endsWith('==') ? 2 : body.endsWith('=') ? 1 : 0;
  const core = pad ? body.slice(0, -pad) : body;
  const std = /^[A-Za-z0-9+/]+$/.test(core);
  const url = !std && /^[A-Za-z0-9_-]+$/.test(core);
  if (!std && !url) return false;
  if (pad ? body.length % 4 !== 0 : core.length % 4 === 1 || (std && core.length % 4 !== 0)) return false;
  const seen = new Set<number>();
  for (let i = 0; i < Math.min(core.length, 4096) && seen.size < BASE64_MIN_SYMBOLS; i++) seen.add(core.charCodeAt(i));
  return seen.size >= BASE64_MIN_SYMBOLS;
}

/**
 * `s`, or a one-line summary when it is base64 data (a pasted image, an attachment) of at least 4096 characters, or
 * a `data:…;base64,` URL holding such data: `[base64 data: 8,000 bytes]`, `[data URL: image/png, 8,000 bytes of
 * base64]`. Anything else — hex digests, long runs of one character, prose — is kept as written.
 */
export function guardBinary(s: string): string {
  if (s.length < BASE64_MIN) return s;
  const url = s.startsWith('data:') ? DATA_URL_RE.exec(s) : null;
  if (url) {
    const data = s.slice(url[0].length);
    return isBase64Data(data) ? `[data URL: ${url[1] ?? 'unknown type'}, ${data.length.toLocaleString('en-US')} bytes of base64]` : s;
  }
  return isBase64Data(s) ? `[base64 data: ${s.length.toLocaleString('en-US')} bytes]` : s;
}

const SUMMARY_IN_RE = /\[(?:base64 data: [\d,]+ bytes|data URL: [^\]\n]*, [\d,]+ bytes of base64)\]/;

/** Whether `s` holds a summary `guardBinary` made (data shown as a summary: the entry's text is not whole). */
export function hasBinarySummary(s: string): boolean {
  return (s.includes('[base64 data: ') || s.includes('[data URL: ')) && SUMMARY_IN_RE.test(s);
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
