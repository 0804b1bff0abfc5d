/**
 * A bare path used as a test (`$.landlocked`) is an existence test (RFC 9535 §2.3.5.2.2): true when the path selects a
 * node, whatever its value. That stays the rule; an answer whose existence test selected `false` or `null` somewhere
 * says so (EXISTENCE_TEST) with the rewrite (`$.landlocked == true`), in every tool that evaluates predicates, and
 * says nothing when every value is true-ish or the test is compared explicitly. Through the real MCP client; counts
 * from Python (json).
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { call, connect, type Connected } from '../helpers/mcp';

// Countries-like records in a top-level array (as world-countries' countries.json): region, landlocked true/false,
// capital a non-empty list, `flag` true/false/null/absent, items with `ok` true/false.
const PYTHON = String.raw`
import json, random, sys
random.seed(7)
rows = []
for i in range(300):
    r = {"i": i, "region": random.choice(["Europe", "Asia", "Africa"]), "landlocked": random.random() < 0.3, "capital": ["c%d" % i]}
    f = random.choice(["t", "f", "n", "absent"])
    if f != "absent": r["flag"] = {"t": True, "f": False, "n": None}[f]
    r["items"] = [{"ok": random.random() < 0.8} for _ in range(random.randint(0, 3))]
    rows.append(r)
open(sys.argv[1], 'w').write(json.dumps(rows, indent=1))
eu = [r for r in rows if r["region"] == "Europe"]
print(json.dumps({
  "eu": len(eu),
  "eu_landlocked_true": sum(1 for r in eu if r["landlocked"] is True),
  "eu_not_landlocked": sum(1 for r in eu if r["landlocked"] is False),
  "landlocked_false": sum(1 for r in rows if r["landlocked"] is False),
  "flag_present": sum(1 for r in rows if "flag" in r),
  "flag_false_or_null": sum(1 for r in rows if "flag" in r and r["flag"] in (False, None)),
  "flag_true": sum(1 for r in rows if r.get("flag") is True),
  "items_ok_present": sum(1 for r in rows if any("ok" in it for it in r["items"])),
  "items_ok_false": sum(1 for r in rows if any(it["ok"] is False for it in r["items"])),
}))
`;

let dir: string;
let c: Connected;
let handle: string;
let py: Record<string, number>;

beforeAll(async () => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-exist-')));
  py = JSON.parse(execFileSync('python3', ['-c', PYTHON, path.join(dir, 'countries.json')], { encoding: 'utf8' }));
  c = await connect(['--root', dir]);
  handle = (await call(c.client, 'open_file', { path: 'countries.json' })).data.handle;
});
afterAll(async () => {
  await c.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const existence = (r: { data: { warnings?: { code: string; message: string }[] } }) => r.data.warnings?.filter((w) => w.code === 'EXISTENCE_TEST') ?? [];

test('aggregate where: a bare path counts presence (the rule stays) and the answer says so, with the rewrite', async () => {
  const r = await call(c.client, 'aggregate', { handle, where: '$.region = "Europe" && $.landlocked' });
  expect(r.data.groups[0].count).toBe(py.eu); // every record has landlocked: presence holds for all of Europe
  const [w, ...more] = existence(r);
  expect(more).toEqual([]);
  expect(w!.message).toBe(`In ${py.landlocked_false} records $.landlocked is false or null, and $.landlocked as a test only checks that it is present (RFC 9535), not that it is true. To test the value write $.landlocked == true.`);
  // compared explicitly: the count Python gives, and no warning
  const eq = await call(c.client, 'aggregate', { handle, where: '$.region = "Europe" && $.landlocked == true' });
  expect(eq.data.groups[0].count).toBe(py.eu_landlocked_true);
  expect(existence(eq)).toEqual([]);
});

test('search, predicate syntax with and/not(): negated presence is 0, warned; compared explicitly, Python\'s count', async () => {
  const r = await call(c.client, 'search', { handle, query: '$.region = "europe" and not($.landlocked)', max_results: 0 });
  expect(r.data.total_matches).toBe(0);
  expect(existence(r)).toHaveLength(1);
  expect(existence(r)[0]!.message).toContain('To test the value write $.landlocked == true.');
  const eq = await call(c.client, 'search', { handle, query: '$.region = "europe" and $.landlocked == false', max_results: 0 });
  expect(eq.data.total_matches).toBe(py.eu_not_landlocked);
  expect(existence(eq)).toEqual([]);
});

test('search: null counts as a value the test passed; absent members are no note; all true-ish values give none', async () => {
  const r = await call(c.client, 'search', { handle, query: '$.flag', language: 'predicate', max_results: 0 });
  expect(r.data.total_matches).toBe(py.flag_present);
  expect(existence(r)[0]!.message).toContain(`In ${py.flag_false_or_null} records $.flag is false or null`);
  const capital = await call(c.client, 'search', { handle, query: '$.region = "Asia" && $.capital', max_results: 0 });
  expect(existence(capital)).toEqual([]);
  const flagTrue = await call(c.client, 'search', { handle, query: '$.flag == true', language: 'predicate', max_results: 0 });
  expect(flagTrue.data.total_matches).toBe(py.flag_true);
  expect(existence(flagTrue)).toEqual([]);
});

test('json_read (JSONPath, nested filters, count): the same note from the same checks', async () => {
  const r = await call(c.client, 'json_read', { path: 'countries.json', language: 'jsonpath', query: '$[?@.items[?@.ok]]', count: true });
  expect(r.data.count).toBe(py.items_ok_present);
  const [w] = existence(r);
  expect(w!.message).toContain(`In ${py.items_ok_false} records @.ok is false or null`);
  expect(w!.message).toContain('write @.ok == true.');
  const top = await call(c.client, 'json_read', { path: 'countries.json', language: 'jsonpath', query: '$[?@.region == "Europe" && @.landlocked]', count: true });
  expect(top.data.count).toBe(py.eu);
  expect(existence(top)).toHaveLength(1);
  const eq = await call(c.client, 'json_read', { path: 'countries.json', language: 'jsonpath', query: '$[?@.region == "Europe" && @.landlocked == true]', count: true });
  expect(eq.data.count).toBe(py.eu_landlocked_true);
  expect(existence(eq)).toEqual([]);
  // a path compared or passed to a function is a value, not a test
  const fn = await call(c.client, 'json_read', { path: 'countries.json', language: 'jsonpath', query: '$[?length(@.items) > 2 && @.flag != true]', count: true });
  expect(existence(fn)).toEqual([]);
});

test('a bare path as the whole query tests each record the same way: search and aggregate say so; json_read selects, no note', async () => {
  const s = await call(c.client, 'search', { handle, query: '$.landlocked', max_results: 0 });
  expect(s.data.total_matches).toBe(300);
  expect(existence(s)[0]!.message).toBe(`In ${py.landlocked_false} records $.landlocked is false or null, and $.landlocked as a test only checks that it is present (RFC 9535), not that it is true. To test the value write $.landlocked == true.`);
  const a = await call(c.client, 'aggregate', { handle, where: '$.flag' });
  expect(a.data.groups[0].count).toBe(py.flag_present);
  expect(existence(a)[0]!.message).toContain(`In ${py.flag_false_or_null} records $.flag is false or null`);
  const read = await call(c.client, 'json_read', { path: 'countries.json', language: 'jsonpath', query: '$[0].landlocked' });
  expect(existence(read)).toEqual([]);
  const name = await call(c.client, 'search', { handle, query: '$.capital', max_results: 0 });
  expect(existence(name)).toEqual([]);
});
