import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import jsonl from '../../plugins/format-jsonl/src/index';
import type { Format, QueryLanguage, RecordSource, ScanPosition, ScanQueryOptions } from '../../src/kernel/contracts';
import type { QueryScanEngine } from '../../src/engine/scan';
import { fileService, formatsOf } from '../helpers/formats';
import { engine, jsonpath, sharedThreads, threadedEngine } from '../helpers/query';

/**
 * Pages stopped by the deadline lose nothing: every page is run with a deadline already past, so each stops as early
 * as the engine allows, and the walk from cursor to cursor must give exactly the unpaged answer.
 */
let dir: string;
let formats: Format[];
let jp: QueryLanguage;
/** The file's engine threads: a thread a scan left clean serves the next scan. */
const threads = sharedThreads();
afterAll(() => threads.close());
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-deadline-'));
  formats = await formatsOf(jsonl);
  jp = await jsonpath();
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

async function open(name: string, content: string) {
  fs.writeFileSync(path.join(dir, name), content);
  return fileService(dir, formats).open(name);
}

/** `n` records; every 7th has status "failed", every 11th an "s" that `a.*b` matches, record 5 and every 997th malformed. */
function file(n: number, pad = 0): string {
  const lines: string[] = [];
  for (let i = 0; i < n; i++) {
    if (i === 5 || i % 997 === 996) { lines.push(`{"id":${i},"status":`); continue; }
    const s = i % 11 === 3 ? `xa${i}b` : `x${i}`;
    lines.push(`{"id":${i},"status":"${i % 7 === 2 ? 'failed' : 'ok'}","s":"${s}","pad":"${'p'.repeat(pad)}"}`);
  }
  return lines.join('\n') + '\n';
}

/**
 * The worker threads' file: ~9 MB in three 4 MiB batches, in few long records (a page stopped at the deadline ends
 * where the thread got in the grace period, so the fewer the records, the fewer the pages).
 */
const BIG = { records: 6000, pad: 1500 };

/** The slow records' file (one batch): records, and the random a's and b's in each record's "s". */
const SLOW = { records: 120, length: 300 };

interface Walk { pages: number; nodes: string[]; skipped: number[]; totals: number[] }

/** Runs pages from cursor to cursor (each with a deadline in the past) until `next` is null. */
async function walk(eng: QueryScanEngine, source: RecordSource, query: string, extra: Partial<ScanQueryOptions> = {}): Promise<Walk> {
  const out: Walk = { pages: 0, nodes: [], skipped: [], totals: [] };
  let resume: ScanPosition | undefined;
  for (;;) {
    const r = await eng.run({ source, query: jp.compile(query), addressing: 'file', deadline: Date.now() - 1, ...(resume ? { resume } : {}), ...extra });
    out.pages++;
    out.nodes.push(...r.nodes.map((n) => `${n.path}=${JSON.stringify(n.value)}`));
    out.skipped.push(...r.firstSkipped.map((s) => s.record_index));
    if (r.total !== undefined) out.totals.push(r.total);
    if (r.next === null) {
      expect(r.complete).toBe(true);
      break;
    }
    // Every page moves on.
    if (resume) expect(r.next.record * 1e6 + r.next.node).toBeGreaterThan(resume.record * 1e6 + resume.node);
    resume = r.next;
    expect(out.pages).toBeLessThan(100_000);
  }
  return out;
}

async function unpaged(eng: QueryScanEngine, source: RecordSource, query: string, extra: Partial<ScanQueryOptions> = {}) {
  const r = await eng.run({ source, query: jp.compile(query), addressing: 'file', ...extra });
  expect(r.complete).toBe(true);
  return { nodes: r.nodes.map((n) => `${n.path}=${JSON.stringify(n.value)}`), skipped: r.firstSkipped.map((s) => s.record_index), count: r.skipped, total: r.total };
}

