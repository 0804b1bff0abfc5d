import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { call, CLI, connect, NODE, REPO, type Connected, type Era } from '../../../test/helpers/mcp';

const EXAMPLES = path.join(REPO, 'examples');
const EXPLORER_TOOLS = ['list_files', 'open_file', 'close_file', 'get_file_info', 'get_record', 'get_record_count', 'search', 'get_value_at_path', 'extract_keys', 'sample_records', 'get_schema', 'get_outline'];

describe.each<Era>(['legacy', 'modern'])('explorer tools over stdio, %s era', (era) => {
  let c: Connected;
  beforeAll(async () => {
    c = await connect(['--root', EXAMPLES], { era });
  });
  afterAll(async () => c.close());

  test('tools/list offers the explorer tools with schemas and read-only annotations', async () => {
    const { tools } = await c.client.listTools();
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(EXPLORER_TOOLS));
    for (const name of EXPLORER_TOOLS) expect(tools.find((t) => t.name === name)!.annotations).toMatchObject({ readOnlyHint: true });
    const open = tools.find((t) => t.name === 'open_file')!;
    expect(open.inputSchema).toMatchObject({ type: 'object', properties: { path: { type: 'string' } }, required: ['path'] });
    expect(open.outputSchema).toMatchObject({ type: 'object' });
    expect(open.annotations).toMatchObject({ readOnlyHint: true, openWorldHint: false });
    for (const t of tools) expect(t.description!.length).toBeLessThan(2000);
  });

  test('open people.ndjson, read record 3 (Diana), search "diana"', async () => {
    const opened = await call(c.client, 'open_file', { path: 'people.ndjson' });
    expect(opened.isError).toBe(false);
    expect(opened.data).toMatchObject({ path: 'people.ndjson', file_type: 'ndjson', record_count: 10, format: 'jsonl' });
    expect(opened.data.handle).toMatch(/^file_\d+$/);
    const handle = opened.data.handle as string;

    const rec = await call(c.client, 'get_record', { handle, index: 3 });
    expect(rec.data.index).toBe(3);
    expect(JSON.parse(rec.data.record)).toEqual({ id: 4, name: 'Diana', age: 28 });
    // one line by default (Thoth re-indents: record_format pretty); a JSON string either way
    expect(rec.data.record).toBe('{"id":4,"name":"Diana","age":28}');
    expect(JSON.parse(rec.text)).toEqual(rec.data);

    const found = await call(c.client, 'search', { handle, query: 'diana' });
    expect(found.data).toMatchObject({ total_matches: 1, query: 'diana', mode: 'text', complete: true });
    expect(found.data.matches).toEqual([{ record_index: 3, preview: '{"id":4,"name":"«Diana»","age":28}', match_path: '/name' }]);

    expect((await call(c.client, 'search', { handle, query: 'diana', match_case: true })).data.total_matches).toBe(0);
    expect((await call(c.client, 'get_record_count', { handle })).data).toEqual({ record_count: 10 });
    const info = await call(c.client, 'get_file_info', { handle });
    expect(info.data).toMatchObject({ handle, path: 'people.ndjson', file_type: 'ndjson', record_count: 10, size_bytes: fs.statSync(path.join(EXAMPLES, 'people.ndjson')).size, malformed_records: 0 });
    expect((await call(c.client, 'close_file', { handle })).data).toEqual({ closed: true });
    expect((await call(c.client, 'close_file', { handle })).data).toEqual({ closed: false });
    const gone = await call(c.client, 'get_record', { handle, index: 0 });
    expect(gone.isError).toBe(true);
    expect(gone.data.error.code).toBe('NOT_FOUND');
  });

  test('search pages with next_cursor until every match is seen', async () => {
    const { data } = await call(c.client, 'open_file', { path: 'people.ndjson' });
    const seen: number[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await call(c.client, 'search', { handle: data.handle, query: 'a', max_results: 3, ...(cursor ? { cursor } : {}) });
      expect(page.data.total_matches).toBe(10); // the key "age" is in every record
      expect(page.data.matches.length).toBeLessThanOrEqual(3);
      seen.push(...page.data.matches.map((m: { record_index: number }) => m.record_index));
      cursor = page.data.next_cursor;
      pages++;
    } while (cursor && pages < 10);
    expect(seen).toEqual([...new Set(seen)]);
    expect(seen).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(pages).toBe(4);
  });

  test('errors are results with a code, and the server keeps serving', async () => {
    const bad = [
      [{ name: 'get_record', arguments: { handle: 'file_999', index: 0 } }, 'NOT_FOUND'],
      [{ name: 'open_file', arguments: { path: '../package.json' } }, 'ACCESS_DENIED'],
      [{ name: 'open_file', arguments: { path: 'nope.jsonl' } }, 'NOT_FOUND'],
      [{ name: 'open_file', arguments: { path: '.' } }, 'INVALID_ARGUMENT'],
      [{ name: 'open_file', arguments: { path: 'people.ndjson', format: 'csv' } }, 'INVALID_ARGUMENT'],
      [{ name: 'get_record', arguments: { handle: 'file_1', index: 'x' } }, 'INVALID_ARGUMENT'],
    ] as const;
    for (const [req, code] of bad) {
      const r = await call(c.client, req.name, req.arguments as Record<string, unknown>);
      expect({ req, isError: r.isError, code: r.data?.error?.code }).toEqual({ req, isError: true, code });
      expect(JSON.parse(r.text)).toEqual(r.data);
      expect(r.data.error.message.length).toBeGreaterThan(10);
    }
    const { data } = await call(c.client, 'open_file', { path: 'people.ndjson' });
    const oob = await call(c.client, 'get_record', { handle: data.handle, index: 10 });
    expect(oob.data.error).toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringContaining('0..9') });
    expect((await call(c.client, 'get_record_count', { handle: data.handle })).data.record_count).toBe(10);
  });
});

