/**
 * Singular paths keep RFC 9535's distinction between an index and a name in every tool that reads one, through a
 * real MCP client (in-process, the plugin kit's tool tester) and the built CLI: a JSONPath `$.t[0]` / `$.t[-1]` (index selector, §2.3.3) selects
 * nothing in an object and `$.t['0']` / `$.t.a` (name selector, §2.3.1) nothing in an array, exactly as json-p3
 * answers the same query; a JSON Pointer (`/t/0`) and a dot path (`t.0`, `t[0]`, `t[-1]`) still decide by the value
 * they meet (RFC 6901 §4). Each form is read on records where `t` is an array, an object with members "0", "1" and
 * "-1", a string, and absent — by get_value_at_path, get_outline, get_record / sample_records fields, aggregate's
 * group_by, metrics and bucket (JSON Lines, a top-level array, a document's `$.items[*]`), extract_keys and
 * get_value_at_path inside a document read in parts, and `mcpgw aggregate` (on a file big enough for worker threads).
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { jsonpath } from 'json-p3';
import { CLI, NODE } from '../helpers/mcp';
import { testTools, type ToolTester } from '../../src/plugin-kit/index';

/** `t` and `n` as an array, an object with index-like member names, a scalar, absent. */
const RECORDS = [
  { t: ['a0', 'a1'], n: [5, 7] },
  { t: { 0: 'm0', 1: 'm1', '-1': 'mm', k: { 0: 'deep' } }, n: { 0: 11, 1: 12, '-1': 13 } },
  { t: 's', n: 3 },
  { u: 1 },
];

/** A dot path or pointer with the tokens this test resolves it to, by the value met (RFC 6901 §4). */
const LENIENT: [string, (string | number)[]][] = [
  ['/t/0', ['t', '0']], ['/t/1', ['t', '1']], ['/t/-1', ['t', '-1']], ['/t/01', ['t', '01']],
  ['t.0', ['t', '0']], ['t[0]', ['t', 0]], ['t[-1]', ['t', -1]], ["t['0']", ['t', '0']], ['t.1', ['t', '1']],
];
/** JSONPath forms: the answer is json-p3's for the same query (`@` read as `$`). */
const STRICT = ['$.t[0]', "$.t['0']", '$.t["0"]', '$.t[-1]', "$.t['-1']", "$['t'][1]", "$.t['1']", '@.t[0]', "@['t']['0']", '$.t.k[0]', "$.t.k['0']"];
const FORMS = [...LENIENT.map(([p]) => p), ...STRICT];

/** RFC 6901 §4 as this test reads it: in an array a number (negative from the end) or a string of array-index form; in an object the member of the token's text. */
function lenient(v: unknown, tokens: (string | number)[]): unknown {
  for (const t of tokens) {
    if (Array.isArray(v)) {
      const i = typeof t === 'number' ? (t < 0 ? v.length + t : t) : /^(0|[1-9][0-9]*)$/.test(t) ? Number(t) : -1;
      if (i < 0 || i >= v.length) return undefined;
      v = v[i];
    } else if (v !== null && typeof v === 'object' && Object.prototype.hasOwnProperty.call(v, String(t))) v = (v as Record<string, unknown>)[String(t)];
    else return undefined;
  }
  return v;
}

/** The value `form` selects in `record`, or undefined: json-p3's first node for a JSONPath, else {@link lenient}. */
function expected(record: unknown, form: string): unknown {
  if (!/^[$@]/.test(form)) {
    // a lenient form, or the same with n for t
    const l = LENIENT.find(([p]) => p === form) ?? LENIENT.find(([p]) => numeric(p) === form)!;
    return lenient(record, l[0] === form ? l[1] : l[1].map((t) => (t === 't' ? 'n' : t)));
  }
  const nodes = jsonpath.query(form.replace(/^@/, '$'), record as never).values();
  return nodes.length ? nodes[0] : undefined;
}
/** The same path with `n` for `t` (numbers for the metrics). */
const numeric = (form: string) => form.replace(/\bt\b/, 'n');

