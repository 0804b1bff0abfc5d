import { FunctionExpressionType } from 'json-p3';

/**
 * RFC 9535 §2.4.6 match() and §2.4.7 search() over I-Regexp (RFC 9485), on json-p3's own I-Regexp check, with its
 * ECMAScript mapping written out here because json-p3 2.3.1's has faults that make valid patterns match nothing:
 * - its check refuses `'` (U+0027; RFC 9485 §5 NormalChar is %x00-27), so `a'b` never matched;
 * - its mapping keeps `\-` (a SingleCharEsc), which a `u`-mode RegExp refuses outside a class, so `a\-b` never matched;
 * - a pattern that ends with `$` (or starts with `^`) lost match()'s implicit anchoring: `10$` matched "x10".
 * The mapping (RFC 9485 §5.3): outside classes, `.` matches any character but CR and LF (a whole surrogate pair
 * counted as one) and `\-` is `-`; match() is the whole string, search() any substring. `^` and `$` stay assertions,
 * as the JSONPath compliance suite reads them (`match(@, '^ab.*')`, `match(@, '.*bc$')`).
 */
export class IRegexpFunction {
  readonly argTypes = [FunctionExpressionType.ValueType, FunctionExpressionType.ValueType];
  readonly returnType = FunctionExpressionType.LogicalType;
  private readonly cache = new Map<string, RegExp | null>();

  /**
   * `whole`: match() (the whole string) or search() (a substring). `isValid(pattern)`: the I-Regexp check.
   */
  constructor(private readonly whole: boolean, private readonly isValid: (pattern: string) => boolean) {}

  call(s: unknown, pattern: unknown): boolean {
    if (typeof s !== 'string' || typeof pattern !== 'string') return false;
    let re = this.cache.get(pattern);
    if (re === undefined) {
      re = this.compile(pattern);
      if (this.cache.size >= 64) this.cache.delete(this.cache.keys().next().value!);
      this.cache.set(pattern, re);
    }
    return re !== null && re.test(s);
  }

  private compile(pattern: string): RegExp | null {
    if (!this.isValid(pattern)) return null;
    const body = toEcmaScript(pattern);
    try {
      return new RegExp(this.whole ? `^(?:${body})$` : body, 'u');
    } catch {
      return null;
    }
  }
}

/** A valid I-Regexp as a `u`-mode ECMAScript pattern body (RFC 9485 §5.3; see {@link IRegexpFunction}). */
export function toEcmaScript(pattern: string): string {
  return rewrite(
    pattern,
    (e, inClass) => (!inClass && e === '-' ? '-' : `\\${e}`),
    (c, inClass) => (!inClass && c === '.' ? '(?:(?![\\r\\n])\\P{Cs}|\\p{Cs}\\p{Cs})' : c),
  );
}

/**
 * `pattern` as json-p3's I-Regexp check must see it to judge it as RFC 9485 does: every `'` replaced by `a` (both are
 * NormalChar and class characters, and `\'`, `\a` are both invalid), and outside classes `\-` by `\.` (both
 * SingleCharEsc; json-p3's check compiles its mapping, which refuses `\-` there).
 */
export function forJsonP3Check(pattern: string): string {
  return rewrite(
    pattern,
    (e, inClass) => '\\' + (e === "'" ? 'a' : !inClass && e === '-' ? '.' : e),
    (c) => (c === "'" ? 'a' : c),
  );
}

/**
 * `pattern` rewritten piece by piece, knowing whether each piece stands inside a character class (I-Regexp classes do
 * not nest): an escape `\x` by `escape(x, inClass)`, any other character by `char(c, inClass)` (a class's own `[`
 * counts as outside it, its `]` as inside).
 */
function rewrite(pattern: string, escape: (e: string, inClass: boolean) => string, char: (c: string, inClass: boolean) => string): string {
  let out = '';
  let inClass = false;
  const cps = [...pattern];
  for (let i = 0; i < cps.length; i++) {
    const c = cps[i]!;
    if (c === '\\') {
      out += escape(cps[i + 1] ?? '', inClass);
      i++;
      continue;
    }
    out += char(c, inClass);
    if (!inClass && c === '[') inClass = true;
    else if (inClass && c === ']') inClass = false;
  }
  return out;
}
