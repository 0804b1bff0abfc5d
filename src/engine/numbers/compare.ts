/**
 * Numbers compared by value (RFC 9535 §2.3.5.2.2: "numbers compare by value"), exactly and in time linear in the
 * length of their numerals, without BigInt and without rounding to a double.
 *
 * A numeral is a JSON number lexeme (RFC 8259 §6: `-? (0 | [1-9] digits) (. digits)? ([eE] [+-]? digits)?`), which is
 * also the grammar of JSONPath number literals (RFC 9535 §2.3.5.1, `-0` included). Its value is decided, in order, by
 * - its sign (every zero is zero: `-0`, `0.000`, `0e7` all equal `0`);
 * - the decimal exponent of its first significant digit: the exponent part plus the integer digits after that digit
 *   (minus the fraction digits up to it), `12.5` → 1, `0.05` → -2, `5e-3` → -3. Exponent parts may be any number of
 *   digits: past 15 digits they are added to and compared as digit strings;
 * - its significant digits from the first non-zero one, trailing zeros ignored (`2.50e1` = `25`).
 * Every step reads each character of both numerals at most a few times: 4,000,000-digit numerals compare in
 * milliseconds, where parsing them as `bigint` takes seconds.
 *
 * A JavaScript number given instead of a numeral stands for the numeral it was written as: the project's parsers keep
 * a number as a double only when its shortest round-trip spelling (`String(n)`) is its lexeme, and turn every other
 * lexeme into `JSON.rawJSON(lexeme)`, so `String(n)` recovers the written value exactly. (Its exact binary expansion
 * would not: the `0.1` of a file means one tenth, not 0.1000000000000000055511151231257827….)
 */

/** A numeral's parts as positions in its text (no copies). */
interface Parts {
  text: string;
  /** -1, 0 (any zero) or 1. */
  sign: number;
  /** Index of the first significant (non-zero) digit, and of the last; -1 for zero. */
  first: number;
  last: number;
  /** Index of the `.` (the end of the integer digits when there is none). */
  point: number;
  /** Decimal exponent of the first significant digit (see {@link adjustedExponent}). */
  exponent: Exponent;
}

/**
 * An exponent: a safe integer when the exponent part has at most 15 digits (then |value| < 10^15 + 2^31), else
 * sign and magnitude as a digit string without leading zeros.
 */
type Exponent = number | { negative: boolean; digits: string };

const ZERO = 0x30, NINE = 0x39, MINUS = 0x2d, PLUS = 0x2b, POINT = 0x2e;
const isDigit = (c: number) => c >= ZERO && c <= NINE;

/** Digits of an exponent part (after leading zeros) that a double adds to without rounding. */
const SMALL_EXPONENT_DIGITS = 15;

function notNumeral(text: string): TypeError {
  const shown = text.length > 40 ? `${text.slice(0, 40)}… (${text.length} characters)` : text;
  return new TypeError(`Not a JSON number (RFC 8259 §6): ${JSON.stringify(shown)}.`);
}

/**
 * The parts of numeral `text`. One pass over the text.
 * @throws TypeError when `text` is not a JSON number (RFC 8259 §6)
 */
function parse(text: string): Parts {
  const n = text.length;
  let i = 0;
  const negative = text.charCodeAt(0) === MINUS;
  if (negative) i++;
  const intStart = i;
  if (i >= n || !isDigit(text.charCodeAt(i))) throw notNumeral(text);
  if (text.charCodeAt(i) === ZERO) i++;
  else while (i < n && isDigit(text.charCodeAt(i))) i++;
  const intEnd = i;
  let fracEnd = intEnd;
  if (i < n && text.charCodeAt(i) === POINT) {
    i++;
    const fracStart = i;
    while (i < n && isDigit(text.charCodeAt(i))) i++;
    if (i === fracStart) throw notNumeral(text);
    fracEnd = i;
  }
  let expNegative = false, expStart = n, expEnd = n;
  if (i < n && (text.charCodeAt(i) | 0x20) === 0x65) {
    i++;
    const c = text.charCodeAt(i);
    if (c === PLUS || c === MINUS) { expNegative = c === MINUS; i++; }
    expStart = i;
    while (i < n && isDigit(text.charCodeAt(i))) i++;
    if (i === expStart) throw notNumeral(text);
    expEnd = i;
  }
  if (i !== n) throw notNumeral(text);

  // First and last significant digits (the point, when there is one, sits at intEnd).
  let first = -1;
  for (let k = intStart; k < fracEnd; k++) {
    const c = text.charCodeAt(k);
    if (c !== ZERO && c !== POINT) { first = k; break; }
  }
  if (first === -1) return { text, sign: 0, first: -1, last: -1, point: intEnd, exponent: 0 };
  let last = fracEnd - 1;
  while (text.charCodeAt(last) === ZERO || text.charCodeAt(last) === POINT) last--;
  // Digits after the first significant one in the integer part, or minus its place after the point.
  const offset = first < intEnd ? intEnd - 1 - first : intEnd - first;
  return { text, sign: negative ? -1 : 1, first, last, point: intEnd, exponent: adjustedExponent(text, expStart, expEnd, expNegative, offset) };
}

