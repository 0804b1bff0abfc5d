/**
 * Records a query rules out without parsing them (ScanResult.unparsed, ScanNode.unparsedBefore): the byte prefilter
 * (records without the query's literal) and a filter tested on the one member it reads. A malformed record among them
 * is not in `skipped`, so the scan counts them apart, page by page like `skipped` (each record by the page that
 * reaches it, once), on the main thread and on worker threads.
 *
 * The fixture: 2,050 JSON Lines records, 135 malformed (truncated, bad escapes, missing values, bad \u escapes), 104
 * of them with `"status":"failed"` as written. Expected values come from each line parsed here, with JSON.parse.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import jsonl from '../../plugins/format-jsonl/src/index';
import type { Format, QueryLanguage } from '../../src/kernel/contracts';
import type { QueryScanEngine } from '../../src/engine/scan';
import { inRangeCount } from '../../src/engine/scan/plan';
import { fileService, formatsOf } from '../helpers/formats';
import { engine, jsonpath, scanPages, sharedThreads, threadedEngine, type ScanPage } from '../helpers/query';

const DIR = path.join(__dirname, '..', 'fixtures', 'malformed');
const LINES = fs.readFileSync(path.join(DIR, 'filtered.jsonl'), 'utf8').split('\n').slice(0, -1);
const wellFormed = (line: string) => {
  try {
    JSON.parse(line);
    return true;
  } catch {
    return false;
  }
};
/** The query below reads `status` only: a record whose status, as written, is not "failed" is ruled out on it. */
const FAILED = /^\{"id":\d+,"status":"(failed|f\\u0061iled)"/;
const parsedByQuery = LINES.map((l) => FAILED.test(l));
const malformed = LINES.map((l) => !wellFormed(l));
const QUERY = '$[?@.status == "failed"].id';
const count = (from: number, to: number, f: (i: number) => boolean) => {
  let n = 0;
  for (let i = from; i < to; i++) if (f(i)) n++;
  return n;
};

let formats: Format[];
let jp: QueryLanguage;
/** The file's engine threads: a thread a page left clean serves the next page (one a page stopped mid-batch ends). */
const threads = sharedThreads();
beforeAll(async () => {
  formats = await formatsOf(jsonl);
  jp = await jsonpath();
});
afterAll(() => threads.close());

test('the fixture: 2,050 records, 135 malformed, 104 of them with status "failed" as written', () => {
  expect(LINES.length).toBe(2050);
  expect(count(0, 2050, (i) => malformed[i]!)).toBe(135);
  expect(count(0, 2050, (i) => malformed[i]! && parsedByQuery[i]!)).toBe(104);
});

type Page = ScanPage;

/** Every page of the query ({@link scanPages}): `limit` nodes a page, a sink taking at most `accept` nodes of each batch. */
async function pages(e: QueryScanEngine, limit: number, accept: number, query = QUERY): Promise<Page[]> {
  const f = await fileService(DIR, formats).open('filtered.jsonl');
  try {
    return await scanPages(e, f.source, jp.compile(query), limit, accept);
  } finally {
    f.close();
  }
}

/** Each page: the records before its end that the query did not parse (unparsed) and the malformed ones it did (skipped). */
function expectExact(list: Page[]) {
  let skipped = 0, unparsed = 0;
  for (const { result, from } of list) {
    const end = result.next ? result.next.record : LINES.length;
    const expected = {
      skipped: count(from, end, (i) => parsedByQuery[i]! && malformed[i]!),
      unparsed: count(from, end, (i) => !parsedByQuery[i]!),
    };
    expect({ from, end, skipped: result.skipped, unparsed: result.unparsed ?? 0 }).toEqual({ from, end, ...expected });
    skipped += result.skipped;
    unparsed += result.unparsed ?? 0;
  }
  expect(list.length).toBeGreaterThan(3);
  // every malformed record is either skipped or among the unparsed: 104 + 31
  expect(skipped).toBe(104);
  expect(count(0, LINES.length, (i) => !parsedByQuery[i]! && malformed[i]!)).toBe(31);
  expect(unparsed).toBe(count(0, LINES.length, (i) => !parsedByQuery[i]!));
  expect(list.flatMap((p) => p.taken.map((n) => n.record))).toEqual(LINES.map((_, i) => i).filter((i) => parsedByQuery[i] && !malformed[i]));
}

describe('unparsed records end where the page ends', () => {
  test.each([
    ['the page limit', 100, 100000],
    ['the sink refuses part of each batch', 100000, 37],
    ['both', 90, 41],
  ])('main thread: %s', async (_name, limit, accept) => {
    expectExact(await pages(engine(), limit, accept));
  });

  test.each([
    ['the page limit', 100, 100000],
    ['the sink refuses part of each batch', 100000, 37],
  ])('worker threads: %s', async (_name, limit, accept) => {
    expectExact(await pages(threadedEngine({}, 2, 0, threads), limit, accept));
  });

  test('a regular expression (worker threads, results posted as they come): the same counts', async () => {
    // match() needs "failed" whole here, so the literal prefilter and the member read rule out the same records
    expectExact(await pages(threadedEngine({}, 2, 0, threads), 150, 100000, '$[?match(@.status, "failed")].id'));
  });

  test('each node says how many records were ruled out unparsed before it; a count only (limit 0) gives them all', async () => {
    const f = await fileService(DIR, formats).open('filtered.jsonl');
    const r = await engine().run({ source: f.source, query: jp.compile(QUERY), addressing: 'file' });
    expect(r.nodes.map((n) => [n.record, n.unparsedBefore])).toEqual(LINES.map((_, i) => i).filter((i) => parsedByQuery[i] && !malformed[i]).map((i) => [i, count(0, i, (k) => !parsedByQuery[k]!)]));
    const counted = await engine().run({ source: f.source, query: jp.compile(QUERY), addressing: 'file', limit: 0, countAll: true });
    expect({ total: counted.total, skipped: counted.skipped, unparsed: counted.unparsed }).toEqual({ total: 2050 - 135 - count(0, 2050, (i) => !parsedByQuery[i]! && !malformed[i]!), skipped: 104, unparsed: count(0, 2050, (i) => !parsedByQuery[i]!) });
    // a query without a literal or a filter parses every record: none is unparsed, every malformed one is skipped
    const all = await engine().run({ source: f.source, query: jp.compile('$[*].id'), addressing: 'file', limit: 0, countAll: true });
    expect({ skipped: all.skipped, unparsed: all.unparsed }).toEqual({ skipped: 135, unparsed: undefined });
    f.close();
  });
});

test('inRangeCount: the records of [from, to) a range with a step holds', () => {
  const brute = (start: number, end: number, step: number, from: number, to: number) => count(from, to, (i) => i >= start && i < end && (i - start) % step === 0);
  for (const [start, end, step] of [[0, 50, 1], [3, 40, 4], [5, 6, 3], [0, 0, 1], [7, 100, 7]] as const) {
    for (let from = 0; from < 60; from += 7) {
      for (let to = from; to < 110; to += 11) expect([start, end, step, from, to, inRangeCount({ start, end, step }, from, to)]).toEqual([start, end, step, from, to, brute(start, end, step, from, to)]);
    }
  }
});
