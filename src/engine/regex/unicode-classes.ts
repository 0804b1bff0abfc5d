/**
 * Perl classes with their Unicode meaning (UTS 18 (Unicode Regular Expressions) RL1.2a, as Python 3's `re` and ripgrep give them), on RE2, whose
 * own `\d \w \s` are ASCII-only: the pattern is rewritten before it is compiled.
 *
 * - `\w` → letters, marks, decimal digits, letter numbers, connector punctuation, ZWNJ and ZWJ (UTS 18 (Unicode Regular Expressions)'s word
 *   characters less the few Other_Alphabetic symbols RE2 cannot name); `\W` its complement;
 * - `\d` → `\p{Nd}` (decimal digits of every script); `\D` → `\P{Nd}`;
 * - `\s` → White_Space (tab, LF, VT, FF, CR, space, U+0085, U+00A0, U+1680, U+2000–U+200A, U+2028, U+2029, U+202F,
 *   U+205F, U+3000); `\S` its complement.
 *
 * Inside a bracket class `\w`, `\d`, `\s` and `\D` are rewritten too; `\W` and `\S` there cannot be (RE2 has no class
 * subtraction) and keep RE2's ASCII meaning, which the compiled pattern reports (`asciiClasses`). `\b` and `\B` stay
 * RE2's ASCII word boundaries (RE2 has no lookaround to build others from): the compiled pattern reports them too, and
 * the tools warn (docs/queries.md "Regular expressions").
 */

const WORD = '\\p{L}\\p{M}\\p{Nd}\\p{Nl}\\p{Pc}\\x{200C}\\x{200D}';
const SPACE = '\\t\\n\\x{0B}\\f\\r\\x{20}\\x{85}\\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}\\x{202F}\\x{205F}\\x{3000}';

const OUTSIDE: Record<string, string> = {
  w: `[${WORD}]`, W: `[^${WORD}]`,
  d: '\\p{Nd}', D: '\\P{Nd}',
  s: `[${SPACE}]`, S: `[^${SPACE}]`,
};
const INSIDE: Record<string, string> = { w: WORD, d: '\\p{Nd}', D: '\\P{Nd}', s: SPACE };

export interface UnicodePattern {
  /** The pattern to compile. */
  pattern: string;
  /** `\b` or `\B` occur: ASCII word boundaries. */
  asciiBoundaries: boolean;
  /** `\W` or `\S` occur inside a bracket class: ASCII there. */
  asciiClasses: boolean;
}

/**
 * Rewrites the Perl classes of an RE2 pattern to their Unicode meaning. Escapes, `\Q…\E` quoting and bracket classes
 * (`[]a]`, `[^]a]`, `[[:alpha:]]`) are followed as RE2 reads them; anything else is copied. A pattern RE2 would refuse
 * stays refused (only well-formed escapes are rewritten).
 */
export function unicodeClasses(source: string): UnicodePattern {
  let out = '';
  let asciiBoundaries = false;
  let asciiClasses = false;
  let inClass = false;
  let classStart = -1;
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    if (c === '\\' && i + 1 < source.length) {
      const n = source[i + 1]!;
      if (n === 'Q') {
        // \Q…\E: literal text, copied as it is
        const end = source.indexOf('\\E', i + 2);
        const stop = end === -1 ? source.length : end + 2;
        out += source.slice(i, stop);
        i = stop - 1;
        continue;
      }
      if (n === 'p' || n === 'P') {
        // \pL or \p{…}: copied whole
        const stop = source[i + 2] === '{' ? source.indexOf('}', i + 2) + 1 || source.length : i + 3;
        out += source.slice(i, stop);
        i = stop - 1;
        continue;
      }
      if (inClass) {
        if (INSIDE[n] !== undefined) out += INSIDE[n];
        else {
          if (n === 'W' || n === 'S') asciiClasses = true;
          out += c + n;
        }
      } else {
        if (OUTSIDE[n] !== undefined) out += OUTSIDE[n];
        else {
          if (n === 'b' || n === 'B') asciiBoundaries = true;
          out += c + n;
        }
      }
      i++;
      continue;
    }
    if (!inClass && c === '[') {
      inClass = true;
      out += c;
      // a leading ^ and a leading ] are part of the class
      if (source[i + 1] === '^') { out += '^'; i++; }
      classStart = i + 1;
      if (source[i + 1] === ']') { out += ']'; i++; }
      continue;
    }
    if (inClass && c === '[' && source[i + 1] === ':') {
      // [:alpha:] inside a class
      const end = source.indexOf(':]', i + 2);
      if (end !== -1) {
        out += source.slice(i, end + 2);
        i = end + 1;
        continue;
      }
    }
    if (inClass && c === ']' && i > classStart - 1) {
      inClass = false;
      out += c;
      continue;
    }
    out += c;
  }
  return { pattern: out, asciiBoundaries, asciiClasses };
}
