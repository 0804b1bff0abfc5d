/**
 * Growing files: a file that only grows (appended to, its indexed prefix unchanged) extends its index instead of
 * SOURCE_CHANGED, for every bundle — the explorer's record_count grows, the reader's cursors stay valid — tested with a
 * writer appending (whole lines and half lines) while reads go on. A file rewritten, truncated or replaced is still
 * SOURCE_CHANGED. Through a real MCP client against the built CLI.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { call, connect, type Connected } from '../helpers/mcp';

let dir: string;
let server: Connected;

beforeAll(async () => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-grow-')));
  server = await connect(['--root', dir]);
});
afterAll(async () => {
  await server?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const line = (i: number) => JSON.stringify({ id: i, msg: i % 7 === 0 ? 'needle' : 'hay', pad: 'x'.repeat(i % 50) }) + '\n';
const lines = (from: number, to: number) => Array.from({ length: to - from }, (_, k) => line(from + k)).join('');

/**
 * Appends lines [from, to) in small pieces on a timer — sometimes half a line, so a reader may see a partial last
 * line — until done; resolves when all are written.
 */
function writer(file: string, from: number, to: number): { done: Promise<void>; written: () => number } {
  let next = from;
  let half: string | null = null;
  const done = new Promise<void>((resolve) => {
    const tick = () => {
      if (half !== null) { fs.appendFileSync(file, half); half = null; next++; }
      else if (next < to) {
        const l = line(next);
        if (next % 3 === 0) { fs.appendFileSync(file, l.slice(0, 10)); half = l.slice(10); }
        else { fs.appendFileSync(file, lines(next, Math.min(to, next + 4))); next = Math.min(to, next + 4); }
      }
      if (next >= to && half === null) resolve(); else setTimeout(tick, 1);
    };
    tick();
  });
  return { done, written: () => next };
}

test('explorer: record_count grows and search sees appended records while a writer appends', async () => {
  const file = path.join(dir, 'grow.jsonl');
  fs.writeFileSync(file, lines(0, 100));
  const open = await call(server.client, 'open_file', { path: 'grow.jsonl' });
  expect(open.data.record_count).toBe(100);
  const handle = open.data.handle;
  const w = writer(file, 100, 600);
  let last = 100;
  let reads = 0;
  let writing = true;
  void w.done.then(() => { writing = false; });
  while (writing || reads < 3) {
    const count = await call(server.client, 'get_record_count', { handle });
    expect(count.isError).toBe(false);
    const n = count.data.record_count;
    expect(n).toBeGreaterThanOrEqual(last);
    last = n;
    const rec = await call(server.client, 'get_record', { handle, index: 99 });
    expect(rec.isError).toBe(false);
    reads++;
    if (!writing) break;
  }
  await w.done;
  const count = await call(server.client, 'get_record_count', { handle });
  expect(count.data.record_count).toBe(600);
  const search = await call(server.client, 'search', { handle, query: 'needle', max_results: 1000 });
  expect(search.data.total_matches).toBe(Array.from({ length: 600 }, (_, i) => i).filter((i) => i % 7 === 0).length);
  const lastRec = await call(server.client, 'get_record', { handle, index: 599 });
  expect(JSON.parse(lastRec.data.record).id).toBe(599);
  expect(reads).toBeGreaterThanOrEqual(2);
});

test('reader: a cursor stays valid while the file grows; paging reaches the appended records, each once', async () => {
  const file = path.join(dir, 'grow-reader.jsonl');
  fs.writeFileSync(file, lines(0, 200));
  const open = await call(server.client, 'json_open', { path: 'grow-reader.jsonl' });
  const fileId = open.data.file_id;
  const w = writer(file, 200, 700);
  const seen: number[] = [];
  // Page through while the writer appends: each page continues where the last stopped, and the file's growth is
  // picked up by the cursor; once the writer is done, the last page reaches the end.
  let page = await call(server.client, 'json_read', { file_id: fileId, language: 'jsonpath', query: '$[*].id', max_items: 25 });
  for (let k = 0; k < 1000 && !page.isError; k++) {
    for (const item of page.data.items) seen.push(item.value);
    if (!page.data.next_cursor) break;
    if (k === 5) await w.done; // the rest of the pages read a file that has finished growing
    page = await call(server.client, 'json_read', { cursor: page.data.next_cursor });
  }
  expect(page.isError).toBe(false);
  await w.done;
  expect(seen).toEqual(Array.from({ length: 700 }, (_, i) => i));
});