/** The exponent part `text[start, end)` (negated when `negative`) plus `offset` (|offset| < 2^31: a string length). */
function adjustedExponent(text: string, start: number, end: number, negative: boolean, offset: number): Exponent {
  while (start < end - 1 && text.charCodeAt(start) === ZERO) start++;
  if (end - start <= SMALL_EXPONENT_DIGITS) {
    const e = start === end ? 0 : Number(text.slice(start, end));
    return (negative ? -e : e) + offset;
  }
  // |exponent part| ≥ 10^15 > |offset|: the sum keeps the exponent's sign; add or subtract on the last 15 digits.
  const digits = text.slice(start, end);
  const cut = digits.length - SMALL_EXPONENT_DIGITS;
  let head = digits.slice(0, cut);
  let tail = Number(digits.slice(cut)) + (negative ? -offset : offset);
  if (tail >= 1e15) { tail -= 1e15; head = increment(head); }
  else if (tail < 0) { tail += 1e15; head = decrement(head); }
  const joined = head + String(tail).padStart(SMALL_EXPONENT_DIGITS, '0');
  let z = 0;
  while (joined.charCodeAt(z) === ZERO) z++;
  return { negative, digits: joined.slice(z) };
}

/** A digit string plus one. */
function increment(d: string): string {
  let k = d.length - 1;
  while (k >= 0 && d.charCodeAt(k) === NINE) k--;
  if (k < 0) return '1' + '0'.repeat(d.length);
  return d.slice(0, k) + String.fromCharCode(d.charCodeAt(k) + 1) + '0'.repeat(d.length - 1 - k);
}

/** A non-zero digit string minus one (a leading zero may remain). */
function decrement(d: string): string {
  let k = d.length - 1;
  while (d.charCodeAt(k) === ZERO) k--;
  return d.slice(0, k) + String.fromCharCode(d.charCodeAt(k) - 1) + '9'.repeat(d.length - 1 - k);
}

/** Sign of `x - y` for two exponents. */
function compareExponents(x: Exponent, y: Exponent): number {
  if (typeof x === 'number' && typeof y === 'number') return x < y ? -1 : x > y ? 1 : 0;
  const a = typeof x === 'number' ? { negative: x < 0, digits: String(Math.abs(x)) } : x;
  const b = typeof y === 'number' ? { negative: y < 0, digits: String(Math.abs(y)) } : y;
  const sa = a.digits === '0' ? 0 : a.negative ? -1 : 1;
  const sb = b.digits === '0' ? 0 : b.negative ? -1 : 1;
  if (sa !== sb) return sa < sb ? -1 : 1;
  if (sa === 0) return 0;
  const magnitude = a.digits.length !== b.digits.length ? (a.digits.length < b.digits.length ? -1 : 1) : a.digits < b.digits ? -1 : a.digits > b.digits ? 1 : 0;
  return sa > 0 || magnitude === 0 ? magnitude : -magnitude;
}

/** Sign of |x| - |y| for two non-zero numerals with the same exponent: their significant digits, in order. */
function compareDigits(x: Parts, y: Parts): number {
  const a = x.text, b = y.text;
  let i = x.first, j = y.first;
  for (;;) {
    if (i === x.point) i++;
    if (j === y.point) j++;
    const c = a.charCodeAt(i), d = b.charCodeAt(j);
    if (c !== d) return c < d ? -1 : 1;
    const endA = i === x.last, endB = j === y.last;
    // The last significant digit is non-zero: the numeral with digits left is the larger.
    if (endA || endB) return endA && endB ? 0 : endA ? -1 : 1;
    i++;
    j++;
  }
}