let dir: string;
let t: ToolTester;
/** A tool call through the plugin kit's tool tester (the real MCP client, in-process): structuredContent as `data`. */
async function call(name: string, args: Record<string, unknown>) {
  const r = await t.call(name, args);
  return { data: r.structuredContent as any, text: r.text, isError: r.isError };
}
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-path-selectors-'));
  const lines = RECORDS.map((r) => JSON.stringify(r));
  fs.writeFileSync(path.join(dir, 'p.jsonl'), lines.join('\n') + '\n');
  fs.writeFileSync(path.join(dir, 'p-array.json'), `[${lines.join(',\n')}]`);
  fs.writeFileSync(path.join(dir, 'p-doc.json'), `{"t":["decoy"],"items":[${lines.join(',')}]}`);
  // one document over 1 MiB (read in parts, through lazy nodes), with `t` an array and `o` an object
  fs.writeFileSync(path.join(dir, 'big.json'), JSON.stringify({ pad: 'x'.repeat(1_200_000), t: [{ a: { x: 1 } }, { b: 2 }], o: { 0: { c: 3 }, '-1': { d: 4 } } }));
  t = await testTools('@mcpgw/tools-explore', { root: dir });
}, 60_000);
afterAll(async () => {
  await t?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** A handle per file, opened once (handles are capped at maxOpenFiles). */
const handles = new Map<string, string>();
async function open(file: string): Promise<string> {
  if (handles.has(file)) return handles.get(file)!;
  const r = await call('open_file', { path: file });
  expect(r.isError).toBe(false);
  handles.set(file, r.data.handle);
  return r.data.handle;
}

test('the JSONPath forms do differ from the lenient ones on these records (the test can tell the rules apart)', () => {
  expect(expected(RECORDS[1], '$.t[0]')).toBeUndefined();
  expect(expected(RECORDS[1], 't[0]')).toBe('m0');
  expect(expected(RECORDS[0], "$.t['0']")).toBeUndefined();
  expect(expected(RECORDS[0], "t['0']")).toBe('a0');
  expect(expected(RECORDS[1], '$.t[-1]')).toBeUndefined();
  expect(expected(RECORDS[1], 't[-1]')).toBe('mm');
});

test('get_value_at_path, get_outline, get_record and sample_records fields: each form selects what its rule says', async () => {
  const h = await open('p.jsonl');
  for (const form of FORMS) {
    for (let i = 0; i < RECORDS.length; i++) {
      const want = expected(RECORDS[i], form);
      const label = `${form} in record ${i}`;
      const v = await call('get_value_at_path', { handle: h, index: i, path: form });
      expect([label, v.isError ? 'NOT_FOUND' : JSON.parse(v.data.value)]).toEqual([label, want === undefined ? 'NOT_FOUND' : want]);
      if (v.isError) expect([label, v.data.error.code]).toEqual([label, 'NOT_FOUND']);
      const o = await call('get_outline', { handle: h, index: i, path: form });
      expect([label, o.isError ? 'NOT_FOUND' : o.data.outline.type]).toEqual([label, want === undefined ? 'NOT_FOUND' : typeof want === 'string' ? 'string' : 'object']);
      const g = await call('get_record', { handle: h, index: i, fields: [form], record_format: 'compact' });
      expect([label, JSON.parse(g.data.record)]).toEqual([label, want === undefined ? {} : { [form]: want }]);
    }
    const s = await call('sample_records', { handle: h, count: 4, fields: [form] });
    expect([form, s.data.records.map((r: any) => JSON.parse(r.record))]).toEqual([form, RECORDS.map((r) => { const w = expected(r, form); return w === undefined ? {} : { [form]: w }; })]);
  }
});

test('a JSONPath selector of the wrong kind says why, and which selector reads the value', async () => {
  const h = await open('p.jsonl');
  const onObject = await call('get_value_at_path', { handle: h, index: 1, path: '$.t[0]' });
  expect(onObject.data.error.message).toContain('the JSONPath index [0] selects nothing (RFC 9535 §2.3.3; its member "0" is [\'0\'])');
  expect(onObject.data.error.location.path).toBe('/t/0');
  const onArray = await call('get_value_at_path', { handle: h, index: 0, path: "$.t['0']" });
  expect(onArray.data.error.message).toContain("the JSONPath name ['0'] selects nothing (RFC 9535 §2.3.1; its element 0 is [0])");
});

describe.each([['JSON Lines', 'p.jsonl', undefined], ['a top-level array', 'p-array.json', undefined], ['a document\'s $.items[*]', 'p-doc.json', '$.items[*]']] as const)('aggregate on %s', (_label, file, each) => {
  test.each(FORMS)('group_by, metrics and bucket at %s', async (form) => {
    const h = await open(file);
    const units = each ? { each } : {};
    const nform = numeric(form);
    const keyOf = (v: unknown) => (v === undefined ? 'missing' : JSON.stringify(v));
    const counts = new Map<string, number>();
    for (const r of RECORDS) counts.set(keyOf(expected(r, form)), (counts.get(keyOf(expected(r, form))) ?? 0) + 1);
    const r = await call('aggregate', { handle: h, ...units, group_by: form, order: 'key_asc' });
    expect(r.isError).toBe(false);
    expect([form, new Map(r.data.groups.map((g: any) => [g.missing ? 'missing' : JSON.stringify(g.key), g.count]))]).toEqual([form, counts]);
    // metrics over the numbers at the same form of path (n for t)
    const nums = RECORDS.map((x) => expected(x, nform)).filter((x): x is number => typeof x === 'number');
    const m = await call('aggregate', { handle: h, ...units, metrics: [`sum(${nform})`, `min(${nform})`, `max(${nform})`, `count_distinct(${nform})`] });
    const g = m.data.groups[0];
    expect([nform, g[`sum(${nform})`], g[`min(${nform})`], g[`max(${nform})`], g[`count_distinct(${nform})`]]).toEqual([
      nform, nums.length ? nums.reduce((a, b) => a + b, 0) : null, nums.length ? Math.min(...nums) : null, nums.length ? Math.max(...nums) : null,
      new Set(RECORDS.map((x) => expected(x, nform)).filter((x) => x !== undefined)).size,
    ]);
    const buckets = new Map<string, number>();
    for (const x of RECORDS) {
      const v = expected(x, nform);
      const k = v === undefined ? 'missing' : String(Math.floor((v as number) / 2) * 2);
      buckets.set(k, (buckets.get(k) ?? 0) + 1);
    }
    const b = await call('aggregate', { handle: h, ...units, bucket: { path: nform, width: 2 }, order: 'key_asc' });
    expect([nform, new Map(b.data.groups.map((x: any) => [x.missing ? 'missing' : String(x.key), x.count]))]).toEqual([nform, buckets]);
  });
});

test('$.t[0], $.t["0"] and t[0] in one aggregate are three columns, not one', async () => {
  const h = await open('p.jsonl');
  const dims = ['$.t[0]', '$.t["0"]', 't[0]'];
  const r = await call('aggregate', { handle: h, group_by: dims, order: 'key_asc' });
  const want = new Map<string, number>();
  for (const x of RECORDS) { const k = JSON.stringify(dims.map((d) => expected(x, d) ?? null)); want.set(k, (want.get(k) ?? 0) + 1); }
  expect(new Map(r.data.groups.map((g: any) => [JSON.stringify(g.key), g.count]))).toEqual(want);
  expect(r.data.groups.length).toBe(3); // [a0,null,a0], [null,m0,m0], [null,null,null] twice
});

test('a document read in parts: get_value_at_path, get_outline and extract_keys keep the same rules', async () => {
  const h = await open('big.json');
  const big = { t: [{ a: { x: 1 } }, { b: 2 }], o: { 0: { c: 3 }, '-1': { d: 4 } } };
  const cases: [string, unknown][] = [
    ['$.t[0]', expected(big, '$.t[0]')], ["$.t['0']", expected(big, "$.t['0']")], ['$.o[0]', expected(big, '$.o[0]')], ["$.o['0']", expected(big, "$.o['0']")],
    ['$.o[-1]', expected(big, '$.o[-1]')], ['/o/0', { c: 3 }], ['t.0', { a: { x: 1 } }], ['o[0]', { c: 3 }], ['o[-1]', { d: 4 }], ['/t/-1', undefined],
  ];
  expect(cases.map(([, w]) => w === undefined)).toEqual([false, true, true, false, true, false, false, false, false, true]);
  for (const [form, want] of cases) {
    const v = await call('get_value_at_path', { handle: h, index: 0, path: form });
    expect([form, v.isError ? 'NOT_FOUND' : JSON.parse(v.data.value)]).toEqual([form, want === undefined ? 'NOT_FOUND' : want]);
    const o = await call('get_outline', { handle: h, index: 0, path: form });
    expect([form, o.isError]).toEqual([form, want === undefined]);
    const k = await call('extract_keys', { handle: h, path: form });
    expect([form, k.data.keys]).toEqual([form, want === undefined ? [] : Object.keys(want as object)]);
  }
  // a dot path's name reaches into an array's objects (Thoth); a JSONPath name selector selects nothing in an array
  expect((await call('extract_keys', { handle: h, path: 't.a' })).data.keys).toEqual(['x']);
  expect((await call('extract_keys', { handle: h, path: '$.t.a' })).data.keys).toEqual([]);
  expect((await call('extract_keys', { handle: h, path: 't' })).data.keys).toEqual(['a', 'b']);
});

test('mcpgw aggregate (the CLI), on a file big enough for worker threads: the forms read apart, as the tool reads them', () => {
  const dims = ['$.t[0]', "$.t['0']", 't[0]', '/t/-1', 't[-1]', '$.t[-1]', "$.t['-1']", '@.t[0]'];
  const metrics = ['$.n[0]', "$.n['0']", 'n[0]', '/n/0', '$.n[-1]', 'n[-1]'].map((p) => `sum(${p})`);
  const lines = RECORDS.map((r) => JSON.stringify(r));
  // 4 records of ≈ 60 bytes 150,000 times: over the 32 MiB from which an aggregate runs on worker threads
  const copies = Math.ceil((33 * 1024 * 1024) / (lines.join('\n').length + 1));
  const big = path.join(dir, 'big.jsonl');
  const fd = fs.openSync(big, 'w');
  const block = (lines.join('\n') + '\n').repeat(1000);
  for (let k = 0; k < Math.ceil(copies / 1000); k++) fs.writeSync(fd, block);
  fs.closeSync(fd);
  const n = Math.ceil(copies / 1000) * 1000;
  expect(fs.statSync(big).size).toBeGreaterThan(32 * 1024 * 1024);
  const args = [CLI, 'aggregate', 'big.jsonl', ...dims.flatMap((d) => ['--group-by', d]), ...metrics.flatMap((m) => ['--metric', m]), '--order', 'key_asc', '--json'];
  const r = spawnSync(NODE, args, { cwd: dir, encoding: 'utf8', maxBuffer: 1 << 24, env: { PATH: process.env.PATH ?? '', XDG_CACHE_HOME: process.env.XDG_CACHE_HOME ?? '' } });
  fs.rmSync(big);
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  const got = new Map<string, unknown>(JSON.parse(r.stdout).groups.map((g: any) => [JSON.stringify(g.key), [g.count, ...metrics.map((m) => g[m])]]));
  const want = new Map<string, unknown[]>();
  for (const x of RECORDS) {
    const k = JSON.stringify(dims.map((d) => expected(x, d) ?? null));
    const prev = want.get(k) ?? [0, ...metrics.map(() => null)];
    const sums = metrics.map((m, j) => { const v = expected(x, m.slice(4, -1)); return typeof v === 'number' ? ((prev[j + 1] as number | null) ?? 0) + v * n : prev[j + 1]; });
    want.set(k, [(prev[0] as number) + n, ...sums]);
  }
  expect(got).toEqual(want);
}, 120_000);
