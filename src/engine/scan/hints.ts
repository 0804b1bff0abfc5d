/**
 * Explaining an empty answer: the member names a query selects that no examined record has, each with the nearest
 * names the records do have (`$.lable` → "label"). Records are examined from the start of the file, within bounds.
 */
import type { LazyNode, RecordSource } from '../../kernel/contracts/format';
import type { MissingMembers } from '../../kernel/contracts/scan';

/** Records and bytes examined at most. */
const MAX_RECORDS = 1000;
const MAX_BYTES = 8 * 1024 * 1024;
/** Distinct names collected at most, and the depth names are collected to. */
const MAX_NAMES = 20_000;
const MAX_DEPTH = 64;
/** Nearest names listed for each missing one. */
const NEAREST = 5;
/** A record longer than this is not parsed for its names: they are read through lazy nodes (`RecordSource.node`). */
const WHOLE_BYTES = 1024 * 1024;
/** Through lazy nodes: containers looked into at most, and elements of an array (spread evenly). */
const LAZY_CONTAINERS = 4096;
const LAZY_ELEMENTS = 64;

/** See ScanEngine.missingMembers. */
export async function missingMembers(source: RecordSource, names: readonly string[], signal?: AbortSignal): Promise<MissingMembers> {
  const wanted = [...new Set(names)];
  const seen = new Set<string>();
  let examined = 0;
  let bytes = 0;
  let partial = false;
  if (wanted.length > 0 && source.count > 0) {
    outer: for await (const batch of source.batches({ to: Math.min(source.count, MAX_RECORDS), signal })) {
      for (let k = 0; k < batch.count; k++) {
        const [s, e] = batch.span(k);
        if (examined > 0 && bytes + (e - s) > MAX_BYTES) break outer;
        examined++;
        if (e - s > WHOLE_BYTES || batch.oversized) {
          // a big document: never parsed whole for a hint; its member names through lazy nodes, bounded
          let root: LazyNode | undefined;
          try { root = source.node?.(batch.first + k, ''); } catch { root = undefined; }
          partial = !root || collectLazy(root, seen) || partial;
        } else {
          bytes += e - s;
          let value: unknown;
          try { value = batch.value(k); } catch { continue; } // malformed: nothing seen
          collect(value, seen);
        }
        if (seen.size >= MAX_NAMES || wanted.every((n) => seen.has(n))) break outer;
      }
    }
  }
  const missing = wanted.filter((n) => !seen.has(n)).map((name) => ({ name, nearest: nearest(name, seen) }));
  return { examined, missing, ...(partial ? { partial: true } : {}) };
}

/**
 * Member names under lazy node `root`, breadth first: at most LAZY_CONTAINERS containers, LAZY_ELEMENTS elements of
 * each array (spread evenly), MAX_DEPTH levels. True when it did not look at everything (a sample).
 */
function collectLazy(root: LazyNode, seen: Set<string>): boolean {
  let sampled = false;
  let queue: LazyNode[] = [root];
  let visited = 0;
  for (let depth = 0; queue.length && depth < MAX_DEPTH; depth++) {
    const next: LazyNode[] = [];
    for (const n of queue) {
      if (visited++ >= LAZY_CONTAINERS || seen.size >= MAX_NAMES) return true;
      const count = n.childCount ?? 0;
      let kids: { key?: string; node: LazyNode }[];
      try {
        if (n.type === 'array' && count > LAZY_ELEMENTS) {
          sampled = true;
          kids = Array.from({ length: LAZY_ELEMENTS }, (_, i) => n.children!(Math.floor((i * (count - 1)) / (LAZY_ELEMENTS - 1)), Math.floor((i * (count - 1)) / (LAZY_ELEMENTS - 1)) + 1)[0]!);
        } else kids = count ? n.children!(0, count) : [];
      } catch { sampled = true; continue; } // a container that does not scan: nothing more from it
      for (const c of kids) {
        if (c.key !== undefined) seen.add(c.key);
        if (c.node.type === 'object' || c.node.type === 'array') next.push(c.node);
      }
    }
    queue = next;
  }
  return sampled || queue.length > 0;
}

/** Member names at any depth (iterative, bounded). */
function collect(value: unknown, seen: Set<string>): void {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length && seen.size < MAX_NAMES) {
    const [v, d] = stack.pop()!;
    if (v === null || typeof v !== 'object' || d >= MAX_DEPTH || (JSON as unknown as { isRawJSON(x: unknown): boolean }).isRawJSON(v)) continue;
    if (Array.isArray(v)) { for (const x of v) if (x !== null && typeof x === 'object') stack.push([x, d + 1]); continue; }
    for (const k of Object.keys(v)) {
      seen.add(k);
      const x = (v as Record<string, unknown>)[k];
      if (x !== null && typeof x === 'object') stack.push([x, d + 1]);
    }
  }
}

/** The names of `seen` closest to `name` (edit distance, case differences counted half), closest first. */
function nearest(name: string, seen: Set<string>): string[] {
  const scored: [number, string][] = [];
  for (const s of seen) scored.push([distance(name, s), s]);
  scored.sort((a, b) => a[0] - b[0] || (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0));
  return scored.slice(0, NEAREST).map(([, s]) => s);
}

/** Optimal string alignment distance (insertions, deletions, substitutions, adjacent transpositions) over code points. */
export function distance(a: string, b: string): number {
  const x = [...a], y = [...b];
  if (Math.abs(x.length - y.length) > 64) return Math.abs(x.length - y.length) + Math.min(x.length, y.length);
  const m = x.length, n = y.length;
  let prev2: number[] = [];
  let prev = Array.from({ length: n + 1 }, (_, j) => j);
  for (let i = 1; i <= m; i++) {
    const cur = [i];
    for (let j = 1; j <= n; j++) {
      const same = x[i - 1] === y[j - 1] ? 0 : x[i - 1]!.toLowerCase() === y[j - 1]!.toLowerCase() ? 0.5 : 1;
      let d = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + same);
      if (i > 1 && j > 1 && x[i - 1] === y[j - 2] && x[i - 2] === y[j - 1]) d = Math.min(d, prev2[j - 2]! + 1);
      cur.push(d);
    }
    prev2 = prev;
    prev = cur;
  }
  return prev[n]!;
}
