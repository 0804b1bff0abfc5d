/**
 * Records a filtered read never parses are not silently left out of its account of malformed records: json_read's
 * `stats.unparsed` and search's `unparsed` count them page by page (each record once, by the page that reaches it),
 * and json_read's last page says how many malformed records json_open's full validation counted that the read did not
 * skip. The built CLI over stdio, a real MCP client.
 *
 * The fixture: 2,050 JSON Lines records, 135 malformed (truncated, bad escapes, missing values, bad \u escapes), 104
 * of them with `"status":"failed"` as written. Expected values come from each line parsed here, with JSON.parse.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { call, connect, type Connected } from '../helpers/mcp';
import { makeReaderDir, type ReaderDir } from '../helpers/reader-fixture';

const TEXT = fs.readFileSync(path.join(__dirname, '..', 'fixtures', 'malformed', 'filtered.jsonl'), 'utf8');
const LINES = TEXT.split('\n').slice(0, -1);
const malformed = LINES.map((l) => {
  try {
    JSON.parse(l);
    return false;
  } catch {
    return true;
  }
});
/** The filter reads `status` only: a record whose status, as written, is not "failed" is ruled out without a parse. */
const parsedByFilter = LINES.map((l) => /^\{"id":\d+,"status":"(failed|f\\u0061iled)"/.test(l));
const count = (from: number, to: number, f: (i: number) => boolean) => {
  let n = 0;
  for (let i = from; i < to; i++) if (f(i)) n++;
  return n;
};
const recordOf = (p: string) => Number(p.split('/')[1]);
/** Within open_file's validation bounds (32 records): malformed records 1 (no "failed") and 3 (with it). */
const SMALL = ['{"id":0,"status":"failed"}', '{"id":1,"status":"ok",', '{"id":2,"status":"ok"}', '{"id":3,"status":"failed",}', '{"id":4,"status":"failed"}'].join('\n') + '\n';

let dir: ReaderDir;
let c: Connected;
beforeAll(async () => {
  dir = makeReaderDir({ 'mixed.jsonl': TEXT, 'small.jsonl': SMALL }, { profiles: { default: { bundles: ['reader', 'explore'] } } });
  c = await connect(['--config', dir.config]);
});
afterAll(async () => {
  await c.close();
  dir.remove();
});

test('the fixture: 135 malformed records of 2,050; 104 with status "failed" as written, 31 without', () => {
  expect([LINES.length, count(0, 2050, (i) => malformed[i]!), count(0, 2050, (i) => malformed[i]! && parsedByFilter[i]!)]).toEqual([2050, 135, 104]);
});

/** Every page of a json_read, with the record its page ends at (the next page's first item; the end for the last). */
async function readAll(first: Record<string, unknown>) {
  const pages: any[] = [];
  let r = await call(c.client, 'json_read', first);
  for (;;) {
    expect(r.data.error).toBeUndefined();
    pages.push(r.data);
    if (!r.data.next_cursor) break;
    r = await call(c.client, 'json_read', { cursor: r.data.next_cursor });
  }
  return pages.map((p, k) => ({ page: p, end: k + 1 < pages.length ? recordOf(pages[k + 1].items[0].path) : LINES.length }));
}

describe('json_read with a filter over malformed records', () => {
  const args = { language: 'jsonpath', query: '$[?@.status == "failed"].id', max_items: 150 };

  test('each page counts the records before its end the filter ruled out unparsed, and the malformed ones it skipped', async () => {
    const pages = await readAll({ path: 'mixed.jsonl', ...args });
    expect(pages.length).toBe(Math.ceil(count(0, 2050, (i) => parsedByFilter[i]! && !malformed[i]!) / 150));
    let from = 0;
    for (const { page, end } of pages) {
      const expected = { returned: page.items.length, skipped: count(from, end, (i) => parsedByFilter[i]! && malformed[i]!), unparsed: count(from, end, (i) => !parsedByFilter[i]!) };
      expect({ from, end, stats: page.stats }).toEqual({ from, end, stats: expected });
      // the skipped records' warning says that the unparsed ones were not checked
      expect(page.warnings[0].message).toContain(`${expected.skipped} malformed record(s) skipped (among the records parsed; the ${expected.unparsed} the query ruled out without parsing them were not checked: stats.unparsed)`);
      from = end;
    }
    const sum = (k: 'skipped' | 'unparsed') => pages.reduce((n, p) => n + p.page.stats[k], 0);
    expect([sum('skipped'), sum('unparsed')]).toEqual([104, count(0, 2050, (i) => !parsedByFilter[i]!)]);
    // An implicit open has no validation of the whole file: no count to compare with.
    expect(pages.at(-1)!.page.warnings).toHaveLength(1);
  });

  test('on a handle whose full validation counted the malformed records, the last page names the 31 it did not skip', async () => {
    const opened = await call(c.client, 'json_open', { path: 'mixed.jsonl', validation: 'full' });
    expect(opened.data.validation).toMatchObject({ complete: true, records_examined: 2050, malformed_records: 135 });
    const pages = await readAll({ file_id: opened.data.file_id, ...args });
    const last = pages.at(-1)!.page;
    expect(last.complete).toBe(true);
    expect(last.warnings[1]).toEqual({
      code: 'SYNTAX_ERROR',
      message: 'The file holds 135 malformed record(s) (json_open\'s validation); this read skipped 104 of them. The other 31 lie in records the query did not parse (stats.unparsed: ruled out by its byte prefilter or by its filter on the members it reads) or does not address: nothing in them could be selected, and they are not in stats.skipped.',
    });
    // earlier pages do not say it: the read has not ended there
    for (const { page } of pages.slice(0, -1)) expect(page.warnings).toHaveLength(1);
    // a query without a filter parses every record: all 135 skipped, none unparsed, no such warning
    const all = await readAll({ file_id: opened.data.file_id, language: 'jsonpath', query: '$[*].id', max_items: 1000 });
    expect(all.reduce((n, p) => n + p.page.stats.skipped, 0)).toBe(135);
    expect(all.map((p) => p.page.stats.unparsed)).toEqual(all.map(() => undefined));
    expect(all.flatMap((p) => p.page.warnings ?? []).filter((w: { message: string }) => w.message.startsWith('The file holds'))).toEqual([]);
    await call(c.client, 'json_close', { file_id: opened.data.file_id });
  });

  test('count: true says how many records it ruled out unparsed', async () => {
    const r = await call(c.client, 'json_read', { path: 'mixed.jsonl', ...args, count: true });
    expect({ count: r.data.count, stats: r.data.stats }).toEqual({
      count: count(0, 2050, (i) => parsedByFilter[i]! && !malformed[i]!),
      stats: { returned: 0, skipped: 104, unparsed: count(0, 2050, (i) => !parsedByFilter[i]!) },
    });
  });
});

describe('search with a filter over malformed records', () => {
  /** Every page of a search: its `unparsed` and the record its page ends at (the next page's first match). */
  async function searchAll(handle: string, args: Record<string, unknown>) {
    const pages: any[] = [];
    let r = await call(c.client, 'search', { handle, ...args });
    for (;;) {
      expect(r.data.error).toBeUndefined();
      pages.push(r.data);
      if (!r.data.next_cursor) break;
      r = await call(c.client, 'search', { handle, ...args, cursor: r.data.next_cursor });
    }
    return pages.map((p, k) => ({ page: p, end: k + 1 < pages.length ? pages[k + 1].matches[0].record_index : LINES.length }));
  }

  test('a record predicate: each page\'s unparsed counts the records before its end the filter ruled out', async () => {
    const opened = await call(c.client, 'open_file', { path: 'mixed.jsonl' });
    const pages = await searchAll(opened.data.handle, { query: '$.status = "failed"', max_results: 200 });
    expect(pages.length).toBeGreaterThan(2);
    let from = 0;
    for (const { page, end } of pages) {
      expect({ from, end, unparsed: page.unparsed }).toEqual({ from, end, unparsed: count(from, end, (i) => !parsedByFilter[i]!) });
      from = end;
    }
  });

  test('a small file: the malformed record the search parsed is reported, the one it ruled out is counted in unparsed', async () => {
    const opened = await call(c.client, 'open_file', { path: 'small.jsonl' });
    expect(opened.data.validation).toMatchObject({ complete: true, malformed_records: 2 });
    const r = await call(c.client, 'search', { handle: opened.data.handle, query: '$.status = "failed"' });
    expect(r.data.matches.map((m: { record_index: number }) => m.record_index)).toEqual([0, 4]);
    expect(r.data.unparsed).toBe(2); // records 1 (malformed) and 2 lack "failed"
    expect(r.data.warnings).toEqual([expect.objectContaining({ code: 'SYNTAX_ERROR', record_index: 3 })]);
  });

  test('text search: the records whose bytes cannot hold the text (no "failed" in any case, no \\u escape) are unparsed', async () => {
    const opened = await call(c.client, 'open_file', { path: 'mixed.jsonl' });
    const pages = await searchAll(opened.data.handle, { query: 'failed', max_results: 200 });
    const ruledOut = (i: number) => !/failed/i.test(LINES[i]!) && !LINES[i]!.includes('\\u');
    let from = 0;
    for (const { page, end } of pages) {
      expect({ from, end, unparsed: page.unparsed }).toEqual({ from, end, unparsed: count(from, end, ruledOut) });
      from = end;
    }
    expect(pages.reduce((n, p) => n + p.page.unparsed, 0)).toBe(1249);
  });
});
