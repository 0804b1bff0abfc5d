/**
 * Numbers compare by value, exactly, in every tool that compares them, through a real MCP client and the built CLI:
 * search with a JSONPath filter, search with a record predicate, json_read, and `mcpgw query`, on numbers a double
 * gets wrong (a positive number whose double is 0, decimals past 17 digits, 1e400 vs 1e401, 10^1500 + 1 vs 10^1500,
 * an exponent of 20 digits, -0).
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { call, CLI, connect, NODE, type Connected } from '../helpers/mcp';

const TINY = '0.' + '0'.repeat(400) + '1'; // 10^-401: positive, and its double is 0
const E1500 = '1' + '0'.repeat(1500);
/** Record i is {"x": X[i]}. */
const X = [
  TINY, //                            0  10^-401
  '0', //                             1
  '-0', //                            2
  '-' + TINY, //                      3  -10^-401
  '0.1000000000000000000001', //      4  (its double is 0.1)
  '0.1', //                           5
  '1e400', //                         6  (its double is Infinity)
  '1e401', //                         7  (Infinity too)
  E1500.slice(0, -1) + '1', //        8  10^1500 + 1
  E1500, //                           9  10^1500
  '2.50e1', //                       10  25
  '1e-99999999999999999999', //      11  positive, exponent of 20 digits
  '"0.5"', //                        12  a string: never a number
];

/** Filters on x and the record indexes they select, worked out by hand from the values above. */
const CASES: [string, number[]][] = [
  ['@.x > 0', [0, 4, 5, 6, 7, 8, 9, 10, 11]],
  ['@.x == 0', [1, 2]],
  ['@.x == -0', [1, 2]],
  ['@.x < 0', [3]],
  ['@.x == 0.1', [5]],
  ['@.x > 0.1', [4, 6, 7, 8, 9, 10]],
  ['@.x >= 0.1000000000000000000001', [4, 6, 7, 8, 9, 10]],
  ['@.x > 1e400', [7, 8, 9]],
  ['@.x == 1E1500', [9]],
  ['@.x > 1E1500', [8]],
  ['@.x == 25', [10]],
  ['@.x > 0 && @.x < 1e-400', [0, 11]],
];

let base: string;
let root: string;
let c: Connected;

beforeAll(async () => {
  base = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-numbers-'));
  root = path.join(base, 'data');
  fs.mkdirSync(root);
  fs.writeFileSync(path.join(root, 'nums.jsonl'), X.map((x) => `{"x":${x}}`).join('\n') + '\n');
  c = await connect(['--root', root]);
});
afterAll(async () => {
  try { await c?.close(); } finally { fs.rmSync(base, { recursive: true, force: true }); }
});

describe('numbers compare by value in every tool', () => {
  let handle: string;
  beforeAll(async () => {
    handle = (await call(c.client, 'open_file', { path: 'nums.jsonl' })).data.handle;
  });

  test.each(CASES)('search, JSONPath filter over each record: $[?%s]', async (filter, want) => {
    const r = await call(c.client, 'search', { handle, query: `$[?${filter.replace(/@\.x/g, '@')}]`, mode: 'jsonpath' });
    expect(r.isError).toBe(false);
    expect(r.data.matches.map((m: any) => m.record_index)).toEqual(want);
    expect(r.data.complete).toBe(true);
  });

  test.each(CASES)('search, record predicate: %s', async (filter, want) => {
    const r = await call(c.client, 'search', { handle, query: filter.replace(/@/g, '$') });
    expect(r.data.mode).toBe('jsonpath');
    expect(r.data.filter).toBeDefined();
    expect(r.data.matches.map((m: any) => m.record_index)).toEqual(want);
  });

  test.each(CASES)('json_read: $[?%s]', async (filter, want) => {
    const r = await call(c.client, 'json_read', { path: 'nums.jsonl', language: 'jsonpath', query: `$[?${filter}]` });
    expect(r.isError).toBe(false);
    expect(r.data.items.map((n: any) => n.path)).toEqual(want.map((i) => `/${i}`));
  });

  test('the selected values come back digit for digit', async () => {
    const r = await call(c.client, 'json_read', { path: 'nums.jsonl', language: 'jsonpath', query: '$[?@.x > 0 && @.x < 1e-400].x' });
    // structuredContent parsed by the client would round the numbers: read the text the server wrote.
    expect(r.text).toContain(`"value":${TINY}`);
    expect(r.text).toContain('"value":1e-99999999999999999999');
  });
});

describe('mcpgw query', () => {
  const run = (query: string) => {
    const p = spawnSync(NODE, [CLI, 'query', 'nums.jsonl', query], { cwd: root, encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } });
    return { code: p.status, err: p.stderr, paths: p.stdout.split('\n').filter(Boolean).map((l) => /^\{"path":"([^"]*)"/.exec(l)![1]) };
  };

  test.each(CASES)('$[?%s]', (filter, want) => {
    const r = run(`$[?${filter}]`);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.paths).toEqual(want.map((i) => `/${i}`));
  });
});
