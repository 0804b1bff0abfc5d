import { RE2JS } from 're2js';
import type { RecordBatch } from '../../kernel/contracts/format';
import type { CompiledRegex, RegexMatch, RegexOptions, RegexService, RegexWarning, RequiredLiterals } from '../../kernel/contracts/regex';
import { McpgwError } from '../../kernel/errors';
import { requiredLiterals } from './literals';
import { JsonLiteralPrefilter } from './prefilter';
import { parseRegex, RegexSyntaxError, type ParsedRegex } from './syntax';
import { unicodeClasses } from './unicode-classes';

/** The engine (pinned exactly in package.json; bench/README.md has the measurements that chose it). */
export const REGEX_ENGINE = 're2js 2.10.0';

/**
 * Largest compiled program accepted, in engine instructions (about one per literal character, class or repetition
 * step: `\pL{1000}` is 1,002). Matching costs time proportional to text length × active instructions, ~1 µs a
 * character at 1,000, so the cap bounds the slowest pattern to a few µs a character.
 */
export const MAX_PROGRAM_INSTRUCTIONS = 2000;

/** The warning a pattern with `\b`/`\B` (or `\W`/`\S` in a class) carries (docs/queries.md "Regular expressions"). */
export const ASCII_BOUNDARY_MESSAGE =
  '\\b and \\B are ASCII word boundaries (RE2): next to a non-ASCII letter (é, ü, ß, ạ) they see a boundary inside a word (\\bcaf\\b matches in "café") and none at its end (\\bcafé\\b misses "café "); \\w \\d \\s are Unicode. ' +
  'For a whole word in any script write the edges as classes: (?:^|[^\\w])café(?:[^\\w]|$).';

const SYNTAX_HINT = 'RE2 syntax: \\d \\w \\s \\b, classes [a-z0-9_], alternation a|b, groups (…), repetition * + ? {n,m}, (?i) for any letter case; no backreferences or lookaround. Escape a literal ( ) [ ] { } . * + ? | \\ ^ $ with a backslash.';

/** The kernel's RegexService (contracts/regex.ts) on re2js, RE2's pure-JavaScript port. */
export class Re2RegexService implements RegexService {
  readonly engine = REGEX_ENGINE;

  compile(pattern: string, options: RegexOptions = {}): CompiledRegex {
    const caseInsensitive = options.caseInsensitive === true;
    let parsed: ParsedRegex | RegexSyntaxError;
    try {
      parsed = parseRegex(pattern, caseInsensitive);
    } catch (err) {
      if (!(err instanceof RegexSyntaxError)) throw err;
      parsed = err;
    }
    let re: RE2JS;
    const unicode = unicodeClasses(pattern);
    try {
      re = RE2JS.compile(unicode.pattern, caseInsensitive ? RE2JS.CASE_INSENSITIVE : 0);
    } catch (err) {
      throw syntaxError(pattern, err as Error, parsed instanceof RegexSyntaxError ? parsed : null);
    }
    const size = programSize(re);
    if (size > MAX_PROGRAM_INSTRUCTIONS) {
      throw new McpgwError('RESOURCE_LIMIT_EXCEEDED', `The regular expression compiles to ${size} instructions, more than the ${MAX_PROGRAM_INSTRUCTIONS} allowed (large counted repetitions multiply: x{1000} is 1,000 copies of x).`, {
        limit: { name: 'regexProgramInstructions', limit: MAX_PROGRAM_INSTRUCTIONS, value: size },
        hint: 'Use smaller counts ({1,20} instead of {1,1000}), or + and * which cost one instruction.',
      });
    }
    let required: RequiredLiterals | null = null;
    if (!(parsed instanceof RegexSyntaxError)) {
      const literals = requiredLiterals(parsed.node);
      if (literals) required = { literals, caseInsensitive: parsed.folds };
    }
    const warnings: RegexWarning[] = [];
    if (unicode.asciiBoundaries || unicode.asciiClasses) warnings.push({ code: 'ASCII_WORD_BOUNDARY', message: ASCII_BOUNDARY_MESSAGE });
    return new Re2Regex(pattern, caseInsensitive, re, required, !(parsed instanceof RegexSyntaxError) && !parsed.anchored, warnings, neverMatches(re));
  }
}

class Re2Regex implements CompiledRegex {
  private readonly prefilter: JsonLiteralPrefilter | null;

  constructor(
    readonly pattern: string,
    readonly caseInsensitive: boolean,
    private readonly re: RE2JS,
    readonly requiredLiterals: RequiredLiterals | null,
    /**
     * The pattern has no text anchor, so a match inside a decoded string of a record without escapes is also a match
     * in the record's raw text: a string's characters stand verbatim between quotes there, and a quote is no word
     * character, as the start and end of a text are not (so `\b` and `\B` agree). Such records are tested whole
     * before their strings are (see `candidates`).
     */
    private readonly rawTestable: boolean,
    readonly warnings: readonly RegexWarning[] = [],
    readonly neverMatches = false,
  ) {
    this.prefilter = JsonLiteralPrefilter.from(requiredLiterals);
  }

  test(text: string): boolean {
    if (this.neverMatches) return false;
    return this.re.test(text);
  }

