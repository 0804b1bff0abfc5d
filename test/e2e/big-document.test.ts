/**
 * A single document over maxRecordBytes (lowered to 64 KiB here, so the documents are built small): nothing about it
 * may be silently incomplete.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { testTools } from '../../src/plugin-kit/index';
import { call } from '../helpers/mcp';
import { startCliHost, type CliHost } from '../helpers/cli-host';
import { serveInProcess, type Served } from '../helpers/in-process';
import { TickingClock } from '../helpers/ticking-clock';

const MAX_RECORD = 65536;

/** An API description in which "create an issue" occurs four times, in different members. */
const API = {
  openapi: '3.1.0',
  info: { title: 'Issues', description: 'Create an issue, list issues.' },
  paths: {
    '/repos/{owner}/{repo}/issues': {
      get: { summary: 'List issues', operationId: 'issues/list' },
      post: { summary: 'Create an issue', description: 'Any user with pull access can create an issue.', operationId: 'issues/create' },
    },
    '/repos/{owner}/{repo}/labels': { post: { summary: 'Create a label', operationId: 'labels/create' } },
  },
  'x-notes': ['To create an issue, see the post operation.'],
};
const ISSUE_PATHS = ['/info/description', '/paths/~1repos~1{owner}~1{repo}~1issues/post/summary', '/paths/~1repos~1{owner}~1{repo}~1issues/post/description', '/x-notes/0'];
/** 300 licenses, every other one OSI-approved... and every 7th not either. */
const LICENSES = Array.from({ length: 300 }, (_, i) => ({ licenseId: `L-${i}`, osiApproved: i % 2 === 0 && i % 7 !== 0 }));
/** A browser-compat-like document: aspect-ratio is a CSS property (a member name) and part of a media query. */
const COMPAT = { css: { properties: { 'aspect-ratio': { support: { chrome: '88' } }, color: { support: { chrome: '1' } } }, 'at-rules': { media: { 'aspect-ratio': { support: { chrome: '3' } } } } } };
/** 6,000 member names of one document's root (over maxRecordBytes: read through lazy nodes), not in sorted order. */
const MANY = Array.from({ length: 6000 }, (_, i) => `key-${String((i * 7919) % 6000).padStart(5, '0')}`);
/** An OpenAPI-like document of 1,000 operations with nested schemas: too large to describe to depth 16 in 64 KiB. */
const SPEC = {
  openapi: '3.1.0',
  info: { title: 'Big', version: '1' },
  paths: Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`/r${i}`, {
    get: { operationId: `get${i}`, parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }], responses: { 200: { description: 'ok', content: { 'application/json': { schema: { type: 'object', properties: { [`f${i}`]: { type: 'string' } } } } } } } },
  }])),
};
/** 811 member names of one object, the key list of an API's paths. */
const KEYS = Array.from({ length: 811 }, (_, i) => `/repos/{owner}/{repo}/actions/resource-${String(i).padStart(4, "0")}/items`);
/**
 * get_schema's deeper levels are bounded by `limits.detailTimeMs` of wall clock (the unit tests drive that bound with a
 * fake clock); here it is a minute, so that a loaded machine still describes every level and the answers are exact.
 */
const DETAIL_MS = 60_000;
let dir: string;
/** The tools in-process (a real MCP client; the config file's settings given as config), mcpgw query on the CLI host. */
let c: Served;
let host: CliHost;
/** The pad strings of big.json, as written. */
const pad = Array.from({ length: 2000 }, (_, i) => `p${String(i).padStart(5, '0')}`.padEnd(100, 'x'));

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-bigdoc-'));
  fs.mkdirSync(path.join(dir, 'root'));
  fs.writeFileSync(path.join(dir, '.mcpgwrc.yaml'), `root: ./root\nlimits:\n  maxRecordBytes: ${MAX_RECORD}\n  detailTimeMs: ${DETAIL_MS}\n`);
  fs.writeFileSync(path.join(dir, 'root', 'big.json'), JSON.stringify({ name: 'needle', pad }));
  fs.writeFileSync(path.join(dir, 'root', 'api.json'), JSON.stringify(API, null, 2));
  fs.writeFileSync(path.join(dir, 'root', 'licenses.json'), JSON.stringify({ licenseListVersion: '3.99', licenses: LICENSES }));
  fs.writeFileSync(path.join(dir, 'root', 'compat.json'), JSON.stringify(COMPAT));
  fs.writeFileSync(path.join(dir, 'root', 'keys.json'), JSON.stringify({ paths: Object.fromEntries(KEYS.map((k, i) => [k, { i }])) }));
  fs.writeFileSync(path.join(dir, 'root', 'many-keys.json'), JSON.stringify(Object.fromEntries(MANY.map((k, i) => [k, { i, tag: i % 3 === 0 ? 'x' : null }]))));
  fs.writeFileSync(path.join(dir, 'root', 'spec.json'), JSON.stringify(SPEC, null, 1));
  c = await serveInProcess({ root: path.join(dir, 'root'), config: { limits: { maxRecordBytes: MAX_RECORD, detailTimeMs: DETAIL_MS } } });
  host = startCliHost();
});
afterAll(async () => {
  try { await c?.close(); await host?.close(); } finally { fs.rmSync(dir, { recursive: true, force: true }); }
});

test('the document is over maxRecordBytes (the premise)', () => {
  expect(fs.statSync(path.join(dir, 'root', 'big.json')).size).toBeGreaterThan(MAX_RECORD);
});

