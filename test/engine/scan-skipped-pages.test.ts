/**
 * Skipped records and the page's end: a page reports exactly the records it passed over before the place it ends
 * (its `next`), however it ends (the page's limit, a consumer that refuses part of a batch, the end of the file), on
 * the main thread and on worker threads, and the pages' counts add up to the file's.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import jsonl from '../../plugins/format-jsonl/src/index';
import type { Format, QueryLanguage } from '../../src/kernel/contracts';
import type { QueryScanEngine } from '../../src/engine/scan';
import { fileService, formatsOf } from '../helpers/formats';
import { engine, jsonpath, scanPages, threadedEngine, type ScanPage } from '../helpers/query';

let dir: string;
let formats: Format[];
let jp: QueryLanguage;
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-skipped-'));
  formats = await formatsOf(jsonl);
  jp = await jsonpath();
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Runs of malformed records (7, 8, 6, 12 and single ones) between well-formed ones, 120 records in all. */
const MALFORMED = new Set<number>([
  ...range(3, 10), ...range(15, 23), 30, 41, ...range(50, 56), 60, 61, ...range(70, 82), 99, 118,
]);
function range(a: number, b: number): number[] {
  return Array.from({ length: b - a }, (_, k) => a + k);
}
const RECORDS = 120;
const TEXT = Array.from({ length: RECORDS }, (_, i) => (MALFORMED.has(i) ? `{"id":${i},,}` : `{"id":${i}}`)).join('\n') + '\n';
/** Malformed records in [from, to). */
const malformedIn = (from: number, to: number) => [...MALFORMED].filter((i) => i >= from && i < to).sort((a, b) => a - b);

async function open() {
  fs.writeFileSync(path.join(dir, 'runs.jsonl'), TEXT);
  return fileService(dir, formats).open('runs.jsonl');
}

type Page = ScanPage;

/** Every page of `$[*].id` from the start ({@link scanPages}). */
function pages(e: QueryScanEngine, source: Awaited<ReturnType<typeof open>>['source'], limit: number, accept: number): Promise<Page[]> {
  return scanPages(e, source, jp.compile('$[*].id'), limit, accept, 200);
}

function expectExact(list: Page[]) {
  let sum = 0;
  for (const { result, from } of list) {
    const end = result.next ? result.next.record : RECORDS;
    const expected = malformedIn(from, end);
    expect({ from, end, skipped: result.skipped }).toEqual({ from, end, skipped: expected.length });
    expect(result.firstSkipped.map((s) => s.record_index)).toEqual(expected.slice(0, 5));
    sum += result.skipped;
  }
  expect(sum).toBe(MALFORMED.size);
  // the pages' nodes are the file's well-formed ids, each once
  expect(list.flatMap((p) => p.taken.map((n) => n.value))).toEqual(range(0, RECORDS).filter((i) => !MALFORMED.has(i)));
}

describe('stats of skipped records end where the page ends', () => {
  test.each([
    ['the sink refuses part of each batch', 1000, 3],
    ['the sink refuses after one node', 1000, 1],
    ['the page limit', 4, 1000],
    ['both', 5, 2],
  ])('main thread: %s', async (_name, limit, accept) => {
    const f = await open();
    expectExact(await pages(engine(), f.source, limit, accept));
    f.close();
  });

  test.each([
    ['the sink refuses part of each batch', 1000, 8],
    ['the page limit', 12, 1000],
  ])('worker threads: %s', async (_name, limit, accept) => {
    const f = await open();
    const e = threadedEngine();
    expectExact(await pages(e, f.source, limit, accept));
    f.close();
  });

  test('each node says how many records the scan passed over before it (a consumer may end its page there)', async () => {
    const f = await open();
    const r = await engine().run({ source: f.source, query: jp.compile('$[*].id'), addressing: 'file' });
    expect(r.nodes.map((n) => [n.record, n.skippedBefore])).toEqual(range(0, RECORDS).filter((i) => !MALFORMED.has(i)).map((i) => [i, malformedIn(0, i).length]));
    expect(r.skipped).toBe(MALFORMED.size);
    f.close();
  });

  test('a count that goes on past the page (countAll) still reports the records before the page end', async () => {
    const f = await open();
    const r = await engine().run({ source: f.source, query: jp.compile('$[*].id'), addressing: 'file', limit: 10, countAll: true });
    expect(r.total).toBe(RECORDS - MALFORMED.size);
    expect(r.next).toEqual({ record: 25, node: 0 });
    expect(r.skipped).toBe(malformedIn(0, 25).length);
    f.close();
  });
});
