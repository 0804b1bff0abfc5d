/**
 * The explorer's aggregate tool end to end, through a real MCP client (in-process: the plugin kit's tool tester, its
 * aggregates on the engine's worker threads as a server's): groups and metrics equal
 * to values computed here from the generated data, big integers exact on the wire, paging of groups equal to the
 * unpaged answer, scans stopped by a 1 ms deadline continued by cursor to the same answer, answers under
 * maxResultBytes, a single document's `$.items[*]`, an empty file, and errors with their codes.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { testTools, type ToolTester } from 'mcpgw/plugin-kit';
import { call } from '../../../test/helpers/mcp';

type Connected = Pick<ToolTester, 'client' | 'close'>;

const N = 6000;
const LEVELS = ['info', 'debug', 'error', 'warn', 'Error'];
interface Rec { id: number; level: string; status?: string | null; bytes: bigint; ts: string; user: { country: string } }
const recs: Rec[] = [];
function data(): string {
  const lines: string[] = [];
  for (let i = 0; i < N; i++) {
    const r: Rec = {
      id: i,
      level: LEVELS[i % 5]!,
      ...(i % 23 === 0 ? {} : { status: i % 19 === 0 ? null : `s${i % 40}` }),
      bytes: i % 100 === 1 ? 9007199254740993n + BigInt(i) : BigInt(i * 13),
      ts: i % 2 ? `2025-03-01T${String(i % 24).padStart(2, '0')}:15:00Z` : `2025-03-01T${String(i % 24).padStart(2, '0')}:15:00+05:30`,
      user: { country: ['EE', 'JP'][i % 2]! },
    };
    recs.push(r);
    lines.push(JSON.stringify({ ...r, bytes: 0 }).replace('"bytes":0', `"bytes":${r.bytes}`));
  }
  return lines.join('\n') + '\n';
}

let base: string;
let c: Connected;
let slow: Connected;
let small: Connected;
beforeAll(async () => {
  base = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-aggregate-e2e-'));
  fs.mkdirSync(path.join(base, 'data'));
  fs.writeFileSync(path.join(base, 'data', 'events.jsonl'), data());
  fs.writeFileSync(path.join(base, 'data', 'doc.json'), JSON.stringify({ items: [{ kind: 'a', n: 1 }, { kind: 'b', n: 2 }, { kind: 'a', n: 3 }, { n: 4 }], meta: { kind: 'z' } }));
  fs.writeFileSync(path.join(base, 'data', 'empty.jsonl'), '');
  fs.writeFileSync(path.join(base, 'data', 'long.jsonl'), [`{"g":{"deep":"${'k'.repeat(5000)}"},"s":"${'é'.repeat(4000)}"}`, '{"g":1,"s":"b"}'].join('\n'));
  fs.writeFileSync(path.join(base, 'data', 'part.jsonl'), fs.readFileSync(path.join(base, 'data', 'events.jsonl'), 'utf8').split('\n').slice(0, 400).join('\n'));
  const root = path.join(base, 'data');
  [c, slow, small] = await Promise.all([{}, { requestTimeoutMs: 1 }, { maxResultBytes: 4096 }].map((limits) => testTools('@mcpgw/tools-explore', { root, config: { limits } })));
}, 60_000);
afterAll(async () => {
  await Promise.all([c?.close(), slow?.close(), small?.close()]);
  fs.rmSync(base, { recursive: true, force: true });
});

async function handle(conn: Connected, file = 'events.jsonl'): Promise<string> {
  const r = await call(conn.client, 'open_file', { path: file });
  expect(r.isError).toBe(false);
  return r.data.handle;
}

/** Every group of an aggregate, following cursors (scan continuations and group pages). */
async function all(conn: Connected, args: Record<string, unknown>) {
  const groups: any[] = [];
  let r = await call(conn.client, 'aggregate', args);
  let pages = 1;
  for (;;) {
    expect(r.isError).toBe(false);
    if (r.data.complete) groups.push(...r.data.groups);
    if (!r.data.next_cursor) break;
    r = await call(conn.client, 'aggregate', { ...args, cursor: r.data.next_cursor });
    pages++;
  }
  return { groups, last: r.data, pages };
}

test('tools/list offers aggregate with a closed input schema', async () => {
  const tools = (await c.client.listTools()).tools;
  const t = tools.find((x) => x.name === 'aggregate')!;
  expect(t).toBeDefined();
  expect(Object.keys(t.inputSchema.properties!).sort()).toEqual(['bucket', 'cursor', 'each', 'group_by', 'handle', 'language', 'match_case', 'metrics', 'order', 'top', 'where'].sort());
  expect(t.description!.length).toBeLessThan(2000);
});