test('open_file validates the document in parts: every byte of its values examined, complete', async () => {
  const r = await call(c.client, 'open_file', { path: 'big.json' });
  expect(r.isError).toBe(false);
  expect(r.data.file_type).toBe('json_object');
  // complete: every part parsed (the value of "name", each element of "pad") and the structure around them walked, so
  // bytes_examined is the file's size
  const examined = fs.statSync(path.join(dir, 'root', 'big.json')).size;
  // nothing notable: open_file leaves the details out; get_file_info gives them
  expect(r.data.validation).toBeUndefined();
  const info = await call(c.client, 'get_file_info', { handle: r.data.handle });
  expect(info.data.validation).toEqual({ complete: true, records_examined: 1, bytes_examined: examined, malformed_records: 0 });
  expect(info.data.malformed_records).toBe(0);
});

/** `mcpgw query ARGS` in the folder of the config file (its maxRecordBytes applies). */
const cli = (...args: string[]) => host.run(['query', ...args], dir, { PATH: process.env.PATH ?? '', XDG_CACHE_HOME: process.env.XDG_CACHE_HOME ?? '' });

/** Every page of a json_read, following next_cursor. */
async function readAll(args: Record<string, unknown>): Promise<{ items: { path: string; value: unknown }[]; pages: number }> {
  const items: { path: string; value: unknown }[] = [];
  let r = await call(c.client, 'json_read', args);
  let pages = 1;
  for (;;) {
    expect(r.isError).toBe(false);
    expect(Buffer.byteLength(JSON.stringify(r.data))).toBeLessThanOrEqual((args.max_result_bytes as number | undefined) ?? 65536);
    items.push(...r.data.items);
    if (!r.data.next_cursor) break;
    r = await call(c.client, 'json_read', { cursor: r.data.next_cursor });
    pages++;
  }
  return { items, pages };
}


describe('whole-file queries over a document over maxRecordBytes evaluate through lazy nodes', () => {
  test('json_read: names, indexes, filters, pointers', async () => {
    const read = (language: string, query: string) => call(c.client, 'json_read', { path: 'big.json', language, query });
    expect((await read('jsonpath', '$.name')).data).toMatchObject({ items: [{ path: '/name', value: 'needle' }], complete: true });
    expect((await read('jsonpath', '$.pad[-1]')).data.items).toEqual([{ path: '/pad/1999', value: pad[1999] }]);
    expect((await read('jsonpath', `$.pad[?@ == "${pad[1234]}"]`)).data.items).toEqual([{ path: '/pad/1234', value: pad[1234] }]);
    expect((await read('jsonpath', '$.pad[1995:]')).data.items.map((x: { path: string }) => x.path)).toEqual(['/pad/1995', '/pad/1996', '/pad/1997', '/pad/1998', '/pad/1999']);
    expect((await read('jsonpath', '$.pad[1:8:-3]')).data.items).toEqual([]);
    expect((await read('jsonpath', '$.pad[8:1:-3]')).data.items.map((x: { path: string }) => x.path)).toEqual(['/pad/8', '/pad/5', '/pad/2']);
    expect((await read('pointer', '/pad/7')).data.items).toEqual([{ path: '/pad/7', value: pad[7] }]);
    expect((await read('jsonpath', '$.nothing')).data).toMatchObject({ items: [], complete: true });
  });

  test('json_read pages through a wildcard and a descendant query; the pages are the node list, in order', async () => {
    const all = await readAll({ path: 'big.json', language: 'jsonpath', query: '$.pad[*]', max_items: 300 });
    expect(all.pages).toBe(7);
    expect(all.items.map((x) => x.value)).toEqual(pad);
    expect(all.items.map((x) => x.path)).toEqual(pad.map((_, i) => `/pad/${i}`));
  });

  test('json_read: an item larger than a page comes alone, in parts that rebuild its text; whole items around it', async () => {
    const desc = await readAll({ path: 'big.json', language: 'jsonpath', query: '$..*', max_items: 500 });
    const padText = JSON.stringify(pad);
    const parts = desc.items.filter((x: any) => x.value_truncated);
    // each part fills its page (64 KiB, less the envelope), the last holds the rest
    for (const x of parts.slice(0, -1)) expect(Buffer.byteLength(JSON.stringify(x.value))).toBeGreaterThan(65536 - 400);
    expect(parts.length).toBe(Math.ceil(Buffer.byteLength(JSON.stringify(padText)) / (65536 - 400)));
    expect(parts.map((x: any) => x.path)).toEqual(parts.map(() => '/pad'));
    expect(parts.map((x: any) => x.value).join('')).toBe(padText);
    expect(parts.every((x: any) => x.value_bytes === Buffer.byteLength(padText))).toBe(true);
    expect(parts.map((x: any) => x.offset)).toEqual([0, ...parts.slice(0, -1).map((x: any) => x.next_offset)]);
    expect(parts[parts.length - 1].next_offset).toBeUndefined();
    const whole = desc.items.filter((x: any) => !x.value_truncated);
    expect(whole).toEqual([{ path: '/name', value: 'needle' }, ...pad.map((v, i) => ({ path: `/pad/${i}`, value: v }))]);
    // the part comes alone on its page: the page before it ends with /name
    expect(desc.items[0]).toEqual({ path: '/name', value: 'needle' });
    expect((desc.items[1] as any).value_truncated).toBe(true);

    // the whole document as one item, with a tiny page: every part advances
    const tiny = await readAll({ path: 'big.json', language: 'pointer', query: '', max_result_bytes: 2000 });
    expect(tiny.items.map((x: any) => x.value).join('')).toBe(fs.readFileSync(path.join(dir, 'root', 'big.json'), 'utf8'));
    expect(tiny.pages).toBeGreaterThan(100);
  });

  test('explorer search with a JSONPath query finds the member', async () => {
    const opened = await call(c.client, 'open_file', { path: 'big.json' });
    const r = await call(c.client, 'search', { handle: opened.data.handle, query: '$.name' });
    expect(r.data).toMatchObject({ total_matches: 1, complete: true, matches: [{ record_index: 0, match_path: '/name' }] });
  });

  test('mcpgw query prints the node list', async () => {
    const q = await cli(path.join(dir, 'root', 'big.json'), '$.pad[?@ == "' + pad[3] + '" || @ == "' + pad[1777] + '"]');
    expect(q.stderr).toBe('');
    expect(q.status).toBe(0);
    expect(q.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l))).toEqual([{ path: '/pad/3', value: pad[3] }, { path: '/pad/1777', value: pad[1777] }]);
  });
});

