/**
 * Byte search, a runtime export of the plugin API for plugins that prefilter raw bytes (and the kernel's own scans).
 * Finding a literal's bytes in a buffer fast whatever its first byte. `Buffer.indexOf` picks its method by the
 * needle: a short one is found by `memchr` on its first byte, a longer one by Boyer-Moore; both crawl when that byte
 * is everywhere in the text (`"` in JSON, `e` in English): `"error"` took ten times as long as `rror"` over the same
 * JSON Lines. So the search runs on a probe — up to PROBE_BYTES of the literal starting at its rarest byte (a
 * ripgrep-style frequency ranking) — and each probe hit is checked in place against the whole literal. Hits come in
 * order of position, so the first checked one is the leftmost occurrence: the same answer as `indexOf`.
 */

import { PAIR_WINDOW, pairSearchAvailable, pairsIn } from './byte-pairs';

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
export function indexOfBytes(hay: Buffer, needle: Buffer, from: number): number {
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

/** Where a caseless needle is searched: its rarest byte (RANK), computed once per needle. */
const caselessProbes = new WeakMap<Buffer, number>();

function caselessProbeOf(needle: Buffer): number {
  let at = caselessProbes.get(needle);
  if (at === undefined) {
    at = 0;
    for (let i = 1; i < needle.length; i++) if (RANK[needle[i]!]! > RANK[needle[at]!]!) at = i;
    caselessProbes.set(needle, at);
  }
  return at;
}

/**
 * A search of `needle` (non-empty, ASCII letters in lower case) in `hay` with ASCII letters compared without case:
 * `find(from)` gives the first position ≥ `from` where it occurs, or -1. In a buffer of PAIR_MIN_BYTES or more it
 * runs on a pair of the needle's bytes, its rarest byte and the next, found by the SIMD pair search (byte-pairs.ts)
 * a window at a time, each hit checked in place. Else on the rarest byte alone: a letter
 * in both cases, two `memchr` streams (`indexOf` of a byte) merged in position order, each hit checked in place, so
 * the first that checks is the leftmost occurrence. Each stream's next hit is kept between calls (a case that does not
 * occur again is not searched again), so finding every occurrence with increasing `from` costs one pass per stream;
 * `hay` must not change meanwhile.
 */
export function caselessFinder(hay: Buffer, needle: Buffer): (from: number) => number {
  const at = caselessProbeOf(needle);
  if (needle.length >= 2 && hay.length >= PAIR_MIN_BYTES && pairSearchAvailable()) return pairFinder(hay, needle, at);
  const len = needle.length, last = hay.length - len;
  const lo = needle[at]!;
  const up = lo >= 0x61 && lo <= 0x7a ? lo - 32 : -1;
  /** Each stream's first hit at or after its `since`, or -1 when none. */
  let x = -1, y = -1, sinceX = Infinity, sinceY = Infinity;
  return (from: number) => {
    const start = from + at;
    if (start < sinceX || (x !== -1 && x < start)) { x = hay.indexOf(lo, start); sinceX = start; }
    if (up !== -1 && (start < sinceY || (y !== -1 && y < start))) { y = hay.indexOf(up, start); sinceY = start; }
    for (;;) {
      let h: number;
      if (x !== -1 && (y === -1 || x < y)) {
        h = x; x = hay.indexOf(lo, h + 1); sinceX = h + 1;
      } else if (y !== -1) {
        h = y; y = hay.indexOf(up, h + 1); sinceY = h + 1;
      } else return -1;
      const s = h - at;
      if (s > last) return -1;
      let j = 0;
      while (j < len && LOWER[hay[s + j]!] === needle[j]) j++;
      if (j === len) return s;
    }
  };
}

/** Buffers shorter than this are searched by `indexOf` streams: the pair search's copy and call are not worth it. */
const PAIR_MIN_BYTES = 4096;

const NO_HITS: Int32Array = new Int32Array(0);

/**
 * {@link caselessFinder} on a pair of the needle's bytes: the one at `at` (its rarest) and the next, or the one before
 * when `at` is the last. Pair positions are found a window at a time ({@link pairsIn}); the hits of the window last
 * searched are kept, so asking again with a larger `from` goes on where the last answer was.
 */
function pairFinder(hay: Buffer, needle: Buffer, at: number): (from: number) => number {
  const len = needle.length, last = hay.length - len;
  const q = at < len - 1 ? at : at - 1;
  const c0 = needle[q]!, c1 = needle[q + 1]!;
  const fold = (c: number) => (c >= 0x61 && c <= 0x7a ? 0x20 : 0);
  const m0 = fold(c0), m1 = fold(c1);
  /** Pair positions that can begin a match: p = s + q with s ≤ last. */
  const limit = last + q + 1;
  /** The pair positions found in `[wa, wb)`, in order, and the first not yet passed. */
  let wa = 0, wb = 0, h = 0;
  let hits = NO_HITS;
  return (from: number) => {
    if (last < 0) return -1;
    const start = Math.max(0, from) + q;
    if (start < wa || start > wb) { wa = wb = start; hits = NO_HITS; h = 0; }
    else if (h > 0 && hits[h - 1]! >= start) h = 0; // asked again from before the last answer, inside the window
    for (;;) {
      while (h < hits.length && hits[h]! < start) h++;
      for (; h < hits.length; h++) {
        const s = hits[h]! - q;
        if (s > last) return -1;
        let j = 0;
        while (j < len && LOWER[hay[s + j]!] === needle[j]) j++;
        if (j === len) return s;
      }
      if (wb >= limit) return -1;
      wa = wb;
      wb = Math.min(limit, wa + PAIR_WINDOW);
      hits = pairsIn(hay, wa, wb, c0, m0, c1, m1);
      h = 0;
    }
  };
}

/** The first position ≥ `from` where `needle` occurs in `hay` ignoring ASCII case, or -1 (one {@link caselessFinder} call). */
export function indexOfCaseless(hay: Buffer, needle: Buffer, from: number): number {
  return caselessFinder(hay, needle)(from);
}
