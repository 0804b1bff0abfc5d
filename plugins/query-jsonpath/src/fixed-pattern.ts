/**
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
