import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Embedder } from 'mcpgw/plugin-api';
import { words } from './tokens';

/** The vectors shipped with the plugin (scripts/derive-vectors.mjs; GloVe 6B, PDDL 1.0: vectors/LICENSE.md). */
export const VECTORS_BASE = path.join(__dirname, '..', '..', 'vectors', 'glove-100d-50000');

/** Words in the GloVe 6B vocabulary whose frequency ranks the shipped words come from. */
const GLOVE_VOCABULARY = 400_000;
/** SIF's smoothing constant a (Arora et al. 2017): weight a / (a + p(w)). */
const SIF_A = 1e-3;

/** int8 word vectors with a scale per word, and each word's frequency rank. */
export class WordVectors {
  readonly dimensions: number;
  private readonly index = new Map<string, number>();
  private readonly scales: Float32Array;
  private readonly vecs: Int8Array;
  /** SIF weight of each word. */
  private readonly weights: Float32Array;
  /** The call that last counted each word (see `sif`). */
  private readonly seen: Uint32Array;
  private stamp = 0;

  /** @throws Error when the files are missing or not in the expected format. */
  constructor(base = VECTORS_BASE) {
    const bin = readFileSync(`${base}.bin`);
    if (bin.toString('latin1', 0, 4) !== 'MGV1') throw new Error(`${base}.bin is not a word-vector file`);
    const n = bin.readUInt32LE(4);
    this.dimensions = bin.readUInt32LE(8);
    const copy = new Uint8Array(bin.length - 12);
    copy.set(bin.subarray(12));
    this.scales = new Float32Array(copy.buffer, 0, n);
    this.vecs = new Int8Array(copy.buffer, n * 4, n * this.dimensions);
    const list = readFileSync(`${base}.words`, 'utf8').split('\n');
    this.weights = new Float32Array(n);
    this.seen = new Uint32Array(n);
    // Zipf: p(rank r) ≈ 1 / ((r + 1) · H), H the harmonic number of the vocabulary size.
    const h = Math.log(GLOVE_VOCABULARY) + 0.5772;
    for (let i = 0; i < n; i++) {
      this.index.set(list[i]!, i);
      const p = 1 / ((i + 1) * h);
      this.weights[i] = SIF_A / (SIF_A + p);
    }
  }

  get size(): number {
    return this.scales.length;
  }

  has(word: string): boolean {
    return this.index.has(word);
  }

  /**
   * The SIF-weighted mean of the known words' vectors (unknown words are skipped), each distinct word counted once,
   * into `out` (zeroed first); returns the number of distinct known words. Counted once: a word repeated through a
   * paragraph (a pasted log, generated text) otherwise pulls its vector toward every query holding that word
   * (sessions-recall in bench/README.md).
   */
  sif(tokens: readonly string[], out: Float32Array): number {
    out.fill(0);
    const d = this.dimensions;
    let n = 0;
    // words seen in this call carry this call's stamp (no set built per paragraph)
    const stamp = ++this.stamp === 0xffffffff ? (this.seen.fill(0), (this.stamp = 1)) : this.stamp;
    for (const t of tokens) {
      const i = this.index.get(t);
      if (i === undefined || this.seen[i] === stamp) continue;
      this.seen[i] = stamp;
      const w = this.weights[i]! * this.scales[i]!;
      const base = i * d;
      for (let k = 0; k < d; k++) out[k]! += w * this.vecs[base + k]!;
      n++;
    }
    if (n > 0) for (let k = 0; k < d; k++) out[k]! /= n;
    return n;
  }
}

let shared: WordVectors | null = null;

/** The shipped vectors, loaded once (about 5 MB). */
export function wordVectors(): WordVectors {
  shared ??= new WordVectors();
  return shared;
}

/**
 * The built-in embedder: static GloVe word vectors with SIF weighting (frequency weights; the common component is
 * removed by the index, which knows the corpus). Offline, no model download, ~1,000+ paragraphs/s per core. It
 * catches related words (socket/connection, RAM/memory), not full reformulations.
 */
export const gloveSifEmbedder: Embedder = {
  name: 'glove-sif-100d',
  dimensions: 100,
  removeCommonComponent: true,
  async embed(texts) {
    const wv = wordVectors();
    return texts.map((t) => {
      const v = new Float32Array(wv.dimensions);
      wv.sif(words(t), v);
      return v;
    });
  },
};
