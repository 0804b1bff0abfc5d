/** What the server says: well-formed Unicode cut on character boundaries at the source; ids that tell what to do. */
import { FakeClock } from '../../src/kernel/fake-clock';
import fc from 'fast-check';
import { TextMatcher } from '../../plugins/tools-explore/src/search/text-matcher';
import { tokenPreview } from '../../plugins/tools-explore/src/text/preview';
import { syntaxError } from '../../src/engine/records/parse';
import { hasLoneSurrogateEscape } from '../../src/kernel/unicode';
import { clipText, fixSurrogates, wellFormed } from '../../src/kernel/errors';

const unit = fc.constantFrom('a', 'é', '😀', '𝄞', ' ', '"');
const chunk = fc.array(unit, { maxLength: 60 }).map((a) => a.join(''));

test('search previews never cut a character, whatever the alignment of the context', () => {
  fc.assert(fc.property(chunk, chunk, chunk, (before, inside, after) => {
    const text = JSON.stringify({ pre: before, k: `${inside}needle${after}`, post: after + before });
    const m = new TextMatcher('needle', false);
    const hit = m.match(text)!;
    const { text: p, markers } = tokenPreview(text, hit.token, hit.decoded, hit.start, hit.end);
    expect([text, p.isWellFormed(), p.includes('\uFFFD')]).toEqual([text, true, false]);
    expect(p).toContain('«needle»');
    // the markers' positions (code points) name the « » around the hit and any … of a cut
    const chars = [...p];
    expect(markers.map((i) => chars[i]).filter((c) => c !== '…')).toEqual(['«', '»']);
    expect(chars.slice(markers.find((i) => chars[i] === '«')! + 1, markers.find((i) => chars[i] === '»')).join('')).toBe('needle');
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

test('a lone surrogate is found in the JSON text of a value exactly when one of its strings or names is not well-formed', () => {
  // strings of surrogate halves, whole pairs, backslashes and the text `ud800` that a backslash may precede
  const piece = fc.constantFrom('a', '\\', 'ud800', 'udc00', 'u00e9', '\uD83D', '\uDE00', '😀', '"', '\n', '\u0001');
  const str = fc.array(piece, { maxLength: 8 }).map((a) => a.join(''));
  const value = fc.oneof(str, fc.array(str, { maxLength: 4 }), fc.dictionary(str, str, { maxKeys: 3 }), fc.record({ a: fc.array(fc.dictionary(str, str, { maxKeys: 2 }), { maxLength: 2 }), n: fc.integer() }));
  const strings = (v: unknown): string[] => typeof v === 'string' ? [v] : Array.isArray(v) ? v.flatMap(strings) : v !== null && typeof v === 'object' ? Object.entries(v).flatMap(([k, x]) => [k, ...strings(x)]) : [];
  fc.assert(fc.property(value, (v) => {
    const broken = strings(v).some((s) => !s.isWellFormed());
    expect(hasLoneSurrogateEscape(JSON.stringify(v))).toBe(broken);
    if (broken) {
      const fixed = fixSurrogates(v);
      expect(hasLoneSurrogateEscape(JSON.stringify(fixed))).toBe(false);
      expect(fixed).toEqual(wellFormed(v));
    }
  }), { numRuns: 2000 });
  expect(hasLoneSurrogateEscape(JSON.stringify({ t: '\\ud800 is text' }))).toBe(false);
  expect(hasLoneSurrogateEscape(JSON.stringify({ t: '\\\uD800' }))).toBe(true);
});

describe('handle tables: expired and used-up ids say what to do', () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { IdleHandleTable } = require('../../src/kernel/session/handle-table') as typeof import('../../src/kernel/session/handle-table');
  test('an expired search cursor: run the search again; a used one: continue from the latest next_cursor', () => {
    const clock = new FakeClock();
    const t = new IdleHandleTable<number>({ style: 'counter', prefix: 'sc_', noun: 'search cursor', limit: 'maxCursors', idleMs: 300_000, max: 10, expiredHint: 'Run the search again.', usedHint: 'Pass the latest next_cursor.' }, clock);
    const a = t.add(1);
    const b = t.add(2);
    expect(t.consume(a)).toBe(true);
    expect(t.consume(a)).toBe(false);
    expect(() => t.get(a)).toThrow(expect.objectContaining({ code: 'NOT_FOUND', message: 'The search cursor sc_1 was already used — continue from the latest next_cursor.', hint: 'Pass the latest next_cursor.' }));
    clock.advance(300_001);
    expect(() => t.get(b)).toThrow(expect.objectContaining({ code: 'HANDLE_EXPIRED', message: 'The search cursor sc_2 expired after 300 s unused. Run the search again.', hint: 'Run the search again.' }));
    // an unknown id (most often one of an earlier session or server): the remedy of an expired one
    expect(() => t.get('sc_9')).toThrow(expect.objectContaining({ code: 'NOT_FOUND', message: 'Unknown search cursor "sc_9".',
      hint: 'Pass a search cursor this server returned in this session (ids end with the session and with a restart). Run the search again.' }));
    const files = new IdleHandleTable<number>({ style: 'counter', prefix: 'file_', noun: 'file handle', limit: 'maxOpenFiles', idleMs: 1000, max: 1 }, clock);
    expect(() => files.get('file_7')).toThrow(expect.objectContaining({ code: 'NOT_FOUND',
      hint: 'Pass a file handle this server returned in this session (ids end with the session and with a restart). Open the file again.' }));
  });
});

test("parse errors give the file's position once, never V8's position within the record", () => {
  const site = { byteOffset: 100, line: 8, column: 1, recordIndex: 7, maxDepth: 10 };
  const messageOf = (text: string): string => {
    let err: unknown;
    try { JSON.parse(text); } catch (e) { err = e; }
    return syntaxError(err, text, site).message;
  };
  expect(messageOf('{"a":1} x')).toBe('Record 7 is not valid JSON: Unexpected non-whitespace character after JSON (line 8, column 9, byte 108).');
  expect(messageOf('{"a" 1}')).toBe("Record 7 is not valid JSON: Expected ':' after property name (line 8, column 6, byte 105).");
  expect(messageOf('{"a":"\\u12"}')).toBe('Record 7 is not valid JSON: Bad Unicode escape (line 8, column 11, byte 110).');
  expect(messageOf('{"a":')).toBe('Record 7 is not valid JSON: Unexpected end of JSON input (line 8, column 6, byte 105).');
});