test('group_by status with sum, count_distinct and max: counts and exact values as computed here; big integers exact on the wire', async () => {
  const h = await handle(c);
  const r = await call(c.client, 'aggregate', { handle: h, group_by: 'status', metrics: ['sum(bytes)', 'count_distinct(level)', 'max(bytes)'], top: 100 });
  expect(r.isError).toBe(false);
  const expected = new Map<string, { count: number; sum: bigint; levels: Set<string>; max: bigint }>();
  for (const x of recs) {
    const k = x.status === undefined ? 'missing' : JSON.stringify(x.status);
    const e = expected.get(k) ?? { count: 0, sum: 0n, levels: new Set(), max: -1n };
    e.count++; e.sum += x.bytes; e.levels.add(x.level); if (x.bytes > e.max) e.max = x.bytes;
    expected.set(k, e);
  }
  expect(r.data.groups_total).toBe(expected.size);
  expect(r.data).toMatchObject({ records_scanned: N, records_matched: N, complete: true, group_by: ['status'], metrics: ['count', 'sum(bytes)', 'count_distinct(level)', 'max(bytes)'], order: 'count_desc' });
  const text = r.text;
  for (const g of r.data.groups) {
    const k = g.missing ? 'missing' : JSON.stringify(g.key);
    const e = expected.get(k)!;
    expect(g.count).toBe(e.count);
    expect(g['count_distinct(level)']).toBe(e.levels.size);
    // Exact digits in the text block (and in structuredContent's JSON on the wire).
    expect(text).toContain(`"sum(bytes)":${e.sum}`);
    expect(text).toContain(`"max(bytes)":${e.max}`);
    if (k === 'missing') expect(g).toMatchObject({ key: null, missing: ['status'] });
  }
  expect(r.data.groups.some((g: any) => g.key === null && !g.missing)).toBe(true); // null apart from missing
  const counts = r.data.groups.map((g: any) => g.count);
  expect(counts).toEqual([...counts].sort((a: number, b: number) => b - a));
});

test('errors per hour: where level == "error" (case-insensitive by default), bucket ts 1h over two time zones', async () => {
  const h = await handle(c);
  for (const match_case of [false, true]) {
    const r = await call(c.client, 'aggregate', { handle: h, where: '$.level == "error"', match_case, bucket: { path: 'ts', width: '1h' }, order: 'key_asc', top: 100 });
    expect(r.isError).toBe(false);
    const expected = new Map<string, number>();
    for (const x of recs) {
      if (match_case ? x.level !== 'error' : x.level.toLowerCase() !== 'error') continue;
      const hour = new Date(Math.floor(Date.parse(x.ts) / 3_600_000) * 3_600_000).toISOString().replace('.000Z', 'Z');
      expected.set(hour, (expected.get(hour) ?? 0) + 1);
    }
    expect(r.data.groups.map((g: any) => [g.key, g.count])).toEqual([...expected].sort((a, b) => (a[0] < b[0] ? -1 : 1)));
    expect(r.data.records_matched).toBe([...expected.values()].reduce((a, b) => a + b, 0));
    expect(r.data.filter).toBeDefined();
    expect(r.data.group_by).toEqual(['ts']);
  }
});

test('paging of groups equals the unpaged answer, for every order', async () => {
  const h = await handle(c);
  for (const order of ['count_desc', 'key_asc', 'key_desc', 'count_asc', 'sum(bytes)_desc']) {
    const args = { handle: h, group_by: ['status', 'user.country'], metrics: ['sum(bytes)'], order };
    const whole = await call(c.client, 'aggregate', { ...args, top: 1000 });
    expect(whole.data.next_cursor).toBeUndefined();
    const paged = await all(c, { ...args, top: 7 });
    expect(paged.pages).toBe(Math.ceil(whole.data.groups_total / 7));
    expect(paged.groups).toEqual(whole.data.groups);
  }
});

