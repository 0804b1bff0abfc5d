/**
 * Why a match()/search() pattern is not I-Regexp (RFC 9485), and how to write it in I-Regexp. RFC 9535 §2.4.6/§2.4.7
 * make such a pattern match nothing, silently; the plugin turns that into a warning naming each construct that other
 * regex dialects (Perl, PCRE, RE2, JavaScript) have and I-Regexp lacks, with its I-Regexp spelling where one exists.
 * Only known constructs are named: whether the pattern is valid at all is decided by json-p3's I-Regexp check.
 */

export interface IRegexpConstruct {
  /** The construct as written in the pattern (`\d`, `(?:`, `*?`). */
  construct: string;
  /** Its I-Regexp spelling, or null when I-Regexp has none. */
  spelling: string | null;
}

/** RFC 9485 §3 (charProp = IsCategory): the general categories. */
const CATEGORIES = new Set('L Lu Ll Lt Lm Lo M Mn Mc Me N Nd Nl No P Pc Pd Ps Pe Pi Pf Po Z Zs Zl Zp S Sm Sc Sk So C Cc Cf Co Cn'.split(' '));
/** RFC 9485 §3 SingleCharEsc: the characters that may follow a backslash (besides p, P). */
const SINGLE_ESCAPES = new Set(['(', ')', '*', '+', '-', '.', '?', '[', '\\', ']', '^', 'n', 'r', 't', '{', '|', '}']);

const PERL_CLASSES: Record<string, [outside: string, inside: string | null]> = {
  d: ['[0-9]', '0-9'],
  D: ['[^0-9]', null],
  w: ['[0-9A-Za-z_]', '0-9A-Za-z_'],
  W: ['[^0-9A-Za-z_]', null],
  s: ['[ \\t\\n\\r]', 'a space and \\t\\n\\r'],
  S: ['[^ \\t\\n\\r]', null],
};
const POSIX: Record<string, string | null> = {
  alpha: 'A-Za-z', digit: '0-9', alnum: '0-9A-Za-z', upper: 'A-Z', lower: 'a-z', xdigit: '0-9A-Fa-f', word: '0-9A-Za-z_', space: 'a space and \\t\\n\\r',
};

/** The non-I-Regexp constructs of `pattern` that this function knows, first occurrence of each, in order. */
export function nonIRegexpConstructs(pattern: string): IRegexpConstruct[] {
  const out: IRegexpConstruct[] = [];
  const seen = new Set<string>();
  const add = (construct: string, spelling: string | null) => {
    if (seen.has(construct)) return;
    seen.add(construct);
    out.push({ construct, spelling });
  };
  const chars = [...pattern];
  let inClass = false;
  let afterQuantifier = false;
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]!;
    const quantified = afterQuantifier;
    afterQuantifier = false;
    if (c === '\b') { add('a backspace (\\b in a JSONPath string is U+0008, not a word boundary)', null); continue; }
    if (c === '\\') {
      const e = chars[i + 1];
      if (e === undefined) break;
      i++;
      if (PERL_CLASSES[e]) {
        const [outside, inside] = PERL_CLASSES[e]!;
        add(inClass ? `\\${e} inside [...]` : `\\${e}`, inClass ? (inside === null ? null : `${inside} inside the brackets`) : outside);
        continue;
      }
      if (e === 'p' || e === 'P') {
        if (chars[i + 1] !== '{') { add(`\\${e}${chars[i + 1] ?? ''}`, chars[i + 1] ? `\\${e}{${chars[i + 1]}}` : null); i++; continue; }
        const close = chars.indexOf('}', i);
        const name = chars.slice(i + 2, close === -1 ? chars.length : close).join('');
        if (!CATEGORIES.has(name)) add(`\\${e}{${name}}`, null);
        i = close === -1 ? chars.length : close;
        continue;
      }
      if (SINGLE_ESCAPES.has(e)) continue;
      if (e === 'b' || e === 'B') { add(`\\${e}`, null); continue; }
      if (e === 'A') { add('\\A', '^'); continue; }
      if (e === 'z' || e === 'Z') { add(`\\${e}`, '$'); continue; }
      if (e === 'x' || e === 'u') {
        let j = i + 1;
        if (chars[j] === '{') { const close = chars.indexOf('}', j); j = close === -1 ? chars.length : close + 1; }
        else while (j < chars.length && j < i + 1 + (e === 'x' ? 2 : 4) && /[0-9A-Fa-f]/.test(chars[j]!)) j++;
        add(`\\${e}${chars.slice(i + 1, j).join('')}`, 'the character itself');
        i = j - 1;
        continue;
      }
      if (e >= '0' && e <= '9') { add(`\\${e}`, null); continue; } // backreference or octal
      if (e === 'k') { add('\\k<…>', null); continue; }
      if (e === 'Q') { add('\\Q…\\E', 'each special character escaped'); continue; }
      add(`\\${e}`, /[A-Za-z]/.test(e) ? (e === 'f' || e === 'v' || e === 'a' || e === 'e' ? 'the character itself' : null) : e);
      continue;
    }
    if (inClass) {
      if (c === ']') { inClass = false; continue; }
      if (c === '[') {
        const m = /^\[:(\^?)([a-z]+):\]/.exec(chars.slice(i).join(''));
        if (m) {
          add(m[0], m[1] ? null : (POSIX[m[2]!] ?? null) && `${POSIX[m[2]!]} inside the brackets`);
          i += [...m[0]].length - 1;
        } else add('[ inside [...]', '\\[');
      }
      continue;
    }
    if (c === '[') {
      inClass = true;
      if (chars[i + 1] === '^') i++;
      if (chars[i + 1] === ']') i++; // a literal ] first is not I-Regexp either, but json-p3 decides
      continue;
    }
    if (c === '(' && chars[i + 1] === '?') {
      const rest = chars.slice(i + 2, i + 6).join('');
      if (rest.startsWith(':')) add('(?:', '(');
      else if (rest.startsWith('=') || rest.startsWith('!')) add(`(?${rest[0]}`, null);
      else if (rest.startsWith('<=') || rest.startsWith('<!')) add(`(?${rest.slice(0, 2)}`, null);
      else if (rest.startsWith('<') || rest.startsWith('P<')) add('(?<name>', '(');
      else {
        const flags = /^[a-zA-Z-]+[:)]/.exec(chars.slice(i + 2).join(''));
        add(flags ? `(?${flags[0]}` : '(?', flags && /i/.test(flags[0]) ? 'both cases spelled out, e.g. [Cc]at' : null);
      }
      continue;
    }
    if (c === '*' || c === '+' || c === '?') {
      if (quantified && (c === '?' || c === '+')) { add(`${chars[i - 1]}${c}`, chars[i - 1]!); continue; }
      afterQuantifier = true;
      continue;
    }
    if (c === '{') {
      const m = /^\{(\d*),?(\d*)\}/.exec(chars.slice(i).join(''));
      if (m) {
        if (m[1] === '') add(m[0], `{0,${m[2]}}`);
        i += m[0].length - 1;
        afterQuantifier = true;
      }
    }
  }
  return out;
}

/** One sentence naming the constructs (at most five) and their I-Regexp spellings. */
export function describeConstructs(found: readonly IRegexpConstruct[]): string {
  const parts = found.slice(0, 5).map((f) => (f.spelling === null ? `${f.construct} has no I-Regexp spelling` : `${f.construct} → ${f.spelling}`));
  if (found.length > 5) parts.push(`and ${found.length - 5} more`);
  return parts.join('; ');
}
