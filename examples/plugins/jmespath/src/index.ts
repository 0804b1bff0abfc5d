/**
 * mcpgw-query-jmespath — a query language plugin for mcpgw, written as a third party would: it imports the contracts
 * from `mcpgw/plugin-api` (types), a few helpers from `mcpgw/plugin-kit`, and the JMESPath Community library from npm.
 *
 * Language `jmespath`: JMESPath expressions (https://jmespath.site). mcpgw works with node lists — values with their
 * RFC 6901 location — so an expression's result becomes nodes as follows:
 * - null (nothing selected) and false (a test that fails) are no node;
 * - true from a test (`level == 'error'`, `a && b`) is the value tested itself, at its place (a test that holds
 *   selects what it tested): the explorer's search and aggregate then count the record;
 * - a list made by a projection, filter, slice or flatten (`[?age > `40`]`, `people[*].name`) is one node per element,
 *   each at its place (`/17`, `/3/name`): over a JSON Lines file addressed whole (json_read, mcpgw query), `[?…]`
 *   selects records;
 * - any other value is one node at its place (`user.name` → `/user/name`), or, computed by a function, a multi-select
 *   or arithmetic, at "" (it has no place of its own; under the record split, the place of its record).
 * Numbers stay exact: values come back as the file has them, and comparisons of numbers are exact (located.ts).
 */
import { compile, tokenize } from '@jmespath-community/jmespath';
import type { CompiledQuery, EvaluateOptions, PluginContext, QueryNode, SequenceSplit } from 'mcpgw/plugin-api';
import { definePlugin } from 'mcpgw/plugin-kit';
import { evaluate, evaluateWithin, isFalse, library, NUMBER_MARK, type ExpressionNode, type Located } from './located.js';

declare global {
  interface JSON {
    rawJSON(text: string): unknown;
    isRawJSON(value: unknown): boolean;
  }
}

const HINT = 'JMESPath syntax: https://jmespath.site (e.g. people[?age > `40`].name, level == \'error\', length(tags) > `2`).';

export default definePlugin({
  name: 'mcpgw-query-jmespath',
  version: '1.0.0',
  apiVersion: '^3.0.0',
  register(context) {
    context.registerQueryLanguage({
      name: 'jmespath',
      description: "JMESPath: level == 'error', people[?age > `40`].name, length(tags)",
      compile: (text) => compileQuery(context, text),
    });
  },
});

type Ast = ExpressionNode & Record<string, any>;

function compileQuery(context: PluginContext, text: string): CompiledQuery {
  const ast = parse(context, text) as Ast;
  // `$`, let and variables read a scope the library keeps: such an expression is the library's alone
  const own = !reads(ast, (n) => n.type === 'Root' || n.type === 'Variable' || n.type === 'LetExpression');
  const run = (node: Ast, value: unknown): Located => (own ? evaluate(node, { value, path: '' }) : library(node, { value, path: '' }));
  const guarded = (f: () => QueryNode[], options?: EvaluateOptions): QueryNode[] => {
    // past the request's deadline (the engine's options; absent on worker threads, which are stopped instead)
    const stop = () => context.error('RESOURCE_LIMIT_EXCEEDED', 'The JMESPath expression was still evaluating one value at the request deadline and was stopped.', {
      limit: { name: 'requestTimeoutMs', limit: options?.requestTimeoutMs ?? 0 },
      hint: 'Narrow the expression so it reads less of each value, or raise limits.requestTimeoutMs.',
    });
    try {
      return evaluateWithin(options?.deadline, options?.now ?? Date.now, stop, f);
    } catch (err) {
      if (typeof (err as { code?: unknown }).code === 'string') throw err;
      // the library's runtime errors: a function given a value of the wrong type, and the like
      throw context.error('INVALID_ARGUMENT', `JMESPath: ${(err as Error).message}`, { hint: HINT });
    }
  };
  const literals = own ? requiredLiterals(ast.type === 'FilterProjection' ? ast.condition : ast) : null;
  return {
    text,
    evaluate: (value, options) => guarded(() => nodesOf(run(ast, value), value), options),
    ...(literals ? { requiredLiterals: literals } : {}),
    memberNames: [...new Set(fields(ast))],
    ...(own ? splitOf(ast, guarded) : {}),
  };
}

/** A result as mcpgw's node list (see the file's comment). */
function nodesOf(r: Located, root: unknown): QueryNode[] {
  if (r.items) return r.items.map((e) => ({ path: e.path ?? '', value: e.value }));
  if (r.value === null || r.value === false) return [];
  if (r.value === true && r.path === null) return [{ path: '', value: root }];
  return [{ path: r.path ?? '', value: r.value }];
}

/**
 * The engine's optional hint for a file addressed whole: `[?cond]…` and `[*]…` at the top select records one by one,
 * so a file of any size is read record by record (and `cond` tested on each), not loaded whole.
 */