describe('a 1.32 SDK client (v1) reads error results with their codes', () => {
  test('error structuredContent passes the v1 client output-schema check', async () => {
    const client = new V1Client({ name: 'v1-test', version: '1.0.0' });
    const transport = new V1Transport({ command: NODE, args: [CLI, 'serve', '--root', EXAMPLES], stderr: 'pipe' });
    await client.connect(transport);
    try {
      const missing = (await client.callTool({ name: 'get_record', arguments: { handle: 'file_7', index: 0 } })) as any;
      expect(missing.isError).toBe(true);
      expect(missing.structuredContent.error.code).toBe('NOT_FOUND');
      const denied = (await client.callTool({ name: 'open_file', arguments: { path: '/etc/passwd' } })) as any;
      expect(denied.structuredContent.error.code).toBe('ACCESS_DENIED');
      const ok = (await client.callTool({ name: 'open_file', arguments: { path: 'people.ndjson' } })) as any;
      expect(ok.structuredContent).toMatchObject({ record_count: 10 });
    } finally {
      await client.close();
    }
  });
});

describe('exactness and bounds through the wire', () => {
  let dir: string;
  let c: Connected;
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-e2e-'));
    fs.writeFileSync(path.join(dir, 'big.jsonl'), '{"id":12345678901234567891,"x":0.1000000000000000000001,"name":"n"}\n');
    fs.writeFileSync(path.join(dir, 'long.jsonl'), `{"a":1}\n{"text":"${'é'.repeat(30000)}"}\n`);
    c = await connect(['--root', dir]);
  });
  afterAll(async () => {
    await c.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('get_record keeps 12345678901234567891 and 0.1000000000000000000001 digit for digit', async () => {
    const { data } = await call(c.client, 'open_file', { path: 'big.jsonl' });
    const rec = await call(c.client, 'get_record', { handle: data.handle, index: 0, record_format: 'pretty' });
    expect(rec.data.record).toContain('"id": 12345678901234567891');
    expect(rec.data.record).toContain('"x": 0.1000000000000000000001');
    const compact = await call(c.client, 'get_record', { handle: data.handle, index: 0 });
    expect(compact.data.record).toBe('{"id":12345678901234567891,"x":0.1000000000000000000001,"name":"n"}');
    expect(rec.text).toContain('12345678901234567891');
  });

  test('a record over the preview size comes back cut and marked; offset reads the rest', async () => {
    const { data } = await call(c.client, 'open_file', { path: 'long.jsonl' });
    const first = await call(c.client, 'get_record', { handle: data.handle, index: 1, record_format: 'pretty' });
    const whole = `{\n  "text": "${'é'.repeat(30000)}"\n}`;
    expect(first.data).toMatchObject({ index: 1, truncated: true, record_bytes: Buffer.byteLength(whole), offset: 0 });
    expect(first.data.record).toContain('[cut: bytes 0–');
    let text = '';
    let offset = 0;
    for (let n = 0; n < 10; n++) {
      const part = await call(c.client, 'get_record', { handle: data.handle, index: 1, record_format: 'pretty', offset });
      expect(Buffer.byteLength(part.text)).toBeLessThan(64 * 1024);
      text += part.data.record;
      if (part.data.next_offset === undefined) break;
      offset = part.data.next_offset;
    }
    expect(text).toBe(whole);
  });
});
