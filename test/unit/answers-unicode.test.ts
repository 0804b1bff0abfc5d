/** Every string the server emits is well-formed Unicode: text is cut on character boundaries at the source. */
import fc from 'fast-check';
import { TextMatcher } from '../../plugins/tools-explore/src/search/text-matcher';
import { tokenPreview } from '../../plugins/tools-explore/src/text/preview';
import { syntaxError } from '../../src/kernel/records/parse';
import { clipText, wellFormed } from '../../src/kernel/unicode';

const unit = fc.constantFrom('a', 'é', '😀', '𝄞', ' ', '"');
const chunk = fc.array(unit, { maxLength: 60 }).map((a) => a.join(''));

test('search previews never cut a character, whatever the alignment of the context', () => {
  fc.assert(fc.property(chunk, chunk, chunk, (before, inside, after) => {
    const text = JSON.stringify({ pre: before, k: `${inside}needle${after}`, post: after + before });
    const m = new TextMatcher('needle', false);
    const hit = m.match(text)!;
    const p = tokenPreview(text, hit.token, hit.decoded, hit.start, hit.end);
    expect([text, p.isWellFormed(), p.includes('\uFFFD')]).toEqual([text, true, false]);
    expect(p).toContain('«needle»');
  }), { numRuns: 2000 });
});

test('parse errors name the whole unexpected character and quote no cut snippet', () => {
  fc.assert(fc.property(chunk, fc.constantFrom('😀', '𝄞', 'x'), (s, bad) => {
    const text = `[${JSON.stringify(s)}, ${bad}]`;
    let err: unknown;
    try { JSON.parse(text); } catch (e) { err = e; }
    const m = syntaxError(err, text, { byteOffset: 0, line: 1, column: 1, recordIndex: 3, maxDepth: 10 }).message;
    expect([text, m.isWellFormed(), m]).toEqual([text, true, expect.stringMatching(new RegExp(`^Record 3 is not valid JSON: Unexpected token '${bad}' \\(line 1, column \\d+, byte \\d+\\)\\.$`, 'u'))]);
  }), { numRuns: 500 });
});

test('clipText and wellFormed', () => {
  expect(clipText('ab😀', 3)).toBe('ab');
  expect(clipText('ab😀', 4)).toBe('ab😀');
  expect(clipText('abc', 2)).toBe('ab');
  const ok = { a: ['x', { b: 'y' }], n: 1 };
  expect(wellFormed(ok)).toBe(ok); // nothing to fix: the same object
  expect(wellFormed({ a: ['x', '\uD83D'], ['k\uDE00']: 1, r: JSON.rawJSON('12345678901234567891') })).toEqual({ a: ['x', '\uFFFD'], 'k\uFFFD': 1, r: JSON.rawJSON('12345678901234567891') });
});
