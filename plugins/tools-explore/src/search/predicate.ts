/**
 * Record predicates, the explorer's convenience form of a JSONPath search:
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

/**
 * True when `query` tokenizes as a record predicate and reads at least one path of the record (`$…`), whether or not
 * it then parses: `match($.name, 'x'` is a predicate with a fault to report at its position, not plain text.
 */
export function readsRecordPath(query: string): boolean {
  try {
    return tokenize(query).some((t) => t.t === 'path');
  } catch {
    return false;
  }
}

/**
 * True when a search query given without `mode` is a record predicate: it parses as one (by the grammar above, not by
 * its first character), reads at least one path of the record, and is not a single path (`!($.tags)`,
 * `length($.tags) > 2`, `$.age > 40`). Plain text such as `error`, `a = b` or `50% off` is not.
 */
export function looksLikePredicate(query: string): boolean {
  let toks: Tok[];
  try {
    toks = tokenize(query);
  } catch {
    return false;
  }
  if (!toks.some((t) => t.t === 'path') || (toks.length === 1 && toks[0]!.t === 'path')) return false;
  try {
    translatePredicate(query, true);
    return true;
  } catch {
    return false;
  }
}

/**
 * The simple case folding classes (Unicode CaseFolding.txt, status C and S) of the code points that have one: for
 * each, every code point with the same fold, sorted. Built once from the case mappings, each pair confirmed by the
 * ECMAScript `iu` matcher, whose Canonicalize is exactly simple case folding (the rule text search uses), so
 * Σ/σ/ς, K/k/U+212A, ẞ/ß are classes and ı (which has no C or S folding) is alone.
 */
let foldClasses: Map<number, number[]> | null = null;

/**
 * Two characters with the same simple case folding: a backreference under `iu` compares by Canonicalize (ECMAScript
 * BackreferenceMatcher), the same rule as a literal character. One pattern, compiled once: a pattern per character
 * compiled ~2,900 regular expressions at the first predicate (0.1-0.5 s on the server thread, and ~100 MB of
 * compiler memory churned through the allocator, whose fragments stayed resident after a load).
 */
const SAME_FOLD = /^(.)\1$/isu;

function buildFoldClasses(): Map<number, number[]> {
  const parent = new Map<number, number>();
  const find = (x: number): number => {
    let r = x;
    while (parent.has(r) && parent.get(r) !== r) r = parent.get(r)!;
    parent.set(x, r);
    return r;
  };
  const union = (a: number, b: number) => {
    const ra = find(a), rb = find(b);
    if (ra !== rb) parent.set(ra, rb);
  };
  // Every cased script lies below U+20000.
  for (let cp = 0; cp < 0x20000; cp++) {
    if (cp >= 0xd800 && cp <= 0xdfff) continue;
    const ch = String.fromCodePoint(cp);
    for (const other of [ch.toLowerCase(), ch.toUpperCase()]) {
      if (other === ch) continue;
      const o = other.codePointAt(0)!;
      if (other.length !== (o > 0xffff ? 2 : 1)) continue; // a multi-character mapping (ß → SS) is not a simple folding
      if (!SAME_FOLD.test(ch + other)) continue;
      union(cp, o);
    }
  }
  const groups = new Map<number, number[]>();
  for (const cp of parent.keys()) {
    const r = find(cp);
    let g = groups.get(r);
    if (!g) groups.set(r, (g = []));
    g.push(cp);
  }
  const out = new Map<number, number[]>();
  for (const g of groups.values()) {
    if (g.length < 2) continue;
    g.sort((a, b) => a - b);
    for (const cp of g) out.set(cp, g);
  }
  return out;
}

/** The code points with the same simple case folding as `cp` (itself included). */
export function foldClass(cp: number): readonly number[] {
  foldClasses ??= buildFoldClasses();
  return foldClasses.get(cp) ?? [cp];
}

/** A character as an I-Regexp (RFC 9485) atom or class member: metacharacters escaped. */
function escapeClassChar(ch: string): string {
  return /[()*+\-.?[\\\]^{|}$]/.test(ch) ? (ch === '$' ? '\\$' : '\\' + ch) : ch;
}

/**
 * I-Regexp (RFC 9485) pattern matching exactly the strings equal to `s` under Unicode simple case folding: each
 * character with other case forms becomes the class of its folding equivalents (`Σ` → `[Σσς]`).
 */
export function caseInsensitivePattern(s: string): string {
  let out = '';
  for (const ch of s) {
    const cls = foldClass(ch.codePointAt(0)!);
    if (cls.length > 1) out += '[' + cls.map((cp) => escapeClassChar(String.fromCodePoint(cp))).join('') + ']';
    else if (/[()*+\-.?[\\\]^{|}]/.test(ch)) out += '\\' + ch;
    else if (ch === '$') out += '[$]';
    else out += ch;
  }
  return out;
}

/** True when some character of `s` has another case form under simple case folding. */
function hasCase(s: string): boolean {
  for (const ch of s) if (foldClass(ch.codePointAt(0)!).length > 1) return true;
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
