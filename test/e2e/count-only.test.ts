/**
 * Count-only answers end to end: `search {max_results: 0}` returns total_matches without matches, `json_read
 * {count: true}` the node count of a query without items, both equal to counts computed here from the generated data,
 * on a whole answer and on counts stopped by a 1 ms deadline and continued by cursor. The tools are served in-process
 * (test/helpers/in-process.ts, a real MCP client); the deadline's server runs on a TickingClock (each reading of the
 * time 1 ms after the last), so its counts stop at the deadline at any machine speed.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { call } from '../helpers/mcp';
import { serveInProcess, type Served as Connected } from '../helpers/in-process';
import { TickingClock } from '../helpers/ticking-clock';

const N = 20000;
const BROKEN = new Set([333, 15001]);

interface Rec { id: number; k: number; status: string; tags: string[]; note: string }
const records: (Rec | null)[] = [];
function data(): string {
  const lines: string[] = [];
  for (let i = 0; i < N; i++) {
    if (BROKEN.has(i)) { lines.push(`{"id":${i},"status":"Failed",`); records.push(null); continue; }
    const r: Rec = { id: i, k: i % 13, status: i % 7 === 3 ? 'Failed' : 'ok', tags: Array.from({ length: i % 4 }, (_, t) => `t${t}`), note: i % 11 === 5 ? 'needle here' : 'hay' };
    records.push(r);
    lines.push(JSON.stringify(r));
  }
  return lines.join('\n') + '\n';
}

let base: string;
let fast: Connected;
let slow: Connected;
beforeAll(async () => {
  base = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-count-e2e-'));
  fs.mkdirSync(path.join(base, 'data'));
  const text = data();
  fs.writeFileSync(path.join(base, 'data', 'events.jsonl'), text);
  // The same records four times over (5 MB): text search checks the deadline between 4 MiB batches, so only a file of
  // more than one batch gives its count a place to stop.
  fs.writeFileSync(path.join(base, 'data', 'events4.jsonl'), text.repeat(4));
  fs.writeFileSync(path.join(base, 'data', 'doc.json'), JSON.stringify({ items: [{ a: 1 }, { a: 2 }, { b: 3 }], meta: { a: 4 } }));
  const root = path.join(base, 'data');
  [fast, slow] = await Promise.all([
    serveInProcess({ root }),
    serveInProcess({ root, config: { limits: { requestTimeoutMs: 1 } }, clock: new TickingClock(1) }),
  ]);
}, 60_000);
afterAll(async () => {
  await Promise.all([fast?.close(), slow?.close()]);
  fs.rmSync(base, { recursive: true, force: true });
});

const good = () => records.filter((r): r is Rec => r !== null);

/** Calls search with max_results 0, following cursors (a count stopped at the deadline) to the end. */
async function countSearch(c: Connected, handle: string, args: Record<string, unknown>) {
  let r = await call(c.client, 'search', { handle, max_results: 0, ...args });
  let pages = 1;
  for (;;) {
    expect(r.isError).toBe(false);
    expect(r.data.matches).toEqual([]);
    if (!r.data.next_cursor) break;
    expect(r.data.complete).toBe(false);
    r = await call(c.client, 'search', { handle, max_results: 0, ...args, cursor: r.data.next_cursor });
    pages++;
  }
  expect(r.data.complete).toBe(true);
  return { total: r.data.total_matches as number, pages };
}

