/** search_sessions' file-level byte prefilter: never passes over a file that can hold a match. */
import fc from 'fast-check';
import { addTraits, emptyTraits, fileMayMatch, literalTest } from '../src/search/prefilter';
import { Re2RegexService } from '../../../src/engine/regex';

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

describe('escape traits, kept per file', () => {
  test('a file\'s traits: the ASCII characters its \\u escapes spell, and the Kelvin sign or long s written or escaped', () => {
    const t = emptyTraits();
    addTraits(t, Buffer.from('{"a":"\\u001b[31mred\\u001b[0m \\u0041","b":"\\u212a"}'));
    expect([...t.ascii.keys()].filter((c) => t.ascii[c])).toEqual([0x1b, 0x41]);
    expect([t.kelvin, t.longS]).toEqual([true, false]);
    const raw = emptyTraits();
    addTraits(raw, Buffer.from('{"a":"\u017f"}'));
    expect([raw.kelvin, raw.longS]).toEqual([false, true]);
  });

  test('with a file\'s traits known, only the literal\'s bytes are looked for; the verdict is the same', async () => {
    const t = literalTest(['needle'], true)!;
    const cases: [string, boolean][] = [
      ['{"a":"hay needle"}', true],
      ['{"a":"hay n\\u0065edle"}', true], // spelled through an escape
      ['{"a":"hay \\u001b[0m hay"}', false], // an ANSI escape spells nothing of the literal
      ['{"a":"hay hay"}', false],
    ];
    for (const [text, want] of cases) {
      let learned: ReturnType<typeof emptyTraits> | undefined;
      expect(await fileMayMatch(chunksOf(Buffer.from(text), 7), t, undefined, (x) => { learned = x; })).toBe(want);
      if (learned) expect(await fileMayMatch(chunksOf(Buffer.from(text), 5), t, learned)).toBe(want);
      else expect(want).toBe(true); // traits are learned only from a file read to its end
    }
    // an escape that spells the literal across a chunk boundary
    expect(await fileMayMatch(chunksOf(Buffer.from('{"a":"xxxxxxxxx\\u006eeedle"}'), 12), t)).toBe(true);
  });

  test('agrees with the regex service when letters are written as \\u escapes, whatever the chunking', async () => {
    const svc = new Re2RegexService();
    const escapeSome = (s: string, mask: number) => [...s].map((ch, i) => (mask >> (i % 16)) & 1 && /[a-z]/i.test(ch) ? `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}` : ch).join('');
    await fc.assert(fc.asyncProperty(fc.stringMatching(/^[a-zA-Z]{3,8}$/), fc.stringMatching(/^[a-z ]{0,30}$/), fc.integer({ min: 0, max: 65535 }), fc.integer({ min: 1, max: 40 }), fc.boolean(), async (lit, hay, mask, size, ci) => {
      const t = literalTest([lit], ci)!;
      const re = svc.compile(lit, { caseInsensitive: ci });
      const text = `${hay}${ci ? lit.toUpperCase() : lit}${hay}`;
      const json = `{"text":"${escapeSome(text, mask)}"}`;
      expect(re.test(JSON.parse(json).text)).toBe(true);
      let learned: ReturnType<typeof emptyTraits> | undefined;
      expect(await fileMayMatch(chunksOf(Buffer.from(json), size), t, undefined, (x) => { learned = x; })).toBe(true);
      if (learned) expect(await fileMayMatch(chunksOf(Buffer.from(json), size), t, learned)).toBe(true);
    }), { numRuns: 300 });
  });
});

test('the byte looked for is the one rarest in the data: timestamps full of Z do not make z the probe', () => {
  // English ranks z rarest of "zq…" letters; in session files every timestamp ends in Z.
  const line = '{"timestamp":"2026-01-01T00:00:00.000Z","text":"plain words here"}\n';
  const data = Buffer.from(line.repeat(2000) + '{"text":"a ZQUUX"}\n');
  const t = literalTest(['zquux'], true)!;
  const indexOf = jest.spyOn(Buffer.prototype, 'indexOf');
  try {
    expect(t.probe(data)).toBe(true);
    // q and Q are looked for (two passes, one hit); the 2,001 Z's are never visited one by one.
    expect(indexOf.mock.calls.length).toBeLessThan(10);
    expect(t.probe(Buffer.from(line.repeat(2000)))).toBe(false);
  } finally {
    indexOf.mockRestore();
  }
});