describe('the queries users asked for, on documents over maxRecordBytes', () => {
  /** A GeoJSON-like FeatureCollection: every 100th feature has a population over a million. */
  const FEATURES = Array.from({ length: 1500 }, (_, i) => ({ type: 'Feature', id: `f${i}`, properties: { name: `place ${i}`, pop: i % 100 === 0 ? 2_000_000 + i : i * 10 }, geometry: { type: 'Point', coordinates: [i / 10, -i / 10] } }));
  const BIG_POP = FEATURES.flatMap((f, i) => (f.properties.pop > 1e6 ? [{ path: `/features/${i}/id`, value: f.id }] : []));
  /** An API description padded with 600 operations; the issues path holds "{" and "/" in its name. */
  const BIG_API = {
    openapi: '3.1.0',
    paths: {
      ...Object.fromEntries(Array.from({ length: 600 }, (_, i) => [`/repos/{owner}/{repo}/r${i}`, { get: { summary: `get r${i}`, description: 'x'.repeat(100) } }])),
      '/repos/{owner}/{repo}/issues': { post: { summary: 'Create an issue', operationId: 'issues/create' } },
    },
  };
  beforeAll(() => {
    fs.writeFileSync(path.join(dir, 'root', 'geo.json'), JSON.stringify({ type: 'FeatureCollection', features: FEATURES }));
    fs.writeFileSync(path.join(dir, 'root', 'big-api.json'), JSON.stringify(BIG_API, null, 2));
  });

  test('the premise: both documents are over maxRecordBytes', () => {
    for (const f of ['geo.json', 'big-api.json']) expect(fs.statSync(path.join(dir, 'root', f)).size).toBeGreaterThan(MAX_RECORD);
  });

  test('$.features[?@.properties.pop > 1e6].id: json_read, search (nodes) and mcpgw query agree with the data', async () => {
    const q = '$.features[?@.properties.pop > 1e6].id';
    const all = await readAll({ path: 'geo.json', language: 'jsonpath', query: q, max_items: 4 });
    expect(all.items).toEqual(BIG_POP);
    expect(all.pages).toBe(Math.ceil(BIG_POP.length / 4));
    const opened = await call(c.client, 'open_file', { path: 'geo.json' });
    const found = await call(c.client, 'search', { handle: opened.data.handle, query: q, mode: 'jsonpath', max_results: 100 });
    expect(found.data).toMatchObject({ counts: 'nodes', total_matches: BIG_POP.length, complete: true });
    expect(found.data.matches.map((m: any) => m.match_path)).toEqual(BIG_POP.map((x) => x.path));
    const out = await cli(path.join(dir, 'root', 'geo.json'), q);
    expect(out.status).toBe(0);
    expect(out.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l))).toEqual(BIG_POP);
  });

  test('a descendant filter and a filter on members only: no value read whole, the node list exact', async () => {
    const read = async (query: string) => (await readAll({ path: 'geo.json', language: 'jsonpath', query })).items;
    expect(await read('$..[?@.pop > 1e6]')).toEqual(FEATURES.flatMap((f, i) => (f.properties.pop > 1e6 ? [{ path: `/features/${i}/properties`, value: f.properties }] : [])));
    // the root's children are a string and a 200 KB array: neither has a member "features" (RFC 9535 §2.3.5.1)
    expect(await read('$[?@.features]')).toEqual([]);
    expect(await read('$[?@.type]')).toEqual([]);
    expect(await read('$..[?@.id == "f7"].geometry.coordinates[0]')).toEqual([{ path: '/features/7/geometry/coordinates/0', value: 0.7 }]);
  });

  test('$.paths[\'/repos/{owner}/{repo}/issues\'].post, and get_value_at_path on a member', async () => {
    const r = await call(c.client, 'json_read', { path: 'big-api.json', language: 'jsonpath', query: "$.paths['/repos/{owner}/{repo}/issues'].post" });
    expect(r.data).toMatchObject({ complete: true, items: [{ path: '/paths/~1repos~1{owner}~1{repo}~1issues/post', value: BIG_API.paths['/repos/{owner}/{repo}/issues'].post }] });
    const opened = await call(c.client, 'open_file', { path: 'big.json' });
    const v = await call(c.client, 'get_value_at_path', { handle: opened.data.handle, index: 0, path: 'name' });
    expect(v.data).toEqual({ value: '"needle"', path: 'name', value_type: 'string' }); // compact JSON text; the path is the location
  });

  test('get_schema of the FeatureCollection: every level described, the 1,500 features sampled evenly and said so', async () => {
    const opened = await call(c.client, 'open_file', { path: 'geo.json' });
    const r = await call(c.client, 'get_schema', { handle: opened.data.handle });
    expect(r.isError).toBe(false);
    const str = { type: 'string' };
    const full = {
      type: 'object',
      properties: {
        type: str,
        features: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              type: str,
              id: str,
              properties: { type: 'object', properties: { name: str, pop: { type: 'integer' } }, required: ['name', 'pop'] },
              // [i/10, -i/10]: integers for multiples of 10, fractions otherwise
              geometry: { type: 'object', properties: { type: str, coordinates: { type: 'array', items: { type: 'number' } } }, required: ['coordinates', 'type'] },
            },
            required: ['geometry', 'id', 'properties', 'type'],
          },
        },
      },
      required: ['features', 'type'],
    };
    expect(r.data.schema).toEqual(full);
    expect(r.data.depth).toBeUndefined();
    expect(r.data.warnings).toEqual([{ code: 'SAMPLED', message: expect.stringContaining('256') }]);
  });

  test('an empty answer on a document over maxRecordBytes: the hint reads member names through lazy nodes and says it sampled', async () => {
    // "features" is a member of the root: an empty answer for another reason gets no hint about names
    const none = await call(c.client, 'json_read', { path: 'geo.json', language: 'jsonpath', query: '$[?@.features]' });
    expect(none.data).toMatchObject({ items: [], complete: true });
    expect(none.data.hint).toBeUndefined();
    // a misspelt member: named, with the nearest names seen, and the part examined said
    const q = '$.features[?@.properties.popp > 1].id';
    const typo = await call(c.client, 'json_read', { path: 'geo.json', language: 'jsonpath', query: q });
    expect(typo.data).toMatchObject({ items: [], complete: true });
    expect(typo.data.hint).toContain('No member named "popp" (nearest names seen: "pop"');
    expect(typo.data.hint).toContain('a sample of it');
    const opened = await call(c.client, 'open_file', { path: 'geo.json' });
    const s = await call(c.client, 'search', { handle: opened.data.handle, query: q, mode: 'jsonpath' });
    expect(s.data).toMatchObject({ total_matches: 0, complete: true });
    expect(s.data.hint).toContain('No member named "popp" (nearest names seen: "pop"');
  });

  test('a query that must read a value over maxRecordBytes whole is an error naming the limit, never an empty success', async () => {
    const opened = await call(c.client, 'open_file', { path: 'geo.json' });
    const featuresBytes = Buffer.byteLength(JSON.stringify(FEATURES));
    for (const q of ['$[?length(@) > 3]', '$[?@ == 1]', '$[?count(@.*) > 2]']) {
      const r = await call(c.client, 'json_read', { path: 'geo.json', language: 'jsonpath', query: q });
      expect({ q, isError: r.isError, error: r.data.error }).toMatchObject({ q, isError: true, error: { code: 'RESOURCE_LIMIT_EXCEEDED', limit: { name: 'maxRecordBytes', limit: MAX_RECORD, value: featuresBytes } } });
      const s = await call(c.client, 'search', { handle: opened.data.handle, query: q, mode: 'jsonpath' });
      expect({ q, isError: s.isError, error: s.data.error }).toMatchObject({ q, isError: true, error: { code: 'RESOURCE_LIMIT_EXCEEDED', limit: { name: 'maxRecordBytes' } } });
    }
    const out = await cli(path.join(dir, 'root', 'geo.json'), '$[?length(@) > 3]');
    expect(out.status).toBe(1);
    // the CLI streams nodes as the walk finds them: the member before "features" may be printed before the error (when
    // the walk yielded and flushed there: a matter of time), never a node of "features" nor an empty success
    expect(out.stdout.split('\n').filter(Boolean).every((l) => l === '{"path":"/type","value":"FeatureCollection"}')).toBe(true);
    expect(out.stderr).toContain('maxRecordBytes');
  });
});

