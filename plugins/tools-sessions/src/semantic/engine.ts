import type { Embedder } from 'mcpgw/plugin-api';
import { commonComponent, cosines, fuse, mmr, normalize, removeComponent, residualNorms, type PackedVectors } from './rank';
import type { IndexedEntry, IndexedSession, IndexStore } from './store';
import { contentWords } from './tokens';

/** The vectors of the whole index in memory, ready to score (rebuilt when the store changed). */
interface Loaded {
  generation: number;
  packed: PackedVectors;
  /** Entry id of each row. */
  rowEntry: Int32Array;
  norms: Float32Array;
  /** The corpus's common component (null when the embedder does not want it removed, or the index is empty). */
  u: Float32Array | null;
  /** Session id of each entry id. */
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
    rows.forEach((r, i) => {
      q.set(new Int8Array(r.v.buffer, r.v.byteOffset, dim), i * dim);
      scales[i] = Buffer.from(r.v.buffer, r.v.byteOffset, r.v.byteLength).readFloatLE(dim);
      rowEntry[i] = r.entry;
    });
    const packed = { dim, count: rows.length, q, scales };
    const u = this.embedder.removeCommonComponent && rows.length > 1 ? commonComponent(packed) : null;
    this.loaded = { generation: this.store.generation, packed, rowEntry, norms: residualNorms(packed, u), u, sessionOf: this.store.entrySessions() };
    return this.loaded;
  }

  /** Forgets the in-memory copy (after the store was changed by another process). */
  invalidate(): void {
    this.loaded = null;
  }

  async search(sq: SemanticQuery, sessions: ReadonlyMap<number, IndexedSession>, signal?: AbortSignal): Promise<SemanticHit[]> {
    const L = this.load();
    const allowed = (entry: number) => {
      const s = L.sessionOf.get(entry);
      return s !== undefined && sessions.has(s) && (sq.sessions === null || sq.sessions.has(s));
    };
    // Vector side: best paragraph per entry.
    const [raw] = await this.embedder.embed([sq.query], { signal });
    const qv = removeComponent(raw ?? new Float32Array(L.packed.dim), L.u);
    const hasVector = normalize(qv);
    const best = new Map<number, number>();
    const bestRow = new Map<number, number>();
    if (hasVector && L.packed.count) {
      const cos = cosines(L.packed, L.norms, qv);
      for (let r = 0; r < L.packed.count; r++) {
        const c = cos[r]!;
        if (Number.isNaN(c)) continue;
        const e = L.rowEntry[r]!;
        const prev = best.get(e);
        if (prev === undefined || c > prev) { best.set(e, c); bestRow.set(e, r); }
      }
    }
    const vectorOrder = [...best].filter(([e]) => allowed(e)).sort((a, b) => b[1] - a[1] || a[0] - b[0]);
    // Lexical side: BM25 over content words (stop words dropped: a query sharing none with an entry does not match it).
    const terms = [...new Set(contentWords(sq.query))];
    const lexical = this.store.lexical(terms, CANDIDATES * 4).filter(allowed).slice(0, CANDIDATES);
    const lexicalRank = new Map(lexical.map((e, i) => [e, i + 1]));
    const vectorRank = new Map(vectorOrder.map(([e], i) => [e, i + 1]));
    const candidates = new Map<number, number>();
    for (const [e] of vectorOrder.slice(0, CANDIDATES)) candidates.set(e, vectorRank.get(e)!);
    for (const e of lexical) candidates.set(e, vectorRank.get(e) ?? vectorOrder.length + 1 + lexicalRank.get(e)!);
    const fused = fuse(candidates, lexicalRank);
    let ranked = [...fused].sort((a, b) => b[1] - a[1] || a[0] - b[0]).map(([e, score]) => ({ e, score, cos: best.get(e) ?? null }));
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
  private similarity(L: Loaded, bestRow: Map<number, number>, a: number, b: number): number {
    if (L.sessionOf.get(a) === L.sessionOf.get(b)) return 1;
    const ra = bestRow.get(a), rb = bestRow.get(b);
    if (ra === undefined || rb === undefined) return 0;
    const { dim, q, scales } = L.packed;
    let dot = 0;
    for (let k = 0; k < dim; k++) dot += q[ra * dim + k]! * q[rb * dim + k]!;
    const na = L.norms[ra]!, nb = L.norms[rb]!;
    if (!na || !nb) return 0;
    return 0.5 * Math.max(0, (dot * scales[ra]! * scales[rb]!) / (na * nb));
  }
}
