import { cutText } from '../text';

/**
 * The ranking arithmetic of semantic_search, independent of storage: paragraphs of an entry, the corpus's common
 * component (SIF's second step), cosine scoring against int8 vectors, reciprocal-rank fusion that never pushes
 * down what the lexical side did not match, and MMR diversity.
 */

/** Paragraphs shorter than this (characters) are dropped unless they are all an entry has. */
const MIN_PARAGRAPH = 40;
/** Paragraphs embedded per entry at most, and characters per paragraph. */
const MAX_PARAGRAPHS = 12;
const MAX_PARAGRAPH_CHARS = 2000;

/** An entry's text as paragraphs (blank-line separated): one vector each, the entry scored by its best one. */
export function paragraphs(text: string): string[] {
  const parts = text.split(/\n\s*\n/).map((p) => p.trim()).filter(Boolean);
  const long = parts.filter((p) => p.length >= MIN_PARAGRAPH);
  const chosen = long.length ? long : parts.length ? [parts.join(' ')] : [];
  return chosen.slice(0, MAX_PARAGRAPHS).map((p) => cutText(p, MAX_PARAGRAPH_CHARS).text);
}

/** Quantizes a vector to int8 with one scale (max |x| / 127). */
export function quantize(v: Float32Array): { q: Int8Array; scale: number } {
  let max = 0;
  for (let i = 0; i < v.length; i++) max = Math.max(max, Math.abs(v[i]!));
  const scale = max / 127 || 1;
  const q = new Int8Array(v.length);
  for (let i = 0; i < v.length; i++) q[i] = Math.round(v[i]! / scale);
  return { q, scale };
}

/** int8 vectors packed for scoring: `count` rows of `dim` values, each `stride` bytes apart (default `dim`; the
 * padding is zero), a scale per row. */
export interface PackedVectors {
  dim: number;
  stride?: number;
  count: number;
  q: Int8Array;
  scales: Float32Array;
}

/**
 * The first principal direction of the rows (unit length), by power iteration on the uncentered second-moment
 * matrix, as SIF's common-component removal takes it. Deterministic: starts from the mean direction.
 */
export function commonComponent(p: PackedVectors, iterations = 10): Float32Array {
  const { dim, count, q, scales } = p;
  const stride = p.stride ?? dim;
  let u = new Float32Array(dim);
  for (let r = 0; r < count; r++) for (let k = 0; k < dim; k++) u[k]! += q[r * stride + k]! * scales[r]!;
  normalize(u);
  if (count === 0) return u;
  for (let it = 0; it < iterations; it++) {
    const next = new Float32Array(dim);
    for (let r = 0; r < count; r++) {
      const base = r * stride;
      let dot = 0;
      for (let k = 0; k < dim; k++) dot += q[base + k]! * u[k]!;
      dot *= scales[r]!;
      const w = dot * scales[r]!;
      for (let k = 0; k < dim; k++) next[k]! += w * q[base + k]!;
    }
    if (!normalize(next)) break;
    u = next;
  }
  return u;
}

/** Scales `v` to unit length in place; false when it is zero. */
export function normalize(v: Float32Array): boolean {
  let n = 0;
  for (let i = 0; i < v.length; i++) n += v[i]! * v[i]!;
  n = Math.sqrt(n);
  if (n === 0) return false;
  for (let i = 0; i < v.length; i++) v[i]! /= n;
  return true;
}

/** `v` with its projection on unit `u` removed (a new vector). */
export function removeComponent(v: Float32Array, u: Float32Array | null): Float32Array {
  const out = Float32Array.from(v);
  if (!u) return out;
  let d = 0;
  for (let i = 0; i < v.length; i++) d += v[i]! * u[i]!;
  for (let i = 0; i < v.length; i++) out[i]! -= d * u[i]!;
  return out;
}

/**
 * Per row, the norm of the row once `u` is removed (0 for an empty row): with it, the cosine of a query that has `u`
 * removed against a row with `u` removed is `(q · row) / (|q| · norm)`, one int8 dot product a row.
 */
export function residualNorms(p: PackedVectors, u: Float32Array | null): Float32Array {
  const { dim, count, q, scales } = p;
  const stride = p.stride ?? dim;
  const out = new Float32Array(count);
  for (let r = 0; r < count; r++) {
    const base = r * stride;
    let nn = 0, du = 0;
    for (let k = 0; k < dim; k++) {
      const x = q[base + k]!;
      nn += x * x;
      if (u) du += x * u[k]!;
    }
    const s = scales[r]!;
    out[r] = Math.sqrt(Math.max(0, nn * s * s - du * du * s * s));
  }
  return out;
}

/** `scale / norm` per row (0 for empty rows): a row's cosine with a unit query is `(q · row) × factor`. */
export function cosineFactors(p: PackedVectors, norms: Float32Array): Float32Array {
  const out = new Float32Array(p.count);
  for (let r = 0; r < p.count; r++) out[r] = norms[r]! > 0 ? p.scales[r]! / norms[r]! : 0;
  return out;
}

/** Fixed-point scale of the query in `bestCosines` (int32 arithmetic: 2× the float speed here, and exact enough). */
const Q_SCALE = 32767;

/**
 * For unit query `qv` (its common component already removed): each group's best cosine over its rows (`rowGroup[r]`),
 * into `best` (which starts at -Infinity), and the row that gave it into `bestRow`. Rows with a zero factor (empty
 * vectors) are skipped. One pass in int32 arithmetic (int8 rows × the query in 16-bit fixed point: a row's dot product
 * stays under 2^31), four products at a time.
 */