describe('explorer search in a single document counts nodes: every match, its pointer, pages over nodes', () => {
  test('text: every occurrence, in document order, with its pointer; paging by next_cursor over nodes', async () => {
    const opened = await call(c.client, 'open_file', { path: 'api.json' });
    const handle = opened.data.handle;
    const all = await call(c.client, 'search', { handle, query: 'create an issue' });
    expect(all.data).toMatchObject({ counts: 'nodes', total_matches: 4, complete: true });
    expect(all.data.matches.map((m: any) => m.match_path)).toEqual(ISSUE_PATHS);
    expect(all.data.matches.every((m: any) => m.record_index === 0 && /«create an issue»/i.test(m.preview))).toBe(true);
    const paged: string[] = [];
    let r = await call(c.client, 'search', { handle, query: 'create an issue', max_results: 1 });
    for (;;) {
      expect(r.data.total_matches).toBe(4);
      paged.push(...r.data.matches.map((m: any) => m.match_path));
      if (!r.data.next_cursor) break;
      r = await call(c.client, 'search', { handle, query: 'create an issue', max_results: 1, cursor: r.data.next_cursor });
    }
    expect(paged).toEqual(ISSUE_PATHS);
    // member names match too: the path /repos/{owner}/{repo}/labels holds "labels"
    const names = await call(c.client, 'search', { handle, query: 'LABELS' });
    expect(names.data.matches.map((m: any) => m.match_path)).toEqual(['/paths/~1repos~1{owner}~1{repo}~1labels', '/paths/~1repos~1{owner}~1{repo}~1labels/post/operationId']);
  });

  test('text: a member name and a value in different places are both found', async () => {
    const opened = await call(c.client, 'open_file', { path: 'compat.json' });
    const r = await call(c.client, 'search', { handle: opened.data.handle, query: 'aspect-ratio' });
    expect(r.data.matches.map((m: any) => m.match_path)).toEqual(['/css/properties/aspect-ratio', '/css/at-rules/media/aspect-ratio']);
  });

  test('text: a member whose name and value both hold the text is one match, read whole or in parts, in every page size', async () => {
    // 300 members: every 3rd named "doc<i>" with a value holding "doc" too, every 5th only its value, nested once
    const members = Array.from({ length: 300 }, (_, i) => [i % 3 === 0 ? `doc${i}` : `m${i}`, i % 3 === 0 || i % 5 === 0 ? `the doc of ${i} ${'x'.repeat(500)}` : { inner: i % 2 ? 'doc' : 'none', [`doc${i}`]: 'doc' }] as const);
    const doc = { documentation: 'documentation', list: ['doc', 'none'], members: Object.fromEntries(members) };
    const text = JSON.stringify(doc);
    expect(Buffer.byteLength(text)).toBeGreaterThan(MAX_RECORD); // walked in parts; the small one is read whole
    fs.writeFileSync(path.join(dir, 'root', 'dup-big.json'), text);
    fs.writeFileSync(path.join(dir, 'root', 'dup-small.json'), JSON.stringify({ documentation: 'documentation', a: { doc: 'no', b: 'doc here' }, c: ['doc'] }));
    // the oracle: the pointers of the nodes whose member name or string value holds "doc", in document order
    const expected = (v: unknown, at = ''): string[] => {
      if (Array.isArray(v)) return v.flatMap((x, i) => (typeof x === 'string' ? (x.toLowerCase().includes('doc') ? [`${at}/${i}`] : []) : expected(x, `${at}/${i}`)));
      if (v && typeof v === 'object') return Object.entries(v).flatMap(([k, x]) => [...(k.toLowerCase().includes('doc') || (typeof x === 'string' && x.toLowerCase().includes('doc')) ? [`${at}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`] : []), ...(typeof x === 'object' ? expected(x, `${at}/${k}`) : [])]);
      return [];
    };
    for (const [file, value] of [['dup-small.json', JSON.parse(fs.readFileSync(path.join(dir, 'root', 'dup-small.json'), 'utf8'))], ['dup-big.json', doc]] as const) {
      const want = expected(value);
      const handle = (await call(c.client, 'open_file', { path: file })).data.handle;
      for (const max_results of [1, 7, 1000]) {
        const paths: string[] = [];
        let r = await call(c.client, 'search', { handle, query: 'DOC', max_results });
        for (;;) {
          expect(r.data).toMatchObject({ counts: 'nodes', total_matches: want.length, complete: true });
          paths.push(...r.data.matches.map((m: any) => m.match_path));
          if (!r.data.next_cursor) break;
          r = await call(c.client, 'search', { handle, query: 'DOC', max_results, cursor: r.data.next_cursor });
        }
        expect({ file, max_results, paths }).toEqual({ file, max_results, paths: want });
      }
      expect((await call(c.client, 'search', { handle, query: 'doc', max_results: 0 })).data).toMatchObject({ total_matches: want.length, complete: true, matches: [] });
    }
  });

  test('JSONPath: every node of the node list', async () => {
    const opened = await call(c.client, 'open_file', { path: 'licenses.json' });
    const approved = LICENSES.flatMap((l, i) => (l.osiApproved ? [`/licenses/${i}`] : []));
    const paged: string[] = [];
    let r = await call(c.client, 'search', { handle: opened.data.handle, query: '$.licenses[?@.osiApproved == true]', max_results: 40 });
    for (;;) {
      expect(r.data).toMatchObject({ counts: 'nodes', total_matches: approved.length });
      paged.push(...r.data.matches.map((m: any) => m.match_path));
      if (!r.data.next_cursor) break;
      r = await call(c.client, 'search', { handle: opened.data.handle, query: '$.licenses[?@.osiApproved == true]', max_results: 40, cursor: r.data.next_cursor });
    }
    expect(paged).toEqual(approved);
  });

  test('a document over maxRecordBytes: text search walks it in parts, pages over its nodes', async () => {
    const opened = await call(c.client, 'open_file', { path: 'big.json' });
    const handle = opened.data.handle;
    expect((await call(c.client, 'search', { handle, query: 'needle' })).data).toMatchObject({ counts: 'nodes', total_matches: 1, matches: [{ record_index: 0, match_path: '/name' }] });
    expect((await call(c.client, 'search', { handle, query: pad[1234]!.slice(0, 6) })).data.matches.map((m: any) => m.match_path)).toEqual(['/pad/1234']);
    const paths: string[] = [];
    let r = await call(c.client, 'search', { handle, query: 'xxx', max_results: 500 });
    let pages = 1;
    for (;;) {
      expect(r.data).toMatchObject({ total_matches: 2000, complete: true });
      paths.push(...r.data.matches.map((m: any) => m.match_path));
      if (!r.data.next_cursor) break;
      r = await call(c.client, 'search', { handle, query: 'xxx', max_results: 500, cursor: r.data.next_cursor });
      pages++;
    }
    expect(pages).toBe(4);
    expect(paths).toEqual(pad.map((_, i) => `/pad/${i}`));
  });

  test('JSON Lines with a line over maxRecordBytes: that record is searched too (counts records)', async () => {
    fs.writeFileSync(path.join(dir, 'root', 'lines.jsonl'), [JSON.stringify({ id: 0, s: 'small' }), JSON.stringify({ id: 1, pad, tail: 'needle' }), JSON.stringify({ id: 2, s: 'needle' })].join('\n') + '\n');
    const opened = await call(c.client, 'open_file', { path: 'lines.jsonl' });
    const text = await call(c.client, 'search', { handle: opened.data.handle, query: 'needle' });
    expect(text.data).toMatchObject({ counts: 'records', total_matches: 2, matches: [{ record_index: 1, match_path: '/tail' }, { record_index: 2, match_path: '/s' }] });
    const jp = await call(c.client, 'search', { handle: opened.data.handle, query: '$.tail' });
    expect(jp.data).toMatchObject({ counts: 'records', total_matches: 1, matches: [{ record_index: 1, match_path: '/tail' }] });
    const read = await call(c.client, 'json_read', { path: 'lines.jsonl', language: 'jsonpath', query: '$[?@.tail == "needle"].id' });
    expect(read.data).toMatchObject({ items: [{ path: '/1/id', value: 1 }], complete: true });
  });
});

