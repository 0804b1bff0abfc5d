import { cell } from '../src/aggregate/command';

describe('mcpgw aggregate table cells', () => {
  test('a string is quoted only when it would read as another value', () => {
    const quoted = ['1', '-0', '1.50', '1e5', '-2E-3', 'null', 'true', 'false', '', ' x', 'x ', '(missing)', '(not bucketable)'];
    for (const s of quoted) expect(cell(s)).toBe(JSON.stringify(s));
    const bare = ['failed', '2016-12-31T00:00:00Z', '12abc', '1.', '01', '日本', 'a b'];
    for (const s of bare) expect(cell(s)).toBe(s);
  });

  test('other values print as JSON; an estimate with its bound', () => {
    expect(cell(1)).toBe('1');
    expect(cell(null)).toBe('null');
    expect(cell(true)).toBe('true');
    expect(cell({ value: 182733, estimated: true, error_bound: 4443 })).toBe('≈182733 ±4443');
  });
});
