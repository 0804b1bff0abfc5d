import type { Embedder } from 'mcpgw/plugin-api';
import { bestCosines, commonComponent, cosineFactors, fuse, mmr, normalize, removeComponent, residualNorms, topK, type PackedVectors } from './rank';
import type { IndexedEntry, IndexedSession, IndexStore } from './store';
import { contentWords } from './tokens';

/** The vectors of the whole index in memory, ready to score (rebuilt when the store changed). */
interface Loaded {
  generation: number;
  packed: PackedVectors;
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
 * Hybrid ranking over the index: every entry's best-paragraph cosine (brute force over int8 rows, the common component
 * removed) fused by reciprocal rank with SQLite FTS5's BM25 over the query's content words.
 */
export class SemanticEngine {
  private loaded: Loaded | null = null;

  constructor(readonly store: IndexStore, readonly embedder: Embedder) {}

  private load(): Loaded {
    if (this.loaded && this.loaded.generation === this.store.generation) return this.loaded;
    const rows = this.store.allVectors();
    const dim = this.embedder.dimensions;
    const q = new Int8Array(rows.length * dim);
    const scales = new Float32Array(rows.length);
    const rowEntry = new Int32Array(rows.length);
    const denseOf = new Map<number, number>();
    const ids: number[] = [];
    rows.forEach((r, i) => {
      q.set(new Int8Array(r.v.buffer, r.v.byteOffset, dim), i * dim);
      scales[i] = Buffer.from(r.v.buffer, r.v.byteOffset, r.v.byteLength).readFloatLE(dim);
      let k = denseOf.get(r.entry);
      if (k === undefined) { denseOf.set(r.entry, (k = ids.length)); ids.push(r.entry); }
      rowEntry[i] = k;
    });
    const sessionOf = this.store.entrySessions();
    const entryId = Int32Array.from(ids);
    const entrySession = Int32Array.from(ids, (id) => sessionOf.get(id) ?? -1);
    const packed = { dim, count: rows.length, q, scales };
    const u = this.embedder.removeCommonComponent && rows.length > 1 ? this.commonComponentOf(packed) : null;
    const norms = residualNorms(packed, u);
    this.loaded = { generation: this.store.generation, packed, rowEntry, norms, factors: cosineFactors(packed, norms), u, entryId, entrySession, denseOf, sessionOf };
    return this.loaded;
  }

  /**
   * The corpus's common component, computed by power iteration and kept in the index (keyed by the vector count and a
   * checksum of a sample of rows), so a server start does not recompute it for an unchanged index.
   */
  private commonComponentOf(packed: PackedVectors): Float32Array {
    let sample = 0;
    for (let i = 0; i < packed.q.length; i += 9973) sample = (sample * 31 + packed.q[i]!) | 0;
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

  /** Forgets the in-memory copy (after the store was changed by another process). */
  invalidate(): void {
    this.loaded = null;
  }

  async search(sq: SemanticQuery, sessions: ReadonlyMap<number, IndexedSession>, signal?: AbortSignal): Promise<SemanticHit[]> {
    const L = this.load();
    const allowedSession = (s: number | undefined) => s !== undefined && sessions.has(s) && (sq.sessions === null || sq.sessions.has(s));
    const E = L.entryId.length;
    // Vector side: each entry's best paragraph, in dense arrays (no per-entry objects).
    const [raw] = await this.embedder.embed([sq.query], { signal });
    const qv = removeComponent(raw ?? new Float32Array(L.packed.dim), L.u);
    const hasVector = normalize(qv);
    const best = new Float32Array(E).fill(Number.NEGATIVE_INFINITY);
    const bestRow = new Int32Array(E).fill(-1);
    if (hasVector && L.packed.count) bestCosines(L.packed, L.factors, qv, L.rowEntry, best, bestRow);
    const allowedSessions = new Map<number, boolean>();
    const allowed = (k: number) => {
      const s = L.entrySession[k]!;
      let ok = allowedSessions.get(s);
      if (ok === undefined) allowedSessions.set(s, (ok = allowedSession(s)));
      return ok;
    };
    const topVector = topK(best, CANDIDATES, allowed);
    /** 1-based vector ranks of the given entries (dense numbers) among the allowed ones, by one counting pass. */
    const ranksOf = (ks: number[]): Map<number, number> => {
      const out = new Map<number, number>();
      if (!ks.length) return out;
      const vals = Float32Array.from(ks, (k) => best[k]!).sort(); // ascending
      const above = new Int32Array(vals.length); // above[j]: entries scoring above vals[j]
      for (let k = 0; k < E; k++) {
        const v = best[k]!;
        if (!(v > vals[0]!) || !allowed(k)) continue;
        let lo = 0, hi = vals.length; // count of vals strictly below v
        while (lo < hi) { const mid = (lo + hi) >>> 1; if (vals[mid]! < v) lo = mid + 1; else hi = mid; }
        above[lo - 1]!++;
      }
      for (let j = vals.length - 2; j >= 0; j--) above[j]! += above[j + 1]!;
      for (const k of ks) {
        let lo = 0, hi = vals.length;
        while (lo < hi) { const mid = (lo + hi) >>> 1; if (vals[mid]! < best[k]!) lo = mid + 1; else hi = mid; }
        out.set(k, above[lo]! + 1);
      }
      return out;
    };
    let withVector = 0;
    for (let k = 0; k < E; k++) if (best[k]! > Number.NEGATIVE_INFINITY && allowed(k)) withVector++;
    // Lexical side: BM25 over content words (stop words dropped: a query sharing none with an entry does not match it).
    const terms = [...new Set(contentWords(sq.query))];
    const lexical = this.store.lexical(terms, CANDIDATES * 4).filter((id) => allowedSession(L.sessionOf.get(id))).slice(0, CANDIDATES);
    const lexicalRank = new Map(lexical.map((id, i) => [id, i + 1]));
    const candidates = new Map<number, number>();
    topVector.forEach((k, i) => candidates.set(L.entryId[k]!, i + 1));
    const lexicalOnly = lexical.filter((id) => !candidates.has(id));
    const lexicalDense = lexicalOnly.map((id) => L.denseOf.get(id)).filter((k): k is number => k !== undefined && best[k]! > Number.NEGATIVE_INFINITY);
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
    let dot = 0;
    for (let k = 0; k < dim; k++) dot += q[ra * dim + k]! * q[rb * dim + k]!;
    const na = L.norms[ra]!, nb = L.norms[rb]!;
    if (!na || !nb) return 0;
    return 0.5 * Math.max(0, (dot * scales[ra]! * scales[rb]!) / (na * nb));
  }
}
