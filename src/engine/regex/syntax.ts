/**
 * A parser of RE2 syntax (https://github.com/google/re2/wiki/Syntax, as Go's regexp/syntax with Perl flags) that
 * keeps only what literal extraction needs, and says where a pattern goes wrong. The engine stays the authority on
 * what is valid: this parser gives positions and shapes, and a pattern it cannot read simply gets no prefilter.
 *
 * Positions are UTF-16 indexes into the pattern (the service turns them into code point indexes for messages).
 */

/** A parsed pattern, reduced to what literal extraction needs. */
export type RegexNode =
  /** One code point, as a JS string. */
  | { t: 'lit'; ch: string }
  /** A character class: its code points when it is a small explicit set (at most 8), else null (any of many). */
  | { t: 'set'; chars: string[] | null }
  /** Matches the empty string (anchors, word boundaries, an empty group). */
  | { t: 'empty' }
  | { t: 'cat'; items: RegexNode[] }
  | { t: 'alt'; items: RegexNode[] }
  /** `max` -1: unbounded. */
  | { t: 'rep'; node: RegexNode; min: number; max: number };

export interface ParsedRegex {
  node: RegexNode;
  /** True when some literal or class is matched case-insensitively (`(?i)` anywhere, or the option). */
  folds: boolean;
  /** True when the pattern holds a text anchor (`^`, `$`, `\A`, `\z`): it then depends on where the searched text starts and ends. */
  anchored: boolean;
}

export class RegexSyntaxError extends Error {
  constructor(
    message: string,
    /** UTF-16 index in the pattern. */
    readonly position: number,
    /** How to write it in RE2, when there is a way. */
    readonly hint?: string,
  ) {
    super(message);
  }
}

const MAX_REPEAT = 1000;
const SMALL_SET = 8;
const POSIX = new Set(['alnum', 'alpha', 'ascii', 'blank', 'cntrl', 'digit', 'graph', 'lower', 'print', 'punct', 'space', 'upper', 'word', 'xdigit']);
const SIMPLE_ESCAPES: Record<string, string> = { a: '\x07', f: '\f', t: '\t', n: '\n', r: '\r', v: '\v' };

interface Flags {
  i: boolean;
}

/** Parses `pattern`. @throws RegexSyntaxError */
export function parseRegex(pattern: string, caseInsensitive = false): ParsedRegex {
  return new Parser(pattern).parse(caseInsensitive);
}

class Parser {
  private i = 0;
  private folds = false;
  private anchored = false;

  constructor(private readonly s: string) {}

  parse(caseInsensitive: boolean): ParsedRegex {
    const node = this.alternation({ i: caseInsensitive });
    if (this.i < this.s.length) {
      // Only a `)` stops an alternation early.
      throw new RegexSyntaxError('unexpected ) (no group is open here)', this.i, 'write \\) for a literal parenthesis');
    }
    return { node, folds: this.folds, anchored: this.anchored };
  }

  private alternation(flags: Flags): RegexNode {
    const items = [this.concatenation(flags)];
    while (this.s[this.i] === '|') {
      this.i++;
      items.push(this.concatenation(flags));
    }
    return items.length === 1 ? items[0]! : { t: 'alt', items };
  }

  private concatenation(flags: Flags): RegexNode {
    const items: RegexNode[] = [];
    const s = this.s;
    while (this.i < s.length && s[this.i] !== '|' && s[this.i] !== ')') {
      const atom = this.atom(flags);
      if (atom === null) continue; // a flag group such as (?i)
      items.push(this.repetitions(atom));
    }
    return items.length === 1 ? items[0]! : { t: 'cat', items };
  }

  /** Postfix operators after an atom. */
  private repetitions(atom: RegexNode): RegexNode {
    let node = atom;
    let previous = -1; // where the previous operator began
    for (;;) {
      const at = this.i;
      const op = this.repeatOp();
      if (!op) return node;
      if (previous !== -1) {
        throw new RegexSyntaxError(`invalid nested repetition operator ${this.s.slice(previous, this.i)}`, at, 'repeat a group instead: (a*)*, or escape a literal * + ? { with a backslash');
      }
      previous = at;
      if (this.s[this.i] === '?') this.i++; // lazy
      node = { t: 'rep', node, min: op.min, max: op.max };
    }
  }

