/**
 * JMESPath evaluation that keeps where each result came from and every number exact.
 *
 * mcpgw hands a query the record as parsed, with numbers a double cannot hold as `JSON.rawJSON` objects. The JMESPath
 * library works on plain JavaScript values: it would see those as objects, and it compares numbers as doubles
 * (12345678901234567890 == 12345678901234567891). So the parts of an expression that select — fields, indexes,
 * slices, projections, filters, flatten, pipes, comparisons and the boolean operators — are evaluated here, on the
 * values as given: each result carries its RFC 6901 location and its exact value, and numbers compare by value through
 * mcpgw's `compareNumerals`. Everything else (functions, multi-selects, arithmetic, let, `$`) is the library's, run on a
 * copy where numbers are doubles; containers it returns from the input are mapped back to the originals.
 */
import { compile, TreeInterpreter, type JSONValue } from '@jmespath-community/jmespath';

/** A parsed expression (the library's AST; its type is not exported by name). */
export type ExpressionNode = ReturnType<typeof compile>;
import { compareNumerals, escapeToken, parseExactJson } from 'mcpgw/plugin-kit';

/** A value with where it is in the evaluated value (`path`, RFC 6901), or `null` for a computed value. */
export interface Located {
  value: unknown;
  path: string | null;
  /** A list built by a projection, slice or flatten: its elements, each located. */
  items?: Located[];
}

/** How a big number literal of the query is marked in the expression the library parses (a string it cannot mean). */
export const NUMBER_MARK = '\u0000mcpgw-number:';

const NULL: Located = { value: null, path: null };
const isRaw = (v: unknown): v is { rawJSON: string } => (JSON as unknown as { isRawJSON(v: unknown): boolean }).isRawJSON(v);
const isNumber = (v: unknown): v is number | { rawJSON: string } => typeof v === 'number' || isRaw(v);
const lexeme = (v: number | { rawJSON: string }): string | number => (typeof v === 'number' ? v : v.rawJSON);
const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v) && !isRaw(v);
const child = (path: string | null, token: string | number) => (path === null ? null : `${path}/${escapeToken(String(token))}`);

/** JMESPath's false values: false, null, "", [] and {} (numbers, rawJSON ones included, are true). */
export function isFalse(v: unknown): boolean {
  if (v === false || v === null || v === undefined || v === '') return true;
  if (Array.isArray(v)) return v.length === 0;
  return isObject(v) && Object.keys(v).length === 0;
}

/** Equality with numbers by value, exactly; arrays element by element, objects member by member. */
export function exactEqual(a: unknown, b: unknown): boolean {
  if (isNumber(a) || isNumber(b)) return isNumber(a) && isNumber(b) && compareNumerals(lexeme(a), lexeme(b)) === 0;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => exactEqual(x, b[i]));
  if (isObject(a)) {
    if (!isObject(b)) return false;
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && exactEqual(a[k], b[k]));
  }
  return a === b;
}

/** The elements of a list value, located (the list's own items, or its elements at their places). */
function elements(list: Located): Located[] {
  const arr = list.value as unknown[];
  return list.items ?? arr.map((value, i) => ({ value, path: child(list.path, i) }));
}

function listOf(items: Located[]): Located {
  return { value: items.map((x) => x.value), path: null, items };
}

/**
 * The work of one evaluation, checked against the request's deadline (EvaluateOptions) every 1,024 elements a
 * projection, filter or flatten visits; `stop` makes the error to throw. Set by `evaluateWithin` (evaluation is
 * synchronous, so one at a time).
 */
let budget: { steps: number; deadline: number; now: () => number; stop: () => Error } | null = null;

function step(): void {
  if (budget && (++budget.steps & 1023) === 0 && budget.now() > budget.deadline) throw budget.stop();
}

/** `evaluate` under a deadline (ms on `now`), stopped with `stop()` past it. */
export function evaluateWithin<T>(deadline: number | undefined, now: () => number, stop: () => Error, run: () => T): T {
  if (deadline === undefined) return run();
  const outer = budget;
  budget = { steps: 0, deadline, now, stop };
  try {
    return run();
  } finally {
    budget = outer;
  }
}

/** The node types evaluated here; any other is the library's. */
const OWN = new Set(['Identity', 'Current', 'Field', 'Index', 'Slice', 'Subexpression', 'IndexExpression', 'Projection', 'ValueProjection', 'FilterProjection', 'Flatten', 'Pipe', 'Comparator', 'AndExpression', 'OrExpression', 'NotExpression', 'Literal']);

