/**
 * Exact decimal arithmetic on JSON number lexemes (RFC 8259 §6: `-? int frac? exp?`), for aggregates that must not
 * round: a lexeme is read as sign × digits × 10^exp with `digits` a bigint, never through a double. Sums, floor
 * division (numeric buckets) and division to a given number of significant digits (averages). Comparing numbers and
 * their one spelling per value (group keys, distinct values) are the kernel's one mechanism for that, not here:
 * `compareNumerals` and `numeralKey` (src/engine/numbers/compare.ts), linear in the lexemes and exact at any size.
 *
 * Inputs are lexemes already checked against the RFC 8259 §6 grammar (a validated record, or JSON.stringify of a
 * finite number); nothing here validates or throws on a malformed one. Exponents are JavaScript numbers: a lexeme's
 * exponent is exact up to 2^53, and sums and buckets that would span more than MAX_EXACT_SPAN digits return null.
 * Exports: Decimal, parseDecimal, isShortPlain, MAX_EXACT_SPAN, addDecimals, normalize, PLAIN_ZEROS, formatDecimal, divideDecimal,
 * floorToMultiple, jsonNumber.
 */

/** A finite decimal: `(neg ? -1 : 1) × digits × 10^exp`; zero has `digits` 0n (and `neg` false). */
export interface Decimal {
  neg: boolean;
  digits: bigint;
  exp: number;
}

/** The parts of a JSON number lexeme (assumed well-formed: it comes from a validated record or JSON.stringify). */
function split(lexeme: string): { neg: boolean; int: string; frac: string; exp: number } {
  let i = 0;
  const neg = lexeme.charCodeAt(0) === 0x2d;
  if (neg) i = 1;
  let e = lexeme.length;
  let exp = 0;
  for (let k = i; k < lexeme.length; k++) {
    const c = lexeme.charCodeAt(k);
    if (c === 0x65 || c === 0x45) { e = k; exp = Number(lexeme.slice(k + 1)); break; }
  }
  const dot = lexeme.indexOf('.', i);
  const int = dot === -1 || dot > e ? lexeme.slice(i, e) : lexeme.slice(i, dot);
  const frac = dot === -1 || dot > e ? '' : lexeme.slice(dot + 1, e);
  return { neg, int, frac, exp };
}

/** The exact value of a JSON number lexeme, with trailing zeros of `digits` moved into `exp`. */
export function parseDecimal(lexeme: string): Decimal {
  const { neg, int, frac, exp } = split(lexeme);
  let all = (int + frac).replace(/^0+/, '');
  let e = exp - frac.length;
  if (all === '') return { neg: false, digits: 0n, exp: 0 };
  const trimmed = all.replace(/0+$/, '');
  e += all.length - trimmed.length;
  all = trimmed;
  return { neg, digits: BigInt(all), exp: e };
}

/** At most 15 significant digits and no exponent: a double keeps its value's order and equality (DBL_DIG = 15). */
export function isShortPlain(lexeme: string): boolean {
  const n = lexeme.length;
  if (n > 17) return false;
  let digits = 0;
  for (let i = 0; i < n; i++) {
    const c = lexeme.charCodeAt(i);
    if (c >= 0x30 && c <= 0x39) digits++;
    else if (c === 0x65 || c === 0x45) return false;
  }
  return digits <= 15;
}

/** Digits of exponents that exact arithmetic spans at most (1e-5000 + 1e5000 would need 10,001 digits). */
export const MAX_EXACT_SPAN = 4000;

/** `x + y` exactly, or null when the sum would span more than MAX_EXACT_SPAN digits of exponent. */
export function addDecimals(x: Decimal, y: Decimal): Decimal | null {
  if (x.digits === 0n) return y;
  if (y.digits === 0n) return x;
  const e = Math.min(x.exp, y.exp);
  if (Math.max(x.exp, y.exp) - e > MAX_EXACT_SPAN) return null;
  const a = (x.neg ? -x.digits : x.digits) * 10n ** BigInt(x.exp - e);
  const b = (y.neg ? -y.digits : y.digits) * 10n ** BigInt(y.exp - e);
  return normalize(a + b, e);
}

