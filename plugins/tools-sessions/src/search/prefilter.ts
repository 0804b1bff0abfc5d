import type { CompiledRegex, FileChunk } from 'mcpgw/plugin-api';

/**
 * A file-level byte prefilter for search_sessions: can this file hold a match at all? Most files of a history cannot,
 * and telling so costs one streaming read (`FileAccess.read`) with a search for the rarest byte of each required
 * literal, verified in place — no parsing, no index. Files that pass are opened and searched record by record with
 * the regex service's own (exact) prefilter. Conservative by construction: a file is passed over only when no
 * spelling of a literal the decoder could produce is in its bytes.
 */

/** ASCII bytes from most to least frequent in English text and code (a ripgrep-style heuristic). */
const FREQUENT = ' etaoinsrhldcumfpgwybvkxjqz';

function rank(b: number, caseInsensitive: boolean): number {
  const lower = b >= 0x41 && b <= 0x5a ? b + 32 : b;
  const i = FREQUENT.indexOf(String.fromCharCode(lower));
  if (i === -1) return 12; // digits and punctuation: middling
  return !caseInsensitive && b !== lower ? i + 10 : i; // capitals are rarer than their lower case
}

const fold = new Uint8Array(256).map((_, i) => (i >= 0x41 && i <= 0x5a ? i + 32 : i));