describe('search {max_results: 0}', () => {
  const cases: [string, Record<string, unknown>, () => number][] = [
    ['text', { query: 'needle' }, () => good().filter((r) => r.note.includes('needle')).length],
    ['text, case-insensitive word in two places', { query: 'failed' }, () => good().filter((r) => r.status === 'Failed').length],
    ['JSONPath', { query: '$.tags[2]' }, () => good().filter((r) => r.tags.length > 2).length],
    ['predicate', { query: '$.k == 4' }, () => good().filter((r) => r.k === 4).length],
    ['predicate, case-insensitive string (match() on a worker thread)', { query: '$.status = "failed"' }, () => good().filter((r) => r.status === 'Failed').length],
    ['regex', { query: 'ne+dle', regex: true }, () => good().filter((r) => r.note.includes('needle')).length],
  ];
  test.each(cases)('%s: total_matches equals the count, no matches, no cursor', async (_name, args, expected) => {
    const open = await call(fast.client, 'open_file', { path: 'events.jsonl' });
    const { total, pages } = await countSearch(fast, open.data.handle, args);
    expect(pages).toBe(1);
    expect(total).toBe(expected());
    const paged = await call(fast.client, 'search', { handle: open.data.handle, ...args, max_results: 5 });
    expect(paged.data.total_matches).toBe(total);
  });

  test.each(cases)('%s: a count stopped by a 1 ms deadline continues by cursor to the same total', async (_name, args, expected) => {
    // A query's scan checks the deadline every 256 records, text search between 4 MiB batches: its file is 4 × larger.
    const times = String(args.query).startsWith('$') ? 1 : 4;
    const open = await call(slow.client, 'open_file', { path: times === 1 ? 'events.jsonl' : 'events4.jsonl' });
    const { total, pages } = await countSearch(slow, open.data.handle, args);
    // The deadline did stop the count (on the TickingClock it passes at the first check), the cursors carried it on.
    expect(pages).toBeGreaterThan(1);
    expect(total).toBe(times * expected());
  });

  test('a count cursor is refused by a search that pages matches', async () => {
    const open = await call(slow.client, 'open_file', { path: 'events.jsonl' });
    let cursor: string | undefined;
    for (let tries = 0; tries < 20 && !cursor; tries++) {
      cursor = (await call(slow.client, 'search', { handle: open.data.handle, query: '$.k == 4', max_results: 0 })).data.next_cursor;
    }
    expect(cursor).toBeDefined();
    const r = await call(slow.client, 'search', { handle: open.data.handle, query: '$.k == 4', cursor });
    expect(r.isError).toBe(true);
    expect(r.data.error.code).toBe('INVALID_ARGUMENT');
  });

  test('a single document: the predicate holds or not', async () => {
    const open = await call(fast.client, 'open_file', { path: 'doc.json' });
    expect((await call(fast.client, 'search', { handle: open.data.handle, query: '$.meta.a == 4', max_results: 0 })).data).toMatchObject({ total_matches: 1, matches: [], complete: true });
    expect((await call(fast.client, 'search', { handle: open.data.handle, query: '$.meta.a == 5', max_results: 0 })).data).toMatchObject({ total_matches: 0, matches: [], complete: true });
    // Text search counts nodes in a single document: the count equals a paged search's total.
    const paged = await call(fast.client, 'search', { handle: open.data.handle, query: 'a', max_results: 1 });
    expect(paged.data.total_matches).toBeGreaterThan(1);
    const counted = await call(fast.client, 'search', { handle: open.data.handle, query: 'a', max_results: 0 });
    expect(counted.data).toMatchObject({ total_matches: paged.data.total_matches, matches: [], complete: true });
    expect(counted.data.next_cursor).toBeUndefined();
  });
});

describe('json_read {count: true}', () => {
  const cases: [string, string, string, () => number][] = [
    ['every record', 'jsonpath', '$[*]', () => good().length],
    ['nodes inside records', 'jsonpath', '$[*].tags[*]', () => good().reduce((n, r) => n + r.tags.length, 0)],
    ['a filter', 'jsonpath', '$[?@.k == 4].id', () => good().filter((r) => r.k === 4).length],
    ['descendants', 'jsonpath', '$..tags', () => good().length],
    ['a pointer', 'pointer', '/17/tags', () => 1],
  ];
  test.each(cases)('%s: count equals the node count, no items', async (_name, language, query, expected) => {
    const r = await call(fast.client, 'json_read', { path: 'events.jsonl', language, query, count: true });
    expect(r.isError).toBe(false);
    expect(r.data).toMatchObject({ items: [], complete: true, count: expected(), stats: { returned: 0 } });
    expect(r.data.next_cursor).toBeUndefined();
    // Nodes were counted: no hint about names that no record has, though the page holds no items.
    expect(r.data.hint).toBeUndefined();
  });

  test('a count of 0 for a misspelled member carries the hint, a count that found nodes does not', async () => {
    const wrong = await call(fast.client, 'json_read', { path: 'events.jsonl', language: 'jsonpath', query: '$[*].stauts', count: true });
    expect(wrong.data).toMatchObject({ items: [], count: 0, complete: true });
    expect(wrong.data.hint).toContain('status');
    // One of the two names is misspelled but the other counts nodes: the answer is not empty, so no hint.
    const right = await call(fast.client, 'json_read', { path: 'events.jsonl', language: 'jsonpath', query: "$[*]['status','stauts']", count: true });
    expect(right.data).toMatchObject({ items: [], count: good().length, complete: true });
    expect(right.data.hint).toBeUndefined();
  });

  test.each(cases)('%s: stopped by a 1 ms deadline, the cursors continue the count to the same number', async (_name, language, query, expected) => {
    let r = await call(slow.client, 'json_read', { path: 'events.jsonl', language, query, count: true });
    let pages = 1;
    for (;;) {
      expect(r.isError).toBe(false);
      expect(r.data.items).toEqual([]);
      if (!r.data.next_cursor) break;
      expect(r.data.complete).toBe(false);
      r = await call(slow.client, 'json_read', { cursor: r.data.next_cursor });
      pages++;
    }
    // The deadline did stop a count that reads every record (a pointer reads one record: one page).
    if (language !== 'pointer') expect(pages).toBeGreaterThan(1);
    expect(r.data.complete).toBe(true);
    expect(r.data.count).toBe(expected());
  });

  test('a single document and an open handle', async () => {
    const open = await call(fast.client, 'json_open', { path: 'doc.json' });
    const r = await call(fast.client, 'json_read', { file_id: open.data.file_id, language: 'jsonpath', query: '$..a', count: true });
    expect(r.data).toMatchObject({ items: [], count: 3, complete: true });
  });

  test('count is not taken with a cursor', async () => {
    const r = await call(fast.client, 'json_read', { cursor: 'jc_0000000000000000', count: true });
    expect(r.isError).toBe(true);
    expect(r.data.error.code).toBe('INVALID_ARGUMENT');
  });
});
