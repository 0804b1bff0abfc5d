import type { Embedder } from 'mcpgw/plugin-api';
import { bestCosines, commonComponent, cosineFactors, fuse, lengthPrior, mmr, SHORT_ENTRY_WORDS, normalize, removeComponent, residualNorms, topK, type PackedVectors } from './rank';
import type { IndexedEntry, IndexedSession, IndexStore } from './store';
import { SimdScorer } from './simd';
import { contentWords } from './tokens';

/** The vectors of the whole index in memory, ready to score (rebuilt when the store changed). */
interface Loaded {
  generation: number;
  /** The rows: in the SIMD scorer's memory when there is one. */
  packed: PackedVectors;
  /** Scores the rows in WebAssembly SIMD; null: in JavaScript (`bestCosines`). */
  scorer: SimdScorer | null;
  /** Dense entry number (0..entries-1) of each row. */
  rowEntry: Int32Array;
  norms: Float32Array;
  /** scale / residual norm per row (see `cosineFactors`). */
  factors: Float32Array;
  /** The corpus's common component (null when the embedder does not want it removed, or the index is empty). */
  u: Float32Array | null;
  /** Entry id (store row id) of each dense entry number, and its session id. */
  entryId: Int32Array;
  entrySession: Int32Array;
  /** 1 for a dense entry with at least one non-empty vector. */
  hasVector: Uint8Array;
  /** The length prior of each dense entry (`lengthPrior` of its content words). */
  prior: Float32Array;
  /** The length prior of each entry id (for the lexical side's entries). */
  priorOf: Map<number, number>;
  /** The session ids the dense entries belong to, and the largest. */
  sessionIds: number[];
  maxSession: number;
  /** Dense entry number of each entry id. */
  denseOf: Map<number, number>;
  /** Session id of each entry id (for entries without vectors too). */
  sessionOf: Map<number, number>;
}

export interface SemanticQuery {
  query: string;
  /** Sessions (ids in the store) allowed in results; null: all. */
  sessions: ReadonlySet<number> | null;
  limit: number;
  /** Cosine distance bound of the vector part (0 = none). */
  maxDistance: number;
  diversity: boolean;
}

export interface SemanticHit {
  entry: IndexedEntry;
  session: IndexedSession;
  /** 1 − cosine of the vector part, in [0, 2]; null when the entry has no vector (no known word). */
  distance: number | null;
  /** The fused score (reciprocal-rank fusion of the vector and BM25 rankings). */
  score: number;
  /** Whether the lexical side matched it. */
  lexical: boolean;
}

/** Candidates taken from each side before fusion. */
const CANDIDATES = 400;

/**
 * Hybrid ranking over the index: every entry's best-paragraph cosine (exact, over every int8 row in one pass of
 * WebAssembly SIMD — JavaScript where SIMD is missing — the common component removed) fused by reciprocal rank with
 * SQLite FTS5's BM25 over the query's content words.
 */
export class SemanticEngine {
  private loaded: Loaded | null = null;
  /** The vector side's ranking scores of the last query (reused: one array the size of the index). */
  private adjusted: { score: Float32Array } | null = null;

  constructor(readonly store: IndexStore, readonly embedder: Embedder) {}

  /**
   * The index's vectors in one contiguous block (WebAssembly memory when SIMD is available), read from the store once
   * per store generation by streaming its rows.
   */
  private load(): Loaded {
    if (this.loaded && this.loaded.generation === this.store.generation) return this.loaded;
    this.loaded = null; // let the old block go before the new one is allocated
    const generation = this.store.generation;
    const dim = this.embedder.dimensions;
    const read = this.store.transaction(() => {
      const { rows: count, entries: groups } = this.store.vectorCounts();
      const scorer = count ? SimdScorer.create(dim, count, groups) : null;
      const stride = scorer ? scorer.stride : dim;
      const q = scorer ? scorer.rows : new Int8Array(count * dim);
      const rowEntry = scorer ? scorer.group : new Int32Array(count);
      const scales = new Float32Array(count);
      const scale = new Float32Array(1), scaleBytes = new Uint8Array(scale.buffer);
      const denseOf = new Map<number, number>();
      const ids: number[] = [];
      let i = 0;
      this.store.eachVector((entry, v) => {
        if (i >= count || v.length < dim + 4) return;
        q.set(new Int8Array(v.buffer, v.byteOffset, dim), i * stride);
        for (let b = 0; b < 4; b++) scaleBytes[b] = v[dim + b]!;
        scales[i] = scale[0]!;
        let k = denseOf.get(entry);
        if (k === undefined) { denseOf.set(entry, (k = ids.length)); ids.push(entry); }
        rowEntry[i++] = k;
      });
      return { scorer: i === count ? scorer : null, packed: { dim, stride, count: i, q, scales }, rowEntry, denseOf, ids };
    });
    const { packed, rowEntry, denseOf, ids } = read;
    let { scorer } = read;
    if (scorer && ids.length > scorer.groups) scorer = null;
    // One pass over the entries: each one's session, and the length prior of the short ones.
    const sessionOf = new Map<number, number>();
    const priorOf = new Map<number, number>();
    this.store.eachEntry((id, session, words) => {
      sessionOf.set(id, session);
      if (words < SHORT_ENTRY_WORDS) priorOf.set(id, lengthPrior(words));
    });
    const entryId = Int32Array.from(ids);
    const entrySession = Int32Array.from(ids, (id) => sessionOf.get(id) ?? -1);
    const u = this.embedder.removeCommonComponent && packed.count > 1 ? this.commonComponentOf(packed) : null;
    const norms = residualNorms(packed, u);
    const factors = cosineFactors(packed, norms);
    if (scorer) scorer.factors.set(factors);
    const hasVector = new Uint8Array(ids.length);
    for (let r = 0; r < packed.count; r++) if (factors[r]! > 0) hasVector[rowEntry[r]!] = 1;
    const prior = Float32Array.from(ids, (id) => priorOf.get(id) ?? 1);
    const sessionIds = [...new Set(entrySession)].filter((s) => s >= 0);
    const maxSession = sessionIds.reduce((a, b) => Math.max(a, b), 0);
    this.loaded = {
      generation, packed, scorer, rowEntry: scorer ? scorer.group : rowEntry, norms, factors: scorer ? scorer.factors : factors, u,
      entryId, entrySession, hasVector, prior, priorOf, sessionIds, maxSession, denseOf, sessionOf,
    };
    return this.loaded;
  }