/** `node` applied to `current` (the query's `@`). */
export function evaluate(node: ExpressionNode, current: Located): Located {
  const n = node as ExpressionNode & Record<string, any>;
  if (!OWN.has(n.type)) return library(node, current);
  switch (n.type) {
    case 'Identity':
    case 'Current':
      return current;
    case 'Literal':
      return { value: typeof n.value === 'string' && n.value.startsWith(NUMBER_MARK) ? parseExactJson(n.value.slice(NUMBER_MARK.length)) : n.value, path: null };
    case 'Field': {
      const v = current.value;
      return isObject(v) && Object.prototype.hasOwnProperty.call(v, n.name) ? { value: v[n.name], path: child(current.path, n.name) } : NULL;
    }
    case 'Index': {
      if (!Array.isArray(current.value)) return NULL;
      const i = n.value < 0 ? current.value.length + n.value : n.value;
      return i >= 0 && i < current.value.length ? elements(current)[i]! : NULL;
    }
    case 'Slice': {
      if (typeof current.value === 'string') return library(node, current);
      if (!Array.isArray(current.value)) return NULL;
      const all = elements(current);
      const { start, stop, step } = TreeInterpreter.computeSliceParams(all.length, n as never);
      const out: Located[] = [];
      if (step > 0) for (let i = start; i < stop; i += step) out.push(all[i]!);
      else for (let i = start; i > stop; i += step) out.push(all[i]!);
      return listOf(out);
    }
    case 'Subexpression': {
      const left = evaluate(n.left, current);
      return left.value === null ? NULL : evaluate(n.right, left);
    }
    case 'IndexExpression':
    case 'Pipe':
      return evaluate(n.right, evaluate(n.left, current));
    case 'Projection': {
      const base = evaluate(n.left, current);
      // a slice of a string (`name[0:3]`) is a string, to which the rest applies as to any value
      if (typeof base.value === 'string' && n.left.type === 'IndexExpression' && n.left.right.type === 'Slice') return evaluate(n.right, base);
      if (!Array.isArray(base.value)) return NULL;
      return listOf(elements(base).map((e) => (step(), evaluate(n.right, e))).filter((r) => r.value !== null));
    }
    case 'ValueProjection': {
      const base = evaluate(n.left, current);
      if (!isObject(base.value)) return NULL;
      const obj = base.value;
      return listOf(Object.keys(obj).map((k) => (step(), evaluate(n.right, { value: obj[k], path: child(base.path, k) }))).filter((r) => r.value !== null));
    }
    case 'FilterProjection': {
      const base = evaluate(n.left, current);
      if (!Array.isArray(base.value)) return NULL;
      const out: Located[] = [];
      for (const e of elements(base)) {
        step();
        if (isFalse(evaluate(n.condition, e).value)) continue;
        const r = evaluate(n.right, e);
        if (r.value !== null) out.push(r);
      }
      return listOf(out);
    }
    case 'Flatten': {
      const base = evaluate(n.child, current);
      if (!Array.isArray(base.value)) return NULL;
      return listOf(elements(base).flatMap((e) => (step(), Array.isArray(e.value) ? elements(e) : [e])));
    }
    case 'Comparator': {
      const a = evaluate(n.left, current).value;
      const b = evaluate(n.right, current).value;
      if (n.name === 'EQ') return { value: exactEqual(a, b), path: null };
      if (n.name === 'NE') return { value: !exactEqual(a, b), path: null };
      if (!isNumber(a) || !isNumber(b)) return NULL;
      const c = compareNumerals(lexeme(a), lexeme(b));
      return { value: n.name === 'GT' ? c > 0 : n.name === 'GTE' ? c >= 0 : n.name === 'LT' ? c < 0 : c <= 0, path: null };
    }
    case 'OrExpression': {
      const left = evaluate(n.left, current);
      return isFalse(left.value) ? evaluate(n.right, current) : left;
    }
    case 'AndExpression': {
      const left = evaluate(n.left, current);
      return isFalse(left.value) ? left : evaluate(n.right, current);
    }
    case 'NotExpression':
      return { value: isFalse(evaluate(n.child, current).value), path: null };
    default:
      return library(node, current);
  }
}

/**
 * `node` run by the library on `current` as doubles (a computed value); a container it returns that is part of the
 * input comes back as the original (exact numbers, its place).
 */
export function library(node: ExpressionNode, current: Located): Located {
  const originals = new Map<object, Located>();
  const view = doubles(current, originals);
  const result = TreeInterpreter.search(plainNumbers(node), view as JSONValue);
  if (result !== null && typeof result === 'object') {
    const found = originals.get(result);
    if (found) return found;
  }
  return { value: result, path: null };
}

/** A copy of `at`'s value with rawJSON numbers as doubles; every container copied is mapped to its original place. */
function doubles(at: Located, originals: Map<object, Located>): unknown {
  const v = at.value;
  if (isRaw(v)) return Number(v.rawJSON);
  if (Array.isArray(v)) {
    const out = elements(at).map((e) => doubles(e, originals));
    originals.set(out, at);
    return out;
  }
  if (isObject(v)) {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v)) Object.defineProperty(out, k, { value: doubles({ value: v[k], path: child(at.path, k) }, originals), enumerable: true, writable: true, configurable: true });
    originals.set(out, at);
    return out;
  }
  return v;
}

/** `node` with the marked big number literals as the doubles the library computes with. */
function plainNumbers(node: ExpressionNode): ExpressionNode {
  return JSON.parse(JSON.stringify(node), (_k, v) => (typeof v === 'string' && v.startsWith(NUMBER_MARK) ? Number(v.slice(NUMBER_MARK.length)) : v));
}
