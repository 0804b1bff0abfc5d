/**
 * aggregate's paths into arrays, end to end through a real MCP client and the built CLI: a JSON Pointer (`/tags/0`),
 * a dot path (`tags.0`), brackets (`tags[0]`) and JSONPath (`$.tags[0]`) name the same array element, in group_by,
 * metrics and bucket alike, while `/o/0` on an object still names its member "0" (RFC 6901 §4); and every record's
 * value there is what get_value_at_path gives for the same path.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { call, CLI, connect, NODE, type Connected } from '../../../test/helpers/mcp';

const FIXTURES = path.join(__dirname, '..', '..', '..', 'test', 'fixtures', 'edges');
let dir: string;
let c: Connected;
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-aggregate-paths-'));
  for (const f of ['esc.jsonl', 'names.jsonl']) fs.copyFileSync(path.join(FIXTURES, f), path.join(dir, f));
  // The same records as a top-level array and as one document's items.
  const names = fs.readFileSync(path.join(dir, 'names.jsonl'), 'utf8').trim().split('\n');
  fs.writeFileSync(path.join(dir, 'names-array.json'), `[${names.join(',\n')}]`);
  fs.writeFileSync(path.join(dir, 'names-doc.json'), `{"arr":[[9]],"items":[${names.join(',')}]}`);
  c = await connect(['--root', dir], { cwd: dir });
}, 60_000);
afterAll(async () => {
  await c?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function open(file: string): Promise<string> {
  const r = await call(c.client, 'open_file', { path: file });
  expect(r.isError).toBe(false);
  return r.data.handle;
}
const rows = (groups: any[]) => groups.map((g) => [g.key, g.count, g.missing ?? []]);

test('esc.jsonl: /tags/0, tags.0, tags[0] and $.tags[0] give a, z and two records without one; metrics and bucket too', async () => {
  const h = await open('esc.jsonl');
  // tags: absent, ["a","b","c"], ["z"], []
  for (const p of ['/tags/0', 'tags.0', 'tags[0]', '$.tags[0]']) {
    const r = await call(c.client, 'aggregate', { handle: h, group_by: p, metrics: [`count_distinct(${p})`, `min(${p})`, `max(${p})`], order: 'key_asc' });
    expect(r.isError).toBe(false);
    expect(r.data.groups).toEqual([
      { key: null, count: 2, missing: [p], [`count_distinct(${p})`]: 0, [`min(${p})`]: null, [`max(${p})`]: null },
      { key: 'a', count: 1, [`count_distinct(${p})`]: 1, [`min(${p})`]: 'a', [`max(${p})`]: 'a' },
      { key: 'z', count: 1, [`count_distinct(${p})`]: 1, [`min(${p})`]: 'z', [`max(${p})`]: 'z' },
    ]);
    const all = await call(c.client, 'aggregate', { handle: h, metrics: [`count_distinct(${p})`, `min(${p})`] });
    expect(all.data.groups).toEqual([{ key: null, count: 4, [`count_distinct(${p})`]: 2, [`min(${p})`]: 'a' }]);
    // strings are not bucketable: two records hold one, two have none
    const b = await call(c.client, 'aggregate', { handle: h, bucket: { path: p, width: 1 }, order: 'key_asc' });
    expect(rows(b.data.groups)).toEqual([[null, 2, [p]], [null, 2, []]]);
    expect(b.data.groups[1].unbucketable).toEqual([p]);
  }
});

test('names.jsonl, as JSON Lines, a top-level array and a document\'s items: /arr/0/0 and /o/0 in every form', async () => {
  // arr: [[1,2],[3]], [[5]], [], absent; o: {"0":"zero"}, {"0":"zero2"}, [], {}
  const ARR: [unknown, number, string[]][] = [[null, 2, ['P']], [1, 1, []], [5, 1, []]];
  const O: [unknown, number, string[]][] = [[null, 2, ['P']], ['zero', 1, []], ['zero2', 1, []]];
  const named = (want: [unknown, number, string[]][], p: string) => want.map(([k, n, m]) => [k, n, m.map(() => p)]);
  for (const [file, each] of [['names.jsonl', undefined], ['names-array.json', undefined], ['names-doc.json', '$.items[*]']] as const) {
    const h = await open(file);
    const units = each ? { each } : {};
    for (const p of ['/arr/0/0', 'arr.0.0', 'arr[0][0]', '$.arr[0][0]', 'arr[0].0', '/arr/-1/0']) {
      const r = await call(c.client, 'aggregate', { handle: h, ...units, group_by: p, metrics: [`sum(${p})`, `max(${p})`], order: 'key_asc' });
      expect(r.isError).toBe(false);
      if (p === '/arr/-1/0') {
        // "-1" is not an array index in a pointer (RFC 6901 §4): no record has one
        expect(rows(r.data.groups)).toEqual([[null, 4, [p]]]);
        continue;
      }
      expect(rows(r.data.groups)).toEqual(named(ARR, p));
      expect(r.data.groups.map((g: any) => g[`sum(${p})`])).toEqual([null, 1, 5]);
      const b = await call(c.client, 'aggregate', { handle: h, ...units, bucket: { path: p, width: 2 }, order: 'key_asc' });
      expect(rows(b.data.groups)).toEqual([[null, 2, [p]], [0, 1, []], [4, 1, []]]);
    }
    for (const p of ['/o/0', 'o.0', 'o[0]', "$.o['0']", "['o']['0']"]) {
      const r = await call(c.client, 'aggregate', { handle: h, ...units, group_by: p, order: 'key_asc' });
      expect(rows(r.data.groups)).toEqual(named(O, p));
    }
    // two dimensions read from one member, an element and a member of the same name "0"
    const two = await call(c.client, 'aggregate', { handle: h, ...units, group_by: ['/arr/0/1', '/o/0'], order: 'key_asc' });
    expect(rows(two.data.groups)).toEqual([[[null, null], 2, ['/arr/0/1', '/o/0']], [[null, 'zero2'], 1, ['/arr/0/1']], [[2, 'zero'], 1, []]]);
  }
});

test('each record\'s value is what get_value_at_path gives for the same path', async () => {
  const h = await open('names.jsonl');
  for (const p of ['/arr/0/0', 'arr.0.1', '/o/0', 'o[0]', '/arr/1/0']) {
    const seen = new Map<string, number>();
    for (let i = 0; i < 4; i++) {
      const v = await call(c.client, 'get_value_at_path', { handle: h, index: i, path: p });
      const k = v.isError ? 'missing' : v.data.value;
      seen.set(k, (seen.get(k) ?? 0) + 1);
    }
    const r = await call(c.client, 'aggregate', { handle: h, group_by: p });
    expect(new Map(r.data.groups.map((g: any) => [g.missing ? 'missing' : JSON.stringify(g.key), g.count]))).toEqual(seen);
  }
});

test('mcpgw aggregate --group-by /tags/0 (the CLI): a and z, two records missing', () => {
  const r = spawnSync(NODE, [CLI, 'aggregate', 'esc.jsonl', '--group-by', '/tags/0', '--order', 'key_asc', '--json'], { cwd: dir, encoding: 'utf8', env: { PATH: process.env.PATH ?? '', XDG_CACHE_HOME: process.env.XDG_CACHE_HOME ?? '' } });
  expect(r.status).toBe(0);
  expect(rows(JSON.parse(r.stdout).groups)).toEqual([[null, 2, ['/tags/0']], ['a', 1, []], ['z', 1, []]]);
});
