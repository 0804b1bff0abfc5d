/**
 * Distinct counts: exact (a set of canonical value keys) until the table's memory bound calls for room, then a
 * HyperLogLog sketch (Flajolet et al. 2007) of 2^14 registers (16 KiB, standard error 1.04/√16384 ≈ 0.81%) whose
 * estimate is reported with `estimated: true` and its error bound. Plain data (structured-cloneable).
 */

export const HLL_P = 14;
const M = 1 << HLL_P;
/** Bytes of one sketch. */
export const HLL_BYTES = M;
/** The relative standard error of the estimate. */
export const HLL_STD_ERROR = 1.04 / Math.sqrt(M);

export interface DistinctState {
  /** Exact: the canonical keys seen (null once converted). */
  set: Set<string> | null;
  /** Estimated: the registers (null while exact). */
  hll: Uint8Array | null;
}

export function newDistinct(): DistinctState {
  return { set: new Set(), hll: null };
}

/** Estimated bytes a set entry costs (the key's characters plus the set's own slot). */
export function entryBytes(key: string): number {
  return 2 * key.length + 48;
}

/** 53-bit hash of a string (cyrb53 by bryc, public domain): two 32-bit multiplicative lanes mixed at the end. */
export function hash53(str: string): [number, number] {
  let h1 = 0xdeadbeef, h2 = 0x41c6ce57;
  for (let i = 0; i < str.length; i++) {
    const ch = str.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507);
  h1 ^= Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507);
  h2 ^= Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return [h1 >>> 0, h2 & 0x1fffff];
}

function hllAdd(reg: Uint8Array, key: string): void {
  const [h1, h2] = hash53(key);
  const idx = h1 >>> (32 - HLL_P);
  // The remaining 18 + 21 = 39 bits: rho is the 1-based position of the first 1 bit.
  const low = h1 & ((1 << (32 - HLL_P)) - 1);
  let rho: number;
  if (low !== 0) rho = Math.clz32(low) - HLL_P + 1;
  else if (h2 !== 0) rho = 32 - HLL_P + (Math.clz32(h2) - 11) + 1;
  else rho = 32 - HLL_P + 21 + 1;
  if (rho > reg[idx]!) reg[idx] = rho;
}

/** Adds a canonical value key; returns the bytes the state grew by. */
export function addDistinct(d: DistinctState, key: string): number {
  if (d.set) {
    if (d.set.has(key)) return 0;
    d.set.add(key);
    return entryBytes(key);
  }
  hllAdd(d.hll!, key);
  return 0;
}

/** Converts an exact set to a sketch; returns the bytes freed (negative when the sketch is larger). */
export function toSketch(d: DistinctState): number {
  if (!d.set) return 0;
  let freed = -HLL_BYTES;
  const reg = new Uint8Array(M);
  for (const k of d.set) { hllAdd(reg, k); freed += entryBytes(k); }
  d.set = null;
  d.hll = reg;
  return freed;
}

/** Bytes the state holds. */
export function distinctBytes(d: DistinctState): number {
  if (d.hll) return HLL_BYTES;
  let n = 0;
  for (const k of d.set!) n += entryBytes(k);
  return n;
}

/** Adds `b` into `a`; returns the bytes `a` grew by. */
export function mergeDistinct(a: DistinctState, b: DistinctState): number {
  if (b.set && a.set) {
    let grew = 0;
    for (const k of b.set) grew += addDistinct(a, k);
    return grew;
  }
  let grew = 0;
  if (a.set) grew -= toSketch(a);
  if (b.set) { for (const k of b.set) hllAdd(a.hll!, k); return grew; }
  const ra = a.hll!, rb = b.hll!;
  for (let i = 0; i < M; i++) if (rb[i]! > ra[i]!) ra[i] = rb[i]!;
  return grew;
}

/** The distinct count: exact, or the sketch's estimate with an error bound of three standard errors (≈99.7%). */
export function distinctValue(d: DistinctState): number | { value: number; estimated: true; error_bound: number } {
  if (d.set) return d.set.size;
  const reg = d.hll!;
  let sum = 0, zeros = 0;
  for (let i = 0; i < M; i++) {
    const r = reg[i]!;
    sum += 2 ** -r;
    if (r === 0) zeros++;
  }
  const alpha = 0.7213 / (1 + 1.079 / M);
  let e = (alpha * M * M) / sum;
  // Small range: linear counting (Flajolet et al., §4; Heule et al. 2013 use it up to 5m/2).
  if (e <= 2.5 * M && zeros > 0) e = M * Math.log(M / zeros);
  const value = Math.round(e);
  return { value, estimated: true, error_bound: Math.ceil(3 * HLL_STD_ERROR * value) };
}
