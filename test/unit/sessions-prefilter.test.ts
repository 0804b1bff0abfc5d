/** search_sessions' file-level byte prefilter: never passes over a file that can hold a match. */
import fc from 'fast-check';
import { fileMayMatch, literalTest } from '../../plugins/tools-sessions/src/search/prefilter';
import { Re2RegexService } from '../../src/kernel/regex';

const chunksOf = (b: Buffer, size: number) => (async function* () {
  for (let i = 0; i < b.length; i += size) yield { offset: i, bytes: b.subarray(i, i + size) };
})();

test('a literal found in any letter case, across a chunk boundary, or spelled by a \\u escape passes', async () => {
  const t = literalTest(['needle'], true)!;
  expect(t.test(Buffer.from('{"a":"hay NeEdLe hay"}'))).toBe(true);
  expect(t.test(Buffer.from('{"a":"hay hay"}'))).toBe(false);
  expect(t.test(Buffer.from('{"a":"n\\u0065edle"}'))).toBe(true);
  expect(await fileMayMatch(chunksOf(Buffer.from('xxxxxxxneedlexxxx'), 10), t)).toBe(true);
  expect(await fileMayMatch(chunksOf(Buffer.from('xxxxxxxneexdlexxxx'), 10), t)).toBe(false);
  const k = literalTest(['kind'], true)!;
  expect(k.test(Buffer.from('{"a":"\u212Aind"}'))).toBe(true); // Kelvin sign folds to k
  const cs = literalTest(['Needle'], false)!;
  expect(cs.test(Buffer.from('needle'))).toBe(false);
  expect(cs.test(Buffer.from('a Needle'))).toBe(true);
});

test('literals it cannot decide for (non-ASCII, JSON-escapable) give no test', () => {
  expect(literalTest(['café'], true)).toBeNull();
  expect(literalTest(['a"b'], true)).toBeNull();
  expect(literalTest(['a/b'], true)).toBeNull();
  expect(literalTest([], true)).toBeNull();
});

test('agrees with the regex service: whenever a JSON record\'s strings match, the test passes', () => {
  const svc = new Re2RegexService();
  const word = fc.stringMatching(/^[a-zA-Z0-9 _.-]{2,8}$/);
  fc.assert(fc.property(word, fc.array(fc.oneof(fc.string(), word, fc.constantFrom('\u212a', 'K', 'k', '\u017f')), { maxLength: 6 }), fc.boolean(), (lit, parts, ci) => {
    const re = svc.compile(lit.replace(/[.]/g, '\\.'), { caseInsensitive: ci });
    const t = literalTest([lit], ci);
    if (!t) return;
    const record = JSON.stringify({ text: parts.join(' ') + (parts.length % 2 ? lit.toUpperCase() : '') });
    const matches = re.test(JSON.parse(record).text);
    if (matches) expect(t.test(Buffer.from(record))).toBe(true);
  }), { numRuns: 500 });
});
