/**
 * Well-formed Unicode in everything the server emits: strings never hold half a surrogate pair (a JSON text on the
 * wire could only carry it as a `\udXXX` escape, which many clients cannot decode).
 */

/** `text` cut to at most `max` UTF-16 units without splitting a surrogate pair. */
export function clipText(text: string, max: number): string {
  if (text.length <= max) return text;
  const c = text.charCodeAt(max - 1);
  return text.slice(0, c >= 0xd800 && c <= 0xdbff ? max - 1 : max);
}

/**
 * `value` with every string and member name well-formed: a lone surrogate (none should remain: messages and previews
 * are cut on character boundaries) becomes U+FFFD. Returns `value` itself when nothing needed fixing (the common
 * case costs one `isWellFormed` per string). Iterative; results are bounded by maxResultBytes.
 */
export function wellFormed<T>(value: T): T {
  if (typeof value === 'string') return (value.isWellFormed() ? value : value.toWellFormed()) as T;
  if (value === null || typeof value !== 'object' || !needsFix(value)) return value;
  return fix(value) as T;
}

/**
 * True when `json` (the output of `JSON.stringify`, which writes a lone surrogate as a `\udXXX` escape since ES2019
 * and every other character below U+0020 only as `\u00XX`) spells a lone surrogate: a `\ud` not preceded by an odd
 * run of backslashes of its own (`\\ud800` is a backslash, then text). One `indexOf` over the text in the common case,
 * instead of a walk over every string of the value.
 */
export function hasLoneSurrogateEscape(json: string): boolean {
  for (let i = json.indexOf('\\ud'); i !== -1; i = json.indexOf('\\ud', i + 1)) {
    let k = i - 1;
    while (k >= 0 && json.charCodeAt(k) === 0x5c) k--;
    if ((i - 1 - k) % 2 === 0) {
      const c = json.charCodeAt(i + 3);
      if ((c >= 0x38 && c <= 0x39) || (c >= 0x61 && c <= 0x66)) return true; // \ud8…\udf: a surrogate
    }
  }
  return false;
}

/** `value` (a JSON value) with every lone surrogate replaced by U+FFFD, copied where needed. */
export function fixSurrogates<T>(value: T): T {
  return fix(value) as T;
}

function needsFix(root: object): boolean {
  const stack: unknown[] = [root];
  while (stack.length) {
    const v = stack.pop();
    if (typeof v === 'string') { if (!v.isWellFormed()) return true; continue; }
    if (v === null || typeof v !== 'object' || JSON.isRawJSON(v)) continue;
    if (Array.isArray(v)) { for (const x of v) stack.push(x); continue; }
    for (const k of Object.keys(v)) {
      if (!k.isWellFormed()) return true;
      stack.push((v as Record<string, unknown>)[k]);
    }
  }
  return false;
}

function fix(v: unknown): unknown {
  if (typeof v === 'string') return v.isWellFormed() ? v : v.toWellFormed();
  if (v === null || typeof v !== 'object' || JSON.isRawJSON(v)) return v;
  if (Array.isArray(v)) return v.map(fix);
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v)) Object.defineProperty(out, k.isWellFormed() ? k : k.toWellFormed(), { value: fix((v as Record<string, unknown>)[k]), writable: true, enumerable: true, configurable: true });
  return out;
}

/**
 * JSON text `text` with every escape that spells a lone surrogate (`\uD800`–`\uDFFF` not part of a high-low pair of
 * escapes) written as `\ufffd`, U+FFFD. RFC 8259 §8.2 leaves such text's meaning unpredictable, and clients that parse
 * it reject the whole message; the rewrite is the same length (6 ASCII bytes for 6), so byte offsets into the text
 * (pages, cursors) stay valid. `replaced` counts the escapes rewritten; `text` is returned itself when it is 0. A
 * backslash is an escape's start only after an even run of backslashes (`\\ud800` is a backslash, then text).
 */
export function replaceLoneSurrogateEscapes(text: string): { text: string; replaced: number } {
  if (text.indexOf('\\ud') === -1 && text.indexOf('\\uD') === -1) return { text, replaced: 0 };
  let out = '';
  let copied = 0;
  let replaced = 0;
  for (let i = text.indexOf('\\'); i !== -1 && i < text.length; i = text.indexOf('\\', i)) {
    if (text.charCodeAt(i + 1) !== 0x75) { i += 2; continue; } // \n, \", \\ …: two units
    const u = hex4(text, i + 2);
    if (u >= 0xd800 && u <= 0xdbff && text.charCodeAt(i + 6) === 0x5c && text.charCodeAt(i + 7) === 0x75) {
      const low = hex4(text, i + 8);
      if (low >= 0xdc00 && low <= 0xdfff) { i += 12; continue; } // a pair: one character
    }
    if (u >= 0xd800 && u <= 0xdfff) {
      out += text.slice(copied, i) + '\\ufffd';
      copied = i + 6;
      replaced++;
    }
    i += 6;
  }
  return replaced === 0 ? { text, replaced } : { text: out + text.slice(copied), replaced };
}

/** The four hexadecimal digits at `text[at, at + 4)` as a number; -1 when they are not four hex digits. */
function hex4(text: string, at: number): number {
  let v = 0;
  for (let k = at; k < at + 4; k++) {
    const h = text.charCodeAt(k);
    const d = h >= 0x30 && h <= 0x39 ? h - 0x30 : h >= 0x41 && h <= 0x46 ? h - 55 : h >= 0x61 && h <= 0x66 ? h - 87 : -1;
    if (d < 0) return -1;
    v = v * 16 + d;
  }
  return v;
}
