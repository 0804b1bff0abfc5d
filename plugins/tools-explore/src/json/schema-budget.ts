import type { LazyNode } from 'mcpgw/plugin-api';
import { codePointCompare, isObject, lexemeIsInteger, typeOf, type ValueType } from './values';
import type { Schema } from './schema';

/**
 * Schema inference within a budget, level by level (breadth first): the types of the sampled values, then their
 * members and elements, then theirs, each level described only once the one above it is complete, and only while
 * the answer stays under `maxBytes` and time remains (the root's type and its members' types are described whatever
 * the time: an answer of the bare root type says nothing). So a large document gets the deepest description that fits,
 * cheap levels first, instead of a deep pass that has to be thrown away.
 * - Arrays longer than `arraySample` are sampled: that many elements spread evenly (said in `sampledArrays`).
 * - Values may be lazy nodes ({@link LazyValue}: a document too large to parse): their types, member names and
 *   elements are read through the structure index, and a value of at most `parseBytes` is parsed.
 * - A place lists at most `maxProps` members (`x-more-members: true` says there were more: extract_keys pages them);
 *   the root object's members are paged instead (`rootOffset`).
 * Same rules as `inferSchema` (schema.ts): integer vs number on the lexeme, nullable members list null, `required`
 * the members of every object at that place, optional ones `x-occurrences` and `x-frequency`.
 */
export class LazyValue {
  constructor(readonly node: LazyNode) {}
}

export interface BudgetOptions {
  /** Levels asked for (the tool's `depth`). */
  maxDepth: number;
  /** Bytes the schema's JSON may take. */
  maxBytes: number;
  /** ms since the epoch: no deeper level is started past it (the first two, the root and its members, always complete). */
  until: number;
  /** The clock `until` is on (ToolContext.clock; default `Date.now`). */
  now?: () => number;
  /** Elements looked at per array (default 256). */
  arraySample?: number;
  /** Lazy values up to this size are parsed (default 64 KiB). */
  parseBytes?: number;
  /** Members listed per place at most. */
  maxProps: number;
  /** The root object's members from this one on (in first-seen order). */
  rootOffset?: number;
}

export interface BudgetResult {
  schema: Schema;
  /** Levels described (≤ maxDepth). */
  depth: number;
  /** Why fewer levels than asked: the answer's size, or time. */
  stopped?: 'bytes' | 'time';
  /** Some array was longer than arraySample and was sampled. */
  sampledArrays: boolean;
  /** The root object's members: how many, the first listed, and where the next page starts when not all fit. */
  root?: { total: number; offset: number; next?: number };
}

class Place {
  types = new Set<ValueType>();
  seen = 0;
  objects = 0;
  props = new Map<string, Place>();
  /** Its objects have more members than maxProps: the rest are not listed. */
  overflow = false;
  items: Place | null = null;
}

export function inferWithinBudget(values: readonly unknown[], opts: BudgetOptions): BudgetResult {
  const arraySample = opts.arraySample ?? 256;
  const parseBytes = opts.parseBytes ?? 64 * 1024;
  const root = new Place();
  let sampledArrays = false;
  let frontier = new Map<Place, unknown[]>([[root, values.slice()]]);
  let described = 0;
  let stopped: BudgetResult['stopped'];
  let best: { schema: Schema; root?: BudgetResult['root'] } | null = null;
  let rootPage: { offset: number; count: number } | null = null;
  // The root objects' member names in first-seen order; places only for those in the page window (the rest are
  // names only: a root of 811,000 members costs its names, not a place each).
  const rootNames = new Map<string, number>();
  const lo = Math.max(0, opts.rootOffset ?? 0), hi = lo + opts.maxProps;
  const placeFor = (place: Place, key: string): Place | null => {
    if (place !== root) return propOf(place, key, opts.maxProps);
    let i = rootNames.get(key);
    if (i === undefined) rootNames.set(key, (i = rootNames.size));
    return i >= lo && i < hi ? propOf(place, key, Number.POSITIVE_INFINITY) : null;
  };
  for (let level = 0; ; level++) {
    // level `level`: the types of the places at that depth, and their children queued for the next
    const next = new Map<Place, unknown[]>();
    const queue = (p: Place, v: unknown) => { let l = next.get(p); if (!l) next.set(p, (l = [])); l.push(v); };
    let work = 0;
    let late = false;
    levelLoop: for (const [place, vals] of frontier) {
      for (let v of vals) {
        // a level that cannot finish in time is not described (the root's type and its members' always are)
        if (level > 1 && (++work & 1023) === 0 && (opts.now ?? Date.now)() > opts.until) { late = true; break levelLoop; }
        if (v instanceof LazyValue && v.node.byteLength <= parseBytes) v = v.node.value();
        place.seen++;
        place.types.add(typeOfValue(v));
        if (level >= opts.maxDepth) continue;
        if (v instanceof LazyValue) {
          const n = v.node;
          if (n.type === 'object') {
            place.objects++;
            const count = n.childCount ?? 0;
            // a repeated member name: the last value counts (in the first one's place, as JSON.parse)
            const queued = new Map<string, { list: unknown[]; at: number }>();
            for (let m = 0; m < count; m += 256) {
              for (const c of n.children!(m, Math.min(count, m + 256))) {
                const again = queued.get(c.key!);
                if (again) { again.list[again.at] = new LazyValue(c.node); continue; }
                const child = placeFor(place, c.key!);
                if (!child) continue;
                queue(child, new LazyValue(c.node));
                const list = next.get(child)!;
                queued.set(c.key!, { list, at: list.length - 1 });
              }
            }
          } else if (n.type === 'array') {
            const count = n.childCount ?? 0;
            place.items ??= new Place();
            for (const m of spread(count, arraySample)) queue(place.items, new LazyValue(n.children!(m, m + 1)[0]!.node));
            if (count > arraySample) sampledArrays = true;
          }
        } else if (isObject(v)) {
          place.objects++;
          for (const key of Object.keys(v)) {
            const child = placeFor(place, key);
            if (child) queue(child, v[key]);
          }
        } else if (Array.isArray(v)) {
          place.items ??= new Place();
          for (const m of spread(v.length, arraySample)) queue(place.items, v[m]);
          if (v.length > arraySample) sampledArrays = true;
        }
      }
    }
    if (late) { stopped = 'time'; described = level - 1; break; }
    described = level;
    // The root's members (paged when there are more than one answer holds): chosen once, at the first level.
    // a quarter of the answer for the members by type, the rest for describing them deeper
    if (level === 0 && rootNames.size > 0) rootPage = pageOfRoot(root, lo, opts.maxBytes / 4);
    const schema = render(root, null, level, rootPage);
    const size = Buffer.byteLength(JSON.stringify(schema));
    if (size > opts.maxBytes && best) { stopped = 'bytes'; described = level - 1; break; }
    best = { schema, ...(rootPage && (rootPage.offset > 0 || rootPage.count < rootNames.size) ? { root: rootInfo(rootNames.size, rootPage) } : {}) };
    if (size > opts.maxBytes) { stopped = 'bytes'; break; } // even the types alone: the caller reports it
    if (level >= opts.maxDepth || next.size === 0) break;
    if (level >= 1 && (opts.now ?? Date.now)() > opts.until) { stopped = 'time'; break; }
    frontier = next;
  }
  return { schema: best!.schema, depth: described, ...(stopped ? { stopped } : {}), sampledArrays, ...(best!.root ? { root: best!.root } : {}) };
}