test('a file rewritten with a different prefix, rewritten to the same size with its mtime put back, truncated, or replaced is SOURCE_CHANGED', async () => {
  for (const change of ['rewrite', 'same size, mtime put back', 'truncate', 'replace'] as const) {
    const name = `changed-${change.replace(/\W+/g, '-')}.jsonl`;
    const file = path.join(dir, name);
    fs.writeFileSync(file, lines(0, 50));
    const mtime = Math.floor(fs.statSync(file).mtimeMs / 1000) - 60; // whole seconds: utimes puts them back exactly
    fs.utimesSync(file, mtime, mtime);
    const handle = (await call(server.client, 'open_file', { path: name })).data.handle;
    if (change === 'rewrite') fs.writeFileSync(file, lines(0, 50).replace('"id":3,', '"id":4,') + lines(50, 60));
    if (change === 'same size, mtime put back') {
      fs.writeFileSync(file, lines(0, 50).replace('"id":3,', '"id":4,'));
      fs.utimesSync(file, mtime, mtime);
      expect(fs.statSync(file)).toMatchObject({ size: lines(0, 50).length, mtimeMs: mtime * 1000 });
    }
    if (change === 'truncate') fs.truncateSync(file, 100);
    if (change === 'replace') {
      fs.writeFileSync(`${file}.new`, lines(0, 60));
      fs.renameSync(`${file}.new`, file);
    }
    const r = await call(server.client, 'get_record_count', { handle });
    expect({ change, code: r.data?.error?.code }).toEqual({ change, code: 'SOURCE_CHANGED' });
  }
});

test('a JSON document that grew is SOURCE_CHANGED (its index cannot be extended)', async () => {
  const file = path.join(dir, 'doc.json');
  fs.writeFileSync(file, '[1,2,3]');
  const handle = (await call(server.client, 'open_file', { path: 'doc.json' })).data.handle;
  fs.appendFileSync(file, '\n');
  const r = await call(server.client, 'get_record', { handle, index: 0 });
  expect(r.data.error.code).toBe('SOURCE_CHANGED');
});

/**
 * Pages through a search whose file grows after its first page: returns each page's total_matches and complete and
 * every record_index delivered.
 */
async function pagedWhileGrowing(handle: string, query: string, grow: () => void, extra: Record<string, unknown> = {}) {
  const pages: { total: number; complete: boolean }[] = [];
  const seen: number[] = [];
  let page = await call(server.client, 'search', { handle, query, max_results: 4, ...extra });
  for (let k = 0; k < 50; k++) {
    expect(page.isError).toBe(false);
    pages.push({ total: page.data.total_matches, complete: page.data.complete });
    for (const m of page.data.matches) seen.push(m.record_index);
    if (!page.data.next_cursor) break;
    if (k === 0) grow();
    page = await call(server.client, 'search', { handle, query, max_results: 4, cursor: page.data.next_cursor, ...extra });
  }
  return { pages, seen };
}

test('search: total_matches counts the records appended while paging (predicate, JSONPath and text modes)', async () => {
  const file = path.join(dir, 'grow2.jsonl');
  fs.writeFileSync(file, Array.from({ length: 10 }, (_, i) => `{"i":${i},"v":"x"}\n`).join(''));
  const handle = (await call(server.client, 'open_file', { path: 'grow2.jsonl' })).data.handle;
  const append = (n: number) => () => fs.appendFileSync(file, '{"v":"x"}\n'.repeat(n));
  const upTo = (n: number) => Array.from({ length: n }, (_, i) => i);

  // Predicate: 10 records match at the first page; 5 appended after it → pages 4–7, 8–11, 12–14 all say 15.
  const predicate = await pagedWhileGrowing(handle, '$.v == "x"', append(5));
  expect(predicate.seen).toEqual(upTo(15));
  expect(predicate.pages).toEqual([{ total: 10, complete: true }, ...Array(3).fill({ total: 15, complete: true })]);
  expect((await call(server.client, 'search', { handle, query: '$.v == "x"', max_results: 0 })).data.total_matches).toBe(15);

  // JSONPath (one node per record): 15 at the first page, 5 more appended → 20.
  const jsonPath = await pagedWhileGrowing(handle, '$.v', append(5));
  expect(jsonPath.seen).toEqual(upTo(20));
  expect(jsonPath.pages).toEqual([{ total: 15, complete: true }, ...Array(4).fill({ total: 20, complete: true })]);

  // Text: 20 at the first page, 5 more appended → 25.
  const text = await pagedWhileGrowing(handle, 'x', append(5), { match_case: true });
  expect(text.seen).toEqual(upTo(25));
  expect(text.pages).toEqual([{ total: 20, complete: true }, ...Array(6).fill({ total: 25, complete: true })]);
  expect((await call(server.client, 'search', { handle, query: 'x', max_results: 0 })).data.total_matches).toBe(25);
});
