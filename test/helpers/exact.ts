/**
 * Exact rationals for tests, written independently of the kernel's decimal code: a JSON number lexeme is read as
 * numerator / 10^k with bigints, sums and comparisons are done on those, and results are compared value for value.
 */
export interface Rat { n: bigint; d: bigint }

function gcd(a: bigint, b: bigint): bigint {
  a = a < 0n ? -a : a;
  while (b) [a, b] = [b, a % b];
  return a;
}

export function rat(n: bigint, d = 1n): Rat {
  if (d < 0n) { n = -n; d = -d; }
  const g = gcd(n, d) || 1n;
  return { n: n / g, d: d / g };
}

/** A JSON number lexeme as an exact rational. */
export function lex(s: string): Rat {
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(s);
  if (!m) throw new Error(`not a number lexeme: ${s}`);
  const digits = BigInt(m[2]! + (m[3] ?? ''));
  const e = Number(m[4] ?? 0) - (m[3]?.length ?? 0);
  const n = (m[1] ? -digits : digits);
  return e >= 0 ? rat(n * 10n ** BigInt(e)) : rat(n, 10n ** BigInt(-e));
}

export const add = (a: Rat, b: Rat): Rat => rat(a.n * b.d + b.n * a.d, a.d * b.d);
export const cmp = (a: Rat, b: Rat): number => { const x = a.n * b.d - b.n * a.d; return x < 0n ? -1 : x > 0n ? 1 : 0; };
export const eq = (a: Rat, b: Rat): boolean => cmp(a, b) === 0;
export const divInt = (a: Rat, k: number): Rat => rat(a.n, a.d * BigInt(k));
export const key = (a: Rat): string => `${a.n}/${a.d}`;

/** The lexeme a result carries for a number value: the rawJSON text, or the double's shortest spelling. */
export function lexemeOf(v: unknown): string {
  if (typeof v === 'number') return String(v);
  if (v !== null && typeof v === 'object' && JSON.isRawJSON(v)) return (v as { rawJSON: string }).rawJSON;
  throw new Error(`not a number value: ${JSON.stringify(v)}`);
}

/** |got × count − sum| ≤ |sum| × 10^-33 (an average rounded at 34 significant digits), or exact when it terminates. */
export function averageOk(got: Rat, sum: Rat, count: number): boolean {
  const diff = add(rat(got.n * BigInt(count), got.d), rat(-sum.n, sum.d));
  const abs = (r: Rat) => rat(r.n < 0n ? -r.n : r.n, r.d);
  return cmp(rat(abs(diff).n * 10n ** 33n, abs(diff).d), abs(sum)) <= 0;
}
