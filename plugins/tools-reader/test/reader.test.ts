/**
 * The reader tool set (json_open / json_read / json_close) through a real MCP client, the contract
 * docs/tools-reader.md states: in-process with the plugin kit's tool tester, and over stdio against the built CLI in
 * both protocol eras (a smoke test of the transport).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { BatchOptions, Format, Plugin, PluginContext } from 'mcpgw/plugin-api';
import { call, connect, type Connected, type Era } from '../../../test/helpers/mcp';
import { makeReaderDir, ORDERS, type ReaderDir } from '../../../test/helpers/reader-fixture';
import { TickingClock } from '../../../test/helpers/ticking-clock';
import { expectSameJson } from '../../../test/helpers/same-json';
import { FakeClock, testTools, type ToolTester } from '../../../src/plugin-kit/index';
import jsonlPlugin from '../../format-jsonl/src/index';

const READER_TOOLS = ['json_open', 'json_read', 'json_close'];

type Call = (name: string, args: Record<string, unknown>) => Promise<{ data: any; text: string; isError: boolean }>;

/** `call(name, args)` through the tester's client: structuredContent as `data`, the text block, isError. */
function caller(t: ToolTester): Call {
  return async (name, args) => {
    const r = await t.call(name, args);
    return { data: r.structuredContent, text: r.text, isError: r.isError };
  };
}

/** Holds the batches of a `held` source while armed: `entered` resolves when a read waits on it. */
class Hold {
  private armed = false;
  private waiting: (() => void)[] = [];
  private signalEntered: () => void = () => undefined;
  entered: Promise<void> = Promise.resolve();

  arm(): void {
    this.armed = true;
    this.entered = new Promise((resolve) => (this.signalEntered = resolve));
  }

  release(): void {
    this.armed = false;
    for (const go of this.waiting.splice(0)) go();
  }

  /** Waits while armed (a read of more than one record). */
  async pass(options: BatchOptions | undefined, count: number): Promise<void> {
    if (!this.armed || (options?.to ?? count) - (options?.from ?? 0) <= 1) return;
    this.signalEntered();
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }
}

/** A plugin with format `held` (extension .held): the built-in JSON Lines format, its batches passing `hold` first. */
function heldFormat(hold: Hold): Plugin {
  let jsonl!: Format;
  return {
    name: 'held-format', version: '1.0.0', apiVersion: '^3.0.0',
    register(context) {
      void jsonlPlugin.register({ records: context.records, registerFormat: (f: Format) => (jsonl = f) } as unknown as PluginContext, {});
      context.registerFormat({
        ...jsonl, name: 'held', extensions: ['.held'],
        open: async (file, options) => {
          const source = await jsonl.open(file, options);
          return new Proxy(source, {
            get(target, key) {
              if (key === 'batches') {
                return (options?: BatchOptions) => ({
                  async *[Symbol.asyncIterator]() {
                    await hold.pass(options, target.count);
                    yield* target.batches(options);
                  },
                });
              }
              const v = Reflect.get(target, key, target);
              return typeof v === 'function' ? v.bind(target) : v;
            },
          });
        },
      });
    },
  };
}

