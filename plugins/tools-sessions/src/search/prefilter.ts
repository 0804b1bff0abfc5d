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
  /** Position of the rarest byte, and the byte values to look for there. */
  at: number;
  probes: number[];
}

export interface ByteTest {
  /** True when `bytes` may hold a match (a literal is present, or an escape that could spell one). */
  test(bytes: Uint8Array): boolean;
  /** Longest literal, bytes (chunk boundaries keep this many minus one bytes of overlap). */
  readonly span: number;
}

/**
 * The byte test for `literals` (any of them), or null when this prefilter cannot decide for them (a literal with
 * non-ASCII or JSON-escapable characters, or none at all): then every file is searched.
 */
export function literalTest(literals: readonly string[] | null | undefined, caseInsensitive: boolean): ByteTest | null {
  if (!literals || literals.length === 0 || literals.some((l) => l.length === 0 || UNSAFE.test(l))) return null;
  const needles: Needle[] = literals.map((l) => {
    const bytes = Uint8Array.from(Buffer.from(caseInsensitive ? l.toLowerCase() : l, 'latin1'));
    let at = 0;
    for (let i = 1; i < bytes.length; i++) if (rank(bytes[i]!, caseInsensitive) > rank(bytes[at]!, caseInsensitive)) at = i;
    const b = bytes[at]!;
    const probes = caseInsensitive && b >= 0x61 && b <= 0x7a ? [b, b - 32] : [b];
    return { bytes, at, probes };
  });
  // Letters a JSON \u escape could spell, and (case-insensitive) k and s, which Unicode folds with the Kelvin sign
  // (U+212A) and the long s (U+017F): a file holding those is passed to the exact prefilter.
  const letters = new Set(literals.join('').toLowerCase());
  const kelvin = caseInsensitive && letters.has('k');
  const longS = caseInsensitive && letters.has('s');
  const span = Math.max(...needles.map((n) => n.bytes.length));
  return {
    span,
    test(buf: Uint8Array): boolean {
      const b = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
      for (const n of needles) {
        const len = n.bytes.length;
        for (const probe of n.probes) {
          for (let i = b.indexOf(probe, n.at); i !== -1; i = b.indexOf(probe, i + 1)) {
            const s = i - n.at;
            if (s + len > b.length) break;
            let k = 0;
            if (caseInsensitive) while (k < len && fold[b[s + k]!] === n.bytes[k]) k++;
            else while (k < len && b[s + k] === n.bytes[k]) k++;
            if (k === len) return true;
          }
        }
      }
      for (let i = b.indexOf(ESCAPE_U); i !== -1; i = b.indexOf(ESCAPE_U, i + 2)) {
        // A \uXXXX escape that decodes to a character of a literal (or to a character Unicode folds to one) could
        // spell it: the file is left to the exact test. (An escaped backslash before "u" only makes this conservative.)
        const code = parseInt(b.toString('latin1', i + 2, i + 6), 16);
        if (Number.isNaN(code)) continue;
        if (code < 0x80 ? letters.has(String.fromCharCode(code).toLowerCase()) || letters.has(String.fromCharCode(code)) : (kelvin && code === 0x212a) || (longS && code === 0x17f)) return true;
      }
      if (kelvin && b.indexOf(KELVIN) !== -1) return true;
      if (longS && b.indexOf(LONG_S) !== -1) return true;
      return false;
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

/** Whether any chunk of a file passes `t` (chunk boundaries overlapped by `t.span - 1` bytes). */
export async function fileMayMatch(chunks: AsyncIterable<FileChunk>, t: ByteTest): Promise<boolean> {
  let tail: Buffer | null = null;
  for await (const { bytes } of chunks) {
    if (t.test(bytes)) return true;
    if (tail && t.span > 1 && t.test(Buffer.concat([tail, bytes.subarray(0, t.span - 1)]))) return true;
    tail = t.span > 1 ? Buffer.from(bytes.subarray(Math.max(0, bytes.length - (t.span - 1)))) : null;
  }
  return false;
}
