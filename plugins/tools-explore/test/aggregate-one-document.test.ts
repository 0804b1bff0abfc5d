/**
 * A file that is one JSON document is one record: a group_by on a member of its array's elements groups that one
 * record, key missing. The answer says so and names the `each` that reaches the elements — which, passed, gives the
 * counts Python's collections.Counter gives over the elements. Through the real MCP client.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { call, connect, type Connected } from '../../../test/helpers/mcp';

const PYTHON = String.raw`
import json, random, sys
from collections import Counter
random.seed(7)
doc = {"version": 1, "3166-2": [{"code": "X-%d" % i, "type": random.choice(["Province", "District", "Region"])} for i in range(400)]}
open(sys.argv[1], 'w').write(json.dumps(doc, indent=2))
open(sys.argv[2], 'w').write(json.dumps({"meta": {"type": "deep"}}))
print(json.dumps(sorted(Counter(x["type"] for x in doc["3166-2"]).items(), key=lambda kv: (-kv[1], kv[0]))))
`;

let dir: string;
let c: Connected;
let counts: [string, number][];
beforeAll(async () => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-onedoc-')));
  counts = JSON.parse(execFileSync('python3', ['-c', PYTHON, path.join(dir, 'iso.json'), path.join(dir, 'nested.json')], { encoding: 'utf8' }));
  c = await connect(['--root', dir]);
});
afterAll(async () => {
  await c?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('group_by a member of the elements: one group, key missing, and a hint naming each', async () => {
  const handle = (await call(c.client, 'open_file', { path: 'iso.json' })).data.handle;
  const r = await call(c.client, 'aggregate', { handle, group_by: 'type' });
  expect(r.data.groups).toEqual([{ key: null, count: 1, missing: ['type'] }]);
  expect(r.data.hint).toBe('The file is one JSON document, so aggregate sees one record, and type is not at its top: "type" lies deeper. To aggregate the elements of an array in it, pass each = "$[\\"3166-2\\"][*]".');
  const each = await call(c.client, 'aggregate', { handle, group_by: 'type', each: '$["3166-2"][*]' });
  expect(each.data.groups.map((g: any) => [g.key, g.count])).toEqual(counts);
  expect(each.data.hint).toBeUndefined();
});

test('search and json_read that find nothing at the top say where the names lie, with the query moved there', async () => {
  const handle = (await call(c.client, 'open_file', { path: 'iso.json' })).data.handle;
  const province = counts.find(([k]) => k === 'Province')![1];
  const p = await call(c.client, 'search', { handle, query: '$.type = "Province"', match_case: true, max_results: 0 });
  expect(p.data.total_matches).toBe(0);
  expect(p.data.hint).toBe('The file is one JSON document, so it is one record, and "type" lies deeper, in the elements of $["3166-2"][*]: query them there, e.g. $["3166-2"][?@.type == "Province"] (a JSONPath; aggregate takes each = "$[\\"3166-2\\"][*]").');
  // The suggestion, taken: Python's count.
  const moved = await call(c.client, 'search', { handle, query: '$["3166-2"][?@.type == "Province"]', max_results: 0 });
  expect(moved.data.total_matches).toBe(province);
  const j = await call(c.client, 'json_read', { path: 'iso.json', language: 'jsonpath', query: '$.type' });
  expect(j.data.items).toEqual([]);
  expect(j.data.hint).toContain('e.g. $["3166-2"][*].type (a JSONPath');
});

test('no array holds the name: the hint says how to find one', async () => {
  const handle = (await call(c.client, 'open_file', { path: 'nested.json' })).data.handle;
  const r = await call(c.client, 'aggregate', { handle, group_by: 'type' });
  expect(r.data.hint).toContain('pass each (a JSONPath to them, e.g. "$.items[*]"; get_outline shows the document\'s arrays)');
});
