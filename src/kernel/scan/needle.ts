/**
 * Finding a literal's bytes in a buffer fast whatever its first byte. `Buffer.indexOf` picks its method by the
 * needle: a short one is found by `memchr` on its first byte, a longer one by Boyer-Moore; both crawl when that byte
 * is everywhere in the text (`"` in JSON, `e` in English): `"error"` took ten times as long as `rror"` over the same
 * JSON Lines. So the search runs on a probe — up to PROBE_BYTES of the literal starting at its rarest byte (a
 * ripgrep-style frequency ranking) — and each probe hit is checked in place against the whole literal. Hits come in
 * order of position, so the first checked one is the leftmost occurrence: the same answer as `indexOf`.
 */

/** Bytes of a probe: below Node's Boyer-Moore threshold (7), so the probe itself is found by `memchr`. */
const PROBE_BYTES = 6;

/** Lower-case ASCII letters and space from most to least frequent in English text and code. */
const LETTERS = ' etaoinsrhldcumfpgwybvkxjqz';
/** Rank of each byte, higher is rarer: JSON's structure first, then letters by frequency, digits, the rest. */
const RANK = new Uint8Array(256);
for (let b = 0; b < 256; b++) {
  if (b === 0x22 || b === 0x3a || b === 0x2c || b === 0x20) RANK[b] = 0; // " : , space
  else if (b >= 0x61 && b <= 0x7a) RANK[b] = 1 + LETTERS.indexOf(String.fromCharCode(b)); // 2…27
  else if (b >= 0x41 && b <= 0x5a) RANK[b] = 30 + LETTERS.indexOf(String.fromCharCode(b + 32)); // capitals: rarer
  else if (b >= 0x30 && b <= 0x39) RANK[b] = 12; // digits: middling
  else if (b >= 0x80) RANK[b] = 20; // UTF-8 bytes
  else RANK[b] = 25; // other punctuation and controls
}

interface Probe {
  /** Where the probe starts in the literal. */
  at: number;
  bytes: Buffer;
}

const probes = new WeakMap<Buffer, Probe | null>();

/** The probe of a literal, or null when the literal itself is the best search (short, or its first byte rarest). */
function probeOf(needle: Buffer): Probe | null {
  let p = probes.get(needle);
  if (p !== undefined) return p;
  let at = 0;
  for (let i = 1; i < needle.length; i++) if (RANK[needle[i]!]! > RANK[needle[at]!]!) at = i;
  p = at === 0 && needle.length <= PROBE_BYTES ? null : { at, bytes: needle.subarray(at, Math.min(needle.length, at + PROBE_BYTES)) };
  probes.set(needle, p);
  return p;
}

/** The first position ≥ `from` where `needle` (non-empty) occurs in `hay`, or -1: what `hay.indexOf(needle, from)` gives. */
export function indexOfLiteral(hay: Buffer, needle: Buffer, from: number): number {
  const p = probeOf(needle);
  if (!p) return hay.indexOf(needle, from);
  const len = needle.length, at = p.at, last = hay.length - len;
  for (let i = hay.indexOf(p.bytes, from + at); i !== -1; i = hay.indexOf(p.bytes, i + 1)) {
    const s = i - at;
    if (s > last) return -1;
    let k = 0;
    while (k < at && hay[s + k] === needle[k]) k++;
    if (k < at) continue;
    k = at + p.bytes.length;
    while (k < len && hay[s + k] === needle[k]) k++;
    if (k === len) return s;
  }
  return -1;
}

/** ASCII upper-case letters mapped to lower case; every other byte to itself. */
const LOWER = new Uint8Array(256);
for (let b = 0; b < 256; b++) LOWER[b] = b >= 0x41 && b <= 0x5a ? b + 32 : b;

/** The byte of a caseless needle searched for (its rarest), computed once per needle. */
const caselessProbes = new WeakMap<Buffer, number>();

/**
 * The first position ≥ `from` where `needle` (non-empty, ASCII letters in lower case) occurs in `hay` with ASCII
 * letters compared without case, or -1. The search runs on the needle's rarest byte (`RANK`; a letter is searched in
 * both cases, two `memchr` streams merged in order) and each hit is checked in place, so hits come in position order
 * and the first that checks is the leftmost occurrence.
 */
export function indexOfCaseless(hay: Buffer, needle: Buffer, from: number): number {
  let at = caselessProbes.get(needle);
  if (at === undefined) {
    at = 0;
    for (let i = 1; i < needle.length; i++) if (RANK[needle[i]!]! > RANK[needle[at]!]!) at = i;
    caselessProbes.set(needle, at);
  }
  const len = needle.length, last = hay.length - len;
  const lo = needle[at]!;
  const up = lo >= 0x61 && lo <= 0x7a ? lo - 32 : -1;
  let x = hay.indexOf(lo, from + at);
  let y = up === -1 ? -1 : hay.indexOf(up, from + at);
  for (;;) {
    let h: number;
    if (x === -1) {
      if (y === -1) return -1;
      h = y; y = hay.indexOf(up, y + 1);
    } else if (y === -1 || x < y) {
      h = x; x = hay.indexOf(lo, x + 1);
    } else {
      h = y; y = hay.indexOf(up, y + 1);
    }
    const s = h - at;
    if (s > last) return -1;
    let k = 0;
    while (k < len && LOWER[hay[s + k]!] === needle[k]) k++;
    if (k === len) return s;
  }
}
