/**
 * semantic_search's SIMD scorer (a WebAssembly module assembled in the plugin) against the JavaScript scoring it
 * replaces and against cosines computed here in plain float arithmetic: the same best row and cosine per group.
 */
import { bestCosines, type PackedVectors } from '../src/semantic/rank';
import { SimdScorer, strideOf } from '../src/semantic/simd';

/** A small deterministic generator (xorshift32), so a failure can be replayed. */
function random(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13; x >>>= 0; x ^= x >>> 17; x ^= x << 5; x >>>= 0;
    return x / 2 ** 32;
  };
}

interface Case { dim: number; count: number; groups: number; q: Int8Array; scales: Float32Array; factors: Float32Array; group: Int32Array; query: Float32Array }

function makeCase(dim: number, count: number, groups: number, seed: number): Case {
  const rnd = random(seed);
  const q = new Int8Array(count * dim);
  for (let i = 0; i < q.length; i++) q[i] = Math.round(rnd() * 254) - 127;
  const scales = Float32Array.from({ length: count }, () => 0.001 + rnd() * 0.01);
  const factors = new Float32Array(count);
  for (let r = 0; r < count; r++) {
    let n = 0;
    for (let k = 0; k < dim; k++) n += (q[r * dim + k]! * scales[r]!) ** 2;
    factors[r] = r % 17 === 5 ? 0 : scales[r]! / Math.sqrt(n); // every 17th row empty: never scored
  }
  const group = Int32Array.from({ length: count }, (_, r) => Math.min(groups - 1, Math.floor((r * groups) / count)));
  const query = Float32Array.from({ length: dim }, () => rnd() - 0.5);
  const norm = Math.hypot(...query);
  for (let k = 0; k < dim; k++) query[k]! /= norm;
  return { dim, count, groups, q, scales, factors, group, query };
}

function simdScores(c: Case): { best: Float32Array; bestRow: Int32Array } {
  const s = SimdScorer.create(c.dim, c.count, c.groups);
  if (!s) throw new Error('WebAssembly SIMD is not available on this Node');
  for (let r = 0; r < c.count; r++) s.rows.set(c.q.subarray(r * c.dim, (r + 1) * c.dim), r * s.stride);
  s.factors.set(c.factors);
  s.group.set(c.group);
  s.score(c.query);
  return { best: Float32Array.from(s.best), bestRow: Int32Array.from(s.bestRow) };
}

function jsScores(c: Case, stride = c.dim): { best: Float32Array; bestRow: Int32Array } {
  const q = new Int8Array(c.count * stride);
  for (let r = 0; r < c.count; r++) q.set(c.q.subarray(r * c.dim, (r + 1) * c.dim), r * stride);
  const packed: PackedVectors = { dim: c.dim, stride, count: c.count, q, scales: c.scales };
  const best = new Float32Array(c.groups).fill(Number.NEGATIVE_INFINITY);
  const bestRow = new Int32Array(c.groups).fill(-1);
  bestCosines(packed, c.factors, c.query, c.group, best, bestRow);
  return { best, bestRow };
}

test('rows are padded to whole 16-byte chunks', () => {
  expect([1, 16, 17, 100, 128].map(strideOf)).toEqual([16, 16, 32, 112, 128]);
});

test.each([
  [100, 3000, 1100, 7],
  [37, 500, 90, 11],
  [16, 64, 64, 3],
  [1, 10, 4, 5],
])('SIMD scoring of %i-d rows equals the JavaScript scoring and float cosines (%i rows, %i groups)', (dim, count, groups, seed) => {
  const c = makeCase(dim, count, groups, seed);
  const simd = simdScores(c);
  // the JavaScript scoring, rows packed tightly and with the SIMD stride: bit-identical results
  expect(simd).toEqual(jsScores(c));
  expect(simd).toEqual(jsScores(c, strideOf(dim)));
  // and the cosines are what float arithmetic gives, within the query's 16-bit rounding
  for (let g = 0; g < groups; g++) {
    let want = Number.NEGATIVE_INFINITY, wantRow = -1;
    for (let r = 0; r < count; r++) {
      if (c.group[r] !== g || c.factors[r] === 0) continue;
      let dot = 0;
      for (let k = 0; k < dim; k++) dot += c.q[r * dim + k]! * c.query[k]!;
      const cos = dot * c.factors[r]!;
      if (cos > want + 1e-4) { want = cos; wantRow = r; }
    }
    if (wantRow === -1) {
      expect(simd.best[g]).toBe(Number.NEGATIVE_INFINITY);
      expect(simd.bestRow[g]).toBe(-1);
    } else {
      expect(Math.abs(simd.best[g]! - want)).toBeLessThan(1e-3);
      expect(Math.abs(simd.best[g]! - want) < 1e-3 && c.group[simd.bestRow[g]!]).toBe(g);
    }
  }
});

test('a second query overwrites the first one\'s results; clear() empties them', () => {
  const c = makeCase(100, 400, 50, 9);
  const s = SimdScorer.create(c.dim, c.count, c.groups)!;
  for (let r = 0; r < c.count; r++) s.rows.set(c.q.subarray(r * c.dim, (r + 1) * c.dim), r * s.stride);
  s.factors.set(c.factors);
  s.group.set(c.group);
  const other = Float32Array.from(c.query, (x) => -x);
  s.score(other);
  s.score(c.query);
  expect({ best: Float32Array.from(s.best), bestRow: Int32Array.from(s.bestRow) }).toEqual(jsScores(c));
  s.clear();
  expect([...s.best].every((x) => x === Number.NEGATIVE_INFINITY)).toBe(true);
  expect([...s.bestRow].every((x) => x === -1)).toBe(true);
});
