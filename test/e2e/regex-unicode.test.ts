/**
 * Field case C38 end to end through a real MCP client, and the Perl classes' Unicode meaning in the regex service:
 * `\w \d \s` and their negations mean what Python 3's `re` gives them (Unicode); `\b` and `\B` stay RE2's ASCII word
 * boundaries (RE2 has no lookaround to build others from), and every answer whose pattern holds one says so
 * (ASCII_WORD_BOUNDARY), as case.json accepts instead. Expected values: Python 3 `re` with re.I over the decoded
 * member names and strings of each record — Unicode (default) for the classes, re.ASCII for the boundaries we answer
 * with — and the case's own controls.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Re2RegexService } from '../../src/engine/regex';
import { call, connect, REPO, type Connected } from '../helpers/mcp';

const CASES = path.join(REPO, 'test', 'fixtures', 'cases');
const spec = JSON.parse(fs.readFileSync(path.join(CASES, 'C38', 'case.json'), 'utf8'));

let c: Connected;
let handle: string;
beforeAll(async () => {
  c = await connect(['--root', CASES]);
  handle = (await call(c.client, 'open_file', { path: 'C38/words.jsonl' })).data.handle;
});
afterAll(async () => c.close());

const search = async (query: string) => {
  const r = await call(c.client, 'search', { handle, query, regex: true, max_results: 50 });
  return r;
};
const indexes = (r: any) => r.data.matches.map((m: any) => m.record_index);

test('C38: \\b is an ASCII word boundary, and every answer whose pattern holds \\b says so', async () => {
  // Python re.I|re.ASCII (what RE2 answers): \bcafé\b [], \bcaf\b [0, 1, 7], \bsu\b [2, 6], \büber\b [3];
  // the case's Unicode answers (Python re.I) are [0, 1, 7], [], [6], [4]: the warning tells the user they differ.
  const ascii: Record<string, number[]> = { '\\bcafé\\b': [], '\\bcaf\\b': [0, 1, 7], '\\bsu\\b': [2, 6], '\\büber\\b': [3] };
  expect(Object.keys(ascii)).toEqual(Object.keys(spec.expected));
  for (const [query, expected] of Object.entries(ascii)) {
    const r = await search(query);
    expect(r.isError).toBe(false);
    expect([query, indexes(r)]).toEqual([query, expected]);
    const warning = r.data.warnings?.find((w: any) => w.code === 'ASCII_WORD_BOUNDARY');
    expect(warning?.message).toMatch(/\\b and \\B are ASCII word boundaries/);
    expect(warning?.message).toContain('(?:^|[^\\w])café(?:[^\\w]|$)');
  }
  // the spelling the warning offers answers as the case expects (Python: [0, 1, 7])
  expect(indexes(await search('(?:^|[^\\w])café(?:[^\\w]|$)'))).toEqual(spec.expected['\\bcafé\\b']);
  expect(indexes(await search('(?:^|[^\\w])caf(?:[^\\w]|$)'))).toEqual(spec.expected['\\bcaf\\b']);
  expect(indexes(await search('(?:^|[^\\w])su(?:[^\\w]|$)'))).toEqual(spec.expected['\\bsu\\b']);
  expect(indexes(await search('(?:^|[^\\w])über(?:[^\\w]|$)'))).toEqual(spec.expected['\\büber\\b']);
});

test('\\w \\W in a search have their Unicode meaning (Python re.I: caf\\w [0, 1, 5, 7]); no warning without \\b', async () => {
  const r = await search('caf\\w');
  expect(indexes(r)).toEqual([0, 1, 5, 7]);
  expect(r.data.warnings?.some((w: any) => w.code === 'ASCII_WORD_BOUNDARY') ?? false).toBe(false);
  expect(indexes(await search('\\w+é'))).toEqual([0, 1, 7]);
});

test('C38 controls: lookaround refused with its position and name; a named group is no lookbehind; \\u gives the RE2 spelling', async () => {
  const [ahead, behind, named, escape] = spec.extra_checks;
  const a = await search(ahead.query);
  expect(a.data.error.code).toBe('QUERY_SYNTAX_ERROR');
  expect(a.data.error.location.position).toBe(3);
  expect(a.data.error.message).toMatch(/lookahead/);
  const b = await search(behind.query);
  expect(b.data.error.code).toBe('QUERY_SYNTAX_ERROR');
  expect(b.data.error.message).toMatch(/lookbehind/);
  expect(indexes(await search(named.query))).toEqual([8]);
  const u = await search(escape.query);
  expect(u.data.error.code).toBe('QUERY_SYNTAX_ERROR');
  expect(u.data.error.hint).toMatch(/\\x\{/);
});

test('the regex service: Perl classes match as Python 3 re (Unicode), inside and outside brackets', () => {
  const service = new Re2RegexService();
  // [pattern, text, Python's re.search(...).span()]
  const cases: [string, string, [number, number] | null][] = [
    ['\\w+', 'ü-x', [0, 1]], ['\\d+', 'x٣٤5', [1, 4]], ['\\s', '\u00a0', [0, 1]], ['\\s', '\u2028', [0, 1]],
    ['[\\w-]+', '  ü-x ', [2, 5]], ['\\D', '٣x', [1, 2]], ['\\S+', '\u3000ab\u3000', [1, 3]], ['\\W', 'é_ ', [2, 3]],
    ['[\\d]+', 'a١٢b', [1, 3]], ['[\\s]', 'a\u2003b', [1, 2]],
    // escapes that are not classes stay as they were: \Q…\E quoting, \p{…}, a literal backslash
    ['\\Q\\w\\E', 'a\\wb', [1, 3]], ['\\p{Greek}+', 'aβγ', [1, 3]], ['\\\\w', '\\w', [0, 2]],
  ];
  for (const [pattern, text, span] of cases) {
    const m = service.compile(pattern).exec(text);
    expect([pattern, text, m ? [m.start, m.end] : null]).toEqual([pattern, text, span]);
    expect(service.compile(pattern).warnings ?? []).toEqual([]);
  }
  expect(service.compile('\\Bx').warnings?.map((w) => w.code)).toEqual(['ASCII_WORD_BOUNDARY']);
  expect(service.compile('[^\\W]').warnings?.map((w) => w.code)).toEqual(['ASCII_WORD_BOUNDARY']);
  expect(service.compile('\\Q\\b\\E').warnings ?? []).toEqual([]);
});

test('a pattern no text can match is answered without a scan (NEVER_MATCHES); one that can is searched', async () => {
  const service = new Re2RegexService();
  // RE2 semantics without (?m): ^ \A start of text, $ \z end of text; Python's re agrees on every string tried below
  const never = ['a^', 'x\\Ay', '$a', 'a\\zb', '[^\\s\\S]', '(?:a|b)^c'];
  // may match (or, like (?m)a^b, cannot, but the conservative walk does not prove it): searched as before
  const can = ['^a', 'a$', '(?m)a^b', '(?:a^)*b', 'a|b^', '\\bx\\B', 'caf\\w'];
  for (const p of never) expect([p, service.compile(p).neverMatches]).toEqual([p, true]);
  for (const p of can) expect([p, service.compile(p).neverMatches ?? false]).toEqual([p, false]);
  const r = await search('x\\Ay');
  expect(r.data.total_matches).toBe(0);
  expect(r.data.complete).toBe(true);
  expect(r.data.warnings.map((w: any) => w.code)).toEqual(['NEVER_MATCHES']);
  const control = await search('caf\\w');
  expect(control.data.warnings?.some((w: any) => w.code === 'NEVER_MATCHES') ?? false).toBe(false);
});
