import type { RegexNode } from './syntax';

/**
 * Required literals of a parsed pattern, as ripgrep extracts them: a set of strings of which every match contains
 * at least one. Computed bottom-up with, for each node,
 * - `exact`: the finite set of strings the node can match (null when unknown or larger than {@link MAX_SET}),
 * - `req`: a set one of which every match of the node contains (null when none is known).
 * A concatenation multiplies the exact sets of neighbouring items (`col` `ou?` `r` → color, colour) and keeps the
 * best run or item requirement; an alternation unites its branches' (every branch must have one); a repetition of
 * at least one keeps its operand's; optional parts and large classes break a run. Zero-width assertions (`^`, `\b`)
 * match only the empty string and so extend runs (`\bcat\b` → cat).
 */

/** Largest literal set kept (more would make the prefilter slower than the regex). */
export const MAX_SET = 64;

interface Info {
  exact: string[] | null;
  req: string[] | null;
}

/** The best required-literal set of `node`, or null (every string is empty or nothing is required). */
export function requiredLiterals(node: RegexNode): string[] | null {
  const { exact, req } = info(node);
  const best = better(usable(exact), req);
  return best;
}

function info(node: RegexNode): Info {
  switch (node.t) {
    case 'lit':
      return { exact: [node.ch], req: [node.ch] };
    case 'set':
      return { exact: node.chars, req: node.chars };
    case 'empty':
      return { exact: [''], req: null };
    case 'alt': {
      const parts = node.items.map(info);
      const exact = parts.every((p) => p.exact) ? union(parts.map((p) => p.exact!)) : null;
      const reqs = parts.map((p) => better(usable(p.exact), p.req));
      const req = reqs.every((r) => r) ? union(reqs as string[][]) : null;
      return { exact, req };
    }
    case 'rep': {
      const inner = info(node.node);
      if (node.min === 0) {
        return { exact: node.max === 1 && inner.exact ? union([[''], inner.exact]) : null, req: null };
      }
      let power: string[] | null = inner.exact ? [''] : null;
      for (let k = 0; power && k < node.min; k++) power = product(power, inner.exact!);
      const exact = node.min === node.max ? power : null;
      return { exact, req: better(usable(power), better(usable(inner.exact), inner.req)) };
    }
    case 'cat': {
      let run: string[] = [''];
      let allExact = true;
      let best: string[] | null = null;
      for (const item of node.items) {
        const p = info(item);
        if (p.exact) {
          const next = product(run, p.exact);
          if (next) { run = next; continue; }
          allExact = false;
          best = better(best, usable(run));
          run = p.exact;
          continue;
        }
        allExact = false;
        best = better(best, usable(run));
        best = better(best, p.req);
        run = [''];
      }
      best = better(best, usable(run));
      return { exact: allExact ? run : null, req: best };
    }
  }
}

/** `a` × `b` (every string of a followed by every string of b), or null when it would exceed MAX_SET. */
function product(a: string[], b: string[]): string[] | null {
  if (a.length * b.length > MAX_SET) return null;
  const out = new Set<string>();
  for (const x of a) for (const y of b) out.add(x + y);
  return [...out];
}

function union(sets: string[][]): string[] | null {
  const out = new Set<string>();
  for (const s of sets) for (const x of s) out.add(x);
  return out.size > MAX_SET ? null : [...out];
}

/** An exact set is a requirement when it has no empty string. */
function usable(set: string[] | null): string[] | null {
  return set && set.length > 0 && !set.includes('') ? set : null;
}

/** The more selective of two requirements: the longer shortest literal, then the fewer literals. */
function better(a: string[] | null, b: string[] | null): string[] | null {
  if (!a) return b;
  if (!b) return a;
  const sa = Math.min(...a.map((x) => x.length));
  const sb = Math.min(...b.map((x) => x.length));
  if (sa !== sb) return sa > sb ? a : b;
  return b.length < a.length ? b : a;
}