  /**
   * The corpus's common component, computed by power iteration and kept in the index (keyed by the vector count and a
   * checksum of a sample of rows), so a server start does not recompute it for an unchanged index.
   */
  private commonComponentOf(packed: PackedVectors): Float32Array {
    let sample = 0;
    const stride = packed.stride ?? packed.dim;
    for (let r = 0; r < packed.count; r += 97) for (let k = r % 7; k < packed.dim; k += 7) sample = (sample * 31 + packed.q[r * stride + k]!) | 0;
    const key = `${packed.count}:${sample}`;
    const kept = this.store.meta('common-component');
    if (kept) {
      try {
        const { k, u } = JSON.parse(kept) as { k: string; u: number[] };
        if (k === key && u.length === packed.dim) return Float32Array.from(u);
      } catch { /* recompute */ }
    }
    const u = commonComponent(packed);
    this.store.setMeta('common-component', JSON.stringify({ k: key, u: [...u] }));
    return u;
  }

  /**
   * Loads the vectors now and keeps the corpus's common component in the index (what a first query would otherwise
   * compute), so a server's first semantic_search only reads the vectors.
   */
  prepare(): void {
    this.store.sync();
    this.load();
  }

  /** Forgets the in-memory copy (after the store was changed by another process). */
  invalidate(): void {
    this.loaded = null;
  }

