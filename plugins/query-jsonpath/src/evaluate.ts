/**
 * Budgeted, lazy evaluation of json-p3 segments (RFC 9535 §2.5: child and descendant segments).
 *
 * json-p3's own `query()` builds every intermediate node list and copies each node's location array, and its eager
 * segments spread a selector's node list into one `push` (a stack overflow on a member with ~100k children). A query
 * such as `$..*..*..*` on arrays nested 300 deep selects O(depth³) nodes, `$[*,*][*,*]…` doubles per segment. Here
 * nodes flow one at a time through the segments, a location is a link to the parent (a selected node's pointer is
 * built from its parent's, O(1) per node), the deadline is checked every 1,024 steps, and the work that can grow
 * faster than the value is counted against a budget (`maxNodes`):
 * - while a node list holds each node of the value at most once, a segment with one selector (or names that differ)
 *   produces each node at most once: linear in the value, not counted. That holds from the root through child
 *   segments and through the first descendant segment whose input nodes are disjoint subtrees (`$..name`,
 *   `$.a[*]..id`, `$..*`: each node is walked once);
 * - past that — a descendant segment whose input nodes nest (`$..*..*` walks each subtree once per ancestor), a
 *   segment after which nodes can repeat (`$[0,0]`, `$[*,*]`) — every node a segment produces or walks counts;
 * - so do the nodes of every non-singular query inside a filter (`$[?count(@..*) > 1]` runs once per candidate).
 * Selectors are json-p3's (`lazyResolve` on a node with an empty location yields children whose location is their
 * one key), so selection stays json-p3's.
 */
import { jsonpath, JSONPathNode, JSONPathNodeList } from 'json-p3';
import type { ErrorCode, ErrorDetails, McpgwError } from 'mcpgw/plugin-api';
import { escapeToken } from 'mcpgw/plugin-kit';

type MakeError = (code: ErrorCode, message: string, details?: ErrorDetails) => McpgwError;

/** The node budget when the caller gives none (the kernel's default `maxNodes`). */
export const DEFAULT_MAX_NODES = 200_000;

/** What one evaluation may spend. */
export class Budget {
  private used = 0;
  private steps = 0;

  constructor(
    readonly maxNodes: number,
    readonly deadline: number | undefined,
    private readonly makeError: MakeError,
    /** The clock `deadline` is on (EvaluateOptions.now). */
    private readonly now: () => number = Date.now,
    /** The request's length, ms (EvaluateOptions.requestTimeoutMs), named by the deadline error; 0 when not given. */
    private readonly requestTimeoutMs = 0,
  ) {}

  /** Counts one node. @throws RESOURCE_LIMIT_EXCEEDED past maxNodes or past the deadline */
  tick(): void {
    if (++this.used > this.maxNodes) {
      throw this.makeError('RESOURCE_LIMIT_EXCEEDED', `The query produced more than maxNodes (${this.maxNodes}) nodes on one value and was stopped.`, {
        limit: { name: 'maxNodes', limit: this.maxNodes },
        hint: HINT,
      });
    }
    this.pace();
  }

  /** One step of work, counted or not: the deadline is checked every 1,024. @throws RESOURCE_LIMIT_EXCEEDED */
  pace(): void {
    if ((++this.steps & 1023) === 0 && this.deadline !== undefined && this.now() > this.deadline) {
      throw this.makeError('RESOURCE_LIMIT_EXCEEDED', `The query was still evaluating one value at the request deadline, after ${this.used} nodes, and was stopped.`, {
        limit: { name: 'requestTimeoutMs', limit: this.requestTimeoutMs },
        hint: DEADLINE_HINT,
      });
    }
  }
}

const HINT = 'Narrow the query: fewer descendant segments (..), names instead of wildcards, or a filter; or raise maxNodes.';
const DEADLINE_HINT = 'Narrow the query so it reads less of this value (fewer descendant segments, names instead of wildcards), or raise limits.requestTimeoutMs.';

/** A node: its value (in the evaluated copy), the original value (exact lexemes), and where it is. */
export interface Found {
  value: unknown;
  original: unknown;
  parent: Found | null;
  key: string | number | undefined;
  /** RFC 6901 pointer, built on first request from the parent's. */
  pointer?: string;
}

