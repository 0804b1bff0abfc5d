/**
 * Nothing is lost at a deadline, end to end through a real MCP client (in-process, over the SDK's in-memory transport,
 * with the plugin kit's tool tester): at a requestTimeoutMs of 1 ms nearly every page stops at the deadline, and
 * walking the cursors to the end gives exactly the matches computed here from the generated data.
 *
 * Scans run on a TickingClock (each reading of the time 1 ms after the last), on the main thread and on worker threads
 * alike (threads time their records on the tester's clock): a page stops at the engine's first deadline check at any
 * machine speed. On threads, a page past its deadline keeps the batch in flight once its thread answers it and stops
 * there (the grace period, 200 readings, is not reached while the pool waits for the thread): the wide file's
 * records fill two batches (4 MiB each at most), so its first page stops at the deadline after the first.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { testTools, type ToolTester } from '../../src/plugin-kit/index';
import { TickingClock } from '../helpers/ticking-clock';
import { FakeClock } from '../../src/kernel/fake-clock';

const N = 8000;
const BAD = [777, 6001];
/**
 * Record i: k = i % 13 (the queries test k == 4: no byte literal to prefilter on, so every record is read), an "s"
 * that 'q.*z' matches when i % 17 == 9, a "p" of 30 n's and m's (the bits of i) that 'n[nm]{30}' never matches but
 * takes RE2 ~30 µs to try (its states differ from record to record); records 777 and 6001 malformed.
 */
function pOf(i: number): string {
  let p = '';
  for (let j = 0; j < 30; j++) p += (i >> (j % 15)) & 1 ? 'n' : 'm';
  return p;
}
function data(note = 40): string {
  const lines: string[] = [];
  for (let i = 0; i < N; i++) {
    if (BAD.includes(i)) { lines.push(`{"id":${i},"status":"ok",`); continue; }
    lines.push(JSON.stringify({ id: i, k: i % 13, s: i % 17 === 9 ? `q${i}z` : `w${i}`, p: pOf(i), note: 'n'.repeat(note) }));
  }
  return lines.join('\n') + '\n';
}
const ok = (i: number) => !BAD.includes(i);
const K4 = [...Array(N).keys()].filter((i) => i % 13 === 4 && ok(i));
const QZ = [...Array(N).keys()].filter((i) => i % 17 === 9 && ok(i));

/** The same records with a note of 700 bytes each: 6.3 MB, two batches for the threads. */
const WIDE_NOTE = 700;
let dir: string;
let ticking: ToolTester;
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-deadline-e2e-'));
  fs.writeFileSync(path.join(dir, 'events.jsonl'), data());
  fs.writeFileSync(path.join(dir, 'wide.jsonl'), data(WIDE_NOTE));
  const config = { limits: { requestTimeoutMs: 1 } };
  ticking = await testTools('@mcpgw/tools-reader', { root: dir, config, clock: new TickingClock(1), plugins: ['@mcpgw/tools-explore'] });
}, 60_000);
afterAll(async () => {
  try { await ticking?.close(); } finally { fs.rmSync(dir, { recursive: true, force: true }); }
});

/** Walks json_read's cursors from the first page to the last; every page is checked as it comes. */
async function walk(t: ToolTester, query: string, file = 'events.jsonl') {
  const ids: number[] = [];
  let pages = 0;
  let stoppedEarly = 0;
  let r = await t.call('json_read', { path: file, language: 'jsonpath', query, max_items: 1000 });
  for (;;) {
    expect(r.isError).toBe(false);
    pages++;
    ids.push(...r.structuredContent.items.map((it: { value: number }) => it.value));
    // Only the two malformed records are ever skipped, each with SYNTAX_ERROR.
    for (const w of r.structuredContent.warnings ?? []) expect(w.code).toBe('SYNTAX_ERROR');
    if (!r.structuredContent.next_cursor) break;
    if (r.structuredContent.items.length < 1000) stoppedEarly++;
    r = await t.call('json_read', { cursor: r.structuredContent.next_cursor });
  }
  return { ids, pages, stoppedEarly };
}

test('json_read, a filter on the main thread: pages stopped at a 1 ms deadline add up to every match, none twice', async () => {
  const { ids, pages, stoppedEarly } = await walk(ticking, '$[?@.k == 4].id');
  expect(ids).toEqual(K4);
  expect(stoppedEarly).toBeGreaterThan(0);
  expect(pages).toBeGreaterThan(K4.length / 1000 + 1);
});

