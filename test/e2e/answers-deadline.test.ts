/**
 * Nothing is lost at a deadline, end to end: a server whose requestTimeoutMs is 1 ms stops nearly every page at the
 * deadline; walking the cursors to the end gives exactly the matches computed here from the generated data.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { call, connect, type Connected } from '../helpers/mcp';

const N = 30000;
/**
 * Record i: k = i % 13 (the queries test k == 4: no byte literal to prefilter on, so every record is read), an "s"
 * that 'q.*z' matches when i % 17 == 9, a "p" of 30 n's and m's (the bits of i) that 'n[nm]{30}' never matches but
 * takes RE2 ~30 µs to try (its states differ from record to record), so a worker thread cannot finish the file
 * within the deadline's grace, and pages stop there; records 777 and 20001 malformed.
 */
function pOf(i: number): string {
  let p = '';
  for (let j = 0; j < 30; j++) p += (i >> (j % 15)) & 1 ? 'n' : 'm';
  return p;
}
function data(): string {
  const lines: string[] = [];
  for (let i = 0; i < N; i++) {
    if (i === 777 || i === 20001) { lines.push(`{"id":${i},"status":"ok",`); continue; }
    lines.push(JSON.stringify({ id: i, k: i % 13, s: i % 17 === 9 ? `q${i}z` : `w${i}`, p: pOf(i), note: 'n'.repeat(40) }));
  }
  return lines.join('\n') + '\n';
}
const ok = (i: number) => i !== 777 && i !== 20001;
const K4 = [...Array(N).keys()].filter((i) => i % 13 === 4 && ok(i));
const QZ = [...Array(N).keys()].filter((i) => i % 17 === 9 && ok(i));

let base: string;
let c: Connected;
beforeAll(async () => {
  base = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-deadline-e2e-'));
  fs.mkdirSync(path.join(base, 'data'));
  fs.writeFileSync(path.join(base, 'data', 'events.jsonl'), data());
  fs.writeFileSync(path.join(base, '.mcpgwrc.json'), JSON.stringify({ root: './data', limits: { requestTimeoutMs: 1 } }));
  c = await connect(['--config', path.join(base, '.mcpgwrc.json')], { cwd: base });
}, 60_000);
afterAll(async () => {
  try { await c?.close(); } finally { fs.rmSync(base, { recursive: true, force: true }); }
});

test('json_read (a filter on the main thread, match() on worker threads): pages stopped at a 1 ms deadline add up to every match, none twice', async () => {
  for (const [query, expected] of [['$[?@.k == 4].id', K4], ["$[?!search(@.p, 'n[nm]{30}') && match(@.s, 'q.*z')].id", QZ]] as const) {
    const ids: number[] = [];
    let pages = 0;
    let stoppedEarly = 0;
    let r = await call(c.client, 'json_read', { path: 'events.jsonl', language: 'jsonpath', query, max_items: 1000 });
    for (;;) {
      expect(r.isError).toBe(false);
      pages++;
      ids.push(...r.data.items.map((it: { value: number }) => it.value));
      // Only the two malformed records are ever skipped, each with SYNTAX_ERROR.
      for (const w of r.data.warnings ?? []) expect(w.code).toBe('SYNTAX_ERROR');
      if (!r.data.next_cursor) break;
      if (r.data.items.length < 1000) stoppedEarly++;
      r = await call(c.client, 'json_read', { cursor: r.data.next_cursor });
    }
    expect(ids).toEqual(expected);
    expect(stoppedEarly).toBeGreaterThan(0);
    expect(pages).toBeGreaterThan(expected.length / 1000);
  }
}, 300_000);

test('explorer search: a record predicate walked page by page at a 1 ms deadline finds each match once', async () => {
  const { data: open } = await call(c.client, 'open_file', { path: 'events.jsonl' });
  const found: number[] = [];
  let args: Record<string, unknown> = { handle: open.handle, query: '$.k = 4', max_results: 200 };
  let incomplete = 0;
  let last: any;
  const totals: number[] = [];
  for (;;) {
    const r = await call(c.client, 'search', args);
    expect(r.isError).toBe(false);
    found.push(...r.data.matches.map((m: { record_index: number }) => m.record_index));
    if (!r.data.complete) incomplete++;
    totals.push(r.data.total_matches);
    last = r.data;
    if (!r.data.next_cursor) break;
    args = { ...args, cursor: r.data.next_cursor };
  }
  expect(found).toEqual(K4);
  expect(incomplete).toBeGreaterThan(0);
  expect(last.total_matches).toBe(K4.length);
  expect(last.complete).toBe(true);
  // total_matches is a lower bound while incomplete, and never shrinks from page to page.
  for (let p = 1; p < totals.length; p++) expect(totals[p]).toBeGreaterThanOrEqual(totals[p - 1]!);
  expect(Math.max(...totals)).toBe(K4.length);
}, 300_000);

test('a record a regular expression is stuck on is skipped with RESOURCE_LIMIT_EXCEEDED, and the search goes on after it', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-stuck-e2e-'));
  fs.mkdirSync(path.join(dir, 'data'));
  // Record 1 costs RE2 ~15 s (linear in its 1.35 MB, but (a|b){901} keeps up to 901 states alive over each run of
  // 900 a's) and matches neither branch.
  fs.writeFileSync(path.join(dir, 'data', 'r.jsonl'), `{"s":"aab"}\n{"s":"${('a'.repeat(900) + '!').repeat(1500)}"}\n{"s":"ab"}\n{"s":"xyz"}\n`);
  fs.writeFileSync(path.join(dir, '.mcpgwrc.json'), JSON.stringify({ root: './data', limits: { requestTimeoutMs: 1500 } }));
  const s = await connect(['--config', path.join(dir, '.mcpgwrc.json')], { cwd: dir });
  try {
    const { data: open } = await call(s.client, 'open_file', { path: 'r.jsonl' });
    const found: number[] = [];
    const warnings: any[] = [];
    let args: Record<string, unknown> = { handle: open.handle, query: "$[?search(@, '(a|b){901}|^a+b$')]" };
    for (let page = 0; page < 5; page++) {
      const r = await call(s.client, 'search', args);
      expect(r.isError).toBe(false);
      found.push(...r.data.matches.map((m: { record_index: number }) => m.record_index));
      warnings.push(...(r.data.warnings ?? []));
      if (!r.data.next_cursor) break;
      args = { ...args, cursor: r.data.next_cursor };
    }
    expect(found).toEqual([0, 2]);
    expect(warnings).toEqual([expect.objectContaining({ code: 'RESOURCE_LIMIT_EXCEEDED', record_index: 1 })]);
    expect(warnings[0].message).toMatch(/^Record 1 was skipped: Record 1 could not be evaluated: match\(\)\/search\(\) ran for \d+ ms/);
  } finally {
    await s.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}, 120_000);
