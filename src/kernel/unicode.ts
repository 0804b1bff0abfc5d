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
