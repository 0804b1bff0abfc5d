import * as path from 'node:path';
import { call, connect, REPO, type Connected } from '../helpers/mcp';
import { foldAsciiCase, regexQuery } from '../../plugins/tools-explore/src/search/regex';

describe('regex pattern translation', () => {
  test('ASCII letters fold outside and inside character classes; escapes and \\p{…} stay', () => {
    expect(foldAsciiCase('^di(a|e)')).toBe('^[dD][iI]([aA]|[eE])');
    expect(foldAsciiCase('[a-c_x]\\d\\p{Lu}')).toBe('[a-c_xA-CX]\\d\\p{Lu}');
    expect(foldAsciiCase('[^q]')).toBe('[^qQ]');
  });
  test('the JSONPath text quotes backslashes and quotes', () => {
    expect(regexQuery("a'b\\.", true)).toBe("$..[?search(@, 'a\\'b\\\\.')]");
  });
  test('an invalid pattern throws', () => {
    expect(() => regexQuery('(a', true)).toThrow();
  });
});

describe('search with regex: true, end to end', () => {
  let c: Connected;
  let handle: string;
  beforeAll(async () => {
    c = await connect(['--root', path.join(REPO, 'examples')]);
    handle = (await call(c.client, 'open_file', { path: 'people.ndjson' })).data.handle;
  });
  afterAll(async () => c.close());

  test('case-insensitive by default: ^d.a finds Diana at /name', async () => {
    const r = await call(c.client, 'search', { handle, query: '^d.a', regex: true });
    expect(r.isError).toBe(false);
    expect(r.data).toMatchObject({ total_matches: 1, mode: 'text', query: '^d.a', complete: true });
    expect(r.data.matches).toEqual([{ record_index: 3, preview: '/name = «"Diana"»', match_path: '/name' }]);
  });

  test('match_case: true is exact', async () => {
    expect((await call(c.client, 'search', { handle, query: '^d', regex: true, match_case: true })).data.total_matches).toBe(0);
    expect((await call(c.client, 'search', { handle, query: '^[A-C]', regex: true, match_case: true })).data.matches.map((m: { record_index: number }) => m.record_index)).toEqual([0, 1, 2]);
  });

  test('pages continue with next_cursor', async () => {
    const first = await call(c.client, 'search', { handle, query: 'e', regex: true, max_results: 2 });
    expect(first.data.total_matches).toBe(5); // Alice, Charlie, Eve, Grace, Henry: string values only
    const second = await call(c.client, 'search', { handle, query: 'e', regex: true, max_results: 2, cursor: first.data.next_cursor });
    expect(second.isError).toBe(false);
    expect(second.data.matches[0].record_index).toBeGreaterThan(first.data.matches[1].record_index);
  });

  test('a pattern that does not parse is QUERY_SYNTAX_ERROR', async () => {
    const r = await call(c.client, 'search', { handle, query: '(unclosed', regex: true });
    expect(r.data.error.code).toBe('QUERY_SYNTAX_ERROR');
  });
});
