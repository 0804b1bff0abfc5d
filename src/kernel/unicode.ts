/**
 * Well-formed Unicode in everything the server emits: strings never hold half a surrogate pair (a JSON text on the
 * wire could only carry it as a `\udXXX` escape, which many clients cannot decode).
 */

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
