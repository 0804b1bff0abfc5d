import { summaryText } from '../../src/kernel/server/summary-text';

test('members in order as name: value — scalars as they are, lists by their length; objects left out', () => {
  expect(summaryText({ total_matches: 2, counts: 'records', matches: [{}, {}], complete: true, hint: null, cut: { limit: 'x', at: 'y', rest: 'z' }, one: [1] }))
    .toBe('total_matches: 2, counts: records, matches: 2, complete: true, hint: null, one: 1');
  expect(summaryText({})).toBe('');
  expect(summaryText({ schema: { type: 'object' } })).toBe('');
});

test('members equal to the call\'s argument of the same name are left out: the caller said them', () => {
  expect(summaryText({ value: '"Boston"', path: 'user.address.city', value_type: 'string' }, { handle: 'file_1', index: 3, path: 'user.address.city' }))
    .toBe('value: \\"Boston\\", value_type: string');
  expect(summaryText({ index: 3, record: 'x'.repeat(30) }, { index: 3 })).toBe('record: 30 bytes');
  expect(summaryText({ index: 4 }, { index: 3 })).toBe('index: 4');
});

test('a string over 24 characters is given by its size in bytes; shorter ones escaped as in JSON', () => {
  expect(summaryText({ record: 'é'.repeat(25) })).toBe('record: 50 bytes');
  expect(summaryText({ s: 'a'.repeat(24) })).toBe(`s: ${'a'.repeat(24)}`);
  // a surrogate pair counts as two characters (JavaScript's length): 23 + 2 = 25, over the limit
  expect(summaryText({ s: 'a'.repeat(23) + '😀' })).toBe(`s: ${23 + 4} bytes`);
  expect(summaryText({ value: '"Boston"', line: 'a\nb' })).toBe('value: \\"Boston\\", line: a\\nb');
});

test('exact numbers stay as written', () => {
  expect(summaryText({ n: JSON.rawJSON('12345678901234567891') as unknown })).toBe('n: 12345678901234567891');
});
