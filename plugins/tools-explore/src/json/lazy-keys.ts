import type { LazyNode, PathToken } from 'mcpgw/plugin-api';
import { tokenIndex, tokenName } from '../toolkit';

/** Elements looked into per array on a path through a document read in parts. */
export const ARRAY_LOOK = 1000;

/**
 * The member names at `tokens` inside a document read through lazy nodes, with `valuesAt`'s rules (values.ts): a
 * dot path's or pointer's name applied to an array descends into its elements, each token selects by the value it
 * meets (`tokenIndex`, `tokenName`: numbers index arrays, negative from the end, and name members; a JSONPath
 * `[0]` only indexes, `['0']` only names); at the end, the names of the object there, or of the object elements of the array there. Arrays met on
 * the way or at the end are looked into through at most ARRAY_LOOK elements spread evenly (`sampled` says so).
 * Names alone are read (member names are decoded, no value is parsed), in first-seen order, each once.
 */
export function lazyKeys(root: LazyNode, tokens: readonly PathToken[]): { names: string[]; sampled: boolean } {
  let sampled = false;
  const elements = (n: LazyNode): LazyNode[] => {
    const count = n.childCount ?? 0;
    if (count > ARRAY_LOOK) sampled = true;
    const picks = count <= ARRAY_LOOK ? null : Array.from({ length: ARRAY_LOOK }, (_, i) => Math.floor((i * (count - 1)) / (ARRAY_LOOK - 1)));
    if (!picks) {
      const out: LazyNode[] = [];
      for (let m = 0; m < count; m += 256) for (const c of n.children!(m, Math.min(count, m + 256))) out.push(c.node);
      return out;
    }
    return picks.map((m) => n.children!(m, m + 1)[0]!.node);
  };
  let cur: LazyNode[] = [root];
  for (const t of tokens) {
    const next: LazyNode[] = [];
    for (const n of cur) {
      if (n.type === 'array') {
        const idx = tokenIndex(t);
        const count = n.childCount ?? 0;
        if (Number.isInteger(idx)) {
          const k = idx < 0 ? count + idx : idx;
          if (k >= 0 && k < count) next.push(n.children!(k, k + 1)[0]!.node);
        } else if (typeof t === 'string') {
          for (const el of elements(n)) if (el.type === 'object') { const m = el.member!(t); if (m) next.push(m.node); }
        }
      } else if (n.type === 'object') {
        const name = tokenName(t);
        const m = name === undefined ? undefined : n.member!(name);
        if (m) next.push(m.node);
      }
    }
    cur = next;
  }
  const seen = new Set<string>();
  const names: string[] = [];
  const add = (obj: LazyNode) => {
    const count = obj.childCount ?? 0;
    for (let m = 0; m < count; m += 1024) {
      for (const c of obj.children!(m, Math.min(count, m + 1024))) if (!seen.has(c.key!)) { seen.add(c.key!); names.push(c.key!); }
    }
  };
  for (const n of cur) {
    if (n.type === 'object') add(n);
    else if (n.type === 'array') for (const el of elements(n)) if (el.type === 'object') add(el);
  }
  return { names, sampled };
}
