import fc from 'fast-check';
import type { RecordBatch } from '../../src/kernel/contracts';
import { McpgwError } from '../../src/kernel/errors';
import { Re2RegexService } from '../../src/engine/regex';

const regex = new Re2RegexService();

/** A RecordBatch over JSON Lines text (one record per line), as the kernel's scan hands out. */
function batchOf(lines: string[]): RecordBatch {
  const bytes = Buffer.from(lines.join('\n') + '\n', 'utf8');
  const spans: [number, number][] = [];
  let at = 0;
  for (const line of lines) {
    const len = Buffer.byteLength(line);
    spans.push([at, at + len]);
    at += len + 1;
  }
  return {
    first: 0,
    count: lines.length,
    bytes,
    span: (k) => spans[k]!,
    recordAt: (offset) => spans.findIndex(([s, e]) => offset >= s && offset < e),
    text: (k) => lines[k]!,
    value: (k) => JSON.parse(lines[k]!),
  };
}

function candidatesOf(pattern: string, lines: string[], caseInsensitive = false): number[] {
  const out: number[] = [];
  regex.compile(pattern, { caseInsensitive }).candidates(batchOf(lines), (k) => void out.push(k));
  return out;
}

/** Every decoded string (member names and string values) of a JSON value. */
function strings(v: unknown, out: string[] = []): string[] {
  if (typeof v === 'string') out.push(v);
  else if (Array.isArray(v)) v.forEach((x) => strings(x, out));
  else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) { out.push(k); strings(x, out); }
  return out;
}

function syntaxErrorOf(pattern: string): McpgwError {
  try {
    regex.compile(pattern);
  } catch (err) {
    return err as McpgwError;
  }
  throw new Error(`${pattern} compiled`);
}

describe('RE2 syntax', () => {
  it('has the Perl classes, word boundaries, alternation and inline flags', () => {
    expect(regex.compile('\\bcat\\b').test('black cat')).toBe(true);
    expect(regex.compile('\\bcat\\b').test('catalog')).toBe(false);
    expect(regex.compile('\\bcat\\b').test('bobcat')).toBe(false);
    expect(regex.compile('\\d{3}').exec('room 12, floor 4567')).toEqual({ start: 15, end: 18 });
    expect(regex.compile('\\w+@\\w+').exec('mail ana@example.org now')).toEqual({ start: 5, end: 16 });
    expect(regex.compile('\\s').test('a\tb')).toBe(true);
    expect(regex.compile('(?i)error|warn').test('WARNING')).toBe(true);
    expect(regex.compile('(?i)error|warn').test('Err')).toBe(false);
    expect(regex.compile('error|warn', { caseInsensitive: true }).test('ERROR')).toBe(true);
    expect(regex.compile('error|warn').test('ERROR')).toBe(false);
    expect(regex.compile('[[:digit:]]+-\\pL+').exec('x 42-ab')).toEqual({ start: 2, end: 7 });
    expect(regex.compile('(?P<y>\\d{4})-(?<m>\\d\\d)').test('2025-03')).toBe(true);
  });

  it('positions are UTF-16 units of the searched string; exec continues from a position', () => {
    const re = regex.compile('c.t');
    expect(re.exec('😀😀 cXt cYt')).toEqual({ start: 5, end: 8 });
    expect(re.exec('😀😀 cXt cYt', 6)).toEqual({ start: 9, end: 12 });
    expect(re.exec('😀😀 cXt', 6)).toBeNull();
    expect(regex.compile('^.$').test('😀')).toBe(true); // one character, two units
  });

  it('folds case by Unicode simple case folding', () => {
    expect(regex.compile('(?i)kelvin').test('\u212Aelvin')).toBe(true);
    expect(regex.compile('(?i)σ').test('ς')).toBe(true);
    expect(regex.compile('(?i)straße').test('STRAẞE')).toBe(true);
  });

  it('runs in linear time: a catastrophic-backtracking pattern answers at once, and right', () => {
    const re = regex.compile('(a+)+$');
    expect(re.test('a'.repeat(100_000) + '!')).toBe(false);
    expect(re.test('a'.repeat(100_000))).toBe(true);
    expect(regex.compile('(x+x+)+y').test('x'.repeat(50_000))).toBe(false);
  });

  it('names its engine', () => {
    expect(regex.engine).toBe('re2js 2.10.0');
    const pkg = require('../../package.json') as { dependencies: Record<string, string> };
    expect(`re2js ${pkg.dependencies.re2js}`).toBe(regex.engine);
  });
});