function splitOf(ast: Ast, guarded: (f: () => QueryNode[], options?: EvaluateOptions) => QueryNode[]): { split?: SequenceSplit } {
  const top = ast.type === 'FilterProjection' || ast.type === 'Projection' ? ast : null;
  if (!top || top.left.type !== 'Identity') return {};
  const right = top.right as Ast;
  const inner: CompiledQuery | null = right.type === 'Identity' ? null : {
    text: '@',
    evaluate: (record, options) => guarded(() => {
      const r = evaluate(right, { value: record, path: '' });
      return r.value === null ? [] : [{ path: r.path ?? '', value: r.value }];
    }, options),
  };
  return {
    split: {
      range: (count) => ({ start: 0, end: count, step: 1 }),
      ...(top.type === 'FilterProjection' ? { test: (record: unknown) => !isFalse(evaluate(top.condition, { value: record, path: '' }).value) } : {}),
      inner,
    },
  };
}

/**
 * The engine's optional prefilter: strings one of which a record must hold to be selected — the string a field is
 * compared equal to (`level == 'error'` needs `"error"` in the record), through `&&` (either side's) and `||` (both
 * sides').
 */
function requiredLiterals(node: Ast): string[] | null {
  if (node.type === 'Comparator' && node.name === 'EQ') {
    for (const [a, b] of [[node.left, node.right], [node.right, node.left]] as Ast[][]) {
      if (a!.type === 'Literal' && typeof a!.value === 'string' && !a!.value.startsWith(NUMBER_MARK) && selects(b!)) return [JSON.stringify(a!.value)];
    }
    return null;
  }
  if (node.type === 'AndExpression') return requiredLiterals(node.left) ?? requiredLiterals(node.right);
  if (node.type === 'OrExpression') {
    const l = requiredLiterals(node.left);
    const r = l && requiredLiterals(node.right);
    return l && r ? [...l, ...r] : null;
  }
  return null;
}

/** A path of fields and indexes (what selects a value from the record as it is). */
function selects(node: Ast): boolean {
  if (node.type === 'Field' || node.type === 'Index') return true;
  if (node.type === 'Subexpression' || node.type === 'IndexExpression') return selects(node.left) && selects(node.right);
  return false;
}

function reads(node: unknown, test: (n: Ast) => boolean): boolean {
  if (Array.isArray(node)) return node.some((c) => reads(c, test));
  if (node === null || typeof node !== 'object') return false;
  if (typeof (node as Ast).type === 'string' && test(node as Ast)) return true;
  return Object.values(node).some((c) => reads(c, test));
}

function fields(node: unknown): string[] {
  if (Array.isArray(node)) return node.flatMap(fields);
  if (node === null || typeof node !== 'object') return [];
  const own = (node as Ast).type === 'Field' ? [(node as Ast).name as string] : [];
  return [...own, ...Object.values(node).flatMap(fields)];
}

/**
 * The expression parsed, its number literals that a double would change (`12345678901234567891`, `1.0`) marked so
 * they stay exact. @throws QUERY_SYNTAX_ERROR with the position of the fault
 */
function parse(context: PluginContext, text: string): ExpressionNode {
  let marked = text;
  try {
    const tokens = tokenize(text);
    for (const t of [...tokens].reverse()) {
      if (t.type !== 'Literal' || typeof t.value !== 'number' || text[t.start] !== '`') continue;
      const end = text.indexOf('`', t.start + 1);
      const lexeme = text.slice(t.start + 1, end).trim();
      if (end < 0 || String(Number(lexeme)) === lexeme) continue;
      marked = `${marked.slice(0, t.start)}\`${JSON.stringify(NUMBER_MARK + lexeme)}\`${marked.slice(end + 1)}`;
    }
    return compile(marked);
  } catch (err) {
    const message = (err as Error).message ?? String(err);
    throw context.error('QUERY_SYNTAX_ERROR', `Invalid JMESPath expression: ${message}`, { location: { position: faultAt(text, message) }, hint: HINT });
  }
}

/** Where the parse failed (0-based): the offending token the message names, else where the lexer stopped. */
function faultAt(text: string, message: string): number {
  const m = /invalid token \((\w+)\): "((?:[^"\\]|\\.)*)"/.exec(message);
  try {
    if (m) {
      if (m[1] === 'EOF') return text.length;
      const t = tokenize(text).find((tok) => tok.type === m[1] && String(tok.value) === JSON.parse(`"${m[2]}"`));
      if (t) return t.start;
    }
  } catch { /* the lexer fails: below */ }
  // a lexer fault: the end of the longest prefix that lexes (an unclosed literal starts there)
  if (text.length > 4096) return 0;
  for (let n = text.length - 1; n > 0; n--) {
    try { tokenize(text.slice(0, n)); return n; } catch { /* shorter */ }
  }
  return 0;
}
