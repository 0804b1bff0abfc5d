/**
 * The little of ClickHouse SQL the bundle reads itself: a statement is one SELECT (or WITH … SELECT), names no table
 * but `t` (the dataset) after FROM and JOIN — no other table, no table function such as url(), file() or remote() —
 * and carries no SETTINGS or FORMAT clause (the bundle sets both). `t` is rewritten to the dataset's table; positions
 * in the rewritten text map back to the assistant's.
 */
export interface Token {
  kind: 'word' | 'quoted' | 'string' | 'number' | 'punct' | 'space' | 'comment';
  text: string;
  start: number;
}

export function tokenize(sql: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < sql.length) {
    const c = sql[i]!;
    const start = i;
    if (/\s/.test(c)) {
      while (i < sql.length && /\s/.test(sql[i]!)) i++;
      out.push({ kind: 'space', text: sql.slice(start, i), start });
    } else if (c === '-' && sql[i + 1] === '-') {
      while (i < sql.length && sql[i] !== '\n') i++;
      out.push({ kind: 'comment', text: sql.slice(start, i), start });
    } else if (c === '/' && sql[i + 1] === '*') {
      const end = sql.indexOf('*/', i + 2);
      i = end === -1 ? sql.length : end + 2;
      out.push({ kind: 'comment', text: sql.slice(start, i), start });
    } else if (c === "'" || c === '"' || c === '`') {
      i++;
      while (i < sql.length && sql[i] !== c) i += sql[i] === '\\' ? 2 : 1;
      i = Math.min(i + 1, sql.length);
      out.push({ kind: c === "'" ? 'string' : 'quoted', text: sql.slice(start, i), start });
    } else if (/[A-Za-z_]/.test(c)) {
      while (i < sql.length && /[A-Za-z0-9_$]/.test(sql[i]!)) i++;
      out.push({ kind: 'word', text: sql.slice(start, i), start });
    } else if (/[0-9]/.test(c)) {
      while (i < sql.length && /[0-9A-Za-z_.]/.test(sql[i]!)) i++;
      out.push({ kind: 'number', text: sql.slice(start, i), start });
    } else {
      i++;
      out.push({ kind: 'punct', text: c, start });
    }
  }
  return out;
}

/** Words that end a FROM list. */
const CLAUSE_END = new Set(['WHERE', 'PREWHERE', 'GROUP', 'ORDER', 'LIMIT', 'HAVING', 'UNION', 'ON', 'USING', 'JOIN', 'LEFT', 'RIGHT', 'INNER', 'FULL', 'CROSS', 'ANY', 'ALL', 'ARRAY', 'SAMPLE', 'FINAL', 'GLOBAL', 'ASOF', 'SEMI', 'ANTI', 'OUTER', 'WINDOW', 'QUALIFY']);

/** Table functions and functions that reach outside the dataset (refused wherever they appear before a parenthesis). */
const TABLE_FUNCTIONS = new Set(['file', 'url', 'remote', 'remotesecure', 's3', 's3cluster', 'hdfs', 'hdfscluster', 'urlcluster', 'mysql', 'odbc', 'jdbc', 'cluster',
  'clusterallreplicas', 'postgresql', 'executable', 'input', 'azureblobstorage', 'azureblobstoragecluster', 'mongodb', 'redis', 'sqlite', 'merge', 'dictionary',
  'view', 'gcs', 'oss', 'cosn', 'iceberg', 'deltalake', 'hudi', 'filecluster', 'dictget', 'dictgetordefault', 'joinget', 'loop', 'generaterandom', 'fuzzjson']);

/** The table, named `t` for qualified columns (`t.id`) unless the statement gives its own alias. */
function aliased(table: string, after: Token | undefined): string {
  const upper = after?.kind === 'word' ? after.text.toUpperCase() : '';
  const ownAlias = after?.kind === 'quoted' || (after?.kind === 'word' && (upper === 'AS' || !CLAUSE_END.has(upper)));
  return ownAlias ? table : `${table} AS t`;
}

export type Check =
  | { ok: true; sql: string; map(position: number): number }
  | { ok: false; code: 'ACCESS_DENIED' | 'INVALID_ARGUMENT'; message: string; position?: number };