  /** Reads `*`, `+`, `?` or a valid `{n}`, `{n,}`, `{n,m}` at the cursor; null (cursor unchanged) otherwise. */
  private repeatOp(): { min: number; max: number } | null {
    const c = this.s[this.i];
    if (c === '*') { this.i++; return { min: 0, max: -1 }; }
    if (c === '+') { this.i++; return { min: 1, max: -1 }; }
    if (c === '?') { this.i++; return { min: 0, max: 1 }; }
    if (c !== '{') return null;
    const m = /^\{(\d+)(,(\d*))?\}/.exec(this.s.slice(this.i));
    if (!m) return null; // a literal {
    const at = this.i;
    const min = Number(m[1]);
    const max = m[2] === undefined ? min : m[3] === '' ? -1 : Number(m[3]);
    if (min > MAX_REPEAT || max > MAX_REPEAT || (max !== -1 && max < min)) {
      throw new RegexSyntaxError(`invalid repeat count ${m[0]} (counts go up to ${MAX_REPEAT}, and {n,m} needs n ≤ m)`, at);
    }
    this.i += m[0].length;
    return { min, max };
  }

  /** One atom, or null for a flag group `(?i)` that only changes flags. */
  private atom(flags: Flags): RegexNode | null {
    const s = this.s;
    const at = this.i;
    const c = s[at]!;
    switch (c) {
      case '(':
        return this.group(flags);
      case '[':
        return this.charClass(flags);
      case '.':
        this.i++;
        return { t: 'set', chars: null };
      case '^':
      case '$':
        this.i++;
        this.anchored = true;
        return { t: 'empty' };
      case '\\':
        return this.escape(flags);
      case '*':
      case '+':
      case '?':
        throw new RegexSyntaxError(`missing argument to repetition operator ${c}`, at, `write \\${c} for a literal ${c}`);
      case '{':
        if (this.repeatOp()) {
          this.i = at;
          throw new RegexSyntaxError(`missing argument to repetition operator ${/^\{[^}]*\}/.exec(s.slice(at))![0]}`, at, 'write \\{ for a literal {');
        }
        this.i++;
        return this.literal('{', flags);
      default: {
        const ch = String.fromCodePoint(s.codePointAt(at)!);
        this.i += ch.length;
        return this.literal(ch, flags);
      }
    }
  }

  private literal(ch: string, flags: Flags): RegexNode {
    if (flags.i && ch.toLowerCase() !== ch.toUpperCase()) this.folds = true;
    return { t: 'lit', ch };
  }

