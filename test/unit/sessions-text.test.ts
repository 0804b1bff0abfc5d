/** Character-safe cuts and previews of the session-history bundle. */
import { charLength, cutText, guardBinary, previewOf } from '../../plugins/tools-sessions/src/text';

describe('cutText', () => {
  test('counts characters (code points), not UTF-16 units', () => {
    expect(cutText('a😀b😀c', 3)).toEqual({ text: 'a😀b', truncated: true });
    expect(charLength('a😀b')).toBe(3);
  });

  test('never splits a surrogate pair, a letter from its combining mark, or an emoji sequence', () => {
    // "e" + U+0301 COMBINING ACUTE is one character on screen: a cut after the "e" backs off before it.
    expect(cutText('cafe\u0301s', 4)).toEqual({ text: 'caf', truncated: true });
    expect(cutText('cafe\u0301s', 5)).toEqual({ text: 'cafe\u0301', truncated: true });
    // A family emoji: four people joined by ZWJ (7 code points) stays whole or goes.
    const family = '\u{1F468}\u200D\u{1F469}\u200D\u{1F467}\u200D\u{1F466}';
    for (let n = 1; n <= 7; n++) expect(cutText(`x${family}y`, n + 1).text).toBe(n === 7 ? `x${family}` : 'x');
    // A flag is two regional indicators.
    expect(cutText('\u{1F1EB}\u{1F1F7}!', 1).text).toBe('');
  });

  test('0 or less is no limit; a text that fits is not truncated', () => {
    expect(cutText('abc', 0)).toEqual({ text: 'abc', truncated: false });
    expect(cutText('abc', 3)).toEqual({ text: 'abc', truncated: false });
  });
});

test('previewOf collapses whitespace and marks a cut', () => {
  expect(previewOf('  one\n\n two\tthree  ', 100)).toBe('one two three');
  expect(previewOf('one two three', 7)).toBe('one two…');
});

test('guardBinary summarizes long base64 and leaves prose alone', () => {
  expect(guardBinary('QUJD'.repeat(2000))).toBe('[base64 data: 8,000 bytes]');
  const prose = 'word '.repeat(2000);
  expect(guardBinary(prose)).toBe(prose);
});
