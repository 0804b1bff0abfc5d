/**
 * Lone surrogates (RFC 8259 §8.2: an escape `\uD800`–`\uDFFF` without its pair) in what the explorer shows. Every tool
 * gives one as U+FFFD: JSON text copied from a record goes through `ctx.json` (the escape written `\ufffd`, and the
 * kernel adds the answer's LONE_SURROGATE_REPLACED warning), strings of parsed values already hold the character.
 * For the latter the answer's warning comes from here: shown strings that hold U+FFFD, from records whose text
 * escapes a lone surrogate (a literal U+FFFD in the file is no warning).
 */

/** Whether JSON text escapes a lone surrogate; a backslash starts an escape only after an even run of backslashes. */
export function escapesLoneSurrogate(text: string): boolean {
  for (let i = text.indexOf('\\u'); i !== -1; i = text.indexOf('\\u', i + 2)) {
    let k = i - 1;
    while (k >= 0 && text.charCodeAt(k) === 0x5c) k--;
    if ((i - 1 - k) % 2 !== 0) continue; // `\\u…`: a backslash, then text
    const v = parseInt(text.slice(i + 2, i + 6), 16);
    if (v >= 0xdc00 && v <= 0xdfff) return true;
    if (v >= 0xd800 && v <= 0xdbff) {
      const w = text.startsWith('\\u', i + 6) ? parseInt(text.slice(i + 8, i + 12), 16) : -1;
      if (!(w >= 0xdc00 && w <= 0xdfff)) return true;
      i += 6; // the pair's low half
    }
  }
  return false;
}

/** The warning of an answer whose shown strings (from parsed records) hold U+FFFD read from lone surrogate escapes. */
export interface ReplacedWarning {
  code: 'LONE_SURROGATE_REPLACED';
  message: string;
}

/**
 * The answer's LONE_SURROGATE_REPLACED warning, or null: when `shown` (what the answer shows of parsed values: names,
 * previews, projected records) holds U+FFFD and one of `records` escapes a lone surrogate (`escapes(i)`, asked only
 * when `shown` holds U+FFFD, once per record until one does).
 */
export function replacedWarning(shown: unknown, records: Iterable<number>, escapes: (i: number) => boolean): ReplacedWarning | null {
  if (!(JSON.stringify(shown) ?? '').includes('\ufffd')) return null;
  for (const i of new Set(records)) {
    if (escapes(i)) {
      return {
        code: 'LONE_SURROGATE_REPLACED',
        message: `Record ${i} escapes a lone surrogate (\\uD800–\\uDFFF without its pair; RFC 8259 §8.2): this answer shows it as U+FFFD, as every tool gives it.`,
      };
    }
  }
  return null;
}
