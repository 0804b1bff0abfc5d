/**
 * Concurrent reads of one file through one handle: each read has its own position, cursors are
 * independent, and no read is refused because another runs on the same handle. With a real client in both eras: the
 * 2026-07-28 era over stdio against the built CLI, the 2025-11-25 era in-process (the plugin kit's tool tester, the
 * SDK's in-memory transport); the expected values are counted by hand from the generated file (record i has id i and
 * name "n<i>").
 */
import type { Client } from '@modelcontextprotocol/client';
import { testTools } from 'mcpgw/plugin-kit';
import { call, connect } from '../../../test/helpers/mcp';
import { makeReaderDir } from '../../../test/helpers/reader-fixture';
import { expectSameJson } from '../../../test/helpers/same-json';

const N = 20_000;
const lines = Array.from({ length: N }, (_, i) => `{"id":${i},"name":"n${i}","pad":"${'x'.repeat(40)}"}`).join('\n') + '\n';
const ids = (from: number, to: number) => Array.from({ length: to - from }, (_, k) => ({ path: `/${from + k}/id`, value: from + k }));
const names = (from: number, to: number) => Array.from({ length: to - from }, (_, k) => ({ path: `/${from + k}/name`, value: `n${from + k}` }));

/** A server with the reader bundle serving many.jsonl, and its client. */
interface Served { client: Client; close(): Promise<void> }

const SERVERS: [string, () => Promise<Served>][] = [
  ['over stdio, modern era', async () => {
    const dir = makeReaderDir({ 'many.jsonl': lines });
    const c = await connect(['--config', dir.config], { era: 'modern' });
    return { client: c.client, close: async () => { await c.close(); dir.remove(); } };
  }],
  ['in-process, legacy era', async () => {
    const t = await testTools('@mcpgw/tools-reader', { files: { 'many.jsonl': lines } });
    return { client: t.client, close: () => t.close() };
  }],
];

describe.each(SERVERS)('concurrent reads on one handle %s', (_name, start) => {
  let c: Served;
  beforeAll(async () => {
    c = await start();
  });
  afterAll(async () => {
    await c?.close();
  });

  test('eight reads at once on one file_id: every one answers whole and correct, none is source_busy', async () => {
    const opened = await call(c.client, 'json_open', { path: 'many.jsonl' });
    const fid = opened.data.file_id;
    const starts = [0, 2_500, 5_000, 7_500, 10_000, 12_500, 15_000, 17_500];
    const reads = await Promise.all(starts.map((s) =>
      call(c.client, 'json_read', { file_id: fid, language: 'jsonpath', query: `$[${s}:${s + 1_000}].id`, max_items: 1_000 })));
    reads.forEach((r, k) => {
      expect(r.data.error).toBeUndefined();
      expectSameJson(r.data.items, ids(starts[k]!, starts[k]! + 1_000));
      expect(r.data.complete).toBe(true);
    });
    expect((await call(c.client, 'json_close', { file_id: fid })).data).toEqual({ file_id: fid, closed: true });
  }, 60_000);

  test('two cursors of one file_id paged at once: each continues from its own position', async () => {
    const opened = await call(c.client, 'json_open', { path: 'many.jsonl' });
    const fid = opened.data.file_id;
    const a0 = await call(c.client, 'json_read', { file_id: fid, language: 'jsonpath', query: '$[*].id', max_items: 1_000 });
    const b0 = await call(c.client, 'json_read', { file_id: fid, language: 'jsonpath', query: '$[*].name', max_items: 1_000 });
    let a = a0.data.next_cursor as string;
    let b = b0.data.next_cursor as string;
    for (let page = 1; page <= 4; page++) {
      const [pa, pb] = await Promise.all([call(c.client, 'json_read', { cursor: a }), call(c.client, 'json_read', { cursor: b })]);
      expect(pa.data.error).toBeUndefined();
      expect(pb.data.error).toBeUndefined();
      expectSameJson(pa.data.items, ids(page * 1_000, (page + 1) * 1_000));
      expectSameJson(pb.data.items, names(page * 1_000, (page + 1) * 1_000));
      a = pa.data.next_cursor;
      b = pb.data.next_cursor;
    }
    await call(c.client, 'json_close', { file_id: fid });
  }, 60_000);

  test('path-based reads sharing the implicit handle, two cursors paged at once to the end; then the handle is closed', async () => {
    const a0 = await call(c.client, 'json_read', { path: 'many.jsonl', language: 'jsonpath', query: '$[*].id', max_items: 1_000 });
    const b0 = await call(c.client, 'json_read', { path: 'many.jsonl', language: 'jsonpath', query: '$[*].name', max_items: 1_000 });
    // The second read reused the first one's implicit handle (the same path and format, idle).
    expect(b0.data.file_id).toBe(a0.data.file_id);
    const got = { a: [...a0.data.items], b: [...b0.data.items] };
    let a: string | undefined = a0.data.next_cursor;
    let b: string | undefined = b0.data.next_cursor;
    while (a || b) {
      const [pa, pb] = await Promise.all([a ? call(c.client, 'json_read', { cursor: a }) : null, b ? call(c.client, 'json_read', { cursor: b }) : null]);
      for (const [p, key] of [[pa, 'a'], [pb, 'b']] as const) {
        if (!p) continue;
        expect(p.data.error).toBeUndefined();
        got[key].push(...p.data.items);
        if (p.data.complete) expect(p.data.next_cursor).toBeUndefined();
        else expect(p.data.next_cursor).toMatch(/^jc_/);
      }
      a = pa?.data.next_cursor;
      b = pb?.data.next_cursor;
    }
    expectSameJson(got.a, ids(0, N));
    expectSameJson(got.b, names(0, N));
    // Both reads are complete and no cursor is left: the implicit handle closed itself.
    expect((await call(c.client, 'json_close', { file_id: a0.data.file_id })).data).toEqual({ file_id: a0.data.file_id, closed: false });
  }, 60_000);
});
