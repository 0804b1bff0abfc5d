import { FunctionExpressionType } from 'json-p3';
import { RE2JS } from 're2js';

/**
 * RFC 9535 §2.4.6 match() and §2.4.7 search() over I-Regexp (RFC 9485), on json-p3's own I-Regexp check, with its
 * ECMAScript mapping written out here because json-p3 2.3.1's has faults that make valid patterns match nothing:
 * - its check refuses `'` (U+0027; RFC 9485 §5 NormalChar is %x00-27), so `a'b` never matched;
 * - its mapping keeps `\-` (a SingleCharEsc), which a `u`-mode RegExp refuses outside a class, so `a\-b` never matched;
 * - a pattern that ends with `$` (or starts with `^`) lost match()'s implicit anchoring: `10$` matched "x10".
 * The mapping (RFC 9485 §5.3): outside classes, `.` matches any character but CR and LF (a whole surrogate pair
 * counted as one) and `\-` is `-`; match() is the whole string, search() any substring. `^` and `$` stay assertions,
 * as the JSONPath compliance suite reads them (`match(@, '^ab.*')`, `match(@, '.*bc$')`).
 *
 * The mapped pattern runs on RE2 (re2js, the kernel's engine, in RE2 syntax: {@link toRe2}), in time linear in the
 * string, never on a backtracking engine: `match(@.s, '(a|a)*')` over 50,001 characters answers in milliseconds.
 * RE2's and ECMAScript's `u` mode agree on what a character is (a code point; a lone surrogate is one too) and on the
 * general categories. A valid I-Regexp that RE2 refuses (a repeat count over 1000, or nested counts whose product is
 * over 1000: `(a{100}){100}`) matches nothing, and the query's warnings say so ({@link re2Refusal}).
 */
export class IRegexpFunction {
  readonly argTypes = [FunctionExpressionType.ValueType, FunctionExpressionType.ValueType];
  readonly returnType = FunctionExpressionType.LogicalType;
  private readonly cache = new Map<string, RE2JS | null>();

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

  private compile(pattern: string): RE2JS | null {
    if (!this.isValid(pattern)) return null;
    try {
      return compileRe2(pattern, this.whole);
    } catch {
      return null;
    }
  }
}

/** `pattern` (a valid I-Regexp) compiled for RE2: `whole` for match(). Throws RE2's error when RE2 refuses it. */
function compileRe2(pattern: string, whole: boolean): RE2JS {
  const body = toRe2(pattern);
  return RE2JS.compile(whole ? `^(?:${body})$` : body);
}

/**
 * Why RE2 refuses the valid I-Regexp `pattern` (RE2's message, e.g. "invalid repeat count: `{1001}`"), or null when it
 * compiles. Such a pattern matches nothing ({@link IRegexpFunction}).
 */
export function re2Refusal(pattern: string): string | null {
  try {
    compileRe2(pattern, true);
    return null;
  } catch (e) {
    return (e as Error).message.replace(/^error parsing regexp: /, '');
  }
}

/**
 * A valid I-Regexp as an RE2 pattern body (RFC 9485 §5.3, as {@link toEcmaScript} maps it): `.` is any code point but
 * CR, LF and a lone surrogate, or two lone surrogates in a row; escapes and classes are RE2's own syntax already.
 */
export function toRe2(pattern: string): string {
  return rewrite(
    pattern,
    (e, inClass) => (!inClass && e === '-' ? '-' : `\\${e}`),
    (c, inClass) => (!inClass && c === '.' ? '(?:[^\\r\\n\\p{Cs}]|\\p{Cs}\\p{Cs})' : c),
  );
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