describe.each<Era>(['legacy', 'modern'])('reader tools over stdio, %s era', (era) => {
  let dir: ReaderDir;
  let c: Connected;
  beforeAll(async () => {
    dir = makeReaderDir({ 'orders.jsonl': ORDERS });
    c = await connect(['--config', dir.config], { era });
  });
  afterAll(async () => {
    await c.close();
    dir.remove();
  });

  test('tools/list: the three tools, flat closed input schemas, annotations, short descriptions', async () => {
    const { tools } = await c.client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([...READER_TOOLS].sort());
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    expect(byName.json_open!.annotations).toMatchObject({ readOnlyHint: true, openWorldHint: false });
    expect(byName.json_read!.annotations).toMatchObject({ readOnlyHint: true, openWorldHint: false });
    expect(byName.json_close!.annotations).toMatchObject({ idempotentHint: true, destructiveHint: false });
    const read = byName.json_read!.inputSchema as Record<string, any>;
    // One flat object (no top-level oneOf/anyOf, which several model APIs refuse); the handler enforces the shapes.
    expect(read.type).toBe('object');
    expect(read.oneOf ?? read.anyOf).toBeUndefined();
    expect(Object.keys(read.properties).sort()).toEqual(['count', 'cursor', 'file_id', 'format', 'language', 'max_items', 'max_result_bytes', 'path', 'query']);
    expect(byName.json_open!.inputSchema).toMatchObject({ type: 'object', required: ['path'] });
    for (const t of tools) expect(t.description!.length).toBeLessThan(2000);
  });

  test('the reference example: $[*].id on orders.jsonl, two per page, then the cursor; pointer /0/id on a file_id', async () => {
    const first = await call(c.client, 'json_read', { path: 'orders.jsonl', format: 'jsonl', language: 'jsonpath', query: '$[*].id', max_items: 2 });
    expect(first.isError).toBe(false);
    expect(first.data).toMatchObject({ language: 'jsonpath', query: '$[*].id', complete: false, stats: { returned: 2, skipped: 0 } });
    expect(first.data.items).toEqual([{ path: '/0/id', value: 101 }, { path: '/1/id', value: 102 }]);
    expect(first.data.next_cursor).toMatch(/^jc_[0-9a-f]{16}$/);
    expect(first.data.file_id).toMatch(/^jf_[0-9a-f]{16}$/);
    expect(JSON.parse(first.text)).toEqual(first.data);

    // The cursor keeps the page size: /2, /3 then /4.
    const second = await call(c.client, 'json_read', { cursor: first.data.next_cursor });
    expect(second.data).toMatchObject({ file_id: first.data.file_id, complete: false, stats: { returned: 2, skipped: 0 } });
    expect(second.data.items).toEqual([{ path: '/2/id', value: 103 }, { path: '/3/id', value: 104 }]);
    const rest = await call(c.client, 'json_read', { cursor: second.data.next_cursor });
    expect(rest.data).toMatchObject({ complete: true, stats: { returned: 1, skipped: 0 } });
    expect(rest.data.items).toEqual([{ path: '/4/id', value: 105 }]);
    expect(rest.data.next_cursor).toBeUndefined();
    // Single use after a successful continuation; the implicit handle closed itself when the read completed.
    const again = await call(c.client, 'json_read', { cursor: first.data.next_cursor });
    expect(again.data.error.code).toBe('NOT_FOUND');
    expect((await call(c.client, 'json_close', { file_id: first.data.file_id })).data).toEqual({ file_id: first.data.file_id, closed: false });

    const opened = await call(c.client, 'json_open', { path: 'orders.jsonl' });
    const one = await call(c.client, 'json_read', { file_id: opened.data.file_id, language: 'pointer', query: '/0/id' });
    expect(one.data).toEqual({ file_id: opened.data.file_id, language: 'pointer', query: '/0/id', items: [{ path: '/0/id', value: 101 }], complete: true, stats: { returned: 1, skipped: 0 } });
    expect((await call(c.client, 'json_close', { file_id: opened.data.file_id })).data).toEqual({ file_id: opened.data.file_id, closed: true });
  });

  test('json_open: opaque ids, formats, validation coverage, source size and time', async () => {
    const a = await call(c.client, 'json_open', { path: 'orders.jsonl', format: 'jsonl', validation: 'full' });
    const b = await call(c.client, 'json_open', { path: 'orders.jsonl' });
    const st = fs.statSync(path.join(dir.root, 'orders.jsonl'));
    expect(a.data).toEqual({
      file_id: expect.stringMatching(/^jf_[0-9a-f]{16}$/),
      requested_format: 'jsonl',
      detected_format: 'jsonl',
      detection: { basis: 'explicit', confidence: 1 },
      validation: { mode: 'full', complete: true, bytes_examined: Buffer.byteLength(ORDERS), records_examined: 5, malformed_records: 0 },
      source: { size: st.size, modified_time: new Date(st.mtimeMs).toISOString() },
    });
    expect(b.data).toMatchObject({ requested_format: 'auto', detected_format: 'jsonl', validation: { mode: 'probe', complete: true, records_examined: 5 } });
    expect(b.data.detection.basis).not.toBe('explicit');
    expect(a.data.file_id).not.toBe(b.data.file_id);
    for (const r of [a, b]) await call(c.client, 'json_close', { file_id: r.data.file_id });
  });
});