/** Bytes a literal may not hold for this prefilter: JSON could spell them differently (escapes), or non-ASCII. */
const UNSAFE = /[^\x20-\x7e]|["\\/]/;

interface Needle {
  bytes: Uint8Array;
  /** Position of the byte looked for (the rarest, see `choose`), and the byte values to look for there. */
  at: number;
  probes: number[];
}

/** The byte values that spell byte `b` of a literal: both letter cases when case-insensitive. */
function spellings(b: number, caseInsensitive: boolean): number[] {
  return caseInsensitive && b >= 0x61 && b <= 0x7a ? [b, b - 32] : [b];
}

/** Bytes of the data looked at before the probe bytes are chosen again, and how much of one buffer is counted. */
const SAMPLE_BYTES = 256 * 1024;
const SAMPLE_SLICE = 16 * 1024;
/**
 * What a hit costs next to one pass over a byte, as a number of bytes passed: a hit leaves the native search, checks
 * the literal in place and enters the search again (~0.2 µs), a pass runs at memory speed (~0.05 ns a byte).
 */
const HIT_COST = 4096;

/**
 * Picks each needle's probe position: the one whose spellings are rarest in `counts` (byte counts over `sampled`
 * bytes of the data searched), a case-insensitive letter costing a second pass; the static rank decides between
 * positions the sample cannot tell apart. Session files are full of bytes English text lacks: an ISO timestamp's
 * `T` and `Z` on every line made `z` (rare in prose) the worst byte to look for case-insensitively.
 */
function choose(needles: Needle[], counts: Uint32Array | null, sampled: number, caseInsensitive: boolean): void {
  for (const n of needles) {
    let best = Infinity;
    for (let i = 0; i < n.bytes.length; i++) {
      const probes = spellings(n.bytes[i]!, caseInsensitive);
      let hits = 0;
      if (counts) for (const p of probes) hits += counts[p]!;
      // Without a sample (or among equals) the static rank decides: a tie-breaker well under one pass.
      const cost = probes.length + (sampled > 0 ? (HIT_COST * hits) / sampled : 0) - rank(n.bytes[i]!, caseInsensitive) * 1e-3;
      if (cost < best) { best = cost; n.at = i; n.probes = probes; }
    }
  }
}

export interface ByteTest {
  /** True when `bytes` may hold a match (a literal is present, or an escape that could spell one). */
  test(bytes: Uint8Array): boolean;
  /** True when a literal is present in `bytes` as written (any letter case when case-insensitive). */
  probe(bytes: Uint8Array): boolean;
  /** True when a file with these escape traits could spell a literal through them (see `EscapeTraits`). */
  escapes(traits: EscapeTraits): boolean;
  /** Longest literal, bytes, times 6 (a `\uXXXX` escape spells one character in 6 bytes): chunk boundaries keep this
   * many minus one bytes of overlap. */
  readonly span: number;
}

/**
 * What a file's bytes could spell other than as written, for every literal at once: the ASCII characters some
 * `\u00XX` escape in it decodes to, and whether it holds the Kelvin sign (U+212A) or the long s (U+017F) — written or
 * escaped — which Unicode case folding turns into k and s. A file's traits are kept while it is unchanged
 * (`TraitsCache`), so a later search for another literal only looks for that literal's bytes.
 */
export interface EscapeTraits {
  /** 128 flags: ascii[c] = 1 when an escape spells character code c. */
  ascii: Uint8Array;
  kelvin: boolean;
  longS: boolean;
}

export function emptyTraits(): EscapeTraits {
  return { ascii: new Uint8Array(128), kelvin: false, longS: false };
}

/** Adds the traits of `buf` to `into`. */
export function addTraits(into: EscapeTraits, buf: Uint8Array): void {
  const b = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
  for (let i = b.indexOf(ESCAPE_U); i !== -1; i = b.indexOf(ESCAPE_U, i + 2)) {
    // (An escaped backslash before "u" only makes this conservative.)
    const code = parseInt(b.toString('latin1', i + 2, i + 6), 16);
    if (Number.isNaN(code)) continue;
    if (code < 0x80) into.ascii[code] = 1;
    else if (code === 0x212a) into.kelvin = true;
    else if (code === 0x17f) into.longS = true;
  }
  if (!into.kelvin && b.indexOf(KELVIN) !== -1) into.kelvin = true;
  if (!into.longS && b.indexOf(LONG_S) !== -1) into.longS = true;
}

/**
 * The byte test for `literals` (any of them), or null when this prefilter cannot decide for them (a literal with
 * non-ASCII or JSON-escapable characters, or none at all): then every file is searched.
 */
export function literalTest(literals: readonly string[] | null | undefined, caseInsensitive: boolean): ByteTest | null {
  if (!literals || literals.length === 0 || literals.some((l) => l.length === 0 || UNSAFE.test(l))) return null;
  const needles: Needle[] = literals.map((l) => ({ bytes: Uint8Array.from(Buffer.from(caseInsensitive ? l.toLowerCase() : l, 'latin1')), at: 0, probes: [] }));
  choose(needles, null, 0, caseInsensitive);
  // The first SAMPLE_BYTES of the data (a slice of each buffer) are counted, and the probe bytes chosen again on them.
  const counts = new Uint32Array(256);
  let sampled = 0;
  const sample = (b: Uint8Array): void => {
    const n = Math.min(b.length, SAMPLE_SLICE, SAMPLE_BYTES - sampled);
    for (let i = 0; i < n; i++) counts[b[i]!]!++;
    sampled += n;
    choose(needles, counts, sampled, caseInsensitive);
  };
  // Characters a JSON \u escape could spell a literal with (either case), and (case-insensitive) k and s, which
  // Unicode folds with the Kelvin sign and the long s.
  const spelled = new Uint8Array(128);
  for (const ch of literals.join('')) {
    spelled[ch.toLowerCase().charCodeAt(0)] = 1;
    spelled[ch.toUpperCase().charCodeAt(0)] = 1;
  }
  const letters = new Set(literals.join('').toLowerCase());
  const kelvin = caseInsensitive && letters.has('k');
  const longS = caseInsensitive && letters.has('s');
  const span = 6 * Math.max(...needles.map((n) => n.bytes.length));
  const probe = (buf: Uint8Array): boolean => {
    if (sampled < SAMPLE_BYTES && buf.length >= 256) sample(buf);
    const b = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
    for (const n of needles) {
      const len = n.bytes.length;
      for (const p of n.probes) {
        for (let i = b.indexOf(p, n.at); i !== -1; i = b.indexOf(p, i + 1)) {
          const s = i - n.at;
          if (s + len > b.length) break;
          let k = 0;
          if (caseInsensitive) while (k < len && fold[b[s + k]!] === n.bytes[k]) k++;
          else while (k < len && b[s + k] === n.bytes[k]) k++;
          if (k === len) return true;
        }
      }
    }
    return false;
  };
  const escapes = (t: EscapeTraits): boolean => {
    for (let c = 0; c < 128; c++) if (t.ascii[c] && spelled[c]) return true;
    return (kelvin && t.kelvin) || (longS && t.longS);
  };
  return {
    span,
    probe,
    escapes,
    test(buf: Uint8Array): boolean {
      if (probe(buf)) return true;
      const t = emptyTraits();
      addTraits(t, buf);
      return escapes(t);
    },
  };
}

const KELVIN = Buffer.from('\u212a');
const ESCAPE_U = Buffer.from('\\u', 'latin1');
const LONG_S = Buffer.from('\u017f');

/** The byte test of a compiled query, from its required literals; null when it has none usable. */
export function queryTest(re: CompiledRegex): ByteTest | null {
  const req = re.requiredLiterals;
  return req ? literalTest(req.literals, req.caseInsensitive) : null;
}

/** Escape traits of files by identity (device, inode, size, modification time, path), the most recent kept. */
export class TraitsCache {
  private readonly map = new Map<string, EscapeTraits>();
  constructor(private readonly max = 50_000) {}

  /** Files whose traits are kept. */
  get size(): number {
    return this.map.size;
  }

  get(key: string): EscapeTraits | undefined {
    return this.map.get(key);
  }

  set(key: string, traits: EscapeTraits): void {
    this.map.delete(key);
    this.map.set(key, traits);
    if (this.map.size > this.max) this.map.delete(this.map.keys().next().value!);
  }
}

/**
 * One file's bytes through a byte test, chunk after chunk (boundaries overlapped by `t.span - 1` bytes): `push` says
 * when the file may hold a match (stop reading), `end` gives the verdict after the last chunk from the escape traits
 * — `traits` when the file's are known (then only the literals' bytes are looked for), else gathered on the way.
 */
export class FileProbe {
  private readonly gathered: EscapeTraits | null;
  private tail: Buffer | null = null;

  constructor(private readonly t: ByteTest, private readonly traits?: EscapeTraits) {
    this.gathered = traits ? null : emptyTraits();
  }

  /** True when `bytes` (the next chunk; it may be overwritten after the call) or the seam before it may hold a match. */
  push(bytes: Uint8Array): boolean {
    const { t, gathered } = this;
    if (t.probe(bytes)) return true;
    if (gathered) addTraits(gathered, bytes);
    if (this.tail && t.span > 1) {
      const seam = Buffer.concat([this.tail, bytes.subarray(0, t.span - 1)]);
      if (t.probe(seam)) return true;
      if (gathered) addTraits(gathered, seam);
    }
    // The last span - 1 bytes read so far (across chunks shorter than that, too).
    if (t.span > 1) {
      const keep = t.span - 1;
      this.tail = bytes.length >= keep || !this.tail ? Buffer.from(bytes.subarray(Math.max(0, bytes.length - keep))) : Buffer.concat([this.tail, bytes]).subarray(-keep);
    }
    return false;
  }

  /** The verdict once every chunk was pushed without a hit; `learn` receives the traits when this read gathered them. */
  end(learn?: (traits: EscapeTraits) => void): boolean {
    if (this.gathered) learn?.(this.gathered);
    return this.t.escapes(this.traits ?? this.gathered!);
  }
}

/**
 * Whether any chunk of a file passes `t` (see `FileProbe`). `traits`: the file's escape traits when known; `learn`
 * receives them when this read gathered them (a file read to its end without finding a literal).
 */
export async function fileMayMatch(chunks: AsyncIterable<FileChunk>, t: ByteTest, traits?: EscapeTraits, learn?: (traits: EscapeTraits) => void): Promise<boolean> {
  const probe = new FileProbe(t, traits);
  for await (const { bytes } of chunks) if (probe.push(bytes)) return true;
  return probe.end(learn);
}