test('json_read, match() on worker threads: pages stopped at a 1 ms deadline add up to every match, none twice', async () => {
  expect(fs.statSync(path.join(dir, 'wide.jsonl')).size).toBeGreaterThan(4 * 1024 * 1024); // the premise: two batches
  const { ids, pages, stoppedEarly } = await walk(ticking, "$[?!search(@.p, 'n[nm]{30}') && match(@.s, 'q.*z')].id", 'wide.jsonl');
  expect(ids).toEqual(QZ);
  expect(stoppedEarly).toBeGreaterThan(0);
  expect(pages).toBeGreaterThan(QZ.length / 1000 + 1);
});

test('explorer search: a record predicate walked page by page at a 1 ms deadline finds each match once', async () => {
  const { structuredContent: open } = await ticking.call('open_file', { path: 'events.jsonl' });
  const found: number[] = [];
  let args: Record<string, unknown> = { handle: open.handle, query: '$.k = 4', max_results: 200 };
  let incomplete = 0;
  let last: any;
  const totals: number[] = [];
  for (;;) {
    const r = await ticking.call('search', args);
    expect(r.isError).toBe(false);
    found.push(...r.structuredContent.matches.map((m: { record_index: number }) => m.record_index));
    if (!r.structuredContent.complete) incomplete++;
    totals.push(r.structuredContent.total_matches);
    last = r.structuredContent;
    if (!r.structuredContent.next_cursor) break;
    args = { ...args, cursor: r.structuredContent.next_cursor };
  }
  expect(found).toEqual(K4);
  expect(incomplete).toBeGreaterThan(0);
  expect(last.total_matches).toBe(K4.length);
  expect(last.complete).toBe(true);
  // total_matches is a lower bound while incomplete, and never shrinks from page to page.
  for (let p = 1; p < totals.length; p++) expect(totals[p]).toBeGreaterThanOrEqual(totals[p - 1]!);
  expect(Math.max(...totals)).toBe(K4.length);
});

/**
 * Record 1 costs RE2 ~15 s (linear in its 1.35 MB, but (a|b){901} keeps up to 901 states alive over each run of 900
 * a's) and matches neither branch; records 0 and 2 match.
 */
const STUCK_FILES = { 'r.jsonl': `{"s":"aab"}\n{"s":"${('a'.repeat(900) + '!').repeat(1500)}"}\n{"s":"ab"}\n{"s":"xyz"}\n` };

/** Opens r.jsonl and walks search's pages (at most `maxPages`) for the stuck query; its matches and warnings. */
async function walkStuck(call: ToolTester['call'], maxPages: number) {
  const o = await call('open_file', { path: 'r.jsonl' });
  if (o.isError) throw new Error(JSON.stringify(o.error));
  const found: number[] = [];
  const warnings: any[] = [];
  let args: Record<string, unknown> = { handle: o.structuredContent.handle, query: "$[?search(@, '(a|b){901}|^a+b$')]" };
  for (let page = 0; page < maxPages; page++) {
    const r = await call('search', args);
    if (r.isError) throw new Error(JSON.stringify(r.error));
    found.push(...r.structuredContent.matches.map((m: { record_index: number }) => m.record_index));
    warnings.push(...(r.structuredContent.warnings ?? []));
    if (!r.structuredContent.next_cursor) break;
    args = { ...args, cursor: r.structuredContent.next_cursor };
  }
  return { found, warnings };
}

/**
 * `s.call` while the FakeClock `clock` moves 10 ms per 10 ms of real time (or less, on a busy machine) until the
 * call is answered: time passes for a stuck worker thread only while a call is pending.
 */
function movingClockCall(s: ToolTester, clock: FakeClock): ToolTester['call'] {
  return async (name, args) => {
    let answered = false;
    const pending = s.call(name, args).finally(() => (answered = true));
    while (!answered) {
      await new Promise((r) => setTimeout(r, 10));
      if (!answered) clock.advance(10);
    }
    return pending;
  };
}