test('a text search over a document walked in parts, stopped at the deadline on nearly every page, finds every node once', async () => {
  // In-process (the plugin kit's tool tester, a real MCP client) on a TickingClock: each reading of the time is 1 ms
  // after the last, so a page stops after the same 50 readings at any machine speed (48 pages, 47 stopped by the
  // deadline; at 1 ms each page held one match: 2,003 pages).
  const t = await testTools('@mcpgw/tools-explore', {
    root: path.join(dir, 'root'), clock: new TickingClock(1),
    config: { limits: { maxRecordBytes: MAX_RECORD, requestTimeoutMs: 50 } },
  });
  try {
    const { structuredContent: opened } = await t.call('open_file', { path: 'big.json' });
    const paths: string[] = [];
    let incomplete = 0;
    let pages = 0;
    let r = await t.call('search', { handle: opened.handle, query: 'xxx', max_results: 300 });
    for (;;) {
      expect(r.isError).toBe(false);
      pages++;
      paths.push(...r.structuredContent.matches.map((m: any) => m.match_path));
      if (!r.structuredContent.complete) incomplete++;
      if (!r.structuredContent.next_cursor) break;
      expect(pages).toBeLessThan(5000);
      r = await t.call('search', { handle: opened.handle, query: 'xxx', max_results: 300, cursor: r.structuredContent.next_cursor });
    }
    expect(paths).toEqual(pad.map((_, i) => `/pad/${i}`));
    expect(incomplete).toBeGreaterThan(0);
    // Stopped by the deadline, not only by max_results: more pages than 2,000 matches need at 300 a page.
    expect(pages).toBeGreaterThan(Math.ceil(pad.length / 300));
  } finally {
    await t.close();
  }
});

