/**
 * json_read's stats.skipped page by page: each page counts exactly the malformed records before the place it ends
 * (its next_cursor), whatever ends it (max_items, max_result_bytes), so the pages' counts add up to the file's and a
 * record is reported once, by the page that reaches it.
 */
import { call, connect, type Connected } from '../../../test/helpers/mcp';
import { makeReaderDir, type ReaderDir } from '../../../test/helpers/reader-fixture';

/** Runs of malformed records (7, 8, 6, 12 and single ones) between well-formed ones. */
const MALFORMED = new Set<number>([3, 4, 5, 6, 7, 8, 9, 15, 16, 17, 18, 19, 20, 21, 22, 30, 41, 50, 51, 52, 53, 54, 55, 60, 61, 70, 71, 72, 73, 74, 75, 76, 77, 78, 79, 80, 81, 99, 118]);
const RECORDS = 120;
const TEXT = Array.from({ length: RECORDS }, (_, i) => (MALFORMED.has(i) ? `{"id":${i},,}` : `{"id":${i},"pad":"${'p'.repeat(i % 7)}"}`)).join('\n') + '\n';
const malformedIn = (from: number, to: number) => [...MALFORMED].filter((i) => i >= from && i < to).length;
const recordOf = (p: string) => Number(p.split('/')[1]);

let dir: ReaderDir;
let c: Connected;
beforeAll(async () => {
  dir = makeReaderDir({ 'runs.jsonl': TEXT });
  c = await connect(['--config', dir.config]);
});
afterAll(async () => {
  await c.close();
  dir.remove();
});

/** Every page of a read; the page's end is the record of the next page's first item (the file's end for the last). */
async function readAll(args: Record<string, unknown>) {
  const pages: { records: number[]; skipped: number; warnings?: { message: string; location?: { record_index?: number } }[] }[] = [];
  let r = await call(c.client, 'json_read', { path: 'runs.jsonl', language: 'jsonpath', ...args });
  for (;;) {
    expect(r.data.error).toBeUndefined();
    pages.push({ records: r.data.items.map((i: { path: string }) => recordOf(i.path)), skipped: r.data.stats.skipped, warnings: r.data.warnings });
    if (!r.data.next_cursor) break;
    r = await call(c.client, 'json_read', { cursor: r.data.next_cursor });
  }
  return pages;
}

describe('json_read: stats.skipped ends where the page ends', () => {
  test.each([
    ['max_result_bytes (the page ends inside the engine\'s batch)', { query: '$[*]', max_result_bytes: 800 }],
    ['max_items', { query: '$[*].id', max_items: 4 }],
    ['both', { query: '$[*]', max_items: 9, max_result_bytes: 900 }],
  ])('%s', async (_name, args) => {
    const pages = await readAll(args);
    expect(pages.length).toBeGreaterThan(5);
    let from = 0;
    let sum = 0;
    pages.forEach((p, k) => {
      const end = k + 1 < pages.length ? pages[k + 1]!.records[0]! : RECORDS;
      const expected = malformedIn(from, end);
      expect({ page: k, from, end, skipped: p.skipped }).toEqual({ page: k, from, end, skipped: expected });
      // the warning names this page's first malformed record, and the count
      const first = [...MALFORMED].filter((i) => i >= from && i < end).sort((a, b) => a - b)[0];
      if (expected > 0) expect(p.warnings).toEqual([expect.objectContaining({ message: expect.stringContaining(`${expected} malformed record(s) skipped; the first is record ${first}`), location: expect.objectContaining({ record_index: first }) })]);
      else expect(p.warnings).toBeUndefined();
      sum += p.skipped;
      from = end;
    });
    expect(sum).toBe(MALFORMED.size);
    expect(pages.flatMap((p) => p.records)).toEqual(Array.from({ length: RECORDS }, (_, i) => i).filter((i) => !MALFORMED.has(i)));
  });
});