/** The RFC 6901 pointer of a node (RFC 6901 §3: `~` → `~0`, `/` → `~1`), memoized along the parent chain. */
export function pointerOfFound(n: Found): string {
  if (n.pointer !== undefined) return n.pointer;
  const chain: Found[] = [];
  let cur: Found | null = n;
  while (cur && cur.pointer === undefined) {
    chain.push(cur);
    cur = cur.parent;
  }
  let prefix = cur ? cur.pointer! : '';
  for (let i = chain.length - 1; i >= 0; i--) {
    const c = chain[i]!;
    if (c.parent === null) c.pointer = '';
    else {
      const k = c.key!;
      c.pointer = prefix + '/' + (typeof k === 'number' ? String(k) : escapeToken(k));
    }
    prefix = c.pointer;
  }
  return n.pointer!;
}

/** The evaluation running on this thread (filter queries count against it). Evaluations never interleave. */
let current: Budget | null = null;

/** The budget of the evaluation in progress (a fresh default one outside any). */
export function currentBudget(makeError: MakeError): Budget {
  return current ?? new Budget(DEFAULT_MAX_NODES, undefined, makeError);
}

/** Runs `fn` with `budget` as the one filter queries count against. */
export function withBudget<T>(budget: Budget, fn: () => T): T {
  const before = current;
  current = budget;
  try {
    return fn();
  } finally {
    current = before;
  }
}

interface Selector {
  lazyResolve(node: JSONPathNode): Iterable<JSONPathNode>;
}
interface Segment {
  selectors: readonly Selector[];
  constructor: { name: string };
}

const NO_LOCATION: (string | number)[] = [];

/** What a node list is known to be: disjoint subtrees, distinct nodes (some nested), or anything (repeats). */
type Shape = 'disjoint' | 'distinct' | 'any';

const S = jsonpath.selectors;

/** One child of `n` by key (counted or paced). */
function child(n: Found, key: string | number, value: unknown, budget: Budget, counted: boolean): Found {
  if (counted) budget.tick();
  else budget.pace();
  const original = n.original === n.value ? value : (n.original as Record<string | number, unknown>)[key];
  return { value, original, parent: n, key };
}

/**
 * The children `sel` selects from `n`. Name, index and wildcard selectors are applied here, exactly as json-p3
 * does (RFC 9535 §2.3.1–2.3.3), without its per-node objects; slices and filters through json-p3's lazyResolve.
 */
function* children(sel: Selector, n: Found, root: unknown, budget: Budget, counted: boolean): Generator<Found> {
  const v = n.value as any;
  if (sel instanceof S.NameSelector) {
    if (v !== null && typeof v === 'object' && !Array.isArray(v) && Object.hasOwn(v, sel.name)) yield child(n, sel.name, v[sel.name], budget, counted);
    return;
  }
  if (sel instanceof S.IndexSelector) {
    if (!Array.isArray(v)) return;
    const i = sel.index < 0 && v.length >= -sel.index ? v.length + sel.index : sel.index;
    if (i in v) yield child(n, i, v[i], budget, counted);
    return;
  }
  if (sel instanceof S.WildcardSelector) {
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) yield child(n, i, v[i], budget, counted);
    } else if (v !== null && typeof v === 'object') {
      for (const key of Object.keys(v)) yield child(n, key, v[key], budget, counted);
    }
    return;
  }
  for (const c of sel.lazyResolve(new JSONPathNode(n.value as never, NO_LOCATION, root as never))) {
    if (counted) budget.tick();
    else budget.pace();
    const key = c.location[0]!;
    const original = n.original === n.value ? c.value : (n.original as Record<string | number, unknown>)[key];
    yield { value: c.value, original, parent: n, key };
  }
}

/** Segment `seg` applied to one input node (RFC 9535 §2.5.1: each selector in turn). */
function* childSegment(seg: Segment, n: Found, root: unknown, budget: Budget, counted: boolean): Generator<Found> {
  for (const sel of seg.selectors) yield* children(sel, n, root, budget, counted);
}

