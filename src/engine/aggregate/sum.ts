/**
 * Exact sums of JSON number lexemes that never round. Plain data (structured-cloneable between threads).
 * Most lexemes take a double fast path that stays exact: integers of at most 15 digits are added into `int` while
 * its magnitude stays below 2^53, and decimals of at most 15 significant digits as integers of their last fraction
 * digit (`12.5` → 125 in `frac[1]`), each scale on its own; a slot about to leave the exact range moves into a bigint.
 * Anything else (exponents, longer numerals) is added as a bigint decimal.
 */
import { addDecimals, MAX_EXACT_SPAN, normalize, parseDecimal, type Decimal } from './decimal';

/** Decimal digits of a bigint (> 0). */
function digitCount(d: bigint): number {
  return d.toString().length;
}

/** `d` with its digits below 10^floor dropped (toward zero). */
function truncateBelow(d: Decimal, floor: number): Decimal {
  if (d.exp >= floor) return d;
  return normalize((d.neg ? -1n : 1n) * (d.digits / 10n ** BigInt(floor - d.exp)), floor);
}

/**
 * `x + y`, exact when it spans at most MAX_EXACT_SPAN digits of exponent; else both rounded toward zero to that many
 * digits below the larger's leading digit, then added (a relative error below 10^-3999), with `rounded` set.
 */
function addRounding(x: Decimal, y: Decimal, rounded: { inexact: boolean }): Decimal {
  const exact = addDecimals(x, y);
  if (exact !== null) return exact;
  rounded.inexact = true;
  const top = Math.max(x.exp + digitCount(x.digits), y.exp + digitCount(y.digits));
  const floor = top - MAX_EXACT_SPAN;
  return addDecimals(truncateBelow(x, floor), truncateBelow(y, floor)) ?? (x.exp + digitCount(x.digits) >= top ? x : y);
}

export interface SumState {
  /** Integers (scale 0) below 2^53 in magnitude. */
  int: number;
  /** `frac[f]`: integers of scale f (value × 10^-f), f = 1…15, each below 2^53 in magnitude. */
  frac: number[];
  /**
   * The overflow of `int` and `frac` and every other lexeme, exactly: exponent → the signed sum of the digits of the
   * terms with that exponent (value = Σ digits × 10^exponent). Terms of one exponent add as small bigints; the
   * exponents are aligned once, in {@link sumValue} — not at every term, which cost a power of ten and a product as
   * wide as the whole span each (20,000 terms spanning 4,000 digits: 1.8 s on the event loop).
   */
  big: Map<number, bigint>;
  /** Smallest and largest exponent in `big` (their span is at most MAX_EXACT_SPAN). */
  minExp: number;
  maxExp: number;
  /** Once a term would make `big` span more than MAX_EXACT_SPAN: the rounded running sum (`inexact`), else null. */
  wide: Decimal | null;
  /**
   * A term spanned more than MAX_EXACT_SPAN digits of exponent: the sum is then rounded to that many digits below its
   * largest term (flagged, never silent, never null: a sum of doubles would overflow past 1.8e308).
   */
  inexact: boolean;
  /** The same sum in doubles, reported (flagged) when the exact one is out of reach. */
  approx: number;
}

const LIMIT = 2 ** 53;

export function newSum(): SumState {
  return { int: 0, frac: [], big: new Map(), minExp: Infinity, maxExp: -Infinity, wide: null, inexact: false, approx: 0 };
}

/** The exact value of `big`: its exponents aligned once, from the largest down (Horner). */
function exactOf(s: SumState): Decimal {
  const exps = [...s.big.keys()].sort((x, y) => y - x);
  let acc = 0n;
  let at = exps.length ? exps[0]! : 0;
  for (const e of exps) {
    if (e < at) acc *= 10n ** BigInt(at - e);
    acc += s.big.get(e)!;
    at = e;
  }
  return normalize(acc, at);
}

function addBig(s: SumState, d: Decimal): void {
  if (d.digits === 0n) return;
  if (s.wide !== null) { s.wide = addRounding(s.wide, d, s); return; }
  const minExp = Math.min(s.minExp, d.exp), maxExp = Math.max(s.maxExp, d.exp);
  if (maxExp - minExp > MAX_EXACT_SPAN) {
    // Past the exact range: from here on a rounded running sum (as addRounding rounds), the exact part first.
    s.wide = addRounding(exactOf(s), d, s);
    s.big.clear();
    return;
  }
  s.minExp = minExp;
  s.maxExp = maxExp;
  s.big.set(d.exp, (s.big.get(d.exp) ?? 0n) + (d.neg ? -d.digits : d.digits));
}

/** Adds one JSON number lexeme. */
export function addLexeme(s: SumState, lexeme: string): void {
  const n = lexeme.length;
  s.approx += Number(lexeme);
  // Scan once: digits before and after a dot, and whether there is an exponent.
  const i = lexeme.charCodeAt(0) === 0x2d ? 1 : 0;
  let digits = 0, fracDigits = 0, dot = -1;
  for (let k = i; k < n; k++) {
    const c = lexeme.charCodeAt(k);
    if (c === 0x2e) dot = k;
    else if (c === 0x65 || c === 0x45) { addBig(s, parseDecimal(lexeme)); return; }
    else { digits++; if (dot !== -1) fracDigits++; }
  }
  if (digits > 15) { addBig(s, parseDecimal(lexeme)); return; }
  if (dot === -1) {
    const v = Number(lexeme);
    const t = s.int + v;
    if (t >= LIMIT || t <= -LIMIT) { addBig(s, normalize(BigInt(s.int), 0)); s.int = v; }
    else s.int = t;
    return;
  }
  // 12.50 → 1250 at scale 2 (the integer of its digits, exact below 10^15)
  const m = Number(lexeme.slice(0, dot) + lexeme.slice(dot + 1));
  const cur = s.frac[fracDigits] ?? 0;
  const t = cur + m;
  if (t >= LIMIT || t <= -LIMIT) { addBig(s, normalize(BigInt(cur), -fracDigits)); s.frac[fracDigits] = m; }
  else s.frac[fracDigits] = t;
}

/** Adds `b` into `a`. */
export function mergeSum(a: SumState, b: SumState): void {
  a.approx += b.approx;
  if (b.inexact) a.inexact = true;
  for (const [exp, v] of b.big) addBig(a, { neg: v < 0n, digits: v < 0n ? -v : v, exp });
  if (b.wide) addBig(a, b.wide);
  addBig(a, normalize(BigInt(b.int), 0));
  for (let f = 0; f < b.frac.length; f++) if (b.frac[f]) addBig(a, normalize(BigInt(b.frac[f]!), -f));
}

/** The total: exact, or (`inexact`) rounded to MAX_EXACT_SPAN digits below its largest term. */
export function sumValue(s: SumState): Decimal {
  const rounded = { inexact: false };
  let total: Decimal = s.wide ?? exactOf(s);
  total = addRounding(total, normalize(BigInt(s.int), 0), rounded);
  for (let f = 0; f < s.frac.length; f++) if (s.frac[f]) total = addRounding(total, normalize(BigInt(s.frac[f]!), -f), rounded);
  if (rounded.inexact) s.inexact = true;
  return total;
}