/** A signed bigint times 10^exp as a Decimal without trailing zeros in its digits. */
export function normalize(v: bigint, exp: number): Decimal {
  if (v === 0n) return { neg: false, digits: 0n, exp: 0 };
  const neg = v < 0n;
  let d = neg ? -v : v;
  let e = exp;
  // Strip trailing zeros, a digit group at a time when there are many.
  while (d % 100000000n === 0n) { d /= 100000000n; e += 8; }
  while (d % 10n === 0n) { d /= 10n; e++; }
  return { neg, digits: d, exp: e };
}

/** Zeros a plain spelling may pad with (after an integer's digits, or after `0.`) before the exponent form is used. */
export const PLAIN_ZEROS = 40;

/**
 * The JSON number lexeme of a decimal, in plain positional form (`-12.5`, `12345678901234567890123`,
 * `0.0000001`: an integer as its digits, whatever its size), never a `-0`. The exponent form (`1.5e+400`,
 * `1.5e-400`: the digits with one before the point, then the exponent) only when the plain one would pad more than
 * {@link PLAIN_ZEROS} zeros.
 */
export function formatDecimal(d: Decimal): string {
  if (d.digits === 0n) return '0';
  const s = d.digits.toString();
  const sign = d.neg ? '-' : '';
  const mantissa = `${sign}${s[0]}${s.length > 1 ? '.' + s.slice(1) : ''}`;
  if (d.exp >= 0) return d.exp <= PLAIN_ZEROS ? sign + s + '0'.repeat(d.exp) : `${mantissa}e+${s.length - 1 + d.exp}`;
  const point = s.length + d.exp; // digits before the decimal point
  if (point > 0) return `${sign}${s.slice(0, point)}.${s.slice(point)}`;
  return -point <= PLAIN_ZEROS ? `${sign}0.${'0'.repeat(-point)}${s}` : `${mantissa}e${point - 1}`;
}

/**
 * `x / n` (n a positive integer count) with `sig` significant digits at most, rounded half to even; exact when the
 * quotient terminates within them. `exact` says whether the result is the quotient itself.
 */
export function divideDecimal(x: Decimal, n: bigint, sig: number): { value: Decimal; exact: boolean } {
  if (x.digits === 0n) return { value: x, exact: true };
  // x.digits × 10^x.exp / n: scale the numerator so the integer quotient has at least sig + 1 digits.
  const nd = n.toString().length;
  const xd = x.digits.toString().length;
  const shift = Math.max(0, sig + 1 + nd - xd);
  const num = x.digits * 10n ** BigInt(shift);
  let q = num / n;
  const r = num % n;
  let exp = x.exp - shift;
  const qs = q.toString();
  let exact = r === 0n;
  if (qs.length > sig) {
    const drop = qs.length - sig;
    const p = 10n ** BigInt(drop);
    const kept = q / p;
    const rest = q % p;
    const half = p / 2n;
    let up: boolean;
    if (rest > half) up = true;
    else if (rest < half) up = false;
    else up = r !== 0n ? true : kept % 2n === 1n; // exactly half only when nothing remains below
    if (rest !== 0n) exact = false;
    q = kept + (up ? 1n : 0n);
    exp += drop;
  }
  const v = normalize(q, exp);
  return { value: { ...v, neg: v.digits === 0n ? false : x.neg }, exact };
}

/** ⌊x / w⌋ × w for w > 0, exactly (a numeric bucket's start), or null past MAX_EXACT_SPAN. */
export function floorToMultiple(x: Decimal, w: Decimal): Decimal | null {
  if (x.digits === 0n) return x;
  const e = Math.min(x.exp, w.exp);
  if (Math.max(x.exp, w.exp) - e > MAX_EXACT_SPAN) return null;
  const a = (x.neg ? -x.digits : x.digits) * 10n ** BigInt(x.exp - e);
  const b = w.digits * 10n ** BigInt(w.exp - e);
  let q = a / b;
  if (a < 0n && q * b !== a) q -= 1n; // bigint division truncates toward zero
  return normalize(q * b, e);
}

/**
 * A lexeme as a JSON value for a result: a number when the shortest double spelling is the lexeme itself, else
 * `JSON.rawJSON(lexeme)`, which JSON.stringify writes digit for digit (the project's exact-number mechanism).
 */
export function jsonNumber(lexeme: string): unknown {
  const n = Number(lexeme);
  return String(n) === lexeme ? n : JSON.rawJSON(lexeme);
}
