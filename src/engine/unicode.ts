/** The engine's Unicode helper: lone surrogate escapes in JSON text written as U+FFFD (RFC 8259 §8.2). */

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