/** A finite JavaScript number as the numeral it stands for (its shortest round-trip spelling; `-0` → `0`). */
export function numeralOf(n: number): string {
  if (!Number.isFinite(n)) throw new RangeError(`${n} is not a JSON number: only finite numbers compare.`);
  return String(n);
}

/**
 * Compares two numbers by value, exactly: -1 when `a < b`, 0 when they are equal, 1 when `a > b`. Each is a JSON
 * number lexeme (RFC 8259 §6, the JSONPath literal grammar of RFC 9535 §2.3.5.1 is the same) or a finite JavaScript
 * number standing for its shortest round-trip spelling (see the module comment). Time linear in the lexemes' length;
 * no `bigint`, no rounding: `1e400 < 1e401`, `0.1000000000000000000001 > 0.1`, `-0 == 0`, `2.50e1 == 25`,
 * 10^1500 + 1 > 10^1500, and a positive numeral is above 0 however small (`1e-99999999999999999999`).
 * @throws TypeError when a string is not a JSON number; RangeError for NaN or ±Infinity
 */
export function compareNumerals(a: string | number, b: string | number): -1 | 0 | 1 {
  if (typeof a === 'number' && typeof b === 'number') {
    // Two shortest round-trip spellings: rounding to a double is monotonic and maps them to different doubles
    // unless they are the same spelling, so the doubles' order is theirs.
    if (!Number.isFinite(a) || !Number.isFinite(b)) throw new RangeError('Only finite numbers compare.');
    return a < b ? -1 : a > b ? 1 : 0;
  }
  const x = parse(typeof a === 'number' ? numeralOf(a) : a);
  const y = parse(typeof b === 'number' ? numeralOf(b) : b);
  if (x.sign !== y.sign) return x.sign < y.sign ? -1 : 1;
  if (x.sign === 0) return 0;
  let m = compareExponents(x.exponent, y.exponent);
  if (m === 0) m = compareDigits(x, y);
  return (x.sign > 0 || m === 0 ? m : -m) as -1 | 0 | 1;
}

/** An integer of at most 21 digits spelled canonically (no `-0`, no leading zero): its own key. */
const PLAIN_INTEGER = /^-?(?:0|[1-9][0-9]{0,20})$/;

/**
 * One spelling per value, for keys (groups, distinct values): two numbers get the same key exactly when
 * {@link compareNumerals} finds them equal. The key is itself a JSON number of that value: `0` for every zero; an
 * integer below 10^21 as its digits (`1.0`, `100e-2` → `1`; `1.5e2` → `150`); anything else in scientific form
 * `[-]d[.ddd]e<exponent>` without trailing zeros (`-0.05` → `-5e-2`, `1e21` → `1e21`), the exponent written out
 * whatever its length. Linear in the lexeme's length; an integer lexeme of at most 21 digits is returned as it is.
 * @throws TypeError for a string that is not a JSON number; RangeError for NaN or ±Infinity
 */
export function numeralKey(a: string | number): string {
  const text = typeof a === 'number' ? numeralOf(a) : a;
  if (PLAIN_INTEGER.test(text) && text !== '-0') return text;
  const x = parse(text);
  if (x.sign === 0) return '0';
  const t = x.text;
  const digits = x.first < x.point && x.point < x.last ? t.slice(x.first, x.point) + t.slice(x.point + 1, x.last + 1) : t.slice(x.first, x.last + 1);
  const sign = x.sign < 0 ? '-' : '';
  const e = x.exponent;
  if (typeof e === 'number' && e >= 0 && e < 21 && digits.length <= e + 1) return sign + digits + '0'.repeat(e + 1 - digits.length);
  const exponent = typeof e === 'number' ? String(e) : (e.negative && e.digits !== '0' ? '-' : '') + e.digits;
  return sign + digits[0] + (digits.length > 1 ? '.' + digits.slice(1) : '') + 'e' + exponent;
}

/** True when `text` is a JSON number lexeme (RFC 8259 §6). Linear. */
export function isNumeral(text: string): boolean {
  try {
    parse(text);
    return true;
  } catch {
    return false;
  }
}