/** RFC 9535 §2.5.2, one input node: the node and its descendants in document order (pre-order), each through every selector. */
function* descendantSegment(seg: Segment, start: Found, root: unknown, budget: Budget, counted: boolean): Generator<Found> {
  // An explicit stack of child iterators: no recursion, whatever the depth.
  const stack: Iterator<Found>[] = [];
  let visit: Found | null = start;
  while (visit !== null) {
    if (counted) budget.tick();
    else budget.pace();
    for (const sel of seg.selectors) yield* children(sel, visit, root, budget, counted);
    const v = visit.value;
    if (v !== null && typeof v === 'object') stack.push(directChildren(visit));
    visit = null;
    while (stack.length > 0) {
      const r = stack[stack.length - 1]!.next();
      if (r.done) stack.pop();
      else { visit = r.value; break; }
    }
  }
}

/** The direct children of a node in document order (array elements, object members); the walk counts them. */
function* directChildren(n: Found): Generator<Found> {
  const v = n.value as Record<string, unknown> | unknown[];
  const same = n.original === n.value;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) yield { value: v[i], original: same ? v[i] : (n.original as unknown[])[i], parent: n, key: i };
  } else {
    for (const key of Object.keys(v)) {
      const value = v[key];
      yield { value, original: same ? value : (n.original as Record<string, unknown>)[key], parent: n, key };
    }
  }
}

/** True when no two of a segment's selectors can select the same child: one selector, or names that all differ. */
function selectsOnce(seg: Segment): boolean {
  if (seg.selectors.length === 1) return true;
  const names = new Set<string>();
  for (const sel of seg.selectors as unknown as { name?: unknown; constructor: { name: string } }[]) {
    if (sel.constructor.name !== 'NameSelector' || typeof sel.name !== 'string' || names.has(sel.name)) return false;
    names.add(sel.name);
  }
  return true;
}

/**
 * The nodes `segments` select from `value` (`original`: the same value with its exact lexemes, or `value` itself),
 * lazily, in RFC 9535 node-list order, counting against `budget` what can grow faster than the value (see above;
 * `countAll`: everything counts, as for a filter's non-singular query).
 */
export function* evaluateSegments(segments: readonly unknown[], value: unknown, original: unknown, budget: Budget, countAll = false): Generator<Found> {
  const segs = segments as Segment[];
  // Which segments count (see above), decided once from the shape of the node list each one receives.
  const counted: boolean[] = [];
  let shape: Shape = countAll ? 'any' : 'disjoint';
  for (const s of segs) {
    const once = selectsOnce(s);
    if (s.constructor.name === 'DescendantSegment') {
      counted.push(shape !== 'disjoint');
      shape = shape === 'disjoint' && once ? 'distinct' : 'any';
    } else {
      counted.push(shape === 'any');
      if (!once) shape = 'any';
    }
  }
  const start: Found = { value, original, parent: null, key: undefined, pointer: '' };
  if (segs.length === 0) {
    yield start;
    return;
  }
  // Depth first over the segments, one iterator per segment on an explicit stack (no generator nests another
  // segment's, so a query of thousands of segments needs no deep call stack): the outputs of segment k for one
  // input node go, in order, through segments k+1… before the next input node — RFC 9535 node-list order.
  const apply = (k: number, n: Found): Iterator<Found> => {
    const s = segs[k]!;
    return s.constructor.name === 'DescendantSegment' ? descendantSegment(s, n, value, budget, counted[k]!) : childSegment(s, n, value, budget, counted[k]!);
  };
  const stack: Iterator<Found>[] = [apply(0, start)];
  while (stack.length > 0) {
    const r = stack[stack.length - 1]!.next();
    if (r.done) stack.pop();
    else if (stack.length === segs.length) yield r.value;
    else stack.push(apply(stack.length, r.value));
  }
}

/**
 * A filter query's node list (RFC 9535 §2.3.5.1), evaluated lazily under the current budget: a singular query
 * (names and indexes only) is at most one node per segment and is not counted; any other counts every node.
 */
export function filterNodeList(segments: readonly unknown[], singular: boolean, value: unknown, makeError: MakeError): JSONPathNodeList {
  const budget = currentBudget(makeError);
  const out: JSONPathNode[] = [];
  for (const n of evaluateSegments(segments, value, value, budget, !singular)) out.push(new JSONPathNode(n.value as never, NO_LOCATION, value as never));
  return new JSONPathNodeList(out);
}
