import type { RecordBatch } from './format';

/**
 * Regular expressions in RE2 syntax on a linear-time engine, for any tool bundle (`ctx.regex`).
 *
 * Syntax: RE2's (https://github.com/google/re2/wiki/Syntax): literals, `.`, classes `[a-z]`, `[^…]`, `[[:alpha:]]`,
 * Perl classes `\d \w \s` and their negations with their Unicode meaning (UTS 18 (Unicode Regular Expressions): `\w` letters, marks, decimal digits,
 * connector punctuation; `\d` `\p{Nd}`; `\s` White_Space; RE2's own are ASCII, the service rewrites them), Unicode
 * classes `\pL`, `\p{Greek}`, anchors `^ $ \A \z`, word boundaries `\b \B` (ASCII word characters: RE2 has no other,
 * and `CompiledRegex.warnings` says so), groups `(…)`, `(?:…)`, `(?P<name>…)`, `(?<name>…)`, alternation `a|b`,
 * repetition `* + ? {n} {n,} {n,m}` (counts up to 1000) and their lazy forms, flags `(?i)`, `(?s)`, `(?m)`, `(?U)`
 * and `(?i:…)`. No backreferences, no lookaround. Without `(?m)`, `^` and `$` are the start and end of the text
 * searched; `.` does not match `\n` unless `(?s)`. Case-insensitive matching uses Unicode simple case folding
 * (`(?i)k` matches `K`, `K` and U+212A KELVIN SIGN).
 *
 * Time: matching is linear in the length of the text for every pattern (no backtracking): `(a+)+$` on a million
 * `a`s and a `!` answers in milliseconds. So a scan that uses this service needs no worker thread or deadline to
 * protect itself from a pattern; an ordinary per-batch deadline check suffices.
 */
export interface RegexService {
  /** The engine and its version, e.g. `re2js 2.10.0` (for tool descriptions and diagnostics). */
  readonly engine: string;
  /**
   * Compiles `pattern` once; the result is immutable and may be used for any number of texts.
   * @throws McpgwError QUERY_SYNTAX_ERROR when the pattern is not valid RE2 syntax: the message names the problem
   *   and the construct (`invalid escape sequence \q`, `missing closing )`, `lookahead (?= is not supported`),
   *   `location.position` is the 0-based character (Unicode code point) index of the construct in `pattern`,
   *   and the hint shows the RE2 spelling to use. RESOURCE_LIMIT_EXCEEDED when the compiled program would exceed
   *   the engine's size limit (huge counted repetitions such as `((a{100}){100}){100}`).
   */
  compile(pattern: string, options?: RegexOptions): CompiledRegex;
}

export interface RegexOptions {
  /** Case-insensitive for the whole pattern, as a leading `(?i)` (default false). */
  caseInsensitive?: boolean;
}

/** Where a match lies in the searched string, in UTF-16 code units (`text.slice(start, end)` is the match). */
export interface RegexMatch {
  start: number;
  end: number;
}

/**
 * Literal strings of which every match contains at least one (ripgrep's "required literals"): `\bcat\b` →
 * `["cat"]`; `(?i)error|warn` → `["error", "warn"]` case-insensitively; `colou?r` → `["color", "colour"]`;
 * `\w+@\w+` → `["@"]`; `\d{3}` has none (the service then offers no prefilter, `requiredLiterals` is null).
 */
export interface RequiredLiterals {
  /** At most 64 strings, none empty. */
  readonly literals: readonly string[];
  /** True when a match may spell them in any letter case (Unicode simple case folding). */
  readonly caseInsensitive: boolean;
}

/** What a tool passes on to its answer about a compiled pattern (plugin API 2.10). */
export interface RegexWarning {
  /** `ASCII_WORD_BOUNDARY`: the pattern holds `\b`/`\B` (or `\W`/`\S` inside a class), which are ASCII-only. */
  code: string;
  message: string;
}

export interface CompiledRegex {
  /** The pattern as given. */
  readonly pattern: string;
  /**
   * Where the pattern means less than it says (plugin API 2.10): `\b`, `\B` are ASCII word boundaries, so next to a
   * non-ASCII letter a boundary is seen inside a word (`\bcaf\b` in "café") and none at its end (`\bcafé\b`); a tool
   * adds these to its answer's warnings. Empty when there is nothing to say.
   */
  readonly warnings?: readonly RegexWarning[];
  /**
   * True when no text can match (`a^`, `[^\\s\\S]`, `$x` without (?m)): a tool answers at once, without a scan
   * (plugin API 2.10). False when it may match (the check is conservative).
   */
  readonly neverMatches?: boolean;
  /** The `caseInsensitive` option it was compiled with (a `(?i)` inside the pattern does not set it). */
  readonly caseInsensitive: boolean;
  /** Whether the pattern matches anywhere in `text` (unanchored search). Linear time in `text.length`. */
  test(text: string): boolean;
  /**
   * The leftmost match (leftmost-first, RE2 semantics) starting at UTF-16 index `from` (default 0) or later, or
   * null. `^` and `\b` still see the characters before `from`. Linear time in `text.length - from`.
   */
  exec(text: string, from?: number): RegexMatch | null;
  /** The literals every match contains, or null when none can be extracted. */
  readonly requiredLiterals: RequiredLiterals | null;
  /**
   * The byte prefilter for JSON records: calls `onCandidate(k)`, in order, for each record `k` (0-based in the batch)
   * whose raw JSON bytes can hold a match inside one of its DECODED strings (string values and member names) — it
   * contains one of the required literals as bytes (case-folded when case-insensitive), or holds an escape (RFC 8259
   * §7) that decodes to a character of one (or is not a valid escape). Without required literals every record is a
   * candidate. Stops when `onCandidate` returns false. Records are not parsed: the caller decodes candidates and runs
   * `test`/`exec` on their strings. Cost: one pass of `Buffer.indexOf` for the literal (or an equivalent search) and
   * one for escapes over `batch.bytes`; records are visited only where these hit.
   */
  candidates(batch: RecordBatch, onCandidate: (k: number) => boolean | void): void;
  /** The same test for one raw JSON text: bytes `[start, end)` of `bytes` (default: all of them). */
  mayMatchJson(bytes: Uint8Array, start?: number, end?: number): boolean;
}
