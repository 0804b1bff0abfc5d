/**
 * Exact sums of JSON number lexemes that never round. Plain data (structured-cloneable between threads).
 * Most lexemes take a double fast path that stays exact: integers of at most 15 digits are added into `int` while
 * its magnitude stays below 2^53, and decimals of at most 15 significant digits as integers of their last fraction
 * digit (`12.5` → 125 in `frac[1]`), each scale on its own; a slot about to leave the exact range moves into a bigint.
 * Anything else (exponents, longer numerals) is added as a bigint decimal.
 */
import { addDecimals, normalize, parseDecimal, type Decimal } from './decimal';

export interface SumState {
  /** Integers (scale 0) below 2^53 in magnitude. */
  int: number;
  /** `frac[f]`: integers of scale f (value × 10^-f), f = 1…15, each below 2^53 in magnitude. */
  frac: number[];
  /** The overflow of `int` and `frac` and every other lexeme: an exact decimal (null: none yet). */
  big: Decimal | null;
  /** A term spanned more than MAX_EXACT_SPAN digits of exponent: the sum is then only `approx` (flagged, never silent). */
  inexact: boolean;
  /** The same sum in doubles, reported (flagged) when the exact one is out of reach. */
  approx: number;
}

const LIMIT = 2 ** 53;

export function newSum(): SumState {
  return { int: 0, frac: [], big: null, inexact: false, approx: 0 };
}

function addBig(s: SumState, d: Decimal): void {
  if (s.inexact) return;
  if (s.big === null) { s.big = d; return; }
  const r = addDecimals(s.big, d);
  if (r === null) s.inexact = true;
  else s.big = r;
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
  if (b.big) addBig(a, b.big);
  addBig(a, normalize(BigInt(b.int), 0));
  for (let f = 0; f < b.frac.length; f++) if (b.frac[f]) addBig(a, normalize(BigInt(b.frac[f]!), -f));
}

/** The exact total (null when inexact). */
export function sumValue(s: SumState): Decimal | null {
  if (s.inexact) return null;
  let total: Decimal | null = s.big ?? { neg: false, digits: 0n, exp: 0 };
  total = addDecimals(total, normalize(BigInt(s.int), 0));
  for (let f = 0; f < s.frac.length && total; f++) if (s.frac[f]) total = addDecimals(total, normalize(BigInt(s.frac[f]!), -f));
  return total;
}
