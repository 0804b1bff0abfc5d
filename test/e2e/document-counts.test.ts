/**
 * One JSON document over 4 MiB (walked through lazy nodes) and under maxRecordBytes, with the default limits: counts
 * are complete with no cursor (json_read `count: true`, search `max_results: 0`), pages of items and matches add up
 * to the node list, and aggregate over `each` units counts every unit — each value computed here from JSON.parse of
 * the same text.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DEFAULT_LIMITS } from '../../src/kernel/config/defaults';
import { LAZY_DOCUMENT_BYTES } from '../../src/engine/scan/engine';
import { call, connect, type Connected } from '../helpers/mcp';
import { serviceModelsText } from '../helpers/service-models';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

let dir: string;
let c: Connected;
let text: string;
let doc: Record<string, any>;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-doc-counts-'));
  text = serviceModelsText();
  fs.writeFileSync(path.join(dir, 'models.json'), text);
  doc = JSON.parse(text);
  c = await connect(['--root', dir]);
}, 60_000);
afterAll(async () => {
  await c?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** `$.*.operations.*`: [pointer, operation] in document order (a repeated service name: its last value, first place). */
const operations = () => Object.entries(doc).flatMap(([s, svc]) => Object.entries(svc.operations as Record<string, any>).map(([o, op]) => [`/${s}/operations/${o}`, op] as const));

/** `$..shape`: the pointers of every member named "shape", each node before its descendants (RFC 9535 §2.5.2.2). */
function shapes(v: Json, at = '', out: string[] = []): string[] {
  if (v === null || typeof v !== 'object') return out;
  const kids: [string, Json][] = Array.isArray(v) ? v.map((x, i) => [String(i), x]) : Object.entries(v);
  if (!Array.isArray(v) && Object.prototype.hasOwnProperty.call(v, 'shape')) out.push(`${at}/shape`);
  for (const [k, x] of kids) shapes(x, `${at}/${k}`, out);
  return out;
}

test('the premise: one document over the walk threshold and under maxRecordBytes, with a repeated top-level name', () => {
  const size = Buffer.byteLength(text);
  expect(size).toBeGreaterThan(LAZY_DOCUMENT_BYTES);
  expect(size).toBeLessThan(DEFAULT_LIMITS.maxRecordBytes);
  expect(text.split('"svc-003":').length - 1).toBe(2);
  expect(Object.keys(doc)).toHaveLength(60);
});

describe('json_read count: true counts the whole node list in one complete answer', () => {
  test.each([
    ['$.*.operations.*', () => operations().length],
    ['$', () => 1],
    ['$..shape', () => shapes(doc).length],
    ['$.*.shapes[?@.type=="long"]', () => Object.values(doc).flatMap((s) => Object.values(s.shapes as Record<string, any>)).filter((x) => x.type === 'long').length],
  ])('%s', async (query, expected) => {
    const r = await call(c.client, 'json_read', { path: 'models.json', language: 'jsonpath', query, count: true });
    expect(r.isError).toBe(false);
    expect(r.data.count).toBe(expected());
    expect(r.data.complete).toBe(true);
    expect(r.data.next_cursor).toBeUndefined();
    expect(r.data.items).toEqual([]);
  });
});

test('json_read pages of $.*.operations.* are the node list, in order', async () => {
  const expected = operations();
  const paths: string[] = [];
  const names: string[] = [];
  let r = await call(c.client, 'json_read', { path: 'models.json', language: 'jsonpath', query: '$.*.operations.*', max_items: 400 });
  for (let pages = 1; ; pages++) {
    expect(r.isError).toBe(false);
    paths.push(...r.data.items.map((i: any) => i.path));
    names.push(...r.data.items.map((i: any) => i.value.name));
    if (!r.data.next_cursor) break;
    expect(pages).toBeLessThan(100);
    r = await call(c.client, 'json_read', { cursor: r.data.next_cursor });
  }
  expect(r.data.complete).toBe(true);
  expect(paths).toEqual(expected.map(([p]) => p));
  expect(names).toEqual(expected.map(([, op]) => op.name));
});

describe('explorer search with a JSONPath query on the document', () => {
  let handle: string;
  beforeAll(async () => {
    const r = await call(c.client, 'open_file', { path: 'models.json' });
    expect(r.isError).toBe(false);
    handle = r.data.handle;
  });

  test('max_results: 0 counts every node, complete, with no cursor', async () => {
    for (const [query, expected] of [['$..shape', shapes(doc).length], ['$.*.operations.*', operations().length]] as const) {
      const r = await call(c.client, 'search', { handle, query, max_results: 0 });
      expect(r.isError).toBe(false);
      expect(r.data).toMatchObject({ total_matches: expected, counts: 'nodes', complete: true, matches: [] });
      expect(r.data.next_cursor).toBeUndefined();
    }
  });

  test('pages of matches are the node list, each page with the whole total', async () => {
    const query = '$.*.operations.*.http.method';
    const expected = operations().map(([p]) => `${p}/http/method`);
    const paths: string[] = [];
    let r = await call(c.client, 'search', { handle, query, max_results: 500 });
    for (let pages = 1; ; pages++) {
      expect(r.isError).toBe(false);
      expect(r.data).toMatchObject({ total_matches: expected.length, counts: 'nodes' });
      paths.push(...r.data.matches.map((m: any) => m.match_path));
      if (!r.data.next_cursor) break;
      expect(pages).toBeLessThan(100);
      r = await call(c.client, 'search', { handle, query, max_results: 500, cursor: r.data.next_cursor });
    }
    expect(r.data.complete).toBe(true);
    expect(paths).toEqual(expected);
  });

  test('aggregate with each over the document counts every unit', async () => {
    const counts = new Map<string, number>();
    for (const [, op] of operations()) counts.set(op.http.method, (counts.get(op.http.method) ?? 0) + 1);
    const r = await call(c.client, 'aggregate', { handle, each: '$.*.operations.*', group_by: 'http.method' });
    expect(r.isError).toBe(false);
    expect(r.data).toMatchObject({ complete: true, units_matched: operations().length, groups_total: counts.size });
    expect(r.data.next_cursor).toBeUndefined();
    expect(new Map(r.data.groups.map((g: any) => [g.key, g.count]))).toEqual(counts);
  });
});
