/**
 * Field case C31 end to end: week buckets start on Monday (ISO 8601; DuckDB's `time_bucket`, default origin
 * 2000-01-03, a Monday), the answer says the origin, and `bucket.origin` sets another. Through a real MCP client and
 * the built CLI. Expected values: case.json (DuckDB 1.5.6 and Python's date.isocalendar()), DuckDB 1.5.6 itself in
 * process (@duckdb/node-api, the sql bundle's engine) for six widths and three origins; the other widths and
 * origins below were computed in Python as DuckDB defines time_bucket: origin + ⌊(t − origin) / width⌋ × width.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { call, CLI, connect, NODE, REPO, type Connected } from '../../../test/helpers/mcp';

const CASES = path.join(REPO, 'test', 'fixtures', 'cases');
const spec = JSON.parse(fs.readFileSync(path.join(CASES, 'C31', 'case.json'), 'utf8'));

let c: Connected;
let handle: string;
beforeAll(async () => {
  c = await connect(['--root', CASES]);
  handle = (await call(c.client, 'open_file', { path: 'C31/weeks.jsonl' })).data.handle;
});
afterAll(async () => c.close());

const buckets = async (bucket: Record<string, unknown>, metrics: string[] = []) => {
  const r = await call(c.client, 'aggregate', { handle, bucket: { path: 'ts', ...bucket }, metrics, order: 'key_asc' });
  expect(r.isError).toBe(false);
  return r.data;
};

test('C31: "1w" and "7d" buckets start on Monday, as DuckDB\'s and ISO 8601\'s weeks; the answer names the origin', async () => {
  for (const width of ['1w', '7d']) {
    const r = await buckets({ width }, ['min(i)', 'max(i)']);
    expect(r.groups.map((g: any) => ({ key: g.key, count: g.count }))).toEqual(spec.expected.groups);
    // min/max by hand: i=6 is the leap second of 2016-12-31; 1743300000 s (i=7) is 2025-03-30T02:00Z
    expect(r.groups.map((g: any) => [g['min(i)'], g['max(i)']])).toEqual([[6, 6], [0, 0], [1, 7], [5, 5]]);
    expect(r.bucket_origin).toBe('2000-01-03T00:00:00Z');
    for (const g of r.groups) expect(new Date(g.key).getUTCDay()).toBe(1); // Monday
  }
});

test('C31 control: "1d" buckets are unchanged (00:00Z)', async () => {
  const r = await buckets({ width: '1d' });
  expect(Object.fromEntries(r.groups.map((g: any) => [g.key, g.count]))).toEqual(spec.extra_checks[1].expected);
});

test('bucket.origin sets the start: the Unix epoch gives Thursday weeks (the old answer), an offset is honoured', async () => {
  const thursday = await buckets({ width: '1w', origin: '1970-01-01' });
  // the case's notes: the product's answer before (epoch weeks) — 2016-12-29 (1), 2025-03-20 (3), 2025-03-27 (4)
  expect(thursday.groups.map((g: any) => [g.key, g.count])).toEqual([['2016-12-29T00:00:00Z', 1], ['2025-03-20T00:00:00Z', 3], ['2025-03-27T00:00:00Z', 4]]);
  expect(thursday.bucket_origin).toBe('1970-01-01T00:00:00Z');
  // Sundays at 00:00 in UTC-5 (Python: origin 2025-01-05T05:00Z, 7-day steps)
  const sunday = await buckets({ width: '1w', origin: '2025-01-05T00:00:00-05:00' });
  expect(sunday.bucket_origin).toBe('2025-01-05T05:00:00Z');
  expect(sunday.groups.map((g: any) => [g.key, g.count])).toEqual([['2016-12-25T05:00:00Z', 1], ['2025-03-23T05:00:00Z', 6], ['2025-03-30T05:00:00Z', 1]]);
});

test('other widths lie as DuckDB\'s: "2d" and "7h" from 2000-01-03 (Python reference)', async () => {
  // Python: origin + (t - origin) // width * width over the eight timestamps (the leap second as 23:59:59.999)
  const two = await buckets({ width: '2d' });
  expect(two.groups.map((g: any) => [g.key, g.count])).toEqual([
    ['2016-12-30T00:00:00Z', 1], ['2025-03-22T00:00:00Z', 1], ['2025-03-24T00:00:00Z', 1], ['2025-03-26T00:00:00Z', 2], ['2025-03-28T00:00:00Z', 1], ['2025-03-30T00:00:00Z', 2],
  ]);
  const seven = await buckets({ width: '7h' });
  expect(seven.groups.map((g: any) => [g.key, g.count])).toEqual([
    ['2016-12-31T20:00:00Z', 1], ['2025-03-23T17:00:00Z', 1], ['2025-03-24T00:00:00Z', 1], ['2025-03-26T08:00:00Z', 1], ['2025-03-26T22:00:00Z', 1], ['2025-03-29T20:00:00Z', 2], ['2025-03-31T00:00:00Z', 1],
  ]);
});

test('a bad origin is INVALID_ARGUMENT with a hint; an origin with a number width too', async () => {
  for (const bucket of [{ width: '1w', origin: 'monday' }, { width: '1w', origin: '2025-02-30' }, { width: 10, origin: '2000-01-03' }]) {
    const r = await call(c.client, 'aggregate', { handle, bucket: { path: 'ts', ...bucket } });
    expect(r.isError).toBe(true);
    expect(r.data.error.code).toBe('INVALID_ARGUMENT');
    expect(r.data.error.message).toMatch(/bucket\.origin/);
  }
});

test('the CLI: mcpgw aggregate --bucket ts:1w prints Monday keys and the origin; --bucket-origin sets it', () => {
  const run = (...args: string[]) => spawnSync(NODE, [CLI, 'aggregate', path.join(CASES, 'C31', 'weeks.jsonl'), '--bucket', 'ts:1w', '-o', 'key_asc', ...args], { encoding: 'utf8' });
  const r = run();
  expect(r.status).toBe(0);
  expect(r.stdout.split('\n').slice(2, 6).map((l) => l.split(/\s+/))).toEqual(spec.expected.groups.map((g: any) => [g.key, String(g.count)]));
  expect(r.stdout).toMatch(/time buckets from 2000-01-03T00:00:00Z/);
  const j = run('--json', '--bucket-origin', '1970-01-01');
  expect(JSON.parse(j.stdout).groups[0].key).toBe('2016-12-29T00:00:00Z');
});

test('every width and origin lies as DuckDB 1.5.6 time_bucket says (the peer itself, in process)', async () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { DuckDBInstance } = require('@duckdb/node-api') as typeof import('@duckdb/node-api');
  const db = await DuckDBInstance.create(':memory:');
  const conn = await db.connect();
  // the case's eight instants in UTC milliseconds (the leap second as 23:59:59.999, as the docs bucket it)
  const instants = fs.readFileSync(path.join(CASES, 'C31', 'weeks.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l).ts as string | number)
    .map((ts) => (typeof ts === 'number' ? ts * 1000 : ts.includes(':60') ? Date.parse(ts.replace(':60', ':59.999')) : Date.parse(ts)));
  const widths: [string, string][] = [['1w', '1 week'], ['7d', '7 days'], ['2d', '2 days'], ['7h', '7 hours'], ['1d', '1 day'], ['15m', '15 minutes']];
  const origins: [string | undefined, string | undefined][] = [[undefined, undefined], ['1970-01-01', "TIMESTAMP '1970-01-01'"], ['2025-01-05T00:00:00-05:00', "TIMESTAMP '2025-01-05 05:00:00'"]];
  for (const [width, interval] of widths) {
    for (const [origin, sqlOrigin] of origins) {
      const r = await conn.runAndReadAll(`SELECT epoch_ms(time_bucket(INTERVAL '${interval}', make_timestamp(t * 1000)${sqlOrigin ? `, ${sqlOrigin}` : ''}))::BIGINT AS b, count(*)::INTEGER AS n FROM (SELECT unnest([${instants.join(',')}]::BIGINT[]) AS t) GROUP BY b ORDER BY b`);
      const duck = r.getRowObjects().map((row) => [new Date(Number(row.b)).toISOString().replace('.000Z', 'Z'), row.n]);
      const ours = await buckets({ width, ...(origin ? { origin } : {}) });
      expect([width, origin, ours.groups.map((g: any) => [g.key, g.count])]).toEqual([width, origin, duck]);
    }
  }
  conn.closeSync();
});
