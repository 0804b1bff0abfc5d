/**
 * Record predicates, the explorer's convenience form of a JSONPath search (issue 7):
 * Thoth's `path = value` (`$.status = "active"`, `$.user.name == 'alice'`, `$.age = 30`; the value a
 * JSON literal, a single-quoted string or a bare word) extended to RFC 9535 filter syntax over the
 * record's singular paths: `$.age > 40`, `$.status != "done" && $.bytes >= 1024`, `!($.tags)`,
 * `length($.tags) > 2`, parentheses; `and` / `or` / `not` are accepted for `&&` / `||` / `!`.
 *
 * `translatePredicate` turns one into an RFC 9535 filter expression (§2.3.5) over `@` = the record, to
 * be evaluated as `$[?<filter>]` on a one-element array holding the record. String equality is
 * case-insensitive unless `matchCase`: `@.s == "Ab"` becomes `match(@.s, "[aA][bB]")` (§2.4.6, an
 * RFC 9485 I-Regexp; the whole string must match), and `!=` its negation.
 */
export interface Predicate {
  /** The RFC 9535 filter expression (without `$[?` `]`). */
  filter: string;
  /** The paths the predicate reads, as written with `$` (for match_path: the first that exists). */
  paths: string[];
}

export class PredicateError extends Error {
  constructor(message: string, readonly position: number) {
    super(message);
  }
}

type Tok =
  | { t: 'path'; text: string; pos: number }
  | { t: 'str'; value: string; pos: number }
  | { t: 'num'; text: string; pos: number }
  | { t: 'lit'; text: 'true' | 'false' | 'null'; pos: number }
  | { t: 'word'; text: string; pos: number }
  | { t: 'op'; text: string; pos: number };

const OPS = ['==', '!=', '<>', '<=', '>=', '&&', '||', '=', '<', '>', '!', '(', ')', ','];