test('scans stopped by a 1 ms deadline continue by cursor; the finished answer and its pages equal the unpaged one', async () => {
  // A where whose match() pattern may backtrack (an alternation) runs on worker threads, in slices of records: a 1 ms
  // page stops after one. (A case-insensitive `==` is a fixed pattern that needs no thread: 400 records finish at once.)
  const h = await handle(slow, 'part.jsonl');
  const args = { handle: h, where: 'match($.level, "[Ii][Nn][Ff][Oo]|[Ee][Rr][Rr][Oo][Rr]")', group_by: 'status', metrics: ['sum(bytes)', 'min(ts)'], top: 9 };
  const first = await call(slow.client, 'aggregate', args);
  expect(first.isError).toBe(false);
  expect(first.data.complete).toBe(false);
  expect(first.data.next_cursor).toEqual(expect.any(String));
  expect(first.data.records_scanned).toBeLessThan(400);
  const paged = await all(slow, args);
  const whole = await call(c.client, 'aggregate', { ...args, handle: await handle(c, 'part.jsonl'), top: 1000 });
  expect(whole.data.complete).toBe(true);
  expect(paged.groups).toEqual(whole.data.groups);
  expect(paged.last.complete).toBe(true);
  expect(paged.pages).toBeGreaterThan(Math.ceil(whole.data.groups_total / 9));
}, 120_000);

test('answers stay under maxResultBytes: a cut and a cursor for the rest', async () => {
  const h = await handle(small);
  const args = { handle: h, group_by: ['status', 'level', 'user.country'], top: 1000 };
  const r = await call(small.client, 'aggregate', args);
  expect(r.isError).toBe(false);
  expect(Buffer.byteLength(r.text)).toBeLessThanOrEqual(4096);
  expect(r.data.cut).toMatchObject({ limit: 'maxResultBytes' });
  const paged = await all(small, args);
  const whole = await call(c.client, 'aggregate', { ...args, handle: await handle(c) });
  expect(paged.groups).toEqual(whole.data.groups);
});

test('a single document: each $.items[*] with where on the items; an empty file', async () => {
  const h = await handle(c, 'doc.json');
  const r = await call(c.client, 'aggregate', { handle: h, each: '$.items[*]', group_by: 'kind', metrics: ['sum(n)'], order: 'key_asc' });
  expect(r.data.groups).toEqual([{ key: null, missing: ['kind'], count: 1, 'sum(n)': 4 }, { key: 'a', count: 2, 'sum(n)': 4 }, { key: 'b', count: 1, 'sum(n)': 2 }]);
  expect(r.data).toMatchObject({ units_matched: 4, records_matched: 1 });
  const w = await call(c.client, 'aggregate', { handle: h, each: '$.items[*]', where: '$.n >= 2', group_by: 'kind', order: 'key_asc' });
  expect(w.data.groups.map((g: any) => [g.key, g.count])).toEqual([[null, 1], ['a', 1], ['b', 1]]);
  const e = await call(c.client, 'aggregate', { handle: await handle(c, 'empty.jsonl'), group_by: 'status' });
  expect(e.data).toMatchObject({ groups: [], groups_total: 0, records_scanned: 0, records_matched: 0, complete: true });
});

test('bad arguments are errors with catalogue codes', async () => {
  const h = await handle(c);
  const cases: [Record<string, unknown>, string][] = [
    [{ metrics: ['median(x)'] }, 'INVALID_ARGUMENT'],
    [{ group_by: '$..id' }, 'INVALID_ARGUMENT'],
    [{ where: '$.a = ' }, 'QUERY_SYNTAX_ERROR'],
    [{ where: 'error' }, 'INVALID_ARGUMENT'],
    [{ where: "match($.level, 'err.*'" }, 'QUERY_SYNTAX_ERROR'],
    [{ where: 'length($.tags) >' }, 'QUERY_SYNTAX_ERROR'],
    [{ bucket: { path: 'ts', width: '1y' } }, 'INVALID_ARGUMENT'],
    [{ order: 'sum(bytes)_desc' }, 'INVALID_ARGUMENT'],
    [{ cursor: 'ac_0000000000000000' }, 'NOT_FOUND'],
  ];
  for (const [args, code] of cases) {
    const r = await call(c.client, 'aggregate', { handle: h, ...args });
    expect([args, r.isError, r.data.error?.code]).toEqual([args, true, code]);
  }
  // a where that reads the record but does not parse: its fault at a position, as search says it
  const unclosed = await call(c.client, 'aggregate', { handle: h, where: "match($.level, 'err.*'" });
  expect(unclosed.data.error.message).toMatch(/at character \d+/);
  const other = await call(c.client, 'aggregate', { handle: h, group_by: 'status', top: 1 });
  const r = await call(c.client, 'aggregate', { handle: h, group_by: 'level', cursor: other.data.next_cursor });
  expect(r.data.error.code).toBe('INVALID_ARGUMENT');
});

