/**
 * Buckets of a number or a timestamp: numbers by a width (⌊v / width⌋ × width, exact decimals), timestamps by a
 * duration on the UTC time line counted from an origin (default 2000-01-03T00:00:00Z, a Monday, as DuckDB's
 * `time_bucket`: a day bucket starts at 00:00Z, a week bucket on Monday). A timestamp is an RFC 3339
 * `date-time` string (§5.6: `2025-03-01T06:00:00.139Z`, `…+02:00`; `t`/`z` and a space for `T` accepted; a leap
 * second `:60` is within the minute it names, §5.7, read as that minute's last millisecond `:59.999` since the UTC
 * time line has no room for it) or a `full-date` (midnight UTC), or an epoch number: seconds,
 * or milliseconds when its magnitude is at least 1e11 (unless the caller says which).
 */
import { floorToMultiple, formatDecimal, isShortPlain, parseDecimal, type Decimal } from './decimal';

/** The default origin of time buckets: 2000-01-03T00:00:00Z, a Monday (DuckDB's `time_bucket` default for widths without months). */
export const DEFAULT_BUCKET_ORIGIN_MS = 946_857_600_000;

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** `"15m"`, `"1h"`, `"1d"`, `"500ms"`, `"1.5h"` → milliseconds (a positive whole number), or null. */
export function parseDuration(text: string): number | null {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d|w)\s*$/.exec(text);
  if (!m) return null;
  const ms = Number(m[1]) * UNIT_MS[m[2]!]!;
  return Number.isInteger(ms) && ms > 0 ? ms : null;
}

const DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function digits(s: string, at: number, n: number): number {
  let v = 0;
  for (let k = at; k < at + n; k++) {
    const c = s.charCodeAt(k) - 0x30;
    if (c < 0 || c > 9) return -1;
    v = v * 10 + c;
  }
  return v;
}

/**
 * Milliseconds since the epoch of an RFC 3339 date-time or full-date (fractions below a millisecond floored), or
 * NaN when `s` is not one (including impossible dates such as February 30). A leap second (`23:59:60`, any fraction,
 * any offset) is the last millisecond of the minute it names (§5.7), so it buckets with that minute, hour and day.
 */
export function parseTimestamp(s: string): number {
  const n = s.length;
  if (n < 10 || s.charCodeAt(4) !== 0x2d || s.charCodeAt(7) !== 0x2d) return NaN;
  const year = digits(s, 0, 4), month = digits(s, 5, 2), day = digits(s, 8, 2);
  if (year < 0 || month < 1 || month > 12 || day < 1) return NaN;
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  if (day > (month === 2 && leap ? 29 : DAYS[month - 1]!)) return NaN;
  const base = year < 100 ? utcSmallYear(year, month, day) : Date.UTC(year, month - 1, day);
  if (n === 10) return base;
  const t = s.charCodeAt(10);
  if (t !== 0x54 && t !== 0x74 && t !== 0x20) return NaN;
  if (n < 20 || s.charCodeAt(13) !== 0x3a || s.charCodeAt(16) !== 0x3a) return NaN;
  const hour = digits(s, 11, 2), minute = digits(s, 14, 2), second = digits(s, 17, 2);
  if (hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 60) return NaN;
  let p = 19;
  let ms = 0;
  if (s.charCodeAt(p) === 0x2e) {
    p++;
    const start = p;
    while (p < n && s.charCodeAt(p) >= 0x30 && s.charCodeAt(p) <= 0x39) p++;
    if (p === start) return NaN;
    ms = digits((s.slice(start, Math.min(p, start + 3)) + '00').slice(0, 3), 0, 3);
  }
  let offset = 0;
  const z = s.charCodeAt(p);
  if (z === 0x5a || z === 0x7a) p++;
  else if (z === 0x2b || z === 0x2d) {
    if (p + 6 !== n || s.charCodeAt(p + 3) !== 0x3a) return NaN;
    const oh = digits(s, p + 1, 2), om = digits(s, p + 4, 2);
    if (oh < 0 || oh > 23 || om < 0 || om > 59) return NaN;
    offset = (z === 0x2b ? 1 : -1) * (oh * 60 + om) * 60_000;
    p += 6;
  } else return NaN;
  if (p !== n) return NaN;
  if (second === 60) return base + ((hour * 60 + minute) * 60 + 59) * 1000 + 999 - offset;
  return base + ((hour * 60 + minute) * 60 + second) * 1000 + ms - offset;
}

