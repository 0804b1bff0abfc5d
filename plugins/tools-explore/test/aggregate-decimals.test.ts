/**
 * Exact sums, averages and numeric bucket keys print in plain positional form end to end (the tool's text and
 * structuredContent on the wire, the CLI's --json and its table): an integer as its digits however large, a small
 * decimal with its leading zeros; the exponent form only past 40 padding zeros. Expected values computed here with
 * BigInt. And a leap second (`23:59:60`) buckets with the minute it names.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { call, CLI, connect, NODE, type Connected } from '../../../test/helpers/mcp';

const LINES = [
  '{"g":"a","n":12345678901234567890123,"f":1e-7}',
  '{"g":"a","n":6426802993820582989828,"f":2e-7}',
  '{"g":"b","n":6426802993820582989829,"f":0.5e-9}',
  '{"g":"b","n":1e30,"f":1.5e-41}',
  '{"g":"c","n":1e45,"f":1e-45}',
];
let dir: string;
let c: Connected;
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-aggregate-decimals-'));
  fs.writeFileSync(path.join(dir, 'big.jsonl'), LINES.join('\n') + '\n');
  fs.copyFileSync(path.join(__dirname, '..', '..', '..', 'test', 'fixtures', 'edges', 'ts.jsonl'), path.join(dir, 'ts.jsonl'));
  c = await connect(['--root', dir], { cwd: dir });
}, 60_000);
afterAll(async () => {
  await c?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const a1 = 12345678901234567890123n, a2 = 6426802993820582989828n, b1 = 6426802993820582989829n, b2 = 10n ** 30n;
/** The expected members per group, as JSON text (exact digits). */
const EXPECTED: Record<string, string[]> = {
  a: [`"sum(n)":${a1 + a2}`, `"avg(n)":${(a1 + a2) / 2n}.5`, '"sum(f)":0.0000003'],
  b: [`"sum(n)":${b1 + b2}`, `"avg(n)":${(b1 + b2) / 2n}.5`, `"sum(f)":0.${'0'.repeat(9)}5${'0'.repeat(30)}15`],
  c: ['"sum(n)":1e+45', '"avg(n)":1e+45', '"sum(f)":1e-45'], // past 40 padding zeros: the exponent form
};

test('sum and avg of big integers and small decimals: plain digits in the tool\'s answer', async () => {
  const h = (await call(c.client, 'open_file', { path: 'big.jsonl' })).data.handle;
  const r = await call(c.client, 'aggregate', { handle: h, group_by: 'g', metrics: ['sum(n)', 'avg(n)', 'sum(f)'], order: 'key_asc' });
  expect(r.isError).toBe(false);
  const groups = JSON.parse(r.text).groups as unknown[];
  expect(groups).toHaveLength(3);
  const texts = r.text.split('{"key":').slice(1);
  ['a', 'b', 'c'].forEach((g, k) => {
    expect(texts[k]!.startsWith(`"${g}"`)).toBe(true);
    for (const member of EXPECTED[g]!) expect(texts[k]).toContain(member);
  });
  expect(r.text).toContain(`"sum(n)":${a1 + a2},`);
  expect(r.text).not.toMatch(/"(sum|avg)\(n\)":[0-9.]+e\+2/);
});

test('numeric bucket keys past 1e21 are plain digits', async () => {
  const h = (await call(c.client, 'open_file', { path: 'big.jsonl' })).data.handle;
  const r = await call(c.client, 'aggregate', { handle: h, bucket: { path: 'n', width: '1e21' }, order: 'key_asc' });
  expect(r.isError).toBe(false);
  const w = 10n ** 21n;
  const keys = [a2, b1, a1, b2].map((n) => (n / w) * w);
  expect(r.text).toContain(`"groups":[{"key":${keys[0]},"count":2},{"key":${keys[2]},"count":1},{"key":${keys[3]},"count":1},{"key":1e+45,"count":1}]`);
});

test('the CLI prints the same digits, in --json and in its table', () => {
  const run = (...args: string[]) => spawnSync(NODE, [CLI, 'aggregate', 'big.jsonl', ...args], { cwd: dir, encoding: 'utf8', env: { PATH: process.env.PATH ?? '', XDG_CACHE_HOME: process.env.XDG_CACHE_HOME ?? '' } });
  const json = run('--group-by', 'g', '--metric', 'sum(n)', '--metric', 'sum(f)', '--order', 'key_asc', '--json');
  expect(json.status).toBe(0);
  expect(json.stdout).toContain(`"sum(n)":${a1 + a2},"sum(f)":0.0000003`);
  const table = run('--metric', 'sum(n)');
  expect(table.status).toBe(0);
  expect(table.stdout).toContain(String(a1 + a2 + b1 + b2 + 10n ** 45n));
});

test('a leap second (2016-12-31T23:59:60Z) is in the day, hour and minute it names (RFC 3339 §5.7)', async () => {
  const h = (await call(c.client, 'open_file', { path: 'ts.jsonl' })).data.handle;
  for (const [width, start] of [['1d', '2016-12-31T00:00:00Z'], ['1h', '2016-12-31T23:00:00Z'], ['1m', '2016-12-31T23:59:00Z'], ['1s', '2016-12-31T23:59:59Z']]) {
    const r = await call(c.client, 'aggregate', { handle: h, where: '$.i == 0', bucket: { path: 'ts', width } });
    expect([width, r.data.groups]).toEqual([width, [{ key: start, count: 1 }]]);
  }
  // the next records: 08:15 in two spellings, before 1970, epoch seconds (99999999999: in year 5138) and milliseconds (from 1e11)
  const all = await call(c.client, 'aggregate', { handle: h, where: '$.i <= 8', bucket: { path: 'ts', width: '1d' }, order: 'key_asc' });
  expect(all.data.groups).toEqual([
    { key: '1900-01-01T00:00:00Z', count: 1 },
    { key: '1969-12-30T00:00:00Z', count: 1 },
    { key: '1969-12-31T00:00:00Z', count: 2 },
    { key: '1973-03-03T00:00:00Z', count: 1 },
    { key: '2016-12-31T00:00:00Z', count: 1 },
    { key: '2025-03-01T00:00:00Z', count: 2 },
    { key: '5138-11-16T00:00:00Z', count: 1 },
  ]);
});
