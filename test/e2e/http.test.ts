import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { REPO } from '../helpers/mcp';
import { callTool, connectHttp, connectV1Http, startHttp, type HttpServer } from '../helpers/http';

/**
 * `mcpgw serve --http` through real clients over loopback: the 2.x client's Streamable HTTP transport in
 * the 2025-11-25 era (initialize, Mcp-Session-Id) and the 2026-07-28 era (server/discover, per-request
 * metadata), and the 1.32 SDK's Streamable HTTP client, all against one endpoint of one server.
 */
const EXAMPLES = path.join(REPO, 'examples');
const SLOW_CONFIG = path.join(REPO, 'test', 'fixtures', 'stdio', 'mcpgwrc.json');

/** The failed events of examples/events.jsonl, computed here from the file itself. */
const FAILED = fs
  .readFileSync(path.join(EXAMPLES, 'events.jsonl'), 'utf8')
  .split('\n')
  .filter((l) => l.trim())
  .map((l, i) => ({ i, e: JSON.parse(l) as { id: number; status: string } }))
  .filter(({ e }) => e.status === 'failed')
  .map(({ i, e }) => ({ path: `/${i}/id`, value: e.id }));

type Kind = 'v2 legacy' | 'v2 modern' | 'v1.32';
const KINDS: Kind[] = ['v2 legacy', 'v2 modern', 'v1.32'];

interface Caller {
  call(name: string, args: Record<string, unknown>): ReturnType<typeof callTool>;
  /** Ends the client; a 2025-era client first ends its session (DELETE). */
  close(): Promise<void>;
}

async function caller(url: URL, kind: Kind, opts: { token?: string } = {}): Promise<Caller> {
  const client = kind === 'v1.32' ? await connectV1Http(url, opts) : await connectHttp(url, { era: kind === 'v2 modern' ? 'modern' : 'legacy', ...opts });
  return {
    call: (name, args) => callTool(client, name, args),
    async close() {
      if (kind !== 'v2 modern') await (client.transport as StreamableHTTPClientTransport).terminateSession();
      await client.close();
    },
  };
}