function tokenize(q: string): Tok[] {
  const out: Tok[] = [];
  let i = 0;
  const n = q.length;
  while (i < n) {
    const c = q[i]!;
    if (/\s/.test(c)) { i++; continue; }
    const pos = i;
    if (c === '$' || c === '@') {
      i++;
      for (;;) {
        if (q[i] === '.') {
          i++;
          if (q[i] === '.') i++;
          if (q[i] === '*') { i++; continue; }
          const m = /^[^\s.[\]()=!<>&|,'"]+/.exec(q.slice(i));
          if (!m) {
            if (q[i] === '[') continue;
            throw new PredicateError('Expected a member name after ".".', i);
          }
          i += m[0].length;
        } else if (q[i] === '[') {
          let depth = 0;
          while (i < n) {
            const d = q[i]!;
            if (d === "'" || d === '"') { i = quoteEnd(q, i); continue; }
            if (d === '[') depth++;
            else if (d === ']' && --depth === 0) { i++; break; }
            i++;
          }
          if (depth !== 0) throw new PredicateError('Unclosed "[".', pos);
        } else break;
      }
      out.push({ t: 'path', text: '$' + q.slice(pos + 1, i), pos });
    } else if (c === "'" || c === '"') {
      const end = quoteEnd(q, i);
      const body = q.slice(i + 1, end - 1);
      let value: string;
      try {
        value = JSON.parse('"' + (c === "'" ? body.replace(/\\'/g, "'").replace(/"/g, '\\"') : body) + '"') as string;
      } catch {
        throw new PredicateError('Bad escape in string.', i);
      }
      out.push({ t: 'str', value, pos });
      i = end;
    } else if (/[-\d]/.test(c) && /^-?\d/.test(q.slice(i))) {
      const m = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(q.slice(i));
      if (!m) throw new PredicateError('Bad number.', i);
      out.push({ t: 'num', text: m[0], pos });
      i += m[0].length;
    } else if (/[A-Za-z_]/.test(c)) {
      const m = /^[A-Za-z_][\w-]*/.exec(q.slice(i))!;
      i += m[0].length;
      const w = m[0];
      if (w === 'true' || w === 'false' || w === 'null') out.push({ t: 'lit', text: w, pos });
      else if (w === 'and') out.push({ t: 'op', text: '&&', pos });
      else if (w === 'or') out.push({ t: 'op', text: '||', pos });
      else if (w === 'not') out.push({ t: 'op', text: '!', pos });
      else out.push({ t: 'word', text: w, pos });
    } else {
      const op = OPS.find((o) => q.startsWith(o, i));
      if (!op) throw new PredicateError(`Unexpected "${c}".`, i);
      out.push({ t: 'op', text: op === '<>' ? '!=' : op, pos });
      i += op.length;
    }
  }
  return out;
}

function quoteEnd(q: string, i: number): number {
  const quote = q[i];
  let j = i + 1;
  while (j < q.length) {
    if (q[j] === '\\') j += 2;
    else if (q[j] === quote) return j + 1;
    else j++;
  }
  throw new PredicateError('Unterminated string.', i);
}

/**
 * True when `query` is a predicate rather than a plain JSONPath query: it has a comparison or logical
 * operator, a function call or a leading `!` / `(` outside the brackets of its paths.
 */
export function isPredicate(query: string): boolean {
  let toks: Tok[];
  try {
    toks = tokenize(query);
  } catch {
    return false;
  }
  return !(toks.length === 1 && toks[0]!.t === 'path');
}

/** I-Regexp (RFC 9485) pattern matching `s` with simple case folding of each character. */
export function caseInsensitivePattern(s: string): string {
  let out = '';
  for (const ch of s) {
    const variants = [...new Set([ch, ch.toLowerCase(), ch.toUpperCase(), ch.toUpperCase().toLowerCase()])].filter((v) => [...v].length === 1);
    if (variants.length > 1) out += '[' + variants.map((v) => (/[\\\]\[\-^]/.test(v) ? '\\' + v : v)).join('') + ']';
    else if (/[()*+\-.?[\\\]^{|}]/.test(ch)) out += '\\' + ch;
    else if (ch === '$') out += '[$]';
    else out += ch;
  }
  return out;
}

/** True when some character of `s` has another case form. */
function hasCase(s: string): boolean {
  for (const ch of s) if (ch.toLowerCase() !== ch || ch.toUpperCase() !== ch) return true;
  return false;
}

const CMP = new Set(['==', '=', '!=', '<', '<=', '>', '>=']);

/**
 * Translates a predicate to an RFC 9535 filter expression.
 * @throws PredicateError with the character position of the fault.
 */
export function translatePredicate(query: string, matchCase: boolean): Predicate {
  const toks = tokenize(query);
  const paths: string[] = [];
  let k = 0;
  const peek = () => toks[k];
  const fail = (msg: string): never => { throw new PredicateError(msg, peek()?.pos ?? query.length); };
  const isOp = (text: string) => { const t = peek(); return t !== undefined && t.t === 'op' && t.text === text; };

  type Operand = { text: string; kind: 'path' | 'string' | 'value' | 'function'; str?: string };

  const operand = (): Operand => {
    const t = peek();
    if (!t) return fail('Expected a path or a value.');
    k++;
    switch (t.t) {
      case 'path':
        paths.push(t.text);
        return { text: '@' + t.text.slice(1), kind: 'path' };
      case 'str': return { text: JSON.stringify(t.value), kind: 'string', str: t.value };
      case 'num': return { text: t.text, kind: 'value' };
      case 'lit': return { text: t.text, kind: 'value' };
      case 'word': {
        if (isOp('(')) {
          k++;
          const args: string[] = [];
          if (!isOp(')')) {
            for (;;) {
              args.push(comparisonOrOperand());
              if (isOp(',')) { k++; continue; }
              break;
            }
          }
          if (!isOp(')')) fail('Expected ")" after the function arguments.');
          k++;
          return { text: `${t.text}(${args.join(', ')})`, kind: 'function' };
        }
        return { text: JSON.stringify(t.text), kind: 'string', str: t.text }; // a bare word is a string
      }
      default:
        k--;
        return fail(`Unexpected "${t.text}".`);
    }
  };

  // Inside function arguments: an operand (a logical expression is not needed by RFC 9535 functions).
  const comparisonOrOperand = (): string => operand().text;

  const comparison = (): string => {
    const left = operand();
    const t = peek();
    if (t && t.t === 'op' && CMP.has(t.text)) {
      k++;
      const op = t.text === '=' ? '==' : t.text;
      const right = operand();
      if (!matchCase && (op === '==' || op === '!=')) {
        const [other, lit] = left.kind === 'string' ? [right, left] : right.kind === 'string' ? [left, right] : [null, null];
        // A literal with no cased character ("42", "---") compares exactly: plain == (no regex, a byte prefilter applies).
        if (other && lit && (other.kind === 'path' || other.kind === 'function') && hasCase(lit.str!)) {
          const m = `match(${other.text}, ${JSON.stringify(caseInsensitivePattern(lit.str!))})`;
          return op === '==' ? m : `!${m}`;
        }
      }
      return `${left.text} ${op} ${right.text}`;
    }
    if (left.kind !== 'path' && left.kind !== 'function') fail('Expected a comparison operator (=, !=, <, <=, >, >=) after a value.');
    return left.text;
  };

  const unary = (): string => {
    if (isOp('!')) { k++; return '!' + unary(); }
    if (isOp('(')) {
      k++;
      const inner = or();
      if (!isOp(')')) fail('Expected ")".');
      k++;
      return `(${inner})`;
    }
    return comparison();
  };
  const and = (): string => {
    const parts = [unary()];
    while (isOp('&&')) { k++; parts.push(unary()); }
    return parts.join(' && ');
  };
  const or = (): string => {
    const parts = [and()];
    while (isOp('||')) { k++; parts.push(and()); }
    return parts.join(' || ');
  };
  const filter = or();
  if (k < toks.length) fail(`Unexpected "${(toks[k] as { text?: string }).text ?? 'value'}".`);
  return { filter, paths };
}