describe('reader: exactness, pages, limits, errors', () => {
  let t: ToolTester;
  let call: Call;
  // 100 pages of 200 (the walk below): the size of a long walk of cursors, whose pages a 2 MB file gives as well as a
  // bigger one (the records fit in one batch of the scan either way).
  const N = 20_000;
  beforeAll(async () => {
    const many = Array.from({ length: N }, (_, i) => `{"id":${i},"v":"${'x'.repeat(i % 7)}"}`).join('\n') + '\n';
    t = await testTools('@mcpgw/tools-reader', {
      files: {
        'orders.jsonl': ORDERS,
        'many.jsonl': many,
        'big.jsonl': '{"id":1234567890123456789,"d":3.14159265358979323846264338327950288,"small":1.5}\n{"id":2}\n',
        'bad.jsonl': '{"id":1}\n{"id":2,}\n{"id":3}\n{oops\n{"id":5}\n',
        'notes.txt': 'hello world, this is not JSON\n',
        'change.jsonl': ORDERS,
        'pretty.json': JSON.stringify([{ a: 1 }, { a: 2 }, { a: 3, b: [1, 2] }], null, 2),
        'orders.json-seq': ORDERS.trim().split('\n').map((l) => `\x1e${l}\n`).join(''),
        // RFC 7464 framing with whitespace before the first RS and RS on its own line: JSON Lines to a line reader
        'spaced.jsonl': '\n\x1e\n{"id":101}\n',
        'line.json': '[1,2,3]\n',
        'long.jsonl': `{"id":0}\n{"id":1,"text":"${'ab\\"é😀\\n'.repeat(300)}"}\n`,
        'broken.json': '{"a": [1, 2,\n  3}\n',
        // Over the engine's whole-file materialization bound (16 MiB).
        'large.jsonl': Array.from({ length: 180_000 }, (_, i) => `{"id":${i},"pad":"${'p'.repeat(80)}"}`).join('\n') + '\n',
      },
      config: { limits: { maxItems: N, maxResultBytes: 8 * 1024 * 1024, maxCursors: 8, maxOpenFiles: 6, probeRecords: 3 } },
    });
    call = caller(t);
  });
  afterAll(async () => {
    await t.close();
  });
  const dir = { get root() { return t.root; } };

  test('numbers beyond a double arrive digit for digit in the raw text of the result', async () => {
    const r = await call('json_read', { path: 'big.jsonl', language: 'pointer', query: '/0' });
    expect(r.isError).toBe(false);
    expect(r.text).toContain('"value":{"id":1234567890123456789,"d":3.14159265358979323846264338327950288,"small":1.5}');
    const id = await call('json_read', { path: 'big.jsonl', language: 'jsonpath', query: '$[*].id' });
    expect(id.text).toContain('"items":[{"path":"/0/id","value":1234567890123456789},{"path":"/1/id","value":2}]');
  });

  test('a 20,000-match query walked by cursors, 100 pages, equals the unpaged answer', async () => {
    const opened = await call('json_open', { path: 'many.jsonl' });
    const fileId = opened.data.file_id;
    const whole = await call('json_read', { file_id: fileId, language: 'jsonpath', query: '$[*].id' });
    expect(whole.data.complete).toBe(true);
    expect(whole.data.items).toHaveLength(N);
    const paged: unknown[] = [];
    let page = await call('json_read', { file_id: fileId, language: 'jsonpath', query: '$[*].id', max_items: 200 });
    let pages = 1;
    paged.push(...page.data.items);
    while (page.data.next_cursor) {
      expect(page.data.items).toHaveLength(200);
      page = await call('json_read', { cursor: page.data.next_cursor });
      expect(page.isError).toBe(false);
      paged.push(...page.data.items);
      pages++;
    }
    expect(page.data.complete).toBe(true);
    expect(pages).toBeGreaterThanOrEqual(100);
    expect(pages).toBeLessThanOrEqual(101);
    expectSameJson(paged, whole.data.items);
    expect(paged[N - 1]).toEqual({ path: `/${N - 1}/id`, value: N - 1 });
    await call('json_close', { file_id: fileId });
  }, 120_000);

  test('max_result_bytes: a page holds the whole items that fit, then a cursor; an item larger than a page comes in parts', async () => {
    const opened = await call('json_open', { path: 'orders.jsonl' });
    const records = ORDERS.trim().split('\n').map((l) => JSON.parse(l));
    const args = { file_id: opened.data.file_id, language: 'jsonpath', query: '$[*]', max_result_bytes: 300 };
    const first = await call('json_read', args);
    expect(first.isError).toBe(false);
    expect(Buffer.byteLength(first.text)).toBeLessThanOrEqual(300);
    expect(first.data.complete).toBe(false);
    expect(first.data.items.length).toBeGreaterThan(0);
    expect(first.data.items.length).toBeLessThan(records.length);
    // following the cursors gives every record once, whole, in order, each page under the cap
    const all = [...first.data.items];
    for (let cursor = first.data.next_cursor; cursor;) {
      const page = await call('json_read', { cursor });
      expect(Buffer.byteLength(page.text)).toBeLessThanOrEqual(300);
      all.push(...page.data.items);
      cursor = page.data.next_cursor;
    }
    expect(all).toEqual(records.map((value, i) => ({ path: `/${i}`, value })));
    const ok = await call('json_read', { ...args, max_items: 1 });
    expect(ok.data.items).toEqual([{ path: '/0', value: { id: 101, item: 'pen', qty: 2 } }]);
    // The cap is exact: a cap of the result's own size holds the item whole; one byte less, and it comes in parts.
    const size = Buffer.byteLength(ok.text);
    const exact = await call('json_read', { ...args, max_items: 1, max_result_bytes: size });
    expect(Buffer.byteLength(exact.text)).toBe(size);
    expect(exact.data.items).toEqual(ok.data.items);
    // one byte less: the item does not fit whole, and a part of it would not be smaller: the error names it
    const under = await call('json_read', { ...args, max_items: 1, max_result_bytes: size - 1 });
    expect(under.data.error).toMatchObject({ code: 'RESOURCE_LIMIT_EXCEEDED', limit: { name: 'max_result_bytes', limit: size - 1, value: '{"id":101,"item":"pen","qty":2}'.length } });
    expect(under.data.error.message).toContain('"/0"');
    // a long value under a small cap: parts on character boundaries, each page under the cap, rebuilding the text
    const line = fs.readFileSync(path.join(dir.root, 'long.jsonl'), 'utf8').split('\n')[1]!;
    let part = await call('json_read', { path: 'long.jsonl', language: 'pointer', query: '/1', max_result_bytes: 400 });
    let rebuilt = '';
    let parts = 0;
    for (;;) {
      expect(Buffer.byteLength(part.text)).toBeLessThanOrEqual(400);
      const item = part.data.items[0];
      expect(item).toMatchObject({ path: '/1', value_truncated: true, value_bytes: Buffer.byteLength(line), offset: Buffer.byteLength(rebuilt) });
      rebuilt += item.value;
      parts++;
      if (item.next_offset === undefined) break;
      expect(item.next_offset).toBe(Buffer.byteLength(rebuilt));
      part = await call('json_read', { cursor: part.data.next_cursor });
    }
    expect(rebuilt).toBe(line);
    expect(part.data).toMatchObject({ complete: true });
    expect(parts).toBeGreaterThan(5);
    // Checked while the page is built: a 20,000-item page against a 2,000-byte cap stops at the item that crosses it.
    const big = await call('json_read', { path: 'many.jsonl', language: 'jsonpath', query: '$[*].id', max_result_bytes: 2000 });
    expect(big.data.items).toEqual(big.data.items.map((_: unknown, i: number) => ({ path: `/${i}/id`, value: i })));
    expect(Buffer.byteLength(big.text)).toBeLessThanOrEqual(2000);
    expect(2000 - Buffer.byteLength(big.text)).toBeLessThan(40); // the next item would not have fit
    await call('json_close', { file_id: big.data.file_id });
    await call('json_close', { file_id: opened.data.file_id });
  });

  test('max_items above the configured maxItems is lowered to it, never raised', async () => {
    const r = await call('json_read', { path: 'orders.jsonl', language: 'jsonpath', query: '$[*].id', max_items: N * 10 });
    expect(r.data).toMatchObject({ complete: true, stats: { returned: 5 } });
  });

  test('malformed records: full validation counts them with locations; a read skips and reports them', async () => {
    const probe = await call('json_open', { path: 'bad.jsonl' });
    expect(probe.data.validation).toEqual({ mode: 'probe', complete: false, bytes_examined: 25, records_examined: 3, malformed_records: 1 });
    const full = await call('json_open', { path: 'bad.jsonl', validation: 'full' });
    expect(full.data.validation).toMatchObject({ mode: 'full', complete: true, records_examined: 5, malformed_records: 2 });
    expect(full.data.warnings.map((w: any) => [w.code, w.location.record_index, w.location.line])).toEqual([['SYNTAX_ERROR', 1, 2], ['SYNTAX_ERROR', 3, 4]]);
    const read = await call('json_read', { file_id: full.data.file_id, language: 'jsonpath', query: '$[*]' });
    expect(read.data.items.map((i: any) => i.path)).toEqual(['/0', '/2', '/4']);
    expect(read.data.stats).toEqual({ returned: 3, skipped: 2 });
    expect(read.data.warnings).toEqual([{ code: 'SYNTAX_ERROR', message: expect.stringContaining('2 malformed record(s) skipped; the first is record 1 (line 2)'), location: expect.objectContaining({ record_index: 1, line: 2, byte_offset: 17 }) }]);
    // A query whose byte prefilter rules a malformed record out never parses it: only the one containing "id" counts.
    const ids = await call('json_read', { file_id: full.data.file_id, language: 'jsonpath', query: '$[*].id' });
    expect(ids.data.items.map((i: any) => i.value)).toEqual([1, 3, 5]);
    expect(ids.data.stats.skipped).toBeGreaterThanOrEqual(1);
    // Reading the malformed record itself is SYNTAX_ERROR with its location; its neighbours still read.
    for (const query of ['/1/id', '/1']) {
      const bad = await call('json_read', { file_id: full.data.file_id, language: 'pointer', query });
      expect(bad.data.error).toMatchObject({ code: 'SYNTAX_ERROR', location: { record_index: 1, line: 2, byte_offset: 17 } });
    }
    const bad3 = await call('json_read', { file_id: full.data.file_id, language: 'jsonpath', query: '$[3]' });
    expect(bad3.data.error).toMatchObject({ code: 'SYNTAX_ERROR', location: { record_index: 3, line: 4 } });
    expect((await call('json_read', { file_id: full.data.file_id, language: 'pointer', query: '/2/id' })).data.items).toEqual([{ path: '/2/id', value: 3 }]);
    for (const r of [probe, full]) await call('json_close', { file_id: r.data.file_id });
  });

  test('a file modified between pages: SOURCE_CHANGED, never mixed data; a file that only grew goes on', async () => {
    const file = path.join(dir.root, 'change.jsonl');
    // Appended to (same inode, larger, the indexed prefix unchanged): not a change; later pages reach the new record.
    const first = await call('json_read', { path: 'change.jsonl', language: 'jsonpath', query: '$[*].id', max_items: 2 });
    expect(first.data.complete).toBe(false);
    fs.appendFileSync(file, '{"id":106,"item":"cap","qty":1}\n');
    const ids = first.data.items.map((i: any) => i.value);
    let cursor = first.data.next_cursor;
    while (cursor) {
      const page = await call('json_read', { cursor });
      expect(page.isError).toBe(false);
      ids.push(...page.data.items.map((i: any) => i.value));
      cursor = page.data.next_cursor;
    }
    expect(ids).toEqual([101, 102, 103, 104, 105, 106]);
    // (the implicit open closed itself with the last page)
    // Rewritten in place (same size, a byte of the first record changed, a later modification time): SOURCE_CHANGED.
    const again = await call('json_read', { path: 'change.jsonl', language: 'jsonpath', query: '$[*].item', max_items: 2 });
    expect(again.data.items.map((i: any) => i.value)).toEqual(['pen', 'pad']);
    const text = fs.readFileSync(file, 'utf8');
    fs.writeFileSync(file, text.replace('"pen"', '"pin"'));
    const later = new Date(fs.statSync(file).mtimeMs + 5000);
    fs.utimesSync(file, later, later);
    const next = await call('json_read', { cursor: again.data.next_cursor });
    expect(next.data.error).toMatchObject({ code: 'SOURCE_CHANGED' });
    expect(next.data.error.message).toContain('change.jsonl');
    expect(next.data.items).toBeUndefined();
    await call('json_close', { file_id: again.data.file_id });
  });

  test('every error code reachable from outside, with its code and location', async () => {
    const opened = await call('json_open', { path: 'orders.jsonl' });
    const fid = opened.data.file_id;
    const page = await call('json_read', { file_id: fid, language: 'pointer', query: '', max_items: 1 });
    expect(page.data.items).toEqual([{ path: '', value: JSON.parse(`[${ORDERS.trim().split('\n').join(',')}]`) }]);
    const cases: [string, Record<string, unknown>, string, Record<string, unknown>?][] = [
      ['json_read', {}, 'INVALID_ARGUMENT'],
      ['json_read', { cursor: 'jc_0', file_id: fid }, 'INVALID_ARGUMENT'],
      ['json_read', { file_id: fid, path: 'orders.jsonl', language: 'pointer', query: '/0' }, 'INVALID_ARGUMENT'],
      ['json_read', { cursor: 'jc_0', max_items: 3 }, 'INVALID_ARGUMENT'],
      ['json_read', { file_id: fid, format: 'jsonl', language: 'pointer', query: '/0' }, 'INVALID_ARGUMENT'],
      ['json_read', { file_id: fid, language: 'pointer' }, 'INVALID_ARGUMENT'],
      ['json_read', { file_id: fid, language: 'pointer', query: '/0', extra: true }, 'INVALID_ARGUMENT'],
      ['json_read', { file_id: fid, language: 'pointer', query: '/0', max_items: 0 }, 'INVALID_ARGUMENT'],
      ['json_read', { file_id: fid, language: 'xpath', query: '/0' }, 'INVALID_ARGUMENT'],
      ['json_open', { path: 'orders.jsonl', validation: 'deep' }, 'INVALID_ARGUMENT'],
      ['json_open', { path: 'orders.jsonl', format: 'csv' }, 'INVALID_ARGUMENT'],
      ['json_open', { path: 'orders.jsonl', mode: 'x' }, 'INVALID_ARGUMENT'],
      ['json_open', { path: '.' }, 'INVALID_ARGUMENT'],
      ['json_close', { file_id: fid, force: true }, 'INVALID_ARGUMENT'],
      ['json_open', { path: 'missing.jsonl' }, 'NOT_FOUND'],
      ['json_read', { file_id: 'jf_0123456789abcdef', language: 'pointer', query: '/0' }, 'NOT_FOUND'],
      ['json_read', { cursor: 'jc_0123456789abcdef' }, 'NOT_FOUND'],
      ['json_open', { path: '../outside.jsonl' }, 'ACCESS_DENIED'],
      ['json_read', { path: '/etc/passwd', language: 'pointer', query: '' }, 'ACCESS_DENIED'],
      ['json_open', { path: 'notes.txt' }, 'UNSUPPORTED_FORMAT'],
      ['json_open', { path: 'broken.json', format: 'json' }, 'SYNTAX_ERROR', { byte_offset: 16, line: 2, column: 4 }],
      ['json_read', { file_id: fid, language: 'pointer', query: 'id' }, 'QUERY_SYNTAX_ERROR', { position: 0 }],
      ['json_read', { file_id: fid, language: 'jsonpath', query: '$.a b' }, 'QUERY_SYNTAX_ERROR'],
    ];
    for (const [tool, args, code, location] of cases) {
      const r = await call(tool, args);
      expect({ tool, args, isError: r.isError, code: r.data?.error?.code }).toEqual({ tool, args, isError: true, code });
      expect(JSON.parse(r.text)).toEqual(r.data);
      if (location) expect(r.data.error.location).toMatchObject(location);
    }
    // Still serving, and the handle still works.
    const ok = await call('json_read', { file_id: fid, language: 'pointer', query: '/4/item' });
    expect(ok.data.items).toEqual([{ path: '/4/item', value: 'ink' }]);
    await call('json_close', { file_id: fid });
  });

  test('an explicit format is authoritative; content that is plainly another format is FORMAT_MISMATCH naming it', async () => {
    const mismatch: [string, string, string][] = [
      ['pretty.json', 'jsonl', 'json'],
      ['orders.jsonl', 'json', 'jsonl'],
      ['orders.json-seq', 'jsonl', 'json-seq'],
      ['orders.jsonl', 'json-seq', 'jsonl'],
    ];
    for (const [file, format, likely] of mismatch) {
      const r = await call('json_open', { path: file, format });
      expect({ file, format, code: r.data.error?.code }).toEqual({ file, format, code: 'FORMAT_MISMATCH' });
      expect(r.data.error.message).toContain(`looks like ${likely}`);
      expect(r.data.error.hint).toContain(`"${likely}"`);
      const read = await call('json_read', { path: file, format, language: 'pointer', query: '/0' });
      expect(read.data.error.code).toBe('FORMAT_MISMATCH');
    }
    // Agreeing formats open, and auto detects each; a one-line array is as valid JSON Lines (one record) as JSON.
    for (const [file, format, records] of [['pretty.json', 'json', 3], ['orders.json-seq', 'json-seq', 5], ['line.json', 'jsonl', 1], ['line.json', 'json', 3]] as const) {
      const r = await call('json_open', { path: file, format, validation: 'full' });
      expect({ file, format, ok: r.isError, detected: r.data.detected_format, records: r.data.validation?.records_examined }).toEqual({ file, format, ok: false, detected: format, records });
      await call('json_close', { file_id: r.data.file_id });
    }
    // an explicit json-seq wins over bytes framed as RFC 7464 frames them, whatever the name and whatever else reads them
    const spaced = await call('json_open', { path: 'spaced.jsonl', format: 'json-seq', validation: 'full' });
    expect(spaced.data).toMatchObject({ detected_format: 'json-seq', validation: { records_examined: 1, malformed_records: 0 } });
    const spacedRead = await call('json_read', { file_id: spaced.data.file_id, language: 'pointer', query: '/0/id' });
    expect(spacedRead.data.items).toEqual([{ path: '/0/id', value: 101 }]);
    await call('json_close', { file_id: spaced.data.file_id });
    const seq = await call('json_read', { path: 'orders.json-seq', language: 'jsonpath', query: '$[*].id', max_items: 2 });
    expect(seq.data.items).toEqual([{ path: '/0/id', value: 101 }, { path: '/1/id', value: 102 }]);
    expect((await call('json_close', { file_id: seq.data.file_id })).data.closed).toBe(true);
    const pretty = await call('json_read', { path: 'pretty.json', language: 'pointer', query: '/2/b' });
    expect(pretty.data.items).toEqual([{ path: '/2/b', value: [1, 2] }]);
  });

  test('a query that does not split over the records of a large file: UNSUPPORTED_QUERY_FEATURE; one that does pages', async () => {
    const r = await call('json_read', { path: 'large.jsonl', language: 'jsonpath', query: '$[0,1]' });
    expect(r.data.error).toMatchObject({ code: 'UNSUPPORTED_QUERY_FEATURE' });
    expect(r.data.error.hint).toContain('$[*]');
    const ok = await call('json_read', { path: 'large.jsonl', language: 'jsonpath', query: '$[179999].id' });
    expect(ok.data).toMatchObject({ items: [{ path: '/179999/id', value: 179_999 }], complete: true });
  });

  test('the root of a large file (jsonpath $, pointer "" or "#"), read or counted: UNSUPPORTED_QUERY_FEATURE whose hint is in the language asked', async () => {
    for (const count of [false, true]) {
      for (const [language, query] of [['jsonpath', '$'], ['pointer', ''], ['pointer', '#']] as const) {
        const r = await call('json_read', { path: 'large.jsonl', language, query, ...(count ? { count } : {}) });
        expect({ language, query, count, code: r.data.error?.code }).toEqual({ language, query, count, code: 'UNSUPPORTED_QUERY_FEATURE' });
        // the message says what the root is here: the one node holding all 180,000 records
        expect(r.data.error.message).toContain('180000 records');
        const hint: string = r.data.error.hint;
        if (language === 'pointer') {
          // reference tokens, not JSONPath selectors, then the other language named as such
          expect(hint).toContain('/0');
          expect(hint).toContain('language "jsonpath"');
          expect(hint).not.toMatch(/\$\[\?|\$\.\./);
        } else {
          expect(hint).toContain('$[*]');
          expect(hint).not.toContain('do not read $ inside filters'); // the hint for queries that pick records
        }
        // a count's hint says how to count the records, a read's how to page through them
        expect(hint).toContain(count ? 'count' : 'pages');
      }
    }
    // a file small enough to load whole answers the same queries: the root is one node, the array of the records
    for (const [language, query] of [['jsonpath', '$'], ['pointer', '']] as const) {
      const counted = await call('json_read', { path: 'orders.jsonl', language, query, count: true });
      expect(counted.data).toMatchObject({ count: 1, complete: true, items: [] });
      const read = await call('json_read', { path: 'orders.jsonl', language, query });
      expect(read.data.items).toEqual([{ path: '', value: ORDERS.trim().split('\n').map((l) => JSON.parse(l)) }]);
    }
    // counting the records themselves is exact
    const records = await call('json_read', { path: 'large.jsonl', language: 'jsonpath', query: '$[*]', count: true });
    expect(records.data).toMatchObject({ count: 180_000, complete: true, items: [] });
    // a query that picks records but does not distribute keeps its JSONPath hint
    const union = await call('json_read', { path: 'large.jsonl', language: 'jsonpath', query: '$[0,1]', count: true });
    expect(union.data.error).toMatchObject({ code: 'UNSUPPORTED_QUERY_FEATURE', hint: expect.stringContaining('$[?filter]') });
  });

  test('bounds: maxOpenFiles is RESOURCE_LIMIT_EXCEEDED naming the limit; past maxCursors the least recently used cursor is dropped', async () => {
    const ids: string[] = [];
    let refused: any;
    for (let i = 0; i < 8 && !refused; i++) {
      const r = await call('json_open', { path: 'orders.jsonl' });
      if (r.isError) refused = r.data.error;
      else ids.push(r.data.file_id);
    }
    expect(refused).toMatchObject({ code: 'RESOURCE_LIMIT_EXCEEDED', limit: { name: 'maxOpenFiles', limit: 6 } });
    // Cursors past maxCursors: the least recently used is dropped (HANDLE_EXPIRED naming maxCursors), not the read refused.
    const cursors: string[] = [];
    for (let i = 0; i < 10; i++) {
      const r = await call('json_read', { file_id: ids[0], language: 'jsonpath', query: '$[*].id', max_items: 1 });
      expect(r.isError).toBeFalsy();
      cursors.push(r.data.next_cursor);
    }
    for (const dropped of cursors.slice(0, 2)) {
      expect((await call('json_read', { cursor: dropped })).data.error).toMatchObject({ code: 'HANDLE_EXPIRED', limit: { name: 'maxCursors', limit: 8 } });
    }
    expect((await call('json_read', { cursor: cursors[2] })).data.items).toHaveLength(1);
    // Closing the handle invalidates its cursors.
    for (const id of ids) expect((await call('json_close', { file_id: id })).data.closed).toBe(true);
    expect((await call('json_read', { cursor: cursors[9] })).data.error.code).toBe('NOT_FOUND');
  });

  test('two concurrent reads on one handle: each is whole and correct; the handle stays usable', async () => {
    const opened = await call('json_open', { path: 'many.jsonl' });
    const fid = opened.data.file_id;
    const slow = { file_id: fid, language: 'jsonpath', query: '$[*].id', max_items: N };
    const quick = { file_id: fid, language: 'pointer', query: `/${N - 1}/id` };
    const [a, b] = await Promise.all([call('json_read', slow), call('json_read', quick)]);
    expect(a.isError).toBe(false);
    expect(a.data.items).toHaveLength(N);
    expect(b.isError).toBe(false);
    expect(b.data.items).toEqual([{ path: `/${N - 1}/id`, value: N - 1 }]);
    const after = await call('json_read', quick);
    expect(after.data.items).toEqual([{ path: `/${N - 1}/id`, value: N - 1 }]);
    await call('json_close', { file_id: fid });
  }, 60_000);

});

/**
 * Reads beside a read in flight, cancellation and json_close during a read, on a file whose read the test holds: the
 * `held` format is JSON Lines (the built-in plugin's own format) whose record batches wait, while the hold is armed,
 * until the test releases them. A read of more than one record is then in flight, at a known place, for as long as the
 * test needs, at any machine speed; time is a FakeClock that never moves, so no deadline passes either.
 */
describe('reader: reads in flight (a held source)', () => {
  const hold = new Hold();
  let t: ToolTester;
  let call: Call;
  beforeAll(async () => {
    const ids = Array.from({ length: 10_000 }, (_, i) => `{"id":${i},"pad":"${'p'.repeat(40)}"}`).join('\n') + '\n';
    t = await testTools('@mcpgw/tools-reader', { files: { 'slow.held': ids }, plugins: [heldFormat(hold)], clock: new FakeClock() });
    call = caller(t);
  });
  afterEach(() => hold.release());
  afterAll(async () => {
    await t.close();
  });
  const open = async () => (await call('json_open', { path: 'slow.held', format: 'held' })).data.file_id as string;
  /** Three matches: /3/id on the first page (one item a page), then /9000/id and /9001/id. */
  const query = '$[?@.id == 3 || @.id == 9000 || @.id == 9001].id';

  test('json_close waits for an in-flight read, which still answers; then the handle is gone', async () => {
    const fid = await open();
    const order: string[] = [];
    hold.arm();
    const reading = call('json_read', { file_id: fid, language: 'jsonpath', query: '$[*].id' }).then((r) => (order.push('read'), r));
    void reading.catch(() => undefined); // a failed test leaves it pending: no unhandled rejection at close
    await hold.entered;
    const closing = call('json_close', { file_id: fid }).then((r) => (order.push('close'), r));
    void closing.catch(() => undefined); // a failed test leaves it pending: no unhandled rejection at close
    // The close is taken at once: the handle is NOT_FOUND to a read sent after it, while the held read has not answered.
    const probe = await call('json_read', { file_id: fid, language: 'pointer', query: '/0' });
    expect(probe.data.error?.code).toBe('NOT_FOUND');
    expect(order).toEqual([]);
    hold.release();
    const [read, closed] = await Promise.all([reading, closing]);
    expect(order).toEqual(['read', 'close']);
    expect(closed.data).toEqual({ file_id: fid, closed: true });
    expect(read.isError).toBe(false);
    // A whole page (maxItems, 1,000), which the close left without the cursor it would have carried.
    expect(read.data).toMatchObject({ complete: false, stats: { returned: 1000 } });
    expect(read.data.items).toEqual(Array.from({ length: 1000 }, (_, i) => ({ path: `/${i}/id`, value: i })));
    expect(read.data.next_cursor).toBeUndefined();
    expect((await call('json_read', { file_id: fid, language: 'pointer', query: '/0' })).data.error.code).toBe('NOT_FOUND');
  });

  test('cancellation mid-scan: the server keeps serving, the cursor and the handle stay valid', async () => {
    const fid = await open();
    const first = await call('json_read', { file_id: fid, language: 'jsonpath', query, max_items: 1 });
    expect(first.data).toMatchObject({ items: [{ path: '/3/id', value: 3 }], complete: false });
    expect(first.data.next_cursor).toMatch(/^jc_/);
    hold.arm();
    const ctl = new AbortController();
    const pending = t.client.callTool({ name: 'json_read', arguments: { cursor: first.data.next_cursor } }, { signal: ctl.signal });
    let answered = false;
    const settled = pending.then(() => ((answered = true), 'answered'), (e) => `rejected: ${e}`);
    await hold.entered;
    // The continuation is in flight (its read is held): a read sent after it on the same handle is served beside it.
    const beside = await call('json_read', { file_id: fid, language: 'pointer', query: '/5/id' });
    expect(beside.data.items).toEqual([{ path: '/5/id', value: 5 }]);
    expect(answered).toBe(false);
    ctl.abort();
    expect(await settled).toMatch(/^rejected: .*abort/i);
    hold.release();
    // The handle serves again after the cancellation.
    const still = await call('json_read', { file_id: fid, language: 'pointer', query: '/5/id' });
    expect(still.data.items).toEqual([{ path: '/5/id', value: 5 }]);
    // The cancelled continuation kept its cursor: it continues from where the first page stopped, to the next match.
    const retry = await call('json_read', { cursor: first.data.next_cursor });
    expect(retry.data).toMatchObject({ items: [{ path: '/9000/id', value: 9000 }], complete: false });
    expect(retry.data.next_cursor).toMatch(/^jc_/);
    const last = await call('json_read', { cursor: retry.data.next_cursor });
    expect(last.data).toMatchObject({ items: [{ path: '/9001/id', value: 9001 }], complete: true });
    await call('json_close', { file_id: fid });
  });

  test('json_close during a long read: cursors die at once, the read finishes and answers without a cursor, then the close', async () => {
    const fid = await open();
    const first = await call('json_read', { file_id: fid, language: 'jsonpath', query, max_items: 1 });
    expect(first.data.items).toEqual([{ path: '/3/id', value: 3 }]);
    const spare = await call('json_read', { file_id: fid, language: 'jsonpath', query: '$[*].id', max_items: 1 });
    const order: string[] = [];
    hold.arm();
    // Unclosed, this continuation answers /9000/id and a cursor for /9001/id (the test above).
    const reading = call('json_read', { cursor: first.data.next_cursor }).then((r) => (order.push('read'), r));
    void reading.catch(() => undefined); // a failed test leaves it pending: no unhandled rejection at close
    await hold.entered;
    const beside = await call('json_read', { file_id: fid, language: 'pointer', query: '/0/id' });
    expect(beside.data.items).toEqual([{ path: '/0/id', value: 0 }]);
    const closing = call('json_close', { file_id: fid }).then((r) => (order.push('close'), r));
    void closing.catch(() => undefined); // a failed test leaves it pending: no unhandled rejection at close
    // The handle's other cursor is void as soon as the close is taken, while the read is still held.
    const spareRead = await call('json_read', { cursor: spare.data.next_cursor });
    expect(spareRead.data.error.code).toBe('NOT_FOUND');
    expect(spareRead.data.error.message).toContain('Unknown cursor');
    expect(order).toEqual([]);
    hold.release();
    const [read, closed] = await Promise.all([reading, closing]);
    expect(order).toEqual(['read', 'close']);
    expect(closed.data).toEqual({ file_id: fid, closed: true });
    expect(read.isError).toBe(false);
    // The page is whole, but the close voided the cursor it would have carried.
    expect(read.data).toMatchObject({ file_id: fid, items: [{ path: '/9000/id', value: 9000 }], complete: false });
    expect(read.data.next_cursor).toBeUndefined();
  });
});

/**
 * Deadlines on a TickingClock (each reading of the time 1 ms after the last): a page stops at the same engine check at
 * any machine speed, and a walk of pages adds up to the whole answer.
 */
test('reader: a read that reaches requestTimeoutMs returns complete: false with a cursor that continues', async () => {
  const N = 5_000;
  const t = await testTools('@mcpgw/tools-reader', {
    files: {
      'many.jsonl': Array.from({ length: N }, (_, i) => `{"id":${i}}`).join('\n') + '\n',
      // Validation checks the deadline between batches of records (4 MiB): 5.3 MB is two.
      'wide.jsonl': Array.from({ length: 120_000 }, (_, i) => `{"id":${i},"pad":"${'w'.repeat(30)}"}`).join('\n') + '\n',
    },
    config: { limits: { requestTimeoutMs: 1, maxItems: N, maxResultBytes: 16 * 1024 * 1024 } },
    clock: new TickingClock(1),
  });
  const call = caller(t);
  try {
    const ids: unknown[] = [];
    let page = await call('json_read', { path: 'many.jsonl', language: 'jsonpath', query: '$[*].id' });
    expect(page.data.complete).toBe(false);
    expect(page.data.next_cursor).toMatch(/^jc_/);
    ids.push(...page.data.items.map((i: any) => i.value));
    let pages = 1;
    while (page.data.next_cursor && pages < 10_000) {
      page = await call('json_read', { cursor: page.data.next_cursor });
      expect(page.isError).toBe(false);
      ids.push(...page.data.items.map((i: any) => i.value));
      pages++;
    }
    expect(pages).toBeGreaterThan(1);
    expect(ids).toEqual(Array.from({ length: N }, (_, i) => i));
    // Full validation stops at the deadline too, and says that input remains unchecked.
    const full = await call('json_open', { path: 'wide.jsonl', validation: 'full' });
    expect(full.data.validation).toMatchObject({ mode: 'full', complete: false, malformed_records: 0 });
    expect(full.data.validation.records_examined).toBeGreaterThan(0);
    expect(full.data.validation.records_examined).toBeLessThan(120_000);
  } finally {
    await t.close();
  }
});

test('reader: one server offering both bundles, explorer and reader tools side by side on one file', async () => {
  const t = await testTools('@mcpgw/tools-reader', {
    files: { 'orders.jsonl': ORDERS }, plugins: ['@mcpgw/tools-explore'],
    config: { profiles: { both: { bundles: ['explore', 'reader'] } }, profile: 'both' },
  });
  const call = caller(t);
  try {
    expect(t.tools).toEqual(expect.arrayContaining(['open_file', 'search', 'get_record', ...READER_TOOLS]));
    const explorer = await call('open_file', { path: 'orders.jsonl' });
    const reader = await call('json_open', { path: 'orders.jsonl' });
    expect(explorer.data.handle).toMatch(/^file_\d+$/);
    expect(reader.data.file_id).toMatch(/^jf_/);
    const rec = await call('get_record', { handle: explorer.data.handle, index: 2 });
    const val = await call('json_read', { file_id: reader.data.file_id, language: 'pointer', query: '/2' });
    expect(val.data.items[0].value).toEqual(JSON.parse(rec.data.record));
    // Explorer search addresses records; the reader addresses the file: the same value, two paths.
    const found = await call('search', { handle: explorer.data.handle, query: '$.item' });
    expect(found.data.matches[0]).toMatchObject({ record_index: 0, match_path: '/item' });
    const items = await call('json_read', { file_id: reader.data.file_id, language: 'jsonpath', query: '$[*].item', max_items: 1 });
    expect(items.data.items).toEqual([{ path: '/0/item', value: 'pen' }]);
    // Handles do not cross: each set refuses the other's ids.
    expect((await call('json_read', { file_id: explorer.data.handle, language: 'pointer', query: '/0' })).data.error.code).toBe('NOT_FOUND');
    expect((await call('get_record', { handle: reader.data.file_id, index: 0 })).data.error.code).toBe('NOT_FOUND');
  } finally {
    await t.close();
  }
});

// A 1.32 SDK client accepting the reader's results and error results: test/e2e/v1-output-schemas.test.ts.
