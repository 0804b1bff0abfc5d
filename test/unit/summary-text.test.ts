import { summaryText } from '../../src/kernel/server/summary-text';

const TAIL = ' (summary of structuredContent)';

test('members in order: scalars as they are, lists and objects by their size', () => {
  expect(summaryText({ total_matches: 2, counts: 'records', matches: [{}, {}], complete: true, hint: null, cut: { limit: 'x', at: 'y', rest: 'z' }, one: [1], o: { a: 1 } }))
    .toBe('{"total_matches":2,"counts":"records","matches":[2 items],"complete":true,"hint":null,"cut":{3 members},"one":[1 item],"o":{1 member}}' + TAIL);
});

test('a string over 32 characters is cut, with its size in bytes; never half a surrogate pair', () => {
  const long = 'é'.repeat(100);
  expect(summaryText({ record: long })).toBe(`{"record":"${'é'.repeat(32)}…" (200 bytes)}${TAIL}`);
  // 31 ASCII characters, then an emoji whose two halves straddle the 32nd character
  const pair = 'a'.repeat(31) + '😀' + 'b'.repeat(10);
  expect(summaryText({ s: pair })).toBe(`{"s":"${'a'.repeat(31)}…" (${Buffer.byteLength(pair)} bytes)}${TAIL}`);
  expect(summaryText({ s: 'a'.repeat(32) })).toBe(`{"s":"${'a'.repeat(32)}"}${TAIL}`);
  // escapes count as the text's characters, not the JSON's: a quote is one character
  expect(summaryText({ s: '"'.repeat(40) })).toBe(`{"s":"${'\\"'.repeat(32)}…" (40 bytes)}${TAIL}`);
});

test('exact numbers stay as written', () => {
  expect(summaryText({ n: JSON.rawJSON('12345678901234567891') as unknown })).toBe('{"n":12345678901234567891}' + TAIL);
});
