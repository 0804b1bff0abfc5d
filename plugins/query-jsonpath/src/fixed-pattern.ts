/**
 * Fixed match() patterns: which need no stoppable thread, and the case-insensitive byte literal their matches hold.
 *
 * Which match() patterns need no stoppable thread. A regular expression may backtrack for minutes, so the scan engine
 * evaluates queries that run one on worker threads it can terminate (CompiledQuery.usesRegex). A match() whose pattern
 * is a string literal made only of characters, escapes, classes and `.` — no quantifier, alternation, group or anchor
 * character — matches strings of exactly as many characters as it has atoms: json-p3 anchors it at both ends
 * (`^(?:…)$`), each atom tests one character with no choice to revisit (its `.` is two alternatives that cannot both
 * match), so one call costs at most one step per atom whatever the value. The explorer's case-insensitive
 * predicates are such patterns (`$.name = "alice"` → `match(@.name, "[aA][lL][iI][cC][eE]")`).
 */

/**
 * True when the I-Regexp (RFC 9485) `pattern` is a fixed sequence of atoms: outside classes and escapes, none of
 * `* + ? { } | ( ) ^ $`. Escapes (`\.`, `\p{Lu}`) and classes (`[aA]`, `[^\p{L}]`) are atoms. Linear in the pattern.
 */
export function isFixedSequence(pattern: string): boolean {
  const n = pattern.length;
  let i = 0;
  while (i < n) {
    const c = pattern[i]!;
    if (c === '\\') {
      i = escapeEnd(pattern, i);
      if (i < 0) return false;
    } else if (c === '[') {
      i++;
      if (pattern[i] === '^') i++;
      if (pattern[i] === ']') i++; // a leading `]` is a member
      while (i < n && pattern[i] !== ']') {
        if (pattern[i] === '\\') {
          i = escapeEnd(pattern, i);
          if (i < 0) return false;
        } else i++;
      }
      if (i >= n) return false;
      i++;
    } else if ('*+?{}|()^$'.includes(c)) {
      return false;
    } else i++;
  }
  return true;
}

/** The index after the escape starting at `i` (`\x`, or `\p{…}` / `\P{…}`), or -1 when it is cut off. */
function escapeEnd(pattern: string, i: number): number {
  const next = pattern[i + 1];
  if (next === undefined) return -1;
  if ((next === 'p' || next === 'P') && pattern[i + 2] === '{') {
    const close = pattern.indexOf('}', i + 3);
    return close < 0 ? -1 : close + 1;
  }
  return i + 2;
}

/** I-Regexp single-character escapes that stand for another character (RFC 9485 §5.3 SingleCharEsc). */
const ESCAPED: Record<string, string> = { n: '\n', r: '\r', t: '\t' };

/**
 * The characters each atom of a fixed-sequence pattern matches, in order: a set of code points for a character, an
 * escaped character or a class of characters and escapes; null for what is not listed here (`.`, `\p{…}`, a negated
 * class, a range). Null for the whole pattern when it is not a fixed sequence.
 */
function atomsOf(pattern: string): (Set<number> | null)[] | null {
  if (!isFixedSequence(pattern)) return null;
  const atoms: (Set<number> | null)[] = [];
  const cps = [...pattern];
  let i = 0;
  /** One escaped character at `cps[i] === '\\'`: its code point, or null (`\p{…}`); advances `i`. */
  const escape = (): number | null => {
    const next = cps[i + 1]!;
    if ((next === 'p' || next === 'P') && cps[i + 2] === '{') {
      while (cps[i] !== '}') i++;
      i++;
      return null;
    }
    i += 2;
    return (ESCAPED[next] ?? next).codePointAt(0)!;
  };
  while (i < cps.length) {
    const c = cps[i]!;
    if (c === '\\') {
      const cp = escape();
      atoms.push(cp === null ? null : new Set([cp]));
    } else if (c === '[') {
      i++;
      let set: Set<number> | null = new Set();
      if (cps[i] === '^') { set = null; i++; }
      let first = true;
      while (cps[i] !== ']' || first) {
        const d = cps[i]!;
        first = false;
        if (d === '\\') {
          const cp = escape();
          if (cp === null) set = null;
          else set?.add(cp);
          continue;
        }
        if (d === '-' && cps[i - 1] !== '[' && cps[i + 1] !== ']') set = null; // a range
        set?.add(d.codePointAt(0)!);
        i++;
      }
      i++;
      atoms.push(set);
    } else if (c === '.') {
      atoms.push(null);
      i++;
    } else {
      atoms.push(new Set([c.codePointAt(0)!]));
      i++;
    }
  }
  return atoms;
}

/**
 * A byte literal that the JSON text of every string matching `pattern` (a match() pattern, anchored at both ends)
 * contains, ASCII letters compared without case, written in lower case; or null. The longest run of atoms that each
 * match one ASCII character or one ASCII letter in either case (`[fF]`, `x`, `\.`) is JSON-encoded (RFC 8259 §7),
 * with the string's opening or closing quote when the run starts or ends the pattern: `[fF][aA][iI][lL][eE][dD]` →
 * `"failed"`. An atom that may match a non-ASCII character (`[kKK]` with U+212A KELVIN SIGN, `[sSſ]`) ends a run,
 * since its UTF-8 bytes differ from the letter's. Other spellings of the same string in JSON text use `\u` escapes
 * (or `\/`), which the prefilter keeps anyway.
 */
export function caselessLiteral(pattern: string): string | null {
  const atoms = atomsOf(pattern);
  if (!atoms || atoms.length === 0) return null;
  const chars = atoms.map((set) => {
    if (!set || set.size === 0 || set.size > 2) return null;
    const [a, b] = [...set] as [number, number | undefined];
    if (a > 0x7f || (b !== undefined && b > 0x7f)) return null;
    const la = a >= 0x41 && a <= 0x5a ? a + 32 : a;
    if (b !== undefined) {
      const lb = b >= 0x41 && b <= 0x5a ? b + 32 : b;
      if (la !== lb || la < 0x61 || la > 0x7a) return null; // two characters, not the two cases of one letter
    }
    return String.fromCharCode(la);
  });
  let bestFrom = 0, bestTo = 0;
  for (let i = 0; i < chars.length;) {
    if (chars[i] === null) { i++; continue; }
    let j = i;
    while (j < chars.length && chars[j] !== null) j++;
    if (j - i > bestTo - bestFrom) { bestFrom = i; bestTo = j; }
    i = j;
  }
  if (bestTo === bestFrom) return null;
  const encoded = JSON.stringify(chars.slice(bestFrom, bestTo).join(''));
  return (bestFrom === 0 ? '"' : '') + encoded.slice(1, -1) + (bestTo === chars.length ? '"' : '');
}