/** The child place for member `key`, or null past `maxProps` members (counted as overflow). */
function propOf(place: Place, key: string, maxProps: number): Place | null {
  let p = place.props.get(key);
  if (!p) {
    if (place.props.size >= maxProps) { place.overflow = true; return null; }
    place.props.set(key, (p = new Place()));
  }
  return p;
}

/** `n` indexes of `[0, count)` spread evenly (all of them when count ≤ n). */
function spread(count: number, n: number): number[] {
  if (count <= n) return Array.from({ length: count }, (_, i) => i);
  return Array.from({ length: n }, (_, i) => Math.floor((i * (count - 1)) / (n - 1)));
}

function typeOfValue(v: unknown): ValueType {
  if (!(v instanceof LazyValue)) return typeOf(v);
  const n = v.node;
  if (n.type === 'number') return lexemeIsInteger(n.text ? n.text() : String(n.value())) ? 'integer' : 'number';
  return n.type;
}

const TYPE_ORDER: ValueType[] = ['null', 'boolean', 'integer', 'number', 'string', 'array', 'object'];

/** The root members listed: those of the window (from `offset`) that fit the answer described by type only. */
function pageOfRoot(root: Place, offset: number, maxBytes = Number.POSITIVE_INFINITY): { offset: number; count: number } {
  let bytes = 64;
  let count = 0;
  for (const key of root.props.keys()) {
    bytes += Buffer.byteLength(JSON.stringify(key)) * 2 + 40; // the member, its type, its name in required
    if (bytes > maxBytes && count > 0) break;
    count++;
  }
  return { offset, count };
}

function rootInfo(total: number, page: { offset: number; count: number }): BudgetResult['root'] {
  const end = page.offset + page.count;
  return { total, offset: page.offset, ...(end < total ? { next: end } : {}) };
}

/** The schema of `place` described `depth` levels deep (members listed above that depth). */
function render(place: Place, parentObjects: number | null, depth: number, rootPage: { offset: number; count: number } | null): Schema {
  const types = TYPE_ORDER.filter((t) => place.types.has(t) && !(t === 'integer' && place.types.has('number')));
  const out: Schema & { 'x-more-members'?: true } = { type: types.length === 1 ? types[0]! : types };
  if (depth > 0 && place.objects > 0) {
    let keys = [...place.props.keys()];
    if (rootPage) keys = keys.slice(0, rootPage.count);
    out.properties = {};
    // defined, not assigned: a member named `__proto__` is a property like any other
    for (const k of keys) Object.defineProperty(out.properties, k, { value: render(place.props.get(k)!, place.objects, depth - 1, null), writable: true, enumerable: true, configurable: true });
    out.required = keys.filter((k) => place.props.get(k)!.seen === place.objects).sort(codePointCompare);
    if (place.overflow && !rootPage) out['x-more-members'] = true;
  }
  if (depth > 0 && place.items) out.items = render(place.items, null, depth - 1, null);
  if (parentObjects !== null && place.seen < parentObjects) {
    out['x-occurrences'] = place.seen;
    out['x-frequency'] = Math.round((place.seen / parentObjects) * 1000) / 1000;
  }
  return out;
}
