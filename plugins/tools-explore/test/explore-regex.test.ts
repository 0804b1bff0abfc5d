import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { call, connect, REPO, type Connected } from '../../../test/helpers/mcp';

type Hit = { record_index: number; match_path: string; preview: string };
const indexes = (r: { data: { matches: Hit[] } }) => r.data.matches.map((m) => m.record_index);
const paths = (r: { data: { matches: Hit[] } }) => r.data.matches.map((m) => `${m.record_index}${m.match_path}`);

/** Emoji annotations (CLDR style). Record 6 spells "cat" with a \u escape; numbers are never searched. */
const EMOJI = [
  '{"emoji":"🐱","name":"cat face","annotations":["cat","face","pet"]}',
  '{"emoji":"📚","name":"books","annotations":["book","catalog","library"]}',
  '{"emoji":"🐆","name":"leopard","annotations":["bobcat","wildcat","concatenate"]}',
  '{"emoji":"😺","name":"grinning cat","annotations":["smile"],"code":"U+1F63A"}',
  '{"emoji":"✉️","name":"envelope","annotations":["email","e-mail"],"contact":"ana@example.org"}',
  '{"emoji":"⚠️","name":"warning","annotations":["WARN","caution"],"seen":123456}',
  '{"emoji":"❌","name":"cross mark","annotations":["error","cancel"],"note":"c\\u0061t, escaped"}',
  '{"emoji":"🔢","name":"input numbers","annotations":["1234"],"n":42}',
  '{"emoji":"🐈","name":"CAT"}',
];