describe('member lists page: extract_keys, get_outline, get_schema', () => {
  test('extract_keys pages 811 keys of one object with offset', async () => {
    const opened = await call(c.client, 'open_file', { path: 'keys.json' });
    const keys: string[] = [];
    let r = await call(c.client, 'extract_keys', { handle: opened.data.handle, path: 'paths' });
    expect(r.data).toMatchObject({ total_keys: 811, offset: 0, truncated: true });
    for (;;) {
      keys.push(...r.data.keys);
      // one document: every key is in the one record sampled, so no count differs from records_sampled
      expect(r.data).toMatchObject({ records_sampled: 1 });
      expect(r.data.key_counts).toBeUndefined();
      if (r.data.next_offset === undefined) break;
      expect(r.data.next_offset).toBe(keys.length);
      r = await call(c.client, 'extract_keys', { handle: opened.data.handle, path: 'paths', offset: r.data.next_offset });
    }
    expect(keys).toEqual([...KEYS].sort());
  });

  test('a document over maxRecordBytes: 6,000 keys listed from member names alone, paged; outline and schema page too', async () => {
    const opened = await call(c.client, 'open_file', { path: 'many-keys.json' });
    const handle = opened.data.handle;
    const sorted = [...MANY].sort();
    const keys: string[] = [];
    let pages = 0;
    for (let offset: number | undefined = 0; offset !== undefined; pages++) {
      const r: any = await call(c.client, 'extract_keys', { handle, offset });
      expect(r.isError).toBe(false);
      expect(Buffer.byteLength(r.text)).toBeLessThanOrEqual(65536);
      expect(r.data.total_keys).toBe(6000);
      keys.push(...r.data.keys);
      offset = r.data.next_offset;
    }
    expect(keys).toEqual(sorted);
    expect(pages).toBeGreaterThan(1);

    // get_outline: the root's members in document order, max_members at a time
    const outlined: string[] = [];
    for (let offset: number | undefined = 0; offset !== undefined;) {
      const r: any = await call(c.client, 'get_outline', { handle, depth: 1, max_members: 1000, offset });
      expect(r.data.outline.children).toBe(6000);
      outlined.push(...r.data.outline.members.map((m: any) => m.key));
      offset = r.data.next_offset;
    }
    expect(outlined).toEqual(MANY);

    // get_schema: the root's properties paged in first-seen order, each described
    const described: string[] = [];
    for (let offset: number | undefined = 0; offset !== undefined;) {
      const r: any = await call(c.client, 'get_schema', { handle, offset });
      expect(r.isError).toBe(false);
      expect(r.data.members).toMatchObject({ total: 6000, offset });
      const props = Object.keys(r.data.schema.properties);
      described.push(...props);
      expect(r.data.schema.properties[props[0]!]).toMatchObject({ type: 'object', properties: { i: { type: 'integer' }, tag: { type: expect.anything() } } });
      offset = r.data.members.next_offset;
    }
    expect(described).toEqual(MANY);
  });

  test('get_schema on a large document: levels described while the answer fits, the depth said', async () => {
    const opened = await call(c.client, 'open_file', { path: 'spec.json' });
    const r = await call(c.client, 'get_schema', { handle: opened.data.handle });
    expect(r.isError).toBe(false);
    expect(Buffer.byteLength(r.text)).toBeLessThanOrEqual(65536);
    // 1,000 path members: at depth 2 the paths object lists them all by type (~35 KB); one level more passes 64 KiB
    expect(r.data.depth).toBe(2);
    expect(r.data.warnings.map((w: any) => w.code)).toContain('RESOURCE_LIMIT_EXCEEDED');
    expect(r.data.warnings.find((w: any) => w.code === 'RESOURCE_LIMIT_EXCEEDED').message).toMatch(/depth 2 \(not 16\)/);
    const paths = r.data.schema.properties.paths;
    expect(Object.keys(paths.properties)).toEqual(Object.keys(SPEC.paths));
    expect(paths.properties['/r7']).toEqual({ type: 'object' });
    expect(r.data.schema.properties.info).toEqual({ type: 'object', properties: { title: { type: 'string' }, version: { type: 'string' } }, required: ['title', 'version'] });
    // a smaller depth that fits: no warning, no depth
    const shallow = await call(c.client, 'get_schema', { handle: opened.data.handle, depth: 1 });
    expect(shallow.data.depth).toBeUndefined();
    expect(shallow.data.warnings).toBeUndefined();
  });
});