  private group(flags: Flags): RegexNode | null {
    const s = this.s;
    const open = this.i;
    this.i++;
    let inner: Flags = { ...flags };
    if (s[this.i] === '?') {
      const rest = s.slice(this.i + 1);
      if (rest.startsWith('=') || rest.startsWith('!')) {
        throw new RegexSyntaxError(`lookahead (?${rest[0]} is not supported (RE2 has no lookaround)`, open, 'match the text itself, or search twice');
      }
      if (rest.startsWith('<=') || rest.startsWith('<!')) {
        throw new RegexSyntaxError(`lookbehind (?${rest.slice(0, 2)} is not supported (RE2 has no lookaround)`, open, 'match the text itself, or search twice');
      }
      const named = /^(?:P<|<)([^>]*)>/.exec(rest);
      if (named || rest.startsWith('P')) {
        if (!named || !/^[A-Za-z0-9_]+$/.test(named[1]!)) {
          throw new RegexSyntaxError('invalid named capture (names are letters, digits and _, as (?P<name>…) or (?<name>…); backreferences do not exist in RE2)', open);
        }
        this.i += 1 + named[0].length;
      } else {
        // Flags: (?flags) or (?flags:…), flags from imsU with at most one -.
        let j = this.i + 1;
        let sawMinus = false;
        let sawFlag = false;
        let negate = false;
        const set: Flags = { ...flags };
        for (;; j++) {
          const f = s[j];
          if (f === undefined) throw new RegexSyntaxError('missing closing ) of a flag group (?…', open);
          if (f === 'i' || f === 'm' || f === 's' || f === 'U') {
            sawFlag = true;
            if (f === 'i') set.i = !negate;
            continue;
          }
          if (f === '-' && !sawMinus) {
            sawMinus = true;
            negate = true;
            sawFlag = false;
            continue;
          }
          if ((f === ':' || f === ')') && (sawFlag || (!sawMinus && f === ':'))) break;
          throw new RegexSyntaxError(`invalid or unsupported Perl syntax ${s.slice(open, j + 1)} (flags are i, m, s, U: (?i), (?i:…), (?-i))`, open);
        }
        this.i = j + 1;
        if (s[j] === ')') {
          flags.i = set.i; // the rest of the enclosing group
          return null;
        }
        inner = set;
      }
    }
    const node = this.alternation(inner);
    if (s[this.i] !== ')') throw new RegexSyntaxError('missing closing ) of the group opened here', open, 'close the group, or write \\( for a literal parenthesis');
    this.i++;
    return node;
  }

  private charClass(flags: Flags): RegexNode {
    const s = this.s;
    const open = this.i;
    this.i++;
    let negated = false;
    if (s[this.i] === '^') { negated = true; this.i++; }
    let chars: string[] | null = [];
    let count = 0;
    const add = (lo: number, hi: number) => {
      count += hi - lo + 1;
      if (chars && count <= SMALL_SET) for (let c = lo; c <= hi; c++) chars.push(String.fromCodePoint(c));
      else chars = null;
    };
    let first = true;
    for (;;) {
      if (this.i >= s.length) throw new RegexSyntaxError('missing closing ] of the class opened here', open, 'close the class, or write \\[ for a literal bracket');
      const c = s[this.i]!;
      if (c === ']' && !first) break;
      first = false;
      if (c === '[' && s[this.i + 1] === ':') {
        const m = /^\[:(\^?)([a-z]*):\]/.exec(s.slice(this.i));
        if (m) {
          if (!POSIX.has(m[2]!)) throw new RegexSyntaxError(`invalid character class ${m[0]}`, this.i, `POSIX classes: ${[...POSIX].join(', ')}`);
          this.i += m[0].length;
          chars = null;
          continue;
        }
      }
      const loAt = this.i;
      const lo = this.classChar();
      if (lo === null) { chars = null; continue; } // \d, \pL, …
      if (s[this.i] === '-' && s[this.i + 1] !== undefined && s[this.i + 1] !== ']') {
        this.i++;
        const hi = this.classChar();
        if (hi === null) throw new RegexSyntaxError(`invalid character class range ${s.slice(loAt, this.i)}`, loAt);
        if (hi < lo) throw new RegexSyntaxError(`invalid character class range ${s.slice(loAt, this.i)} (the range runs backwards)`, loAt, `write ${s.slice(loAt, this.i).split('-').reverse().join('-')}`);
        add(lo, hi);
      } else {
        add(lo, lo);
      }
    }
    this.i++;
    if (flags.i) this.folds = true;
    return { t: 'set', chars: negated ? null : chars };
  }

  /** One character of a class as a code point, or null for a class escape (`\d`, `\pL`, …). */
  private classChar(): number | null {
    const s = this.s;
    if (s[this.i] !== '\\') {
      const cp = s.codePointAt(this.i)!;
      this.i += cp > 0xffff ? 2 : 1;
      return cp;
    }
    const e = s[this.i + 1];
    if (e !== undefined && 'dDsSwW'.includes(e)) { this.i += 2; return null; }
    if (e === 'p' || e === 'P') { this.unicodeClass(); return null; }
    return this.escapedChar(this.i);
  }

