/**
 * The explorer's record predicates (`$.status == "failed"`, `$.latency_ms > 100 && !($.user.name == "bob")`) as a
 * ClickHouse condition, for aggregate over a dataset. A path names a column (`$.user.name` → `user.name`); string
 * equality ignores case unless matchCase (lowerUTF8 on both sides); `== null` is IS NULL. Anything else is refused
 * with its position.
 */
export class PredicateSyntaxError extends Error {
  constructor(message: string, readonly position: number) {
    super(message);
  }
}

type Tok = { t: 'path' | 'str' | 'num' | 'lit' | 'op' | '(' | ')' | '!' | '&&' | '||'; v: string; at: number };

function lex(text: string): Tok[] {
  const out: Tok[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (/\s/.test(c)) { i++; continue; }
    const at = i;
    if (c === '$') {
      i++;
      let name = '';
      while (text[i] === '.' || text[i] === '[') {
        if (text[i] === '.') {
          i++;
          const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(i));
          if (!m) throw new PredicateSyntaxError('a member name after "."', i);
          name += (name ? '.' : '') + m[0];
          i += m[0].length;
        } else {
          const m = /^\[\s*(['"])((?:(?!\1)[^\\]|\\.)*)\1\s*\]/.exec(text.slice(i));
          if (!m) throw new PredicateSyntaxError("a quoted member name in brackets (['a.b'])", i);
          name += (name ? '.' : '') + m[2];
          i += m[0].length;
        }
      }
      if (!name) throw new PredicateSyntaxError('a path such as $.status', at);
      out.push({ t: 'path', v: name, at });
    } else if (c === '"' || c === "'") {
      let j = i + 1;
      while (j < text.length && text[j] !== c) j += text[j] === '\\' ? 2 : 1;
      if (j >= text.length) throw new PredicateSyntaxError('the end of the string', i);
      const body = text.slice(i + 1, j);
      out.push({ t: 'str', v: c === '"' ? JSON.parse(`"${body}"`) as string : body.replace(/\\(.)/g, '$1'), at });
      i = j + 1;
    } else if (/[-0-9]/.test(c)) {
      const m = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(text.slice(i));
      if (!m) throw new PredicateSyntaxError('a number', i);
      out.push({ t: 'num', v: m[0], at });
      i += m[0].length;
    } else if (/[a-z]/.test(c)) {
      const m = /^(true|false|null)\b/.exec(text.slice(i));
      if (!m) throw new PredicateSyntaxError('true, false, null, a path, a string or a number', i);
      out.push({ t: 'lit', v: m[0], at });
      i += m[0].length;
    } else {
      const m = /^(==|!=|<=|>=|&&|\|\||=|<|>|!|\(|\))/.exec(text.slice(i));
      if (!m) throw new PredicateSyntaxError(`an operator, not ${JSON.stringify(c)}`, i);
      const v = m[0] === '=' ? '==' : m[0];
      out.push({ t: v === '&&' || v === '||' || v === '!' || v === '(' || v === ')' ? v : 'op', v, at } as Tok);
      i += m[0].length;
    }
  }
  return out;
}

export function quoteColumn(name: string): string {
  return `\`${name.replace(/[`\\]/g, '\\$&')}\``;
}

function sqlString(s: string): string {
  return `'${s.replace(/[\\']/g, '\\$&')}'`;
}

/** The predicate as SQL; `isString(column)` tells whether a column holds strings (for case folding). */
export function predicateToSql(text: string, matchCase: boolean, isString: (column: string) => boolean): string {
  const toks = lex(text);
  let k = 0;
  const peek = () => toks[k];
  const expect = (t: Tok['t']) => {
    const tok = toks[k];
    if (!tok || tok.t !== t) throw new PredicateSyntaxError(`${t} expected`, tok?.at ?? text.length);
    k++;
    return tok;
  };
  const operand = (tok: Tok, column: string | null): string => {
    if (tok.t === 'path') return quoteColumn(tok.v);
    if (tok.t === 'num') return tok.v;
    if (tok.t === 'str') return column && isString(column) && !matchCase ? `lowerUTF8(${sqlString(tok.v)})` : sqlString(tok.v);
    if (tok.t === 'lit') return tok.v === 'null' ? 'NULL' : tok.v === 'true' ? '1' : '0';
    throw new PredicateSyntaxError('a value', tok.at);
  };
  const primary = (): string => {
    const tok = peek();
    if (!tok) throw new PredicateSyntaxError('a condition', text.length);
    if (tok.t === '!') { k++; return `NOT (${primary()})`; }
    if (tok.t === '(') { k++; const inner = or(); expect(')'); return `(${inner})`; }
    if (tok.t !== 'path') throw new PredicateSyntaxError('a path such as $.status', tok.at);
    k++;
    const op = peek();
    if (!op || op.t !== 'op') return `(${quoteColumn(tok.v)} IS NOT NULL)`; // existence
    k++;
    const rhs = toks[k++];
    if (!rhs) throw new PredicateSyntaxError('a value after the operator', text.length);
    if (rhs.t === 'lit' && rhs.v === 'null') {
      if (op.v === '==') return `(${quoteColumn(tok.v)} IS NULL)`;
      if (op.v === '!=') return `(${quoteColumn(tok.v)} IS NOT NULL)`;
      throw new PredicateSyntaxError('== or != with null', op.at);
    }
    const fold = isString(tok.v) && !matchCase && rhs.t === 'str' && (op.v === '==' || op.v === '!=');
    const lhs = fold ? `lowerUTF8(${quoteColumn(tok.v)})` : quoteColumn(tok.v);
    const sqlOp = op.v === '==' ? '=' : op.v;
    return `(${lhs} ${sqlOp} ${fold ? operand(rhs, tok.v) : operand(rhs, null)})`;
  };
  const and = (): string => {
    let left = primary();
    while (peek()?.t === '&&') { k++; left = `${left} AND ${primary()}`; }
    return left;
  };
  const or = (): string => {
    let left = and();
    while (peek()?.t === '||') { k++; left = `(${left} OR ${and()})`; }
    return left;
  };
  const out = or();
  if (k < toks.length) throw new PredicateSyntaxError('the end of the predicate', toks[k]!.at);
  return out;
}
