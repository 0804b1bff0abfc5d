import type { CompiledRegex, RecordBatch, ToolContext } from 'mcpgw/plugin-api';
import { allHits, eachTokenHit, firstHit, type TextHit } from './text-matcher';

/**
 * Text search with `regex: true`: an RE2-syntax pattern (the kernel's `ctx.regex`, linear time) found in the DECODED
 * member names and string values of each record — escapes decoded first, so `\bcat\b` finds `"c\u0061t"`; numbers,
 * `true`/`false`/`null` and structure are not searched. `^` and `$` are the start and end of one string.
 * Case-insensitive (Unicode simple case folding) unless `matchCase`. Records are chosen on bytes first: only those
 * holding a literal every match requires (or an escape) are decoded and walked (`CompiledRegex.candidates`).
 */
export class RegexMatcher {
  private readonly re: CompiledRegex;

  /** @throws QUERY_SYNTAX_ERROR (with `location.position`), RESOURCE_LIMIT_EXCEEDED for a huge program. */
  constructor(ctx: ToolContext, readonly pattern: string, matchCase: boolean) {
    this.re = ctx.regex.compile(pattern, { caseInsensitive: !matchCase });
  }

  /** No text can match the pattern (`a^`, `[^\\s\\S]`): the search answers without a scan. */
  get neverMatches(): boolean {
    return this.re.neverMatches === true;
  }

  /** What the answer says about the pattern (ASCII_WORD_BOUNDARY for `\b`/`\B`: see CompiledRegex.warnings). */
  get warnings(): readonly { code: string; message: string }[] {
    return this.re.warnings ?? [];
  }

  /**
   * The first member name or string value, in document order, that the pattern is found in, or null. With `parsed`,
   * only what the parsed record holds (see TextMatcher.match: a repeated member name keeps its last value).
   */
  match(text: string, parsed?: unknown): TextHit | null {
    return firstHit((onHit) => this.each(text, parsed, onHit));
  }

  /** Every member name and string value the pattern is found in, in document order (one hit per token). */
  matchAll(text: string, parsed?: unknown): TextHit[] {
    return allHits((onHit) => this.each(text, parsed, onHit));
  }

  private each(text: string, parsed: unknown, onHit: (hit: TextHit) => boolean | void): void {
    eachTokenHit(text, parsed, true, (decoded) => {
      if (!this.re.test(decoded)) return null; // the engine's fast path; positions only for the hit
      const m = this.re.exec(decoded);
      return m ? { start: m.start, end: m.end } : null;
    }, onHit);
  }

  /** Records of the batch whose bytes can hold a match (see CompiledRegex.candidates). */
  candidates(batch: RecordBatch, onCandidate: (k: number) => boolean | void): void {
    this.re.candidates(batch, onCandidate);
  }
}