describe('a deadline never loses a record', () => {
  test('main thread: pages stopped at the deadline add up to the unpaged node list, each record tested once', async () => {
    const f = await open('walk.jsonl', file(5000));
    for (const q of ['$[?@.status == "failed"].id', '$[?@.id > 4000 || @.id < 30].s', '$[*].status']) {
      const whole = await unpaged(engine(), f.source, q);
      const paged = await walk(engine(), f.source, q);
      expect(paged.pages).toBeGreaterThan(2); // the deadline really stopped pages
      expect(paged.nodes).toEqual(whole.nodes);
      expect(paged.nodes.length).toBeGreaterThan(100);
    }
    // Malformed records are reported once each across the pages (5 per page at most are listed).
    const all = await walk(engine(), f.source, '$[*].id');
    expect(all.nodes).toHaveLength(5000 - 6);
    expect([...new Set(all.skipped)].sort((a, b) => a - b)).toEqual([5, 996, 1993, 2990, 3987, 4984]);
    expect(all.skipped).toHaveLength(6);
    f.close();
  });

  test('main thread, page limits and count: the matches of every page and the counts agree with one unpaged scan', async () => {
    const f = await open('walk2.jsonl', file(3000));
    const q = '$[?@.status == "failed"]';
    const whole = await unpaged(engine(), f.source, q, { unit: 'records', countAll: true });
    const paged = await walk(engine(), f.source, q, { unit: 'records', limit: 40, countAll: true });
    expect(paged.nodes).toEqual(whole.nodes);
    expect(whole.total).toBe(whole.nodes.length);
    f.close();
  });

  test('worker threads with match() (results posted record by record): the walk equals the unpaged answer', async () => {
    // ~9 MB: three 4 MiB batches; records are quick, so none is skipped, and a record in evaluation at a stop is
    // evaluated again by the next page.
    const f = await open('walk-regex.jsonl', file(BIG.records, BIG.pad));
    const q = "$[?match(@.s, 'xa.*b')].id";
    const whole = await unpaged(engine(), f.source, q);
    expect(whole.nodes).toHaveLength([...Array(BIG.records).keys()].filter((i) => i % 11 === 3 && i !== 5 && i % 997 !== 996).length);
    const paged = await walk(threadedEngine({}, 2, 0, threads), f.source, q);
    expect(paged.nodes).toEqual(whole.nodes);
    expect(paged.skipped.filter((r) => r !== 5 && r % 997 !== 996)).toEqual([]);
    expect(paged.pages).toBeGreaterThan(1);
    f.close();
  }, 120_000);

  test('worker threads, records slow enough that pages stop inside the one batch: the record in evaluation at a stop is evaluated again by the next page', async () => {
    // SLOW.records records of ~SLOW.length random a's and b's, one batch. search() for a(a|b){60}c needs a DFA state
    // per distinct window of 61 characters, more than RE2 caches, so each record costs a few ms on any thread, warm or
    // not: the batch outlasts a page's grace period, and a page past its deadline stops inside it, at the record in
    // evaluation, which the next page starts with. Every record matches (its last 62 characters), so a page that
    // stopped after that record would lose a match, and one that skipped it would report it. (The tab escapes keep
    // the records from the raw-text test, which would run the regular expression before any record is in evaluation.)
    let x = 0x2545f491;
    const bit = () => { x ^= x << 13; x >>>= 0; x ^= x >>> 17; x ^= x << 5; x >>>= 0; return x & 1; };
    const lines = Array.from({ length: SLOW.records }, (_, i) =>
      JSON.stringify({ id: i, s: Array.from({ length: SLOW.length }, () => (bit() ? 'a' : 'b')).join('') + 'a' + 'b'.repeat(60) + 'c\t' }));
    const f = await open('walk-slow.jsonl', lines.join('\n') + '\n');
    const q = "$[?search(@.s, 'a(a|b){60}c')].id";
    const whole = await unpaged(engine(), f.source, q);
    expect(whole.nodes).toEqual(Array.from({ length: SLOW.records }, (_, i) => `/${i}/id=${i}`));
    const paged = await walk(threadedEngine({}, 2, 0, threads), f.source, q);
    // Pages stop on real time here (the threads' records take real milliseconds), so how many pages there are, and
    // whether a record outlasts the stuck threshold on a loaded machine, depend on the machine. What holds at any
    // speed: every record is accounted for once, matched or reported skipped, and the matches come in file order. A
    // page that resumed after the record in evaluation loses it from both.
    const matched = paged.nodes.map((n) => Number(n.slice(n.lastIndexOf('=') + 1)));
    expect([...matched, ...paged.skipped].sort((a, b) => a - b)).toEqual(Array.from({ length: SLOW.records }, (_, i) => i));
    expect(paged.nodes).toEqual(whole.nodes.filter((n) => !paged.skipped.includes(Number(n.slice(n.lastIndexOf('=') + 1)))));
    f.close();
  }, 120_000);

  test('worker threads without regular expressions (results posted per batch): the walk equals the unpaged answer', async () => {
    const f = await open('walk-batches.jsonl', file(BIG.records, BIG.pad));
    const q = '$[?@.status == "failed"].s';
    const whole = await unpaged(engine(), f.source, q);
    const paged = await walk(threadedEngine({}, 2, 0, threads), f.source, q);
    expect(paged.nodes).toEqual(whole.nodes);
    expect(paged.pages).toBeGreaterThan(1);
    f.close();
  }, 120_000);
});