  async search(sq: SemanticQuery, sessions: ReadonlyMap<number, IndexedSession>, signal?: AbortSignal): Promise<SemanticHit[]> {
    // The query is embedded first: from here on everything is synchronous, so the loaded vectors (and the scorer's
    // result arrays, shared by every query) stay as they are until the answer is made.
    const [raw] = await this.embedder.embed([sq.query], { signal });
    this.store.sync();
    const L = this.load();
    const allowedSession = (s: number | undefined) => s !== undefined && sessions.has(s) && (sq.sessions === null || sq.sessions.has(s));
    const E = L.entryId.length;
    // Vector side: each entry's best paragraph, in dense arrays (no per-entry objects).
    const qv = removeComponent(raw ?? new Float32Array(L.packed.dim), L.u);
    const hasVector = normalize(qv);
    let best: Float32Array, bestRow: Int32Array;
    if (L.scorer) {
      if (hasVector) L.scorer.score(qv);
      else L.scorer.clear();
      ({ best, bestRow } = L.scorer);
    } else {
      best = new Float32Array(E).fill(Number.NEGATIVE_INFINITY);
      bestRow = new Int32Array(E).fill(-1);
      if (hasVector && L.packed.count) bestCosines(L.packed, L.factors, qv, L.rowEntry, best, bestRow);
    }
    const sessionOk = new Uint8Array(L.maxSession + 1);
    let every = true;
    for (const s of L.sessionIds) if (allowedSession(s)) sessionOk[s] = 1; else every = false;
    const allowed = every ? () => true : (k: number) => sessionOk[L.entrySession[k]!] === 1;
    // Ranked by the cosine times the entry's length prior (a three-word title does not outrank a paragraph that says
    // the same); `best` keeps the plain cosine for the answer's distance.
    const scratch = this.adjusted ??= { score: new Float32Array(0) };
    if (scratch.score.length < E) scratch.score = new Float32Array(E);
    const adj = scratch.score.subarray(0, E);
    for (let k = 0; k < E; k++) { const c = best[k]!; adj[k] = c > 0 ? c * L.prior[k]! : c; }
    const topVector = topK(adj, CANDIDATES, allowed);
    /** 1-based vector ranks of the given entries (dense numbers) among the allowed ones, by one counting pass. */
    const ranksOf = (ks: number[]): Map<number, number> => {
      const out = new Map<number, number>();
      if (!ks.length) return out;
      const vals = Float32Array.from(ks, (k) => adj[k]!).sort(); // ascending
      const above = new Int32Array(vals.length); // above[j]: entries scoring above vals[j]
      for (let k = 0; k < E; k++) {
        const v = adj[k]!;
        if (!(v > vals[0]!) || !allowed(k)) continue;
        let lo = 0, hi = vals.length; // count of vals strictly below v
        while (lo < hi) { const mid = (lo + hi) >>> 1; if (vals[mid]! < v) lo = mid + 1; else hi = mid; }
        above[lo - 1]!++;
      }
      for (let j = vals.length - 2; j >= 0; j--) above[j]! += above[j + 1]!;
      for (const k of ks) {
        let lo = 0, hi = vals.length;
        while (lo < hi) { const mid = (lo + hi) >>> 1; if (vals[mid]! < adj[k]!) lo = mid + 1; else hi = mid; }
        out.set(k, above[lo]! + 1);
      }
      return out;
    };
    let withVector = 0;
    if (hasVector) for (let k = 0; k < E; k++) if (L.hasVector[k] === 1 && allowed(k)) withVector++;
    // Lexical side: BM25 over content words (stop words dropped: a query sharing none with an entry does not match it).
    const terms = [...new Set(contentWords(sq.query))];
    const lexical = this.store.lexicalScored(terms, CANDIDATES * 4)
      .filter((r) => allowedSession(L.sessionOf.get(r.id)))
      .map((r) => ({ id: r.id, score: r.score * (L.priorOf.get(r.id) ?? 1) }))
      .sort((a, b) => b.score - a.score || a.id - b.id)
      .slice(0, CANDIDATES).map((r) => r.id);
    const lexicalRank = new Map(lexical.map((id, i) => [id, i + 1]));
    const candidates = new Map<number, number>();
    topVector.forEach((k, i) => candidates.set(L.entryId[k]!, i + 1));
    const lexicalOnly = lexical.filter((id) => !candidates.has(id));
    const lexicalDense = lexicalOnly.map((id) => L.denseOf.get(id)).filter((k): k is number => k !== undefined && adj[k]! > Number.NEGATIVE_INFINITY);
    const ranks = ranksOf(lexicalDense);
    for (const id of lexicalOnly) {
      const k = L.denseOf.get(id);
      candidates.set(id, k !== undefined && ranks.has(k) ? ranks.get(k)! : withVector + 1 + lexicalRank.get(id)!);
    }
    const cosOf = (id: number) => {
      const k = L.denseOf.get(id);
      return k !== undefined && best[k]! > Number.NEGATIVE_INFINITY ? best[k]! : null;
    };
    const fused = fuse(candidates, lexicalRank);
    let ranked = [...fused].sort((a, b) => b[1] - a[1] || a[0] - b[0]).map(([e, score]) => ({ e, score, cos: cosOf(e) }));
    if (sq.maxDistance > 0) ranked = ranked.filter((r) => r.cos !== null && 1 - r.cos <= sq.maxDistance);
    if (sq.diversity) {
      const pool = ranked.slice(0, Math.max(sq.limit * 5, 50));
      const top = pool[0]?.score ?? 1;
      ranked = mmr(pool, sq.limit, (r) => r.score / top, (a, b) => this.similarity(L, bestRow, a.e, b.e), 0.5);
    }
    const chosen = ranked.slice(0, sq.limit);
    const entries = this.store.entries(chosen.map((c) => c.e));
    const out: SemanticHit[] = [];
    for (const c of chosen) {
      const entry = entries.get(c.e);
      const session = entry ? sessions.get(entry.session) : undefined;
      if (!entry || !session) continue;
      out.push({ entry, session, distance: c.cos === null ? null : Math.min(2, Math.max(0, 1 - c.cos)), score: c.score, lexical: lexicalRank.has(c.e) });
    }
    return out;
  }

  /**
   * Two entries of one session are as similar as can be (1); entries of different sessions count half the cosine of
   * their best paragraphs, so MMR prefers another session unless its entries are far less relevant.
   */
  private similarity(L: Loaded, bestRow: Int32Array, a: number, b: number): number {
    if (L.sessionOf.get(a) === L.sessionOf.get(b)) return 1;
    const ka = L.denseOf.get(a), kb = L.denseOf.get(b);
    const ra = ka === undefined ? -1 : bestRow[ka]!, rb = kb === undefined ? -1 : bestRow[kb]!;
    if (ra < 0 || rb < 0) return 0;
    const { dim, q, scales } = L.packed;
    const stride = L.packed.stride ?? dim;
    let dot = 0;
    for (let k = 0; k < dim; k++) dot += q[ra * stride + k]! * q[rb * stride + k]!;
    const na = L.norms[ra]!, nb = L.norms[rb]!;
    if (!na || !nb) return 0;
    return 0.5 * Math.max(0, (dot * scales[ra]! * scales[rb]!) / (na * nb));
  }
}
