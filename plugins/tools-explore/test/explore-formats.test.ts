import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { call, connect, type Connected } from '../../../test/helpers/mcp';

/**
 * Every explorer tool on .json (array and single object), .jsonl and .json-seq files holding the same records
 * gives the same answers; only the file's own facts (path, file_type, format, size) differ.
 */
const RECORDS = [
  '{"id":1,"name":"Alice","age":30,"tags":["a","b"],"user":{"city":"Caf\\u00e9"},"big":12345678901234567891}',
  '{"id":2,"name":"Bob","age":25.5,"tags":[],"user":{"city":"Paris"},"note":null}',
  '{"id":3,"name":"Élodie","age":41,"tags":["c"],"user":{"city":"Lyon","zip":"69001"},"items":[{"sku":"x","qty":2},{"sku":"y"}]}',
  '{"id":4,"name":"Dan","age":41,"tags":["a"],"user":{"city":"Nice"}}',
];

let dir: string;
let c: Connected;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-formats-'));
  fs.writeFileSync(path.join(dir, 'recs.jsonl'), RECORDS.join('\n') + '\n');
  fs.writeFileSync(path.join(dir, 'recs.json'), '[\n  ' + RECORDS.join(',\n  ') + '\n]\n');
  fs.writeFileSync(path.join(dir, 'recs.json-seq'), RECORDS.map((r) => `\x1e${r}\n`).join(''));
  fs.writeFileSync(path.join(dir, 'one.json'), RECORDS[2] + '\n');
  fs.writeFileSync(path.join(dir, 'one.jsonl'), RECORDS[2] + '\n');
  // A single document over 1 MiB: get_outline and get_value_at_path reach inside it lazily.
  const features = Array.from({ length: 12000 }, (_, i) => ({ type: 'Feature', properties: { name: `f${i}`, pop: i * 10 }, geometry: { type: 'Point', coordinates: [i / 7, -i / 3] } }));
  fs.writeFileSync(path.join(dir, 'big.geojson.json'), JSON.stringify({ type: 'FeatureCollection', name: 'places', features }));
  c = await connect(['--root', dir]);
});
afterAll(async () => {
  await c.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** The calls an assistant makes, with the handle filled in. */
function calls(count: number): [string, Record<string, unknown>][] {
  const last = count - 1;
  return [
    ['get_record_count', {}],
    ['get_record', { index: last }],
    ['get_record', { index: 0, fields: ['name', 'user.city', '/big'] }],
    ['get_value_at_path', { index: 0, path: 'user.city' }],
    ['get_value_at_path', { index: 0, path: '$.big' }],
    ['get_value_at_path', { index: last, path: 'items[-1].sku' }],
    ['extract_keys', {}],
    ['extract_keys', { path: 'user' }],
    ['sample_records', { count: 3, strategy: 'even' }],
    ['sample_records', { count: 2, strategy: 'last', fields: ['id'] }],
    ['get_schema', {}],
    ['get_outline', { index: 0, depth: 1 }],
    ['search', { query: 'é' }],
    ['search', { query: 'PARIS' }],
    ['search', { query: '$.user.zip' }],
    ['search', { query: '$.age > 40' }],
    ['search', { query: '$.name = "élodie"' }],
    ['search', { query: '$.tags[?@ == "a"]', max_results: 1 }],
  ];
}

async function answers(file: string) {
  const opened = await call(c.client, 'open_file', { path: file });
  expect(opened.isError).toBe(false);
  const handle = opened.data.handle;
  const out: Record<string, unknown> = {};
  for (const [name, args] of calls(opened.data.record_count)) {
    const r = await call(c.client, name, { handle, ...args });
    const data = { ...r.data };
    delete data.next_cursor; // opaque ids differ
    out[`${name} ${JSON.stringify(args)}`] = { isError: r.isError, data };
  }
  const info = await call(c.client, 'get_file_info', { handle });
  await call(c.client, 'close_file', { handle });
  return { opened: opened.data, info: info.data, out };
}

test('a JSON array, JSON Lines and JSON-seq give the same answers to every tool', async () => {
  const jsonl = await answers('recs.jsonl');
  const json = await answers('recs.json');
  const seq = await answers('recs.json-seq');
  expect(jsonl.opened).toMatchObject({ file_type: 'ndjson', format: 'jsonl', record_count: 4 });
  expect(json.opened).toMatchObject({ file_type: 'json_array', format: 'json', record_count: 4 });
  expect(seq.opened).toMatchObject({ file_type: 'json_seq', format: 'json-seq', record_count: 4 });
  expect(json.out).toEqual(jsonl.out);
  expect(seq.out).toEqual(jsonl.out);
  // and the answers are the right ones
  expect(jsonl.out['get_value_at_path {"index":0,"path":"$.big"}']).toMatchObject({ data: { value: '12345678901234567891', integer: true } });
  expect((jsonl.out['search {"query":"$.age > 40"}'] as any).data).toMatchObject({ total_matches: 2, matches: [{ record_index: 2 }, { record_index: 3 }] });
  expect((jsonl.out['search {"query":"é"}'] as any).data.matches.map((m: any) => [m.record_index, m.match_path])).toEqual([[0, '/user/city'], [2, '/name']]);
  expect((jsonl.out['get_schema {}'] as any).data.schema.properties.age.type).toBe('number');
  expect((jsonl.out['get_schema {}'] as any).data.schema.properties.big).toMatchObject({ type: 'integer', 'x-occurrences': 1 });
  for (const r of [jsonl, json, seq]) expect(r.info.malformed_records).toBe(0);
});

test('a single-object .json file answers as the same one record in JSON Lines', async () => {
  const single = await answers('one.json');
  const line = await answers('one.jsonl');
  expect(single.opened).toMatchObject({ file_type: 'json_object', record_count: 1 });
  // search says what it counts: the nodes of a single document, the records of a JSON Lines file (here one node each)
  const searches = (out: Record<string, any>) => Object.entries(out).filter(([k]) => k.startsWith('search ') && !k.includes(' = ') && !k.includes(' > '));
  for (const [, r] of searches(single.out)) expect(r.data.counts).toBe('nodes');
  for (const [, r] of searches(line.out)) expect(r.data.counts).toBe('records');
  // and what it did not parse: the JSON Lines record without "PARIS" in any case is ruled out on its bytes
  // (unparsed: 1), while the document's text is read to count nodes
  expect(Object.entries(line.out).filter(([, r]) => r?.data?.unparsed !== undefined).map(([k, r]) => [k, r.data.unparsed])).toEqual([['search {"query":"PARIS"}', 1]]);
  expect(Object.values(single.out).filter((r) => r?.data?.unparsed !== undefined)).toEqual([]);
  const strip = (out: Record<string, any>) => Object.fromEntries(Object.entries(out).map(([k, r]) => [k, r?.data?.counts ? { ...r, data: { ...r.data, counts: undefined, unparsed: undefined } } : r]));
  expect(strip(single.out)).toEqual(strip(line.out));
  expect((single.out['search {"query":"$.age > 40"}'] as any).data).toMatchObject({ total_matches: 1, matches: [{ record_index: 0, match_path: '/age' }] });
});

test('a single document over 1 MiB: get_outline and get_value_at_path reach inside it', async () => {
  const opened = await call(c.client, 'open_file', { path: 'big.geojson.json' });
  expect(opened.data).toMatchObject({ file_type: 'json_object', record_count: 1 });
  const handle = opened.data.handle;
  const size = fs.statSync(path.join(dir, 'big.geojson.json')).size;
  expect(size).toBeGreaterThan(1024 * 1024); // over LAZY_RECORD_BYTES: read through RecordSource.node
  const top = await call(c.client, 'get_outline', { handle, depth: 1, max_members: 5 });
  expect(top.data.outline).toMatchObject({
    type: 'object', bytes: size, children: 3,
    members: [{ key: 'type', type: 'string', value: '"FeatureCollection"' }, { key: 'name', type: 'string', value: '"places"' }, { key: 'features', type: 'array', children: 12000 }],
  });
  const features = await call(c.client, 'get_outline', { handle, path: 'features', depth: 2, max_members: 2 });
  expect(features.data.outline).toMatchObject({ type: 'array', children: 12000, more: 11998, members: [{ key: 0, type: 'object', children: 3 }, { key: 1 }] });
  const v = await call(c.client, 'get_value_at_path', { handle, index: 0, path: 'features[4321].properties' });
  expect(v.data).toMatchObject({ value: '{"name":"f4321","pop":43210}', value_type: 'object' });
  const missing = await call(c.client, 'get_value_at_path', { handle, index: 0, path: 'features[12000]' });
  expect(missing.data.error.code).toBe('NOT_FOUND');
});