describe('one HTTP endpoint, three kinds of client', () => {
  let server: HttpServer;
  beforeAll(async () => {
    server = await startHttp(['--root', EXAMPLES]);
  });
  afterAll(async () => {
    expect(await server.stop()).toBe(0);
    expect(server.stdout()).toBe('');
  });

  test('the URL is printed on stderr, with the port the system chose', () => {
    expect(server.url.hostname).toBe('127.0.0.1');
    expect(server.url.pathname).toBe('/mcp');
    expect(Number(server.url.port)).toBeGreaterThan(0);
  });

  describe.each(KINDS)('%s', (kind) => {
    let c: Caller;
    beforeAll(async () => {
      c = await caller(server.url, kind);
    });
    afterAll(async () => c.close());

    test('explorer walkthrough on people.ndjson: handles live across requests', async () => {
      const files = await c.call('list_files', { glob: '*.ndjson' });
      expect(files.data.files).toEqual([expect.objectContaining({ path: 'people.ndjson', size_bytes: 326, format: 'jsonl' })]);
      const opened = await c.call('open_file', { path: 'people.ndjson' });
      expect(opened.data).toMatchObject({ path: 'people.ndjson', file_type: 'ndjson', record_count: 10 });
      const handle = opened.data.handle;
      expect(handle).toMatch(/^file_\d+$/);
      expect((await c.call('get_schema', { handle })).data).toEqual({
        schema: { type: 'object', properties: { id: { type: 'integer' }, name: { type: 'string' }, age: { type: 'integer' } }, required: ['age', 'id', 'name'] },
        records_sampled: 10,
      });
      const even = await c.call('sample_records', { handle, count: 3, strategy: 'even' });
      expect(even.data.records.map((r: { index: number; record: string }) => [r.index, JSON.parse(r.record).name])).toEqual([[0, 'Alice'], [4, 'Eve'], [9, 'Jack']]);
      const jack = await c.call('search', { handle, query: 'jack' });
      expect(jack.data.matches).toEqual([{ record_index: 9, preview: '{"id":10,"name":"«Jack»","age":41}', match_path: '/name' }]);
      const older = await c.call('search', { handle, query: '$.age > 40' });
      expect(older.data.matches.map((m: { record_index: number }) => m.record_index)).toEqual([5, 9]);
      expect((await c.call('get_record', { handle, index: 3 })).data).toEqual({ index: 3, record: '{"id":4,"name":"Diana","age":28}' });
      expect((await c.call('get_value_at_path', { handle, index: 5, path: 'name' })).data).toMatchObject({ value: '"Frank"', value_type: 'string' });
      expect((await c.call('close_file', { handle })).isError).toBe(false);
      const gone = await c.call('get_record', { handle, index: 0 });
      expect(gone.isError).toBe(true);
      expect(gone.data.error.code).toBe('NOT_FOUND');
    });

    test('reader paging walk on events.jsonl: cursors across requests give the whole node list', async () => {
      const opened = await c.call('json_open', { path: 'events.jsonl' });
      const fileId = opened.data.file_id;
      const pages: { path: string; value: number }[][] = [];
      let page = await c.call('json_read', { file_id: fileId, language: 'jsonpath', query: '$[?@.status=="failed"].id', max_items: 25 });
      for (;;) {
        expect(page.isError).toBe(false);
        pages.push(page.data.items);
        if (page.data.complete) break;
        page = await c.call('json_read', { cursor: page.data.next_cursor });
      }
      expect(FAILED.length).toBe(102);
      expect(pages.map((p) => p.length)).toEqual([25, 25, 25, 25, 2]);
      expect(pages.flat()).toEqual(FAILED);
      expect((await c.call('json_close', { file_id: fileId })).data).toEqual({ file_id: fileId, closed: true });
    });
  });

  test('a second principal cannot use the first one\'s handle or cursor: NOT_FOUND', async () => {
    const a = await caller(server.url, 'v2 legacy');
    const b = await caller(server.url, 'v2 legacy');
    const m = await caller(server.url, 'v2 modern');
    try {
      const opened = await a.call('open_file', { path: 'people.ndjson' });
      const page = await a.call('json_read', { path: 'events.jsonl', language: 'jsonpath', query: '$[*].id', max_items: 1 });
      const { handle } = opened.data;
      const cursor = page.data.next_cursor;
      expect(cursor).toMatch(/^jc_/);
      for (const other of [b, m]) {
        const rec = await other.call('get_record', { handle, index: 0 });
        expect(rec.data.error).toMatchObject({ code: 'NOT_FOUND', message: expect.stringContaining(handle) });
        const read = await other.call('json_read', { cursor });
        expect(read.data.error.code).toBe('NOT_FOUND');
        expect((await other.call('json_read', { file_id: page.data.file_id, language: 'pointer', query: '/0' })).data.error.code).toBe('NOT_FOUND');
      }
      // The owner still can.
      expect((await a.call('get_record', { handle, index: 0 })).data.index).toBe(0);
      expect((await a.call('json_read', { cursor })).data.items).toEqual([{ path: '/1/id', value: 2 }]);
    } finally {
      await Promise.all([a.close(), b.close(), m.close()]);
    }
  });

  test('ending a 2025 session (DELETE) closes its files; the session id is then unknown (404)', async () => {
    const client = await connectHttp(server.url);
    const transport = client.transport as StreamableHTTPClientTransport;
    await callTool(client, 'json_open', { path: 'events.jsonl' });
    expect(server.openFiles('events.jsonl')).toBe(1);
    const sid = transport.sessionId!;
    await transport.terminateSession();
    expect(server.openFiles('events.jsonl')).toBe(0);
    const res = await fetch(server.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(res.status).toBe(404);
    await client.close();
  });
});

describe('progress, cancellation and shutdown over HTTP', () => {
  /** The era tests share one server (it must keep serving after each abort); each shutdown test stops a server of its own. */
  let server: HttpServer;
  const slowServer = () => startHttp(['--root', EXAMPLES, '--config', SLOW_CONFIG]);
  beforeAll(async () => {
    server = await slowServer();
  });
  afterAll(async () => {
    await server?.stop('SIGKILL');
  });

  /** Resolves when the server's stderr says `text` (checked as each piece arrives); fails after `ms` or at its exit. */
  function untilStderr(text: string, ms = 10_000): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const check = () => {
        if (!server.stderr().includes(text)) return;
        settle();
        resolve();
      };
      const fail = (why: string) => {
        settle();
        reject(new Error(`stderr never said ${JSON.stringify(text)} (${why}): ${server.stderr()}`));
      };
      const timer = setTimeout(() => fail(`${ms} ms`), ms);
      const onExit = () => fail('the server exited');
      const settle = () => {
        clearTimeout(timer);
        server.proc.stderr.off('data', check);
        server.proc.off('exit', onExit);
      };
      server.proc.stderr.on('data', check);
      server.proc.once('exit', onExit);
      check();
    });
  }

  test.each(['legacy', 'modern'] as const)('%s era: progress notifications arrive on the SSE response; an abort stops the tool; the server keeps serving', async (era) => {
    const client: Client = await connectHttp(server.url, { era });
    const controller = new AbortController();
    const progress: number[] = [];
    const pending = callTool(client, 'slow_wait', { ms: 20_000 }, {
      signal: controller.signal,
      onprogress: (p) => {
        progress.push(p.progress);
        if (progress.length === 3) controller.abort();
      },
    });
    await expect(pending).rejects.toThrow();
    expect(progress.length).toBeGreaterThanOrEqual(3);
    expect(progress).toEqual([...progress].sort((x, y) => x - y));
    await untilStderr('slow_wait: cancelled');
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('slow_wait');
    await client.close();
  });

  test.each(['SIGTERM', 'SIGINT'] as const)('%s: a call in flight finishes and is answered, then the process exits 0 with nothing on stdout', async (signal) => {
    const own = await slowServer();
    try {
      const client = await connectHttp(own.url);
      let stopped: Promise<number | null> | undefined;
      const pending = callTool(client, 'slow_wait', { ms: 1500 }, {
        onprogress: () => {
          stopped ??= own.stop(signal);
        },
      });
      const answer = await pending;
      expect(answer.isError).toBe(false);
      expect(answer.data.waited).toBeGreaterThanOrEqual(1400);
      expect(await stopped).toBe(0);
      expect(own.stdout()).toBe('');
      await client.close().catch(() => undefined);
    } finally {
      await own.stop('SIGKILL');
    }
  });
});