  exec(text: string, from = 0): RegexMatch | null {
    const m = this.re.matcher(text);
    if (!m.find(from)) return null;
    return { start: m.start(), end: m.end() };
  }

  candidates(batch: RecordBatch, onCandidate: (k: number) => boolean | void): void {
    if (this.neverMatches) return;
    let visit = onCandidate;
    if (this.rawTestable) {
      // One linear test of the record's raw text rules out most records of a selective pattern without walking
      // their strings. Records holding a backslash are passed on: an escape may decode into a match.
      const bytes = batch.bytes;
      let backslash = -2; // the first backslash at or after the record in hand, -1 when none
      visit = (k) => {
        const [s, e] = batch.span(k);
        if (backslash !== -1 && backslash < s) backslash = bytes.indexOf(0x5c, s);
        if ((backslash === -1 || backslash >= e) && !this.re.test(bytes.toString('utf8', s, e))) return true;
        return onCandidate(k);
      };
    }
    if (this.prefilter) {
      this.prefilter.candidates(batch, visit);
      return;
    }
    for (let k = 0; k < batch.count; k++) if (visit(k) === false) return;
  }

  mayMatchJson(bytes: Uint8Array, start = 0, end = bytes.length): boolean {
    const buf = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    if (this.prefilter && !this.prefilter.mayMatch(buf, start, end)) return false;
    if (!this.rawTestable) return true;
    const backslash = buf.indexOf(0x5c, start);
    return (backslash !== -1 && backslash < end) || this.re.test(buf.toString('utf8', start, end));
  }
}

/**
 * Whether the compiled program can never reach its match: every path from the start meets a FAIL, a class of no
 * characters, a start-of-text assertion after a character (`a^`, `x\\Ay` without (?m)), or a character after an
 * end-of-text assertion (`$a`, `\\zx`). A walk over (instruction, a character consumed, the end asserted): at most 4 ×
 * the program's instructions. False when the program cannot be read (another engine version): then nothing is skipped.
 */
export function neverMatches(re: RE2JS): boolean {
  const prog = (re as unknown as { re2Input?: { prog?: { start: number; inst: { op: number; out: number; arg: number; runes?: number[] }[] } } }).re2Input?.prog;
  if (!prog || !Array.isArray(prog.inst) || typeof prog.start !== 'number') return false;
  const ALT = 1, ALT_MATCH = 2, CAPTURE = 3, EMPTY_WIDTH = 4, FAIL = 5, MATCH = 6, NOP = 7, RUNE = 8, RUNE1 = 9, RUNE_ANY = 10, RUNE_ANY_NOT_NL = 11;
  const BEGIN_TEXT = 4, END_TEXT = 8;
  const seen = new Set<number>();
  const stack: [number, number][] = [[prog.start, 0]]; // flags: 1 a character consumed, 2 the end asserted
  while (stack.length) {
    const [pc, flags] = stack.pop()!;
    const key = pc * 4 + flags;
    if (seen.has(key)) continue;
    seen.add(key);
    const inst = prog.inst[pc];
    if (!inst) return false; // not the layout this walk knows: assume it can match
    switch (inst.op) {
      case MATCH: return false;
      case FAIL: break;
      case ALT: case ALT_MATCH: stack.push([inst.out, flags], [inst.arg, flags]); break;
      case CAPTURE: case NOP: stack.push([inst.out, flags]); break;
      case EMPTY_WIDTH:
        if ((inst.arg & BEGIN_TEXT) && (flags & 1)) break;
        stack.push([inst.out, inst.arg & END_TEXT ? flags | 2 : flags]);
        break;
      case RUNE: case RUNE1: case RUNE_ANY: case RUNE_ANY_NOT_NL:
        if (flags & 2) break;
        if ((inst.op === RUNE || inst.op === RUNE1) && (!inst.runes || inst.runes.length === 0)) break;
        stack.push([inst.out, flags | 1]);
        break;
      default: return false;
    }
  }
  return true;
}

function programSize(re: RE2JS): number {
  const prog = (re as unknown as { re2Input?: { prog?: { numInst?: () => number } } }).re2Input?.prog;
  return typeof prog?.numInst === 'function' ? prog.numInst() : 0;
}

/** QUERY_SYNTAX_ERROR for a pattern the engine refused, positioned by our parser (or by the engine's fragment). */
function syntaxError(pattern: string, err: Error, ours: RegexSyntaxError | null): McpgwError {
  const engine = err as Error & { error?: string; input?: string | null };
  let at: number;
  let message: string;
  let hint = SYNTAX_HINT;
  if (ours) {
    at = ours.position;
    message = ours.message;
    if (ours.hint) hint = `${ours.hint}. ${SYNTAX_HINT}`;
  } else {
    const fragment = engine.input ?? '';
    const found = fragment && fragment !== pattern ? pattern.indexOf(fragment) : -1;
    at = found === -1 ? 0 : found;
    message = `${engine.error ?? engine.message}${fragment && fragment !== pattern ? ` ${fragment}` : ''}`;
  }
  const position = [...pattern.slice(0, at)].length;
  return new McpgwError('QUERY_SYNTAX_ERROR', `Not a valid RE2 regular expression at character ${position}: ${message}.`, {
    location: { position },
    hint,
  });
}