test('get_value_at_path and get_outline in a record read through lazy nodes: negative indexes count from the end; a missing part is named', async () => {
  const handle = (await call(c.client, 'open_file', { path: 'big.json' })).data.handle;
  const value = (p: string) => call(c.client, 'get_value_at_path', { handle, index: 0, path: p });
  expect((await value('pad[-1]')).data).toMatchObject({ value: JSON.stringify(pad[1999]), value_type: 'string' });
  expect((await value('$.pad[-2000]')).data.value).toBe(JSON.stringify(pad[0]));
  expect((await value('/pad/1998')).data.value).toBe(JSON.stringify(pad[1998]));
  expect((await call(c.client, 'get_outline', { handle, path: 'pad[-3]' })).data).toMatchObject({ pointer: '/pad/1997', outline: { type: 'string' } });
  const missing: [string, string, string][] = [
    ['pad[-2001]', 'the array at /pad has 2000 elements; "-2001" is not one of its indexes', '/pad/-2001'],
    ['pad[2000]', 'the array at /pad has 2000 elements; "2000" is not one of its indexes', '/pad/2000'],
    ['name.first', 'the value at /name is a string, which has no members', '/name/first'],
    ['nosuch', 'the object at the record root has no member "nosuch"; its keys: "name", "pad"', '/nosuch'],
  ];
  for (const [p, detail, pointer] of missing) {
    for (const r of [await value(p), await call(c.client, 'get_outline', { handle, path: p })]) {
      expect(r.data.error).toMatchObject({ code: 'NOT_FOUND', message: `Path ${JSON.stringify(p)} not found in record 0: ${detail}.`, location: { record_index: 0, path: pointer } });
    }
  }
});

test('get_outline of a document over maxRecordBytes: a repeated member name once, at its first place, with its last value', async () => {
  // 20 names in "c" (past the small-object lookup), "k5" repeated there; "a" and "x" repeated
  const c20 = Array.from({ length: 20 }, (_, i) => `"k${i}":${i}`).join(',') + ',"k5":"five"';
  const text = `{"a":1,"pad":${JSON.stringify(pad)},"b":{"x":1,"y":2,"x":{"deep":true}},"a":"last","c":{${c20}}}`;
  fs.writeFileSync(path.join(dir, 'root', 'dupes.json'), text);
  expect(Buffer.byteLength(text)).toBeGreaterThan(MAX_RECORD);
  const parsed = JSON.parse(text) as Record<string, any>; // JSON.parse: first place, last value
  const opened = await call(c.client, 'open_file', { path: 'dupes.json' });
  const handle = opened.data.handle;
  const r = await call(c.client, 'get_outline', { handle, depth: 2 });
  expect(r.isError).toBe(false);
  const o = r.data.outline;
  expect(o.children).toBe(Object.keys(parsed).length);
  expect(o.members.map((m: any) => m.key)).toEqual(Object.keys(parsed)); // a, pad, b, c
  expect(o.members[0]).toEqual({ key: 'a', type: 'string', bytes: Buffer.byteLength('"last"'), value: '"last"' });
  expect(o.members[2]).toMatchObject({ key: 'b', type: 'object', children: 2 });
  expect(o.members[2].members).toEqual([
    { key: 'x', type: 'object', bytes: Buffer.byteLength('{"deep":true}'), children: 1 },
    { key: 'y', type: 'number', bytes: 1, value: '2' },
  ]);
  expect(o.members[3]).toMatchObject({ key: 'c', type: 'object', children: 20 });
  expect(o.members[3].members.map((m: any) => m.key)).toEqual(Object.keys(parsed.c));
  expect(o.members[3].members.map((m: any) => m.value)).toEqual(Object.values(parsed.c).map((v) => JSON.stringify(v)));
  // the members page over distinct names
  const page = await call(c.client, 'get_outline', { handle, depth: 1, max_members: 2, offset: 1 });
  expect(page.data.outline.members.map((m: any) => m.key)).toEqual(['pad', 'b']);
  expect(page.data).toMatchObject({ offset: 1, next_offset: 3, outline: { children: 4, more: 1 } });
  const last = await call(c.client, 'get_outline', { handle, depth: 1, max_members: 2, offset: 3 });
  expect(last.data.outline.members.map((m: any) => m.key)).toEqual(['c']);
  expect(last.data.next_offset).toBeUndefined();
  // an outline deeper in, by path: the repeated name resolves to its last value
  const inner = await call(c.client, 'get_outline', { handle, path: 'c', depth: 1, max_members: 50 });
  expect(inner.data.outline).toMatchObject({ children: 20 });
  expect(inner.data.outline.members.find((m: any) => m.key === 'k5')).toEqual({ key: 'k5', type: 'string', bytes: 6, value: '"five"' });
  // the same shape read whole (under the lazy size) outlines the same way
  fs.writeFileSync(path.join(dir, 'root', 'dupes-small.json'), text.replace(JSON.stringify(pad), '[]'));
  const small = await call(c.client, 'get_outline', { handle: (await call(c.client, 'open_file', { path: 'dupes-small.json' })).data.handle, depth: 2 });
  expect(small.data.outline.members.map((m: any) => [m.key, m.children ?? m.value])).toEqual(o.members.map((m: any) => [m.key, m.key === 'pad' ? 0 : m.children ?? m.value]));
});