  private escape(flags: Flags): RegexNode {
    const s = this.s;
    const at = this.i;
    const e = s[at + 1];
    if (e === undefined) throw new RegexSyntaxError('trailing backslash at end of expression', at, 'write \\\\ for a literal backslash');
    if ('AzbB'.includes(e)) {
      this.i += 2;
      if (e === 'A' || e === 'z') this.anchored = true;
      return { t: 'empty' };
    }
    if ('dDsSwW'.includes(e)) { this.i += 2; return { t: 'set', chars: null }; }
    if (e === 'p' || e === 'P') { this.unicodeClass(); return { t: 'set', chars: null }; }
    if (e === 'Q') {
      const end = s.indexOf('\\E', at + 2);
      const text = s.slice(at + 2, end === -1 ? s.length : end);
      this.i = end === -1 ? s.length : end + 2;
      const items = [...text].map((ch) => this.literal(ch, flags));
      return items.length === 1 ? items[0]! : items.length === 0 ? { t: 'empty' } : { t: 'cat', items };
    }
    return this.literal(String.fromCodePoint(this.escapedChar(at)), flags);
  }

  /** `\p{Name}` or `\pN` (the engine checks the name). */
  private unicodeClass(): void {
    const s = this.s;
    const at = this.i;
    if (s[at + 2] === '{') {
      const end = s.indexOf('}', at + 3);
      if (end === -1) throw new RegexSyntaxError(`invalid character class range ${s.slice(at)} (missing })`, at);
      this.i = end + 1;
    } else if (s[at + 2] !== undefined) {
      this.i = at + 3;
    } else {
      throw new RegexSyntaxError('invalid character class range \\p (a name must follow)', at);
    }
  }

  /** A single-character escape at `at` (`\n`, `\x41`, `\x{1F600}`, `\101`, `\.`). */
  private escapedChar(at: number): number {
    const s = this.s;
    const e = s[at + 1];
    if (e === undefined) throw new RegexSyntaxError('trailing backslash at end of expression', at, 'write \\\\ for a literal backslash');
    if (SIMPLE_ESCAPES[e] !== undefined) { this.i = at + 2; return SIMPLE_ESCAPES[e]!.charCodeAt(0); }
    if (e === 'x') {
      const braced = /^\{([0-9A-Fa-f]+)\}/.exec(s.slice(at + 2));
      if (braced && parseInt(braced[1]!, 16) <= 0x10ffff) { this.i = at + 2 + braced[0].length; return parseInt(braced[1]!, 16); }
      const two = /^[0-9A-Fa-f]{2}/.exec(s.slice(at + 2));
      if (two) { this.i = at + 4; return parseInt(two[0], 16); }
      throw new RegexSyntaxError(`invalid escape sequence ${s.slice(at, at + 4)} (\\x takes two hex digits or \\x{…})`, at);
    }
    if (e >= '0' && e <= '7') {
      const m = /^[0-7]{1,3}/.exec(s.slice(at + 1))![0];
      if (e !== '0' && m.length === 1) {
        throw new RegexSyntaxError(`invalid escape sequence \\${e} (RE2 has no backreferences)`, at);
      }
      this.i = at + 1 + m.length;
      return parseInt(m, 8);
    }
    const cp = s.codePointAt(at + 1)!;
    if (cp < 0x80 && !/[0-9A-Za-z]/.test(e)) { this.i = at + 2; return cp; }
    throw new RegexSyntaxError(`invalid escape sequence \\${String.fromCodePoint(cp)}`, at, ESCAPE_HINTS[e] ?? 'escape only punctuation; RE2 escapes are \\d \\w \\s \\b \\pL \\x{…} \\n \\t');
  }
}

const ESCAPE_HINTS: Record<string, string> = {
  Z: 'RE2 spells end of text \\z',
  h: 'use [ \\t] for horizontal space',
  R: 'use \\r?\\n for a line break',
  u: 'RE2 spells a code point \\x{263A}',
  e: 'RE2 spells escape \\x1B',
  K: 'RE2 has no \\K',
  G: 'RE2 has no \\G',
  C: 'RE2 has no \\C here',
};