/** Date.UTC maps years 0–99 to 1900–1999; this is the real year. */
function utcSmallYear(year: number, month: number, day: number): number {
  const d = new Date(0);
  d.setUTCFullYear(year, month - 1, day);
  d.setUTCHours(0, 0, 0, 0);
  return d.getTime();
}

/** The largest magnitude of a Date (ms, ECMA-262 §21.4.1.1). */
const MAX_TIME = 8.64e15;

/**
 * Epoch milliseconds of an epoch number lexeme: seconds, or milliseconds when |v| ≥ 1e11 (`epoch` overrides);
 * NaN outside the time range.
 */
export function epochMs(lexeme: string, epoch?: 's' | 'ms'): number {
  const v = Number(lexeme);
  if (!Number.isFinite(v)) return NaN;
  const ms = (epoch ?? (Math.abs(v) >= 1e11 ? 'ms' : 's')) === 'ms' ? v : v * 1000;
  return Math.abs(ms) <= MAX_TIME ? ms : NaN;
}

/**
 * Start of the bucket holding `ms` for a width of `width` ms counted from `origin` (ms since the epoch; buckets are
 * `origin + k × width` for every integer k, as DuckDB's `time_bucket(width, ts, origin)`). All three are integers
 * within ±8.64e15 + a width, so the arithmetic is exact in doubles.
 */
export function timeBucket(ms: number, width: number, origin = DEFAULT_BUCKET_ORIGIN_MS): number {
  return origin + Math.floor((ms - origin) / width) * width;
}

/** RFC 3339 spelling of a bucket start: UTC, milliseconds only when there are some (`2025-03-01T06:00:00Z`). */
export function formatInstant(ms: number): string {
  const iso = new Date(ms).toISOString();
  return iso.endsWith('.000Z') ? iso.slice(0, -5) + 'Z' : iso;
}

/** A numeric bucket width: its exact value, and for the double fast path its digits as an integer and its scale. */
export interface NumberWidth {
  value: Decimal;
  /** The width × 10^scale as an integer below 2^53, when the lexeme is short and plain (else NaN). */
  int: number;
  scale: number;
}

export function numberWidth(lexeme: string): NumberWidth {
  const value = parseDecimal(lexeme);
  if (!isShortPlain(lexeme)) return { value, int: NaN, scale: 0 };
  const dot = lexeme.indexOf('.');
  return dot === -1 ? { value, int: Number(lexeme), scale: 0 } : { value, int: Number(lexeme.slice(0, dot) + lexeme.slice(dot + 1)), scale: lexeme.length - dot - 1 };
}

const POW10 = Array.from({ length: 31 }, (_, k) => 10 ** k);

/** The start of the numeric bucket holding `lexeme` (a JSON number lexeme), or null past the exact range. */
export function numberBucket(lexeme: string, width: NumberWidth): string | null {
  if (width.int === width.int && isShortPlain(lexeme)) {
    // Both as integers at a common scale, all below 2^53: floor division on doubles, corrected to be exact.
    const dot = lexeme.indexOf('.');
    const scale = dot === -1 ? 0 : lexeme.length - dot - 1;
    const f = Math.max(scale, width.scale);
    const v = (dot === -1 ? Number(lexeme) : Number(lexeme.slice(0, dot) + lexeme.slice(dot + 1))) * POW10[f - scale]!;
    const w = width.int * POW10[f - width.scale]!;
    if (Math.abs(v) < 2 ** 53 && w < 2 ** 53) {
      let q = Math.floor(v / w);
      if (q * w > v) q--;
      else if ((q + 1) * w <= v) q++;
      const start = q * w;
      if (Math.abs(start) < 2 ** 53) return scaled(start, f);
    }
  }
  const start = floorToMultiple(parseDecimal(lexeme), width.value);
  return start === null ? null : formatDecimal(start);
}

/** An integer at scale f (value × 10^-f) as a plain decimal lexeme without trailing fraction zeros. */
function scaled(v: number, f: number): string {
  if (f === 0 || v === 0) return String(v === 0 ? 0 : v);
  const neg = v < 0;
  const d = String(Math.abs(v)).padStart(f + 1, '0');
  const int = d.slice(0, d.length - f);
  let frac = d.slice(d.length - f);
  frac = frac.replace(/0+$/, '');
  return (neg ? '-' : '') + int + (frac ? '.' + frac : '');
}