test('get_value_at_path: a value over maxRecordBytes comes as its text in the file, in parts that always advance', async () => {
  const opened = await call(c.client, 'open_file', { path: 'big.json' });
  const handle = opened.data.handle;
  const text = JSON.stringify(pad);
  const first = await call(c.client, 'get_value_at_path', { handle, index: 0, path: 'pad' });
  expect(first.data).toMatchObject({ path: 'pad', value_type: 'array', truncated: true, value_bytes: Buffer.byteLength(text), offset: 0 });
  expect(first.data.pointer).toBeUndefined(); // the path names the value: no pointer beside it
  expect(first.data.value).toContain(`call get_value_at_path with offset ${first.data.next_offset}`);
  let rebuilt = '';
  for (let offset: number | undefined = 0, calls = 0; offset !== undefined; calls++) {
    const r = await call(c.client, 'get_value_at_path', { handle, index: 0, path: 'pad', offset, length: 8000 });
    expect(r.data.offset).toBe(offset);
    rebuilt += r.data.value;
    if (r.data.next_offset !== undefined) expect(r.data.next_offset).toBeGreaterThan(offset);
    offset = r.data.next_offset;
    expect(calls).toBeLessThan(100);
  }
  expect(rebuilt).toBe(text);
});

test('a record over maxRecordBytes read in parts as small as one byte: every part advances past whole characters', async () => {
  // 4-, 3- and 2-byte characters throughout; parts of 1, 2 and 3 bytes are smaller than many of them
  const emo = Array.from({ length: 2500 }, (_, i) => `é${i}😀`.padEnd(30, '字'));
  const text = JSON.stringify({ name: 'n', emo });
  fs.writeFileSync(path.join(dir, 'root', 'emoji.json'), text);
  expect(Buffer.byteLength(text)).toBeGreaterThan(MAX_RECORD);
  const opened = await call(c.client, 'open_file', { path: 'emoji.json' });
  const handle = opened.data.handle;
  // get_record cannot hold it whole: the limit named, and the hint names the tools that read it in parts
  const rec = await call(c.client, 'get_record', { handle, index: 0, offset: 0, length: 10 });
  expect(rec.data.error).toMatchObject({ code: 'RESOURCE_LIMIT_EXCEEDED', limit: { name: 'maxRecordBytes', limit: MAX_RECORD, value: Buffer.byteLength(text) } });
  expect(rec.data.error.hint).toContain('get_value_at_path with path "" and offset');
  // the record's text through get_value_at_path path "": a window of it followed with lengths 1, 2, 3
  const bytes = Buffer.from(text);
  const from = bytes.indexOf(Buffer.from('😀')); // the first 4-byte character
  for (const length of [1, 2, 3]) {
    let offset = from, got = '', calls = 0;
    while (offset < from + 200) {
      const r = await call(c.client, 'get_value_at_path', { handle, index: 0, path: '', offset, length });
      expect(r.data).toMatchObject({ offset, value_bytes: bytes.length, truncated: true });
      expect(r.data.next_offset).toBeGreaterThan(offset);
      expect(Buffer.byteLength(r.data.value)).toBe(r.data.next_offset - offset);
      got += r.data.value;
      offset = r.data.next_offset;
      calls++;
    }
    expect(got).toBe(bytes.subarray(from, offset).toString('utf8'));
    expect(calls).toBeLessThanOrEqual(200);
  }
  // an offset inside a character starts at the next one
  const inside = await call(c.client, 'get_value_at_path', { handle, index: 0, path: 'emo', offset: 1 + Buffer.byteLength('"é0') + 1, length: 1 });
  expect(inside.data).toMatchObject({ value: '字', offset: 1 + Buffer.byteLength('"é0😀') });
  // the last part ends at the end, without next_offset
  const tail = await call(c.client, 'get_value_at_path', { handle, index: 0, path: '', offset: bytes.length - 3, length: 3 });
  expect(tail.data.value).toBe(bytes.subarray(bytes.length - 3).toString('utf8'));
  expect(tail.data.next_offset).toBeUndefined();
});

test('mcpgw query prints a node over maxRecordBytes from the file, on one line', async () => {
  const q = await cli(path.join(dir, 'root', 'big.json'), '$.pad');
  expect(q.status).toBe(0);
  const lines = q.stdout.split('\n').filter(Boolean);
  expect(lines).toHaveLength(1);
  expect(JSON.parse(lines[0]!)).toEqual({ path: '/pad', value: pad });
  // a pretty file's records printed from their text are compacted to one line each
  fs.writeFileSync(path.join(dir, 'root', 'pretty.json'), JSON.stringify([{ a: 1, s: 'x  y' }, { a: 2 }, { a: 1, b: [1, 2] }], null, 2));
  const p = await cli(path.join(dir, 'root', 'pretty.json'), '$[?@.a == 1]');
  expect(p.stdout).toBe('{"path":"/0","value":{"a":1,"s":"x  y"}}\n{"path":"/2","value":{"a":1,"b":[1,2]}}\n');
});