export function bestCosines(p: PackedVectors, factors: Float32Array, qv: Float32Array, rowGroup: Int32Array, best: Float32Array, bestRow: Int32Array): void {
  const { dim, count, q } = p;
  const stride = p.stride ?? dim;
  const qi = Int32Array.from(qv, (x) => Math.round(x * Q_SCALE));
  const d4 = dim - (dim % 4);
  for (let r = 0, base = 0; r < count; r++, base += stride) {
    const f = factors[r]!;
    if (f === 0) continue;
    let a = 0, b = 0, c = 0, e = 0;
    let k = 0;
    for (; k < d4; k += 4) {
      a = (a + q[base + k]! * qi[k]!) | 0;
      b = (b + q[base + k + 1]! * qi[k + 1]!) | 0;
      c = (c + q[base + k + 2]! * qi[k + 2]!) | 0;
      e = (e + q[base + k + 3]! * qi[k + 3]!) | 0;
    }
    for (; k < dim; k++) a = (a + q[base + k]! * qi[k]!) | 0;
    const cos = ((a + b + c + e) * f) / Q_SCALE;
    const g = rowGroup[r]!;
    if (cos > best[g]!) { best[g] = cos; bestRow[g] = r; }
  }
}

/**
 * The `k` indexes with the highest `score` among those `keep` accepts (ties by index), best first, by one pass with a
 * bounded min-heap: O(n log k), no sort of everything.
 */
export function topK(score: Float32Array, k: number, keep: (i: number) => boolean): number[] {
  const heap: number[] = []; // min-heap by (score, -index)
  const worse = (x: number, y: number) => score[x]! < score[y]! || (score[x] === score[y] && x > y);
  const up = (i: number) => { while (i > 0) { const p = (i - 1) >> 1; if (!worse(heap[i]!, heap[p]!)) break; [heap[i], heap[p]] = [heap[p]!, heap[i]!]; i = p; } };
  const down = (i: number) => {
    for (;;) {
      const l = 2 * i + 1, r = l + 1;
      let m = i;
      if (l < heap.length && worse(heap[l]!, heap[m]!)) m = l;
      if (r < heap.length && worse(heap[r]!, heap[m]!)) m = r;
      if (m === i) return;
      [heap[i], heap[m]] = [heap[m]!, heap[i]!];
      i = m;
    }
  };
  for (let i = 0; i < score.length; i++) {
    const v = score[i]!;
    if (!(v > Number.NEGATIVE_INFINITY) || !keep(i)) continue;
    if (heap.length < k) { heap.push(i); up(heap.length - 1); }
    else if (worse(heap[0]!, i)) { heap[0] = i; down(0); }
  }
  return heap.sort((x, y) => (worse(x, y) ? 1 : worse(y, x) ? -1 : 0));
}

/**
 * Reciprocal-rank fusion constant. Cormack et al. (2009) used 60 over rankings of a thousand documents; over
 * hundreds of thousands of entries, 20 lets what one side ranks at the very top weigh more than what both sides put
 * in the hundreds (chosen on the tuning queries of bench/sessions-recall-tuning.json, bench/README.md).
 */
export const RRF_K = 20;

/** Entries with fewer content words than this are ranked down in proportion (see {@link lengthPrior}). */
export const SHORT_ENTRY_WORDS = 6;

/**
 * The length prior of an entry with `n` content words: `n / 6` below six, else 1. Both sides' scores are multiplied
 * by it before ranking: an entry of two or three words (a generated title, "Fix websocket issue") matches a query on
 * one word with a cosine and a BM25 score no paragraph can reach, without saying anything about it.
 */
export function lengthPrior(n: number): number {
  return n >= SHORT_ENTRY_WORDS ? 1 : Math.max(0, n) / SHORT_ENTRY_WORDS;
}

/**
 * Reciprocal-rank fusion of a vector ranking and a lexical one (1-based ranks): each side adds `1 / (RRF_K + rank)`
 * for the entries it ranked, nothing for the others. `vectorRank` holds every candidate (an entry only the lexical
 * side brought in carries its rank among all vectors); `lexicalRank` the entries BM25 matched.
 *
 * An entry the lexical side did not match gets no lexical share: an earlier version gave it its vector rank on that
 * side too, which counted the vector side twice and let word-salad entries that are merely near the query's topic
 * outrank the entry that both sides put near the top (measured in bench/README.md, sessions-recall).
 */
export function fuse(vectorRank: ReadonlyMap<number, number>, lexicalRank: ReadonlyMap<number, number>): Map<number, number> {
  const out = new Map<number, number>();
  for (const [id, rv] of vectorRank) out.set(id, 1 / (RRF_K + rv));
  for (const [id, rl] of lexicalRank) out.set(id, (out.get(id) ?? 0) + 1 / (RRF_K + rl));
  return out;
}

/**
 * Maximal marginal relevance (Carbonell & Goldstein 1998): picks `limit` items, each maximizing
 * `λ · relevance − (1 − λ) · max similarity to those already picked`, where two entries of one session are as similar
 * as can be (so results spread across sessions) and entries of different sessions compare by their vectors.
 * `relevance` and `similarity` in [0, 1].
 */
export function mmr<T>(items: readonly T[], limit: number, relevance: (t: T) => number, similarity: (a: T, b: T) => number, lambda = 0.6): T[] {
  const picked: T[] = [];
  const rest = [...items];
  while (picked.length < limit && rest.length) {
    let best = 0, bestScore = -Infinity;
    for (let i = 0; i < rest.length; i++) {
      const t = rest[i]!;
      let maxSim = 0;
      for (const p of picked) maxSim = Math.max(maxSim, similarity(t, p));
      const score = lambda * relevance(t) - (1 - lambda) * maxSim;
      if (score > bestScore) { bestScore = score; best = i; }
    }
    picked.push(rest.splice(best, 1)[0]!);
  }
  return picked;
}