test('progress notifications reach a client that asks for them during the scan, increasing, with the total', async () => {
  // 16 MB: four 4 MiB batches, so a notification goes out after the first, long before the answer. The one at the
  // total goes out just before the answer; the SDK client handles answers at once but notifications a microtask
  // later, so when both arrive in one read it drops that last one: it is not required here.
  const R = 100_000;
  fs.writeFileSync(path.join(base, 'data', 'progress.jsonl'), Array.from({ length: R }, (_, i) => `{"id":${i},"level":"${LEVELS[i % 5]}","pad":"${'p'.repeat(120)}"}`).join('\n') + '\n');
  const h = await handle(c, 'progress.jsonl');
  const seen: { progress: number; total?: number }[] = [];
  const r = await c.client.callTool({ name: 'aggregate', arguments: { handle: h, group_by: 'level' } }, { onprogress: (p) => seen.push(p) });
  expect(r.isError).toBeFalsy();
  expect((r.structuredContent as { records_scanned: number }).records_scanned).toBe(R);
  expect(seen.length).toBeGreaterThan(0);
  expect(seen[0]!.progress).toBeLessThan(R);
  for (const p of seen) expect([p.total, p.progress > 0 && p.progress <= R]).toEqual([R, true]);
  expect(seen.map((p) => p.progress)).toEqual([...seen.map((p) => p.progress)].sort((a, b) => a - b));
}, 60_000);

test('keys and metrics too long to show come as the start of their JSON text, marked, within maxResultBytes', async () => {
  const h = await handle(small, 'long.jsonl');
  const args = { handle: h, group_by: 'g', metrics: ['max(s)', 'min(s)', 'max(g)'], order: 'key_asc', top: 5 };
  const r = await call(small.client, 'aggregate', args);
  expect(r.isError).toBe(false);
  expect(Buffer.byteLength(r.text)).toBeLessThanOrEqual(4096);
  const [num, obj] = (await all(small, args)).groups;
  expect(num).toEqual({ key: 1, count: 1, 'max(s)': 'b', 'min(s)': 'b', 'max(g)': 1 });
  expect(obj.key_truncated).toBe(true);
  expect(obj.key.startsWith('{"deep":"kkk')).toBe(true);
  expect(obj.metrics_truncated).toEqual(['max(s)', 'min(s)']);
  expect(obj['max(g)']).toBeNull(); // an object is neither a number nor a string
  expect(obj['max(s)'].startsWith('"éé')).toBe(true);
  expect(obj['max(s)'].endsWith('…')).toBe(true);
});

test('a where JSONPath whose search() pattern is not I-Regexp: the same NOT_I_REGEXP warning as search, and nothing counted', async () => {
  const h = await handle(c);
  const where = "$[?search(@, '\\\\w+')]";
  const fromSearch = (await call(c.client, 'search', { handle: h, query: where })).data.warnings;
  expect(fromSearch).toHaveLength(1);
  expect(fromSearch[0].code).toBe('NOT_I_REGEXP');
  expect(fromSearch[0].message).toContain('\\w → [0-9A-Za-z_]');
  const r = await call(c.client, 'aggregate', { handle: h, where, group_by: 'level' });
  expect(r.isError).toBe(false);
  expect(r.data.records_matched).toBe(0);
  expect(r.data.warnings).toEqual(fromSearch);
  // Its I-Regexp spelling counts every record that has a level.
  const good = await call(c.client, 'aggregate', { handle: h, where: "$[?search(@, '[0-9A-Za-z_]+')]" });
  expect(good.data.records_matched).toBe(N);
  expect(good.data.warnings).toBeUndefined();
});

test('a long key is cut as every tool cuts JSON text: never inside an escape', async () => {
  // Keys made of escapes only: a byte cut would end inside \n or \u00e9 at most positions.
  const key = '\\n\\u00e9\\"'.repeat(400);
  fs.writeFileSync(path.join(base, 'data', 'esc.jsonl'), `{"k":"${key}"}\n{"k":"x${key}"}\n`);
  const h = await handle(small, 'esc.jsonl');
  const r = await call(small.client, 'aggregate', { handle: h, group_by: 'k', order: 'key_asc' });
  expect(r.isError).toBe(false);
  for (const g of r.data.groups) {
    expect(g.key_truncated).toBe(true);
    const shown = (g.key as string).slice(0, -1); // the "…" mark
    const whole = JSON.stringify(JSON.parse(`"${g.key.startsWith('"x') ? 'x' : ''}${key}"`));
    expect(whole.startsWith(shown)).toBe(true);
    // What remains after the cut starts a new escape or character: the shown text ends on a piece boundary.
    expect(/(^|[^\\])(\\\\)*\\(u[0-9a-fA-F]{0,3})?$/.test(shown)).toBe(false);
  }
});