describe('search with regex: true (RE2 syntax), end to end', () => {
  let dir: string;
  let c: Connected;
  let emoji: string;
  let people: string;
  let stuck: string;
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-regex-'));
    fs.writeFileSync(path.join(dir, 'emoji.jsonl'), EMOJI.join('\n') + '\n');
    fs.copyFileSync(path.join(REPO, 'examples', 'people.ndjson'), path.join(dir, 'people.ndjson'));
    // A catastrophic-backtracking pattern's worst input: 30,000 a's and a "!" (a backtracking engine never ends).
    fs.writeFileSync(path.join(dir, 'stuck.jsonl'), [`{"s":"${'a'.repeat(30_000)}!"}`, '{"s":"aaaa"}', `{"s":"${'a'.repeat(29_999)}"}`].join('\n') + '\n');
    c = await connect(['--root', dir]);
    emoji = (await call(c.client, 'open_file', { path: 'emoji.jsonl' })).data.handle;
    people = (await call(c.client, 'open_file', { path: 'people.ndjson' })).data.handle;
    stuck = (await call(c.client, 'open_file', { path: 'stuck.jsonl' })).data.handle;
  });
  afterAll(async () => {
    await c.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('\\bcat\\b: whole words only, in decoded strings, case-insensitive by default', async () => {
    const r = await call(c.client, 'search', { handle: emoji, query: '\\bcat\\b', regex: true });
    expect(r.isError).toBe(false);
    expect(r.data).toMatchObject({ total_matches: 4, mode: 'text', complete: true });
    expect(paths(r)).toEqual(['0/name', '3/name', '6/note', '8/name']);
    expect(r.data.matches[0].preview).toContain('«cat»');
    const exact = await call(c.client, 'search', { handle: emoji, query: '\\bcat\\b', regex: true, match_case: true });
    expect(exact.data.total_matches).toBe(3);
    expect(indexes(exact)).toEqual([0, 3, 6]);
  });

  test('\\d{3}: string values only (the number 123456 is not searched)', async () => {
    const r = await call(c.client, 'search', { handle: emoji, query: '\\d{3}', regex: true });
    expect(r.data.total_matches).toBe(1);
    expect(paths(r)).toEqual(['7/annotations/0']);
  });

  test('\\w+@\\w+ finds the address', async () => {
    const r = await call(c.client, 'search', { handle: emoji, query: '\\w+@\\w+', regex: true });
    expect(paths(r)).toEqual(['4/contact']);
    expect(r.data.matches[0].preview).toContain('«ana@example»');
  });

  test('(?i)error|warn: the inline flag folds case even with match_case', async () => {
    const r = await call(c.client, 'search', { handle: emoji, query: '(?i)error|warn', regex: true, match_case: true });
    expect(paths(r)).toEqual(['5/name', '6/annotations/0']);
    const plain = await call(c.client, 'search', { handle: emoji, query: 'error|WARN', regex: true, match_case: true });
    expect(paths(plain)).toEqual(['5/annotations/0', '6/annotations/0']);
  });

  test('member names are searched too', async () => {
    const r = await call(c.client, 'search', { handle: emoji, query: '^annotations$', regex: true });
    expect(r.data.total_matches).toBe(8);
    expect(r.data.matches[0].match_path).toBe('/annotations');
  });

  test('(a+)+$ on 30,000 a\'s and a "!" answers at once, and right', async () => {
    const r = await call(c.client, 'search', { handle: stuck, query: '(a+)+$', regex: true, match_case: true });
    expect(r.isError).toBe(false);
    expect(r.data).toMatchObject({ total_matches: 2, complete: true });
    expect(indexes(r)).toEqual([1, 2]);
    expect(r.data.warnings).toBeUndefined();
  });

  test('a bad pattern is QUERY_SYNTAX_ERROR with the position of the construct', async () => {
    const open = await call(c.client, 'search', { handle: emoji, query: 'cat (face', regex: true });
    expect(open.isError).toBe(true);
    expect(open.data.error.code).toBe('QUERY_SYNTAX_ERROR');
    expect(open.data.error.location).toEqual({ position: 4 });
    expect(open.data.error.message).toContain('missing closing )');
    const escape = await call(c.client, 'search', { handle: emoji, query: '😺\\q', regex: true });
    expect(escape.data.error).toMatchObject({ code: 'QUERY_SYNTAX_ERROR', location: { position: 1 } });
    expect(escape.data.error.message).toContain('invalid escape sequence \\q');
    const look = await call(c.client, 'search', { handle: emoji, query: 'cat(?=s)', regex: true });
    expect(look.data.error).toMatchObject({ code: 'QUERY_SYNTAX_ERROR', location: { position: 3 } });
  });

  test('case-insensitive by default: ^d.a finds Diana at /name', async () => {
    const r = await call(c.client, 'search', { handle: people, query: '^d.a', regex: true });
    expect(r.data).toMatchObject({ total_matches: 1, mode: 'text', query: '^d.a', complete: true });
    expect(r.data.matches).toEqual([{ record_index: 3, preview: '{"id":4,"name":"«Dia»na","age":28}', match_path: '/name' }]);
  });

  test('match_case: true is exact', async () => {
    expect((await call(c.client, 'search', { handle: people, query: '^d', regex: true, match_case: true })).data.total_matches).toBe(0);
    expect(indexes(await call(c.client, 'search', { handle: people, query: '^[A-C]', regex: true, match_case: true }))).toEqual([0, 1, 2]);
  });

  test('pages continue with next_cursor; the cursor belongs to the regex search', async () => {
    const first = await call(c.client, 'search', { handle: people, query: 'e', regex: true, max_results: 2 });
    expect(first.data.total_matches).toBe(10); // every record: the member name "name" holds an e
    expect(indexes(first)).toEqual([0, 1]);
    const second = await call(c.client, 'search', { handle: people, query: 'e', regex: true, max_results: 2, cursor: first.data.next_cursor });
    expect(indexes(second)).toEqual([2, 3]);
    const wrong = await call(c.client, 'search', { handle: people, query: 'e', max_results: 2, cursor: second.data.next_cursor });
    expect(wrong.data.error.code).toBe('INVALID_ARGUMENT');
  });

  test('JSONPath search() stays I-Regexp: \\d finds nothing and says why; [0-9] works', async () => {
    const bad = await call(c.client, 'search', { handle: emoji, query: "$.annotations[?search(@, '\\\\d{3}')]" });
    expect(bad.isError).toBe(false);
    expect(bad.data).toMatchObject({ total_matches: 0, mode: 'jsonpath', complete: true });
    expect(bad.data.warnings).toHaveLength(1);
    expect(bad.data.warnings[0].code).toBe('NOT_I_REGEXP');
    expect(bad.data.warnings[0].message).toContain('\\d → [0-9]');
    const good = await call(c.client, 'search', { handle: emoji, query: "$.annotations[?search(@, '[0-9]{3}')]" });
    expect(good.data.total_matches).toBe(1);
    expect(paths(good)).toEqual(['7/annotations/0']);
    expect(good.data.warnings).toBeUndefined();
  });

  test('get_value_at_path and get_outline with a JSONPath carry the same NOT_I_REGEXP warning as search and json_read', async () => {
    // Record 7 is {"emoji":"🔢","name":"input numbers","annotations":["1234"],"n":42}.
    const bad = "$.annotations[?search(@, '\\\\d{3}')]";
    const fromSearch = (await call(c.client, 'search', { handle: emoji, query: bad })).data.warnings;
    const fromReader = (await call(c.client, 'json_read', { path: 'emoji.jsonl', language: 'jsonpath', query: bad })).data.warnings;
    expect(fromSearch).toHaveLength(1);
    expect(fromSearch[0].code).toBe('NOT_I_REGEXP');
    expect(fromSearch[0].message).toContain('\\d → [0-9]');
    expect(fromReader.map((w: any) => ({ code: w.code, message: w.message }))).toEqual(fromSearch);
    // Nothing selected: NOT_FOUND whose hint says why, with the same text.
    const none = await call(c.client, 'get_value_at_path', { handle: emoji, index: 7, path: bad });
    expect(none.data.error).toEqual({
      code: 'NOT_FOUND',
      message: `The JSONPath ${bad} selects nothing in record 7.`,
      hint: `NOT_I_REGEXP: ${fromSearch[0].message} get_outline shows the members of a record.`,
      location: { record_index: 7 },
    });
    const outlineNone = await call(c.client, 'get_outline', { handle: emoji, index: 7, path: bad });
    expect(outlineNone.data.error.code).toBe('NOT_FOUND');
    expect(outlineNone.data.error.hint).toBe(`NOT_I_REGEXP: ${fromSearch[0].message} get_outline without a path shows the top-level members.`);
    // Something selected through the other branch of the filter: the value, and the warning with it.
    const either = "$.annotations[?search(@, '\\\\d') || @ == '1234']";
    const eitherWarnings = (await call(c.client, 'search', { handle: emoji, query: either })).data.warnings;
    expect(eitherWarnings).toHaveLength(1);
    const got = await call(c.client, 'get_value_at_path', { handle: emoji, index: 7, path: either });
    expect(got.isError).toBe(false);
    expect(got.data).toEqual({ value: '"1234"', path: either, value_type: 'string', pointer: '/annotations/0', warnings: eitherWarnings });
    const outlined = await call(c.client, 'get_outline', { handle: emoji, index: 7, path: either });
    expect(outlined.data.pointer).toBe('/annotations/0');
    expect(outlined.data.warnings).toEqual(eitherWarnings);
    // The I-Regexp spelling: no warning.
    const good = await call(c.client, 'get_value_at_path', { handle: emoji, index: 7, path: "$.annotations[?search(@, '[0-9]{3}')]" });
    expect(good.data).toEqual({ value: '"1234"', path: "$.annotations[?search(@, '[0-9]{3}')]", value_type: 'string', pointer: '/annotations/0' });
  });

  test('a JSONPath selecting several nodes: get_value_at_path and get_outline answer the first and say how many there were', async () => {
    // Record 2 is {"emoji":"🐆","name":"leopard","annotations":["bobcat","wildcat","concatenate"]}.
    const several = "$.annotations[?search(@, 'cat')]";
    const expected = JSON.parse(EMOJI[2]!).annotations.filter((a: string) => a.includes('cat'));
    expect(expected).toHaveLength(3);
    const warning = {
      code: 'SEVERAL_NODES',
      message: `The JSONPath selected ${expected.length} nodes; this answer is the first (/annotations/0). search with mode "jsonpath" (or json_read) lists every node.`,
    };
    const got = await call(c.client, 'get_value_at_path', { handle: emoji, index: 2, path: several });
    expect(got.data).toEqual({ value: JSON.stringify(expected[0]), path: several, value_type: 'string', pointer: '/annotations/0', warnings: [warning] });
    const outlined = await call(c.client, 'get_outline', { handle: emoji, index: 2, path: several });
    expect(outlined.data.pointer).toBe('/annotations/0');
    expect(outlined.data.warnings).toEqual([warning]);
    // One node: no warning.
    const one = await call(c.client, 'get_value_at_path', { handle: emoji, index: 2, path: "$.annotations[?@ == 'wildcat']" });
    expect(one.data).toEqual({ value: '"wildcat"', path: "$.annotations[?@ == 'wildcat']", value_type: 'string', pointer: '/annotations/1' });
  });

  test('the reader\'s json_read carries the same warning, with the position of the pattern', async () => {
    const query = "$[?search(@.name, '\\\\bcat\\\\b')].emoji";
    const r = await call(c.client, 'json_read', { path: 'emoji.jsonl', language: 'jsonpath', query });
    expect(r.isError).toBe(false);
    expect(r.data.items).toEqual([]);
    expect(r.data.warnings).toEqual([{ code: 'NOT_I_REGEXP', message: expect.stringContaining('\\b has no I-Regexp spelling'), location: { position: query.indexOf('\\\\b') } }]);
    const plain = await call(c.client, 'json_read', { path: 'emoji.jsonl', language: 'jsonpath', query: "$[?search(@.name, 'cat')].emoji" });
    expect(plain.data.items.map((i: { value: string }) => i.value)).toEqual(['🐱', '😺']);
    expect(plain.data.warnings).toBeUndefined();
  });
});