test('a record a regular expression is stuck on is skipped with RESOURCE_LIMIT_EXCEEDED, and the search goes on after it', async () => {
  // Past half the page's 1.5 s on a thread, the stuck record is skipped.
  const s = await testTools('@mcpgw/tools-explore', { files: STUCK_FILES, config: { limits: { requestTimeoutMs: 1500 } } });
  try {
    const { found, warnings } = await walkStuck((name, args) => s.call(name, args), 5);
    expect(found).toEqual([0, 2]);
    // besides the pages the deadline stopped, which say their total is a lower bound
    const skipped = warnings.filter((w) => !/^Stopped at the request deadline \(requestTimeoutMs\) before the end of the file: total_matches \(\d+\) is a lower bound/.test(w.message));
    expect(skipped).toEqual([expect.objectContaining({ code: 'RESOURCE_LIMIT_EXCEEDED', record_index: 1 })]);
    expect(skipped[0].message).toMatch(/^Record 1 was skipped: Record 1 could not be evaluated: match\(\)\/search\(\) ran for \d+ ms/);
  } finally {
    await s.close();
  }
}, 120_000);

test('on a fake clock, a worker thread times the stuck record on that clock: it is skipped once it has run stuckAfter fake ms', async () => {
  // The same stuck record on a FakeClock the test moves 10 ms per 10 ms of real time (or less, on a busy machine)
  // while a call is pending: the thread reads its record start times from the pool's clock cell (src/engine/scan/workers.ts), so the skip reports a run of fake
  // time between GRACE_MS (200) and the page budget (1500 ms). A thread timing itself on Date.now() would report
  // an unrelated figure, or never be seen stuck.
  const clock = new FakeClock();
  const s = await testTools('@mcpgw/tools-explore', { files: STUCK_FILES, config: { limits: { requestTimeoutMs: 1500 } }, clock });
  const call = movingClockCall(s, clock);
  try {
    const { found, warnings } = await walkStuck(call, 12);
    expect(found).toEqual([0, 2]);
    const skipped = warnings.filter((w) => w.code === 'RESOURCE_LIMIT_EXCEEDED' && w.record_index === 1);
    expect(skipped).toHaveLength(1);
    const ran = Number(/ran for (\d+) ms/.exec(skipped[0].message)?.[1]);
    expect(ran).toBeGreaterThanOrEqual(200);
    expect(ran).toBeLessThanOrEqual(1500);
  } finally {
    await s.close();
  }
}, 120_000);

/**
 * aggregate's pages over r.jsonl with the stuck `where` (at most `maxPages`): the last page's answer, which holds the
 * whole aggregate and every warning of its pages.
 */
async function aggregateStuck(call: ToolTester['call'], maxPages: number) {
  const o = await call('open_file', { path: 'r.jsonl' });
  if (o.isError) throw new Error(JSON.stringify(o.error));
  let args: Record<string, unknown> = { handle: o.structuredContent.handle, where: "search($.s, '(a|b){901}|^a+b$')" };
  for (let page = 0; page < maxPages; page++) {
    const r = await call('aggregate', args);
    if (r.isError) throw new Error(JSON.stringify(r.error));
    if (!r.structuredContent.next_cursor) return r.structuredContent;
    args = { ...args, cursor: r.structuredContent.next_cursor };
  }
  throw new Error(`aggregate did not finish in ${maxPages} pages`);
}

test('on a fake clock, an aggregate thread times the stuck record of its where on that clock: skipped once it has run stuckAfter fake ms', async () => {
  // As the search above, for aggregate's threads (src/engine/scan/aggregate-threads.ts publishes the clock's readings
  // to them): the two matching records are counted, record 1 is skipped with a run of fake time. Timed on Date.now()
  // the figure would be unrelated to the fake clock.
  const clock = new FakeClock();
  const s = await testTools('@mcpgw/tools-explore', { files: STUCK_FILES, config: { limits: { requestTimeoutMs: 1500 } }, clock });
  const call = movingClockCall(s, clock);
  try {
    const last = await aggregateStuck(call, 12);
    expect(last.complete).toBe(true);
    expect(last.groups).toEqual([{ key: null, count: 2 }]);
    expect(last.records_scanned).toBe(4);
    const skipped = last.warnings.filter((w: any) => w.code === 'RESOURCE_LIMIT_EXCEEDED' && w.record_index === 1);
    expect(skipped).toHaveLength(1);
    // aggregate's threads are checked for a stuck record when the page's deadline has passed: at least stuckAfter
    // (half the 1500 ms budget), at most the budget and its grace period (GRACE_MS 200).
    const ran = Number(/ran for (\d+) ms/.exec(skipped[0].message)?.[1]);
    expect(ran).toBeGreaterThanOrEqual(750);
    expect(ran).toBeLessThanOrEqual(1700);
  } finally {
    await s.close();
  }
}, 120_000);
