/**
 * json_read into a JSON Lines record over maxRecordBytes: the record is read like a single large document, through
 * lazy nodes (pointers, singular and wildcard JSONPath, slices, negative indexes), with pages that add up to the
 * array; a query that cannot be evaluated in parts on it keeps an honest error or warning.
 */
import { call, connect, type Connected } from '../../../test/helpers/mcp';
import { makeReaderDir, type ReaderDir } from '../../../test/helpers/reader-fixture';

const N = 3000;
const MAX_RECORD = 32 * 1024;
const hex = (k: number) => (k * 2654435761 % 0x1000000).toString(16).padStart(6, '0');
// 1.5 KB a element: the record (4.5 MB) is longer than a read chunk (4 MiB), so a scan meets it alone, unread
const NOTE = 'x'.repeat(1500);
const ARR = Array.from({ length: N }, (_, k) => `{"n":${k},"note":"${NOTE}","hexcode":"${hex(k)}"}`);
// the tail is a numeral no double holds: compared as text
const TAIL = '12345678901234567890123';
const LINE0 = `{"id":1,"arr":[${ARR.join(',')}],"tail":${TAIL}}`;
const LINE1 = '{"id":2,"tail":7}';

/** The JSON text of an item's value as the server wrote it (numbers exact): from the text block. */
const tailText = (text: string) => /"value":\s*(-?\d+)/.exec(text)?.[1];

describe('json_read into a JSON Lines record over maxRecordBytes', () => {
  let dir: ReaderDir;
  let c: Connected;
  beforeAll(async () => {
    expect(Buffer.byteLength(LINE0)).toBeGreaterThan(4 * 1024 * 1024);
    dir = makeReaderDir({ 'huge-record.jsonl': LINE0 + '\n' + LINE1 + '\n' }, { limits: { maxRecordBytes: MAX_RECORD } });
    c = await connect(['--config', dir.config]);
  });
  afterAll(async () => {
    await c.close();
    dir.remove();
  });
  const read = (language: string, query: string, extra: Record<string, unknown> = {}) =>
    call(c.client, 'json_read', { path: 'huge-record.jsonl', format: 'jsonl', language, query, ...extra });

  test.each([
    ['pointer', '/0/tail', '/0/tail'],
    ['jsonpath', '$[0].tail', '/0/tail'],
  ])('%s %s: the big number, exact', async (language, query, path) => {
    const r = await read(language, query);
    expect(r.data.error).toBeUndefined();
    expect(r.data.items).toHaveLength(1);
    expect(r.data.items[0].path).toBe(path);
    expect(tailText(r.text)).toBe(TAIL);
    expect(r.data.complete).toBe(true);
  });

  test.each([
    ['pointer', '/0/arr/2500/hexcode', [['/0/arr/2500/hexcode', hex(2500)]]],
    ['pointer', '/0/id', [['/0/id', 1]]],
    ['jsonpath', '$[0].arr[5].hexcode', [['/0/arr/5/hexcode', hex(5)]]],
    ['jsonpath', `$[0].arr[-1].hexcode`, [[`/0/arr/${N - 1}/hexcode`, hex(N - 1)]]],
    ['jsonpath', '$[0].arr[2500:2502].hexcode', [['/0/arr/2500/hexcode', hex(2500)], ['/0/arr/2501/hexcode', hex(2501)]]],
    ['pointer', '/0/arr/2500', [['/0/arr/2500', { n: 2500, note: NOTE, hexcode: hex(2500) }]]],
  ])('%s %s', async (language, query, expected) => {
    const r = await read(language as string, query as string);
    expect(r.data.error).toBeUndefined();
    expect(r.data.items.map((i: any) => [i.path, i.value])).toEqual(expected);
    expect(r.data.complete).toBe(true);
  });

  test('$[*].tail: both records\' values, nothing skipped', async () => {
    const r = await read('jsonpath', '$[*].tail');
    expect(r.data.error).toBeUndefined();
    expect(r.data.items.map((i: any) => i.path)).toEqual(['/0/tail', '/1/tail']);
    expect(r.data.items[1].value).toBe(7);
    expect(tailText(r.text)).toBe(TAIL);
    expect(r.data.stats.skipped).toBe(0);
    expect(r.data.warnings).toBeUndefined();
    expect(r.data.complete).toBe(true);
  });

  test('$[0].arr[*] in pages adds up to the array', async () => {
    const got: unknown[] = [];
    let r = await read('jsonpath', '$[0].arr[*].hexcode', { max_items: 700 });
    let pages = 0;
    for (;;) {
      expect(r.data.error).toBeUndefined();
      for (const item of r.data.items) {
        expect(item.path).toBe(`/0/arr/${got.length}/hexcode`);
        got.push(item.value);
      }
      pages++;
      if (!r.data.next_cursor) break;
      expect(r.data.items).toHaveLength(700);
      expect(pages).toBeLessThan(20);
      r = await call(c.client, 'json_read', { cursor: r.data.next_cursor });
    }
    expect(pages).toBe(Math.ceil(N / 700));
    expect(got).toEqual(ARR.map((_, k) => hex(k)));
  });

  test('count: true counts the elements of the big record', async () => {
    const r = await read('jsonpath', '$[0].arr[*]', { count: true });
    expect(r.data.error).toBeUndefined();
    expect(r.data.count).toBe(N);
  });

  test.each([
    ['$[?@.id == 1].tail', ['/0/tail']],
    ['$[?@.id == 2].id', ['/1/id']],
    ['$..tail', ['/0/tail', '/1/tail']],
  ])('%s: filters tested on the members they read, descendants walked', async (query, paths) => {
    const r = await read('jsonpath', query);
    expect(r.data.error).toBeUndefined();
    expect(r.data.items.map((i: any) => i.path)).toEqual(paths);
    expect(r.data.stats.skipped).toBe(0);
    if (paths[0] === '/0/tail') expect(tailText(r.text)).toBe(TAIL);
  });

  // a page (64 KiB) longer than maxRecordBytes (32 KiB): its part is read in several reads
  test.each([
    ['pointer', '/0/arr', '/0/arr', `[${ARR.join(',')}]`],
    ['pointer', '/0', '/0', LINE0],
    ['jsonpath', '$[0]', '/0', LINE0],
  ])('%s %s, longer than a page, comes in parts: the first is the start of its text', async (language, query, path, text) => {
    const r = await read(language, query, { max_result_bytes: 65536 });
    expect(r.data.error).toBeUndefined();
    expect(r.data.items).toHaveLength(1);
    const item = r.data.items[0];
    expect(item).toMatchObject({ path, value_truncated: true, value_bytes: Buffer.byteLength(text), offset: 0 });
    expect(Buffer.byteLength(item.value)).toBeGreaterThan(MAX_RECORD);
    expect(text.startsWith(item.value)).toBe(true);
    expect(r.data.next_cursor).toBeDefined();
  });

  test('a filter reading $ inside the big record stays an honest error', async () => {
    const r = await read('jsonpath', '$[0].arr[?@.n == $[1].id]');
    expect(r.data.items ?? []).toEqual([]);
    expect(r.data.error).toMatchObject({ code: 'RESOURCE_LIMIT_EXCEEDED', limit: { name: 'maxRecordBytes', limit: MAX_RECORD }, location: { record_index: 0 } });
  });
});
