/**
 * Numbers compare by value, exactly, in every tool that compares them, through a real MCP client (the tools served
 * in-process, test/helpers/in-process.ts) and the built CLI (its main() in one process, test/helpers/cli-host.ts):
 * search with a JSONPath filter, search with a record predicate, json_read, and `mcpgw query`, on numbers a double
 * gets wrong (a positive number whose double is 0, decimals past 17 digits, 1e400 vs 1e401, 10^1500 + 1 vs 10^1500,
 * an exponent of 20 digits, -0).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { call } from '../helpers/mcp';
import { startCliHost, type CliHost } from '../helpers/cli-host';
import { serveInProcess, type Served } from '../helpers/in-process';

const TINY = '0.' + '0'.repeat(400) + '1'; // 10^-401: positive, and its double is 0
const E1500 = '1' + '0'.repeat(1500);
/** 10^300: a double holds it (1e300), and 10^300 + 1 as the same double; short enough for aggregate keys shown whole. */
const E300 = '1' + '0'.repeat(300);
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
let c: Served;
let host: CliHost;

beforeAll(async () => {
  base = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-numbers-'));
  root = path.join(base, 'data');
  fs.mkdirSync(root);
  fs.writeFileSync(path.join(root, 'nums.jsonl'), X.map((x) => `{"x":${x}}`).join('\n') + '\n');
  fs.writeFileSync(path.join(root, 'agg.jsonl'), X.map((x, i) => `{"x":${i === 8 ? E300.slice(0, -1) + '1' : i === 9 ? E300 : x}}`).join('\n') + '\n');
  c = await serveInProcess({ root });
  host = startCliHost();
});
afterAll(async () => {
  try { await c?.close(); await host?.close(); } finally { fs.rmSync(base, { recursive: true, force: true }); }
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

describe('aggregate: groups, key order, min and max by exact value (10^300 in place of 10^1500)', () => {
  let handle: string;
  beforeAll(async () => {
    handle = (await call(c.client, 'open_file', { path: 'agg.jsonl' })).data.handle;
  });
  /** The server's own text (the client's JSON.parse would round the keys). */
  const groups = (text: string) => [...text.matchAll(/\{"key":(.*?),"count":(\d+)/g)].map((m) => [m[1], Number(m[2])]);

  test('group_by x, key order: one group per value (0 and -0 one group), in exact order, the file\'s lexemes', async () => {
    const r = await call(c.client, 'aggregate', { handle, group_by: 'x', order: 'key_asc', top: 50 });
    expect(r.isError).toBe(false);
    expect(r.data.groups_total).toBe(12);
    expect(groups(r.text)).toEqual([
      ['-' + TINY, 1], ['0', 2], ['1e-99999999999999999999', 1], [TINY, 1], ['0.1', 1], ['0.1000000000000000000001', 1],
      ['2.50e1', 1], [E300, 1], [E300.slice(0, -1) + '1', 1], ['1e400', 1], ['1e401', 1], ['"0.5"', 1],
    ]);
  });

  test('min and max: -10^-401 and 1e401 (numbers beat strings), 10^300 + 1 over 10^300; where by predicate', async () => {
    const r = await call(c.client, 'aggregate', { handle, metrics: ['min(x)', 'max(x)'] });
    expect(r.text).toContain(`"min(x)":-${TINY},"max(x)":1e401`);
    const big = await call(c.client, 'aggregate', { handle, where: '$.x > 1e299 && $.x < 1e301', metrics: ['min(x)', 'max(x)'] });
    expect(big.data.records_matched).toBe(2);
    expect(big.text).toContain(`"min(x)":${E300},"max(x)":${E300.slice(0, -1)}1`);
    const pos = await call(c.client, 'aggregate', { handle, where: '$.x > 0 && $.x < 1e-400', metrics: ['min(x)', 'max(x)'] });
    expect(pos.data.records_matched).toBe(2);
    expect(pos.text).toContain(`"min(x)":1e-99999999999999999999,"max(x)":${TINY}`);
  });
});

describe('mcpgw query', () => {
  const run = async (query: string) => {
    const p = await host.run(['query', 'nums.jsonl', query], root, { PATH: process.env.PATH ?? '', XDG_CACHE_HOME: process.env.XDG_CACHE_HOME ?? '' });
    return { code: p.status, err: p.stderr, paths: p.stdout.split('\n').filter(Boolean).map((l) => /^\{"path":"([^"]*)"/.exec(l)![1]) };
  };

  /** The filters the string "0.5" (record 12) would meet as a number: the CLI says so on stderr, as the tools do. */
  const NUMBER_LIKE = new Set(['@.x > 0', '@.x > 0.1', '@.x >= 0.1000000000000000000001']);

  test.each(CASES)('$[?%s]', async (filter, want) => {
    const r = await run(`$[?${filter}]`);
    expect(r.err).toBe(NUMBER_LIKE.has(filter)
      ? `mcpgw: warning (NUMBER_LIKE_STRINGS): In 1 record ${filter} passed by a string that reads as a number meeting it (such as "42.5"): JSONPath (RFC 9535) never compares a string with a number. To compare such strings as numbers write number(@.x) ${filter.slice(4)}.\n`
      : '');
    expect(r.code).toBe(0);
    expect(r.paths).toEqual(want.map((i) => `/${i}`));
  });
});
