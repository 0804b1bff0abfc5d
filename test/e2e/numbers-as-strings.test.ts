/**
 * Numbers stored as strings (`"lat": "42.53176"`): RFC 9535 never compares a string with a number, and sum/avg leave
 * strings out — correct, and said: a predicate that compares a path with a number says how many records hold a
 * number-like string there (NUMBER_LIKE_STRINGS), `number(...)` compares them as numbers, and aggregate metrics say how
 * many such strings they met and read them as numbers with `sum(number(lat))`. A sum whose exact range is exceeded is
 * rounded to 4,000 digits, never null. Through the real MCP client; expected values from Python (json, decimal).
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { call, connect, type Connected } from '../helpers/mcp';

const PYTHON = String.raw`
import json, random, sys
from decimal import Decimal, getcontext
getcontext().prec = 100
random.seed(31)
rows = []
for i in range(2000):
    lat = round(random.uniform(-90, 90), 5)
    rows.append({"i": i, "lat": (str(lat) if i % 3 == 0 else lat), "g": "s" if i % 3 == 0 else "n"})
rows.append({"i": 2000, "lat": "n/a", "g": "x"})
open(sys.argv[1], 'w').write(''.join(json.dumps(r) + '\n' for r in rows))
# nested: each record's items, prices as numbers or as strings
nested = []
for i in range(500):
    items = [{"price": (str(p) if random.random() < 0.3 else p)} for p in (round(random.uniform(0, 20), 2) for _ in range(random.randint(0, 4)))]
    nested.append({"id": i, "items": items})
open(sys.argv[2], 'w').write(''.join(json.dumps(r) + '\n' for r in nested))
num_price = lambda it: isinstance(it['price'], float) and it['price'] > 10
str_price = lambda it: isinstance(it['price'], str) and float(it['price']) > 10
num = [r for r in rows if isinstance(r['lat'], float)]
strs = [r for r in rows if isinstance(r['lat'], str) and r['lat'] != 'n/a']
print(json.dumps({
  'numbers_over': sum(1 for r in num if r['lat'] > 66.5),
  'all_over': sum(1 for r in num + strs if float(r['lat']) > 66.5),
  'strings': len(strs),
  'missed': sum(1 for r in strs if float(r['lat']) > 66.5),
  'nested_matched': sum(1 for r in nested if any(num_price(it) for it in r['items'])),
  'nested_missed': sum(1 for r in nested if any(str_price(it) for it in r['items'])),
  'sum_numbers': str(sum(Decimal(json.dumps(r['lat'])) for r in num)),
  'sum_all': str(sum(Decimal(r['lat'] if isinstance(r['lat'], str) else json.dumps(r['lat'])) for r in num + strs)),
}))
`;

let dir: string;
let c: Connected;
let handle: string;
let py: { numbers_over: number; all_over: number; strings: number; missed: number; nested_matched: number; nested_missed: number; sum_numbers: string; sum_all: string };

beforeAll(async () => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-numstr-')));
  py = JSON.parse(execFileSync('python3', ['-c', PYTHON, path.join(dir, 'geo.jsonl'), path.join(dir, 'nested.jsonl')], { encoding: 'utf8' }));
  // a sum past the exact range: 1e308 + 1e308 + 1e-5000 (Python Decimal: 2E+308 to 4,000 digits)
  fs.writeFileSync(path.join(dir, 'huge.jsonl'), '{"v":1e308}\n{"v":1e308}\n{"v":1e-5000}\n');
  c = await connect(['--root', dir]);
  handle = (await call(c.client, 'open_file', { path: 'geo.jsonl' })).data.handle;
});
afterAll(async () => {
  await c.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('a predicate comparing with a number says in how many records it passed by a number-like string meeting it', async () => {
  const r = await call(c.client, 'search', { handle, query: '$.lat > 66.5', max_results: 0 });
  expect(r.data.total_matches).toBe(py.numbers_over);
  const w = r.data.warnings.find((x: any) => x.code === 'NUMBER_LIKE_STRINGS');
  expect(py.missed).toBeGreaterThan(0);
  expect(w.message).toContain(`In ${py.missed} records $.lat > 66.5 passed by a string that reads as a number meeting it`);
  expect(w.message).toContain('write number($.lat) > 66.5');
  // no warning where no string met the comparison
  const none = await call(c.client, 'search', { handle, query: '$.i > 1990', max_results: 0 });
  expect(none.data.total_matches).toBe(10);
  expect(none.data.warnings?.some((x: any) => x.code === 'NUMBER_LIKE_STRINGS') ?? false).toBe(false);
});

test('number() compares them as numbers: in a predicate and in JSONPath', async () => {
  const r = await call(c.client, 'search', { handle, query: 'number($.lat) > 66.5', max_results: 0 });
  expect(r.data.total_matches).toBe(py.all_over);
  expect(r.data.warnings?.some((x: any) => x.code === 'NUMBER_LIKE_STRINGS') ?? false).toBe(false);
  const read = await call(c.client, 'json_read', { path: 'geo.jsonl', language: 'jsonpath', query: '$[?number(@.lat) > 66.5].i', max_items: 1000 });
  expect(read.data.items.length).toBe(py.all_over);
});

test('metrics say how many number-like strings they met; sum(number(lat)) reads them as numbers', async () => {
  const r = await call(c.client, 'aggregate', { handle, metrics: ['sum(lat)', 'sum(number(lat))', 'max(lat)'] });
  expect(r.isError).toBe(false);
  const g = r.data.groups[0];
  expect(String(g['sum(lat)'])).toBe(py.sum_numbers);
  expect(String(g['sum(number(lat))'])).toBe(py.sum_all);
  const codes = r.data.warnings.filter((x: any) => x.code === 'NUMBER_LIKE_STRINGS').map((x: any) => x.message);
  expect(codes).toEqual([
    expect.stringMatching(new RegExp(`^sum\\(lat\\) met ${py.strings} strings holding a number .* it left out; sum\\(number\\(lat\\)\\) reads them as numbers`)),
    expect.stringMatching(new RegExp(`^max\\(lat\\) met ${py.strings} strings holding a number`)),
  ]);
});

test('a sum past the exact range is rounded to 4,000 digits and said, never null', async () => {
  const h = (await call(c.client, 'open_file', { path: 'huge.jsonl' })).data.handle;
  const r = await call(c.client, 'aggregate', { handle: h, metrics: ['sum(v)', 'avg(v)'] });
  const g = r.data.groups[0];
  // on the wire the exact lexeme (a JavaScript client reads it as Infinity; the text keeps it):
  // Python: Decimal('1e308') * 2 + Decimal('1e-5000') rounded to 4,000 digits is 2E+308, its third 6.666…E+307
  expect(r.text).toMatch(/"sum\(v\)":2e\+308[,}]/);
  expect(r.text).toMatch(/"avg\(v\)":6\.6{30,}6?7?e\+307[,}]/);
  expect(g['sum(v)']).not.toBeNull();
  expect(r.data.warnings.map((w: any) => w.code)).toContain('INEXACT_SUM');
});

test('aggregate where says it too, and number() in where counts them', async () => {
  const r = await call(c.client, 'aggregate', { handle, where: '$.lat > 66.5' });
  expect(r.data.records_matched).toBe(py.numbers_over);
  expect(r.data.warnings.find((w: any) => w.code === 'NUMBER_LIKE_STRINGS').message).toContain(`In ${py.missed} records $.lat > 66.5 passed by`);
  const n = await call(c.client, 'aggregate', { handle, where: 'number($.lat) > 66.5' });
  expect(n.data.records_matched).toBe(py.all_over);
  expect(n.data.warnings?.some((w: any) => w.code === 'NUMBER_LIKE_STRINGS') ?? false).toBe(false);
});

test('the reader says it too: json_read of $[?@.lat > 66.5] (Python: the numbers over 66.5 only)', async () => {
  const r = await call(c.client, 'json_read', { path: 'geo.jsonl', language: 'jsonpath', query: '$[?@.lat > 66.5].i', max_items: 1000 });
  // the filter runs on the records ($[?…]); the ids of those whose lat is a number over 66.5
  expect(r.data.items.length).toBe(py.numbers_over);
  expect(r.data.warnings.find((w: any) => w.code === 'NUMBER_LIKE_STRINGS').message).toContain(`In ${py.missed} records @.lat > 66.5 passed by`);
  const plain = await call(c.client, 'json_read', { path: 'geo.jsonl', language: 'jsonpath', query: '$[?@.lat > 66.5]', max_items: 1000 });
  expect(plain.data.items.length).toBe(py.numbers_over);
  expect(plain.data.warnings.find((w: any) => w.code === 'NUMBER_LIKE_STRINGS').message).toContain(`In ${py.missed} records @.lat > 66.5 passed by a string that reads as a number meeting it`);
});

describe('a comparison in a nested filter (Python: records with an item whose price, a string, reads as a number over 10)', () => {
  let nested: string;
  beforeAll(async () => { nested = (await call(c.client, 'open_file', { path: 'nested.jsonl' })).data.handle; });

  test('JSONPath-mode search of $.items[?@.price > 10]', async () => {
    const r = await call(c.client, 'search', { handle: nested, query: '$.items[?@.price > 10]', max_results: 0 });
    expect(r.data.total_matches).toBeGreaterThanOrEqual(py.nested_matched); // counts matches (items) or records
    const w = r.data.warnings.find((x: any) => x.code === 'NUMBER_LIKE_STRINGS');
    expect(py.nested_missed).toBeGreaterThan(0);
    expect(w.message).toContain(`In ${py.nested_missed} records @.price > 10 passed by a string that reads as a number meeting it`);
    expect(w.message).toContain('write number(@.price) > 10');
  });

  test('aggregate where and json_read with the same nested filter', async () => {
    const a = await call(c.client, 'aggregate', { handle: nested, where: '$.items[?@.price > 10]' });
    expect(a.data.records_matched).toBe(py.nested_matched);
    expect(a.data.warnings.find((w: any) => w.code === 'NUMBER_LIKE_STRINGS').message).toContain(`In ${py.nested_missed} records @.price > 10 passed by`);
    const j = await call(c.client, 'json_read', { path: 'nested.jsonl', language: 'jsonpath', query: '$[*].items[?@.price > 10]', count: true });
    expect(j.data.warnings.find((w: any) => w.code === 'NUMBER_LIKE_STRINGS').message).toContain(`In ${py.nested_missed} records @.price > 10 passed by`);
  });

  test('no note when number() compares them, or when no string meets the comparison', async () => {
    const r = await call(c.client, 'search', { handle: nested, query: '$.items[?number(@.price) > 10]', max_results: 0 });
    expect(r.data.warnings?.some((x: any) => x.code === 'NUMBER_LIKE_STRINGS') ?? false).toBe(false);
    const none = await call(c.client, 'search', { handle: nested, query: '$.items[?@.price > 1000]', max_results: 0 });
    expect(none.data.warnings?.some((x: any) => x.code === 'NUMBER_LIKE_STRINGS') ?? false).toBe(false);
  });
});