describe('compile errors', () => {
  it.each([
    ['(abc', 0, 'missing closing )'],
    ['ab(c(d)', 2, 'missing closing )'],
    ['abc)', 3, 'unexpected )'],
    ['a**', 2, 'invalid nested repetition operator **'],
    ['*a', 0, 'missing argument to repetition operator *'],
    ['x|+', 2, 'missing argument to repetition operator +'],
    ['ab\\q', 2, 'invalid escape sequence \\q'],
    ['end\\Z', 3, 'invalid escape sequence \\Z'],
    ['(a)\\1', 3, 'no backreferences'],
    ['a{2,1}', 1, 'invalid repeat count {2,1}'],
    ['a{1001}', 1, 'invalid repeat count'],
    ['x[z-a]', 2, 'invalid character class range z-a'],
    ['[abc', 0, 'missing closing ]'],
    ['foo(?=bar)', 3, 'lookahead (?= is not supported'],
    ['(?<!x)y', 0, 'lookbehind (?<! is not supported'],
    ['x\\', 1, 'trailing backslash'],
    ['(?z)', 0, 'invalid or unsupported Perl syntax (?z'],
    ['😀😀(', 2, 'missing closing )'], // characters, not UTF-16 units
    ['[[:foo:]]', 1, 'invalid character class [:foo:]'],
    ['ab\\p{Foo}', 2, 'invalid character class range \\p{Foo}'], // the engine's verdict, placed by its fragment
  ])('%s → QUERY_SYNTAX_ERROR at %d', (pattern, position, words) => {
    const err = syntaxErrorOf(pattern);
    expect(err).toBeInstanceOf(McpgwError);
    expect(err.code).toBe('QUERY_SYNTAX_ERROR');
    expect(err.location).toEqual({ position });
    expect(err.message).toContain(`at character ${position}`);
    expect(err.message).toContain(words);
    expect(err.hint).toContain('RE2 syntax');
  });

  it('refuses a program too large to match quickly', () => {
    let err: McpgwError | undefined;
    try { regex.compile('\\pL{1000}\\pL{1000}\\pL{1000}'); } catch (e) { err = e as McpgwError; }
    expect(err?.code).toBe('RESOURCE_LIMIT_EXCEEDED');
    expect(err?.limit).toEqual({ name: 'regexProgramInstructions', limit: 2000, value: 3002 });
    expect(regex.compile('\\pL{1000}').test('ab')).toBe(false);
  });
});

describe('required literals', () => {
  const lits = (p: string, ci = false) => {
    const r = regex.compile(p, { caseInsensitive: ci }).requiredLiterals;
    return r ? { literals: [...r.literals].sort(), ci: r.caseInsensitive } : null;
  };
  it.each<[string, string[] | null, boolean?]>([
    ['\\bcat\\b', ['cat']],
    ['NEEDLE-7f3a', ['NEEDLE-7f3a']],
    ['^ERROR: .*timeout', ['ERROR: ']],
    ['colou?r', ['color', 'colour']],
    ['gr[ae]y', ['gray', 'grey']],
    ['\\w+@\\w+', ['@']],
    ['\\d{3}', null],
    ['[a-z]+ing\\b', ['ing']],
    ['foo|bar|\\d+', null],
    ['(foo|bar)\\d+', ['bar', 'foo']],
    ['(foo|bar)\\d+baz', ['baz']], // as selective, and one literal
    ['x*', null],
    ['(ab){3,}', ['ababab']],
    ['a.b', ['a']],
    ['\\Qa.b\\E+', ['a.b']],
    ['\\x{1F431} cat', ['🐱 cat']],
  ])('%s → %j', (pattern, expected) => {
    expect(lits(pattern)?.literals ?? null).toEqual(expected);
  });

  it('marks literals case-insensitive under (?i) or the option', () => {
    expect(lits('(?i)error|warn')).toEqual({ literals: ['error', 'warn'], ci: true });
    expect(lits('error|warn', true)).toEqual({ literals: ['error', 'warn'], ci: true });
    expect(lits('error|warn')).toEqual({ literals: ['error', 'warn'], ci: false });
    expect(lits('id-(?i:x)')?.ci).toBe(true);
    expect(lits('123', true)).toEqual({ literals: ['123'], ci: false });
  });
});