/** Checks `sql` as described above and rewrites `t` to `table` (already quoted). */
export function checkAndRewrite(sql: string, table: string): Check {
  const tokens = tokenize(sql);
  const significant = tokens.filter((t) => t.kind !== 'space' && t.kind !== 'comment');
  // One statement: a `;` may only end the text.
  const semi = significant.findIndex((t) => t.kind === 'punct' && t.text === ';');
  if (semi !== -1 && semi !== significant.length - 1) {
    return { ok: false, code: 'INVALID_ARGUMENT', message: 'sql holds more than one statement; exactly one SELECT is run.', position: significant[semi]!.start };
  }
  const first = significant[0]?.text.toUpperCase();
  if (first !== 'SELECT' && first !== 'WITH' && !(significant[0]?.text === '(')) {
    return { ok: false, code: 'ACCESS_DENIED', message: `Only SELECT statements run on a dataset (this one starts with ${JSON.stringify(significant[0]?.text ?? '')}).`, position: significant[0]?.start ?? 0 };
  }
  const edits: { start: number; end: number; text: string }[] = [];
  // Inside a FROM list (at the paren depth it began), a comma starts another table: it too must be t or a subquery.
  let depth = 0;
  let fromDepth = -1;
  for (let k = 0; k < significant.length; k++) {
    const tok = significant[k]!;
    if (tok.kind === 'punct') {
      if (tok.text === '(') depth++;
      else if (tok.text === ')') { depth--; if (depth < fromDepth) fromDepth = -1; }
      else if (tok.text === ',' && depth === fromDepth) {
        const next = significant[k + 1];
        if (next && !(next.kind === 'punct' && next.text === '(') && !(next.kind === 'word' && next.text === 't')) {
          return { ok: false, code: 'ACCESS_DENIED', message: `A dataset query reads only the table t (the dataset); ${JSON.stringify(next.text)} in the FROM list names something else.`, position: next.start };
        }
        if (next && next.kind === 'word' && next.text === 't') edits.push({ start: next.start, end: next.start + 1, text: aliased(table, significant[k + 2]) });
      }
      continue;
    }
    if (tok.kind !== 'word') continue;
    const upper = tok.text.toUpperCase();
    if (CLAUSE_END.has(upper) && depth === fromDepth) fromDepth = -1;
    const following = significant[k + 1];
    if (TABLE_FUNCTIONS.has(tok.text.toLowerCase()) && following?.kind === 'punct' && following.text === '(') {
      return { ok: false, code: 'ACCESS_DENIED', message: `${tok.text}() reads outside the dataset and is refused.`, position: tok.start };
    }
    if (upper === 'FROM') fromDepth = depth;
    if (upper === 'SETTINGS' || upper === 'FORMAT' || upper === 'INTO') {
      return { ok: false, code: 'ACCESS_DENIED', message: `A ${upper} clause is not accepted: the gateway sets the engine's settings and format.`, position: tok.start };
    }
    if (upper !== 'FROM' && upper !== 'JOIN') continue;
    const next = significant[k + 1];
    if (!next) continue;
    if (next.kind === 'punct' && next.text === '(') continue; // a subquery
    const after = significant[k + 2];
    if (next.kind === 'word' && next.text === 't' && !(after && after.kind === 'punct' && (after.text === '(' || after.text === '.'))) {
      edits.push({ start: next.start, end: next.start + 1, text: aliased(table, after) });
      continue;
    }
    return { ok: false, code: 'ACCESS_DENIED', message: `A dataset query reads only the table t (the dataset); ${upper} ${JSON.stringify(next.text)} names something else.`, position: next.start };
  }
  let out = '';
  let at = 0;
  for (const e of edits) {
    out += sql.slice(at, e.start) + e.text;
    at = e.end;
  }
  out += sql.slice(at);
  const stripped = out.replace(/;\s*$/, '');
  return {
    ok: true,
    sql: stripped,
    map(position: number): number {
      // A position in the rewritten text → the assistant's text.
      let shift = 0;
      for (const e of edits) {
        const newStart = e.start + shift;
        if (position < newStart) break;
        if (position < newStart + e.text.length) return e.start;
        shift += e.text.length - (e.end - e.start);
      }
      return Math.max(0, Math.min(sql.length, position - shift));
    },
  };
}
