/**
 * json_read pages whose answer carries warnings (a malformed record) around an item too large for one page:
 * the warnings take their room before the item is placed, so the item comes alone in parts and the read finishes.
 */
import { call, connect, type Connected } from '../../../test/helpers/mcp';
import { makeReaderDir, type ReaderDir } from '../../../test/helpers/reader-fixture';

const BLOB = 'x'.repeat(100000);
const RECORDS = [JSON.stringify({ id: 0 }), JSON.stringify({ id: 1, blob: BLOB }), JSON.stringify({ id: 2 }), '{"id":3,"partial'];

/** Follows next_cursor to the end: every page, each under `cap` bytes of structured JSON. */
async function readAll(c: Connected, args: Record<string, unknown>, cap: number) {
  const pages: any[] = [];
  let r = await call(c.client, 'json_read', args);
  for (;;) {
    expect(r.data.error).toBeUndefined();
    expect(Buffer.byteLength(JSON.stringify(r.data))).toBeLessThanOrEqual(cap);
    pages.push(r.data);
    if (!r.data.next_cursor) break;
    expect(pages.length).toBeLessThan(200);
    r = await call(c.client, 'json_read', { cursor: r.data.next_cursor });
  }
  return pages;
}

/** The whole values back from pages: whole items parsed as they are, parts joined then parsed. */
function values(pages: any[]): Map<string, unknown> {
  const out = new Map<string, unknown>();
  const text = new Map<string, string>();
  for (const p of pages) {
    for (const item of p.items) {
      if (!item.value_truncated) { out.set(item.path, item.value); continue; }
      const sofar = text.get(item.path) ?? '';
      expect(Buffer.byteLength(sofar)).toBe(item.offset);
      text.set(item.path, sofar + item.value);
      if (item.next_offset === undefined) {
        expect(Buffer.byteLength(text.get(item.path)!)).toBe(item.value_bytes);
        out.set(item.path, JSON.parse(text.get(item.path)!));
      }
    }
  }
  return out;
}

describe('json_read: a record larger than a page followed by a malformed record', () => {
  let dir: ReaderDir;
  let c: Connected;
  beforeAll(async () => {
    dir = makeReaderDir({ 'bigrec.jsonl': RECORDS.join('\n') + '\n' });
    c = await connect(['--config', dir.config]);
  });
  afterAll(async () => {
    await c.close();
    dir.remove();
  });

  test.each([undefined, 4096, 20000, 65536])('max_result_bytes %p: every record read in full, the malformed one reported once', async (cap) => {
    const pages = await readAll(c, { path: 'bigrec.jsonl', language: 'jsonpath', query: '$[*]', ...(cap ? { max_result_bytes: cap } : {}) }, cap ?? 65536);
    expect(values(pages)).toEqual(new Map<string, unknown>([['/0', { id: 0 }], ['/1', { id: 1, blob: BLOB }], ['/2', { id: 2 }]]));
    // the big record comes alone on its pages (its last part may share a page with what follows)
    for (const p of pages) if (p.items.some((i: any) => i.value_truncated && i.next_offset !== undefined)) expect(p.items).toHaveLength(1);
    expect(pages.at(-1).complete).toBe(true);
    // record 3 is malformed: reported (not silently dropped) by the page that scanned past it, and counted once in all
    const skipped = pages.reduce((n, p) => n + p.stats.skipped, 0);
    expect(skipped).toBe(1);
    const last = pages.at(-1);
    expect(last.stats.skipped).toBe(1);
    expect(last.warnings).toEqual([expect.objectContaining({ code: 'SYNTAX_ERROR', location: expect.objectContaining({ record_index: 3, line: 4 }) })]);
  });
});