describe('the JSON byte prefilter', () => {
  const lines = [
    '{"name":"cat face","emoji":"🐱"}',
    '{"name":"catalog"}',
    '{"name":"c\\u0061t"}',
    '{"n":"dog","tags":["pet"]}',
    '{"cat":1}',
    '{"msg":"said \\"hi\\""}',
  ];

  it('keeps records holding a literal or a \\u escape, whose raw text the pattern matches', () => {
    expect(candidatesOf('\\bcat\\b', lines)).toEqual([0, 2, 4]); // "catalog" holds the literal, but no word cat
    expect(candidatesOf('dog|pet', lines)).toEqual([3]); // record 2's escape decodes to "a", in neither literal
    expect(candidatesOf('\\d{3}', lines)).toEqual([2, 5]); // no literal: raw text tested, escaped records kept
    expect(candidatesOf('\\d', lines)).toEqual([1, 2, 3, 4, 5].filter((k) => /\d/.test(lines[k]!) || lines[k]!.includes('\\')));
  });

  it('tests raw text only when the pattern has no anchor: ^ and $ mean the ends of one string', () => {
    const data = ['{"a":"cat"}', '{"a":"bobcat"}', '{"a":"x"}'];
    expect(candidatesOf('^cat', data)).toEqual([0, 1]); // the literal; no raw test (the raw text starts with {)
    expect(candidatesOf('cat$', data)).toEqual([0, 1]);
    expect(candidatesOf('\\Acat\\z', data)).toEqual([0, 1]);
    expect(candidatesOf('\\bcat', data)).toEqual([0]);
  });

  it('keeps a record whose escape decodes to a character of a literal, whatever the character', () => {
    expect(candidatesOf('"hi"', lines)).toEqual([5]); // \" decodes to a quote; record 2's \u0061 to "a"
    expect(candidatesOf('said "', lines)).toEqual([2, 5]); // 2: "a" is in the literal
    expect(candidatesOf('"a', lines)).toEqual([2, 5]);
  });

  it('passes over records whose escapes decode to no character of a literal', () => {
    const data = [
      '{"m":"caf\\u00e9 \\u2028 \\n \\t \\" \\\\ \\/"}', // 0: escapes, none of them in NEEDLE-
      '{"m":"\\u004EEEDLE-1"}', // 1: \u004E is N (upper-case hex)
      '{"m":"\\u004eEEDLE-1"}', // 2: lower-case hex
      '{"m":"\\\\u004eEEDLE-1"}', // 3: an escaped backslash, then the text u004eEEDLE-1: no N
      '{"m":"NEEDLE-2"}', // 4: as written
      '{"m":"NEE"}', '{"m":"DLE-3"}', // 5, 6: the literal split over two records
      '{"m":"x\\', // 7: malformed: a backslash at the end of the record
      '{"m":"\\q"}', // 8: malformed: no such escape
      '{"m":"\\u00"}', // 9: malformed: a short \u escape
    ];
    // No short escape can spell NEEDLE-: only \u escapes are looked at (so 7 and 8 are not), a cut one (9) kept;
    // 3's text u004e after an escaped backslash is taken for an escape (one candidate too many, never too few).
    expect(candidatesOf('NEEDLE-\\d', data)).toEqual([1, 2, 3, 4, 9]);
    expect(candidatesOf('(?i)needle-\\d', data)).toEqual([1, 2, 3, 4, 9]);
    expect(candidatesOf('u004e', data)).toEqual([2, 3, 9]); // 2, 3: the raw bytes hold u004e (the string test decides)
    // A newline is spelled \n: every backslash is looked at, and one that starts no valid escape keeps its record.
    expect(candidatesOf('\\n', data)).toEqual([0, 7, 8, 9]);
    // A literal at the very end of the batch's bytes, and a batch that ends inside an escape.
    expect(candidatesOf('NEEDLE', ['{"m":"a"}', '{"m":"NEEDLE"}'])).toEqual([1]);
    const tail = batchOf(['{"m":"a"}', '{"m":"b\\u00']);
    const cut: RecordBatch = { ...tail, bytes: tail.bytes.subarray(0, tail.bytes.length - 1) };
    const out: number[] = [];
    regex.compile('NEEDLE').candidates(cut, (k) => void out.push(k));
    expect(out).toEqual([1]);
  });

  it('follows escapes into non-ASCII and astral literals', () => {
    const data = ['{"a":"caf\\u00e9"}', '{"a":"caf\\u00E9"}', '{"a":"café"}', '{"a":"\\ud83d\\ude00"}', '{"a":"\\uD83D\\uDE00"}', '{"a":"😀"}', '{"a":"\\ud83d\\ude01"}'];
    expect(candidatesOf('é', data)).toEqual([0, 1, 2]);
    expect(candidatesOf('😀', data)).toEqual([3, 4, 5, 6]); // 6: its high surrogate is the emoji's; the string test decides
    expect(candidatesOf('caf', data)).toEqual([0, 1, 2]);
  });

  it('folds case, and follows k and s to their non-ASCII partners', () => {
    const data = ['{"a":"WARNING"}', '{"a":"ok"}', '{"a":"\u212Aelvin"}', '{"a":"kelvin"}', '{"a":"Maße"}'];
    expect(candidatesOf('(?i)warn', data)).toEqual([0]);
    expect(candidatesOf('warn', data, true)).toEqual([0]);
    expect(candidatesOf('warn', data)).toEqual([]);
    expect(candidatesOf('(?i)kelvin', data)).toEqual([2, 3]); // searched as "elvin"
    expect(candidatesOf('(?i)maße', data)).toEqual([4]);
    expect(regex.compile('(?i)kelvin').test('\u212Aelvin')).toBe(true);
  });

  it('mayMatchJson agrees with candidates on one record', () => {
    const re = regex.compile('\\bcat\\b');
    const got = lines.map((l, k) => (re.mayMatchJson(Buffer.from(l)) ? k : -1)).filter((k) => k >= 0);
    expect(got).toEqual(candidatesOf('\\bcat\\b', lines));
    expect(re.mayMatchJson(new Uint8Array(Buffer.from('xx{"a":"cat"}')), 2)).toBe(true);
    expect(re.mayMatchJson(Buffer.from('{"a":"cat"}'), 0, 8)).toBe(false);
  });

  it('never drops a record whose decoded strings match (property)', () => {
    const alphabet = ['a', 'c', 't', 'C', 'A', 'T', 'k', 'K', '\u212A', 's', 'S', 'ſ', 'é', 'É', '😀', ' ', '"', '\\', '/', '\n', '\t', '@', '1', '2', '3', '\u2028', '\b', '😁', 'N', '-'];
    const str = fc.array(fc.constantFrom(...alphabet), { maxLength: 8 }).map((a) => a.join(''));
    const record = fc.dictionary(str, fc.oneof(str, fc.array(str, { maxLength: 3 })), { maxKeys: 3 });
    /**
     * JSON text of `v` with some characters of its strings written as \u escapes (either case of hex digits,
     * surrogate pairs for astral characters) or \/ — any spelling a file may use. `mask` picks which.
     */
    const spell = (v: unknown, mask: number) => {
      const text = JSON.stringify(v);
      const bit = (n: number) => (mask >> (n % 16)) & 1;
      const escape = (ch: string, n: number) => {
        if (ch === '/' && bit(n + 1)) return '\\/';
        const hex = [...Array(ch.length).keys()].map((i) => `\\u${ch.charCodeAt(i).toString(16).padStart(4, '0')}`).join('');
        return bit(n + 2) ? hex.replace(/[a-f]/g, (d) => d.toUpperCase()) : hex;
      };
      let out = '';
      let inString = false;
      let n = 0;
      for (let i = 0; i < text.length;) {
        const cp = text.codePointAt(i)!;
        const ch = String.fromCodePoint(cp);
        if (inString && ch === '\\') { // an escape JSON.stringify wrote: kept, or spelled as \u
          const len = text[i + 1] === 'u' ? 6 : 2;
          const raw = text.slice(i, i + len);
          out += bit(n++) ? escape(JSON.parse(`"${raw}"`) as string, n) : raw;
          i += len;
          continue;
        }
        if (ch === '"') inString = !inString;
        else if (inString && bit(n++)) { out += escape(ch, n); i += ch.length; continue; }
        out += ch;
        i += ch.length;
      }
      return out;
    };
    const patterns = ['cat', '\\bcat\\b', '(?i)cat', '(?i)kas', '(?i)SK', 'c.t', '"c', '\\\\', '/t', '\\n', 'é', '(?i)É', '😀+', '[kK]at|cat', '\\d{2}', '@\\w', '(?i)t\\bs', '^c', 'a$', 'N-', '(?i)n-', '(?i)a/', 'A"', '\\x08', '😁|é', '(?i)ſ'];
    fc.assert(fc.property(fc.array(fc.tuple(record, fc.nat(0xffff)), { minLength: 1, maxLength: 6 }), fc.constantFrom(...patterns), (recs, pattern) => {
      const re = regex.compile(pattern);
      const lines = recs.map(([r, mask]) => spell(r, mask));
      const kept = new Set(candidatesOf(pattern, lines));
      recs.forEach(([r], k) => {
        expect(JSON.parse(lines[k]!)).toEqual(r); // the spelling holds the same value
        const matches = strings(r).some((s) => re.test(s));
        if (matches) expect(kept.has(k)).toBe(true);
        expect(re.mayMatchJson(Buffer.from(lines[k]!))).toBe(kept.has(k));
      });
    }), { numRuns: 1000 });
  });
});
