/**
 * HTTP limits a server without a proxy in front survives, probed with raw sockets against the built CLI:
 * a connection cap and a header timeout (slowloris), sessions evicted under pressure instead of a lockout, two `Host`
 * headers refused (RFC 9112 §3.2), a 413 read whole by a client still writing its body, and a message nested past
 * the depth bound refused before it is parsed. No assertion reads a clock: each waits for an outcome that holds at
 * any speed (the jest timeout bounds the wait).
 */
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { REPO } from '../helpers/mcp';
import { callTool, connectHttp, startHttp, type HttpServer } from '../helpers/http';

const EXAMPLES = path.join(REPO, 'examples');

const INITIALIZE = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });

function configFile(http: Record<string, unknown>): { file: string; remove(): void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-http-limits-'));
  const file = path.join(dir, '.mcpgwrc.json');
  fs.writeFileSync(file, JSON.stringify({ root: EXAMPLES, http }));
  return { file, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

/** A raw socket: what it received, whether the server closed it, and any socket error. */
interface Raw {
  socket: net.Socket;
  received: () => string;
  closed: Promise<void>;
  errors: string[];
}

function rawSocket(url: URL): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(url.port), url.hostname);
    let received = '';
    const errors: string[] = [];
    socket.on('data', (d: Buffer) => (received += d.toString('latin1')));
    socket.on('error', (e: NodeJS.ErrnoException) => errors.push(e.code ?? e.message));
    const closed = new Promise<void>((r) => socket.once('close', () => r()));
    socket.once('connect', () => resolve({ socket, received: () => received, closed, errors }));
    socket.once('error', reject);
  });
}

const write = (s: net.Socket, b: string | Buffer) => new Promise<void>((resolve, reject) => s.write(b, (err) => (err ? reject(err) : resolve())));

/** Waits until `check` holds, polling on the event loop (the jest timeout bounds it). */
async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((r) => setTimeout(r, 25));
}

function statusOf(text: string): number {
  return Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
}

describe('connections: a cap and a header timeout (slowloris)', () => {
  let server: HttpServer;
  let cfg: ReturnType<typeof configFile>;
  beforeAll(async () => {
    cfg = configFile({ maxConnections: 16, headersTimeoutMs: 1000 });
    server = await startHttp(['--config', cfg.file]);
  });
  afterAll(async () => {
    expect(await server.stop()).toBe(0);
    expect(server.stdout()).toBe('');
    cfg.remove();
  });

  test('40 half-sent requests: the server holds at most 16 connections, drops the rest, times the held ones out; then serves', async () => {
    const before = server.openFiles('socket:');
    const raws: Raw[] = [];
    for (let i = 0; i < 40; i++) {
      const r = await rawSocket(server.url);
      raws.push(r);
      // Headers never finished.
      r.socket.write(`POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${server.url.port}\r\nContent-Type: application/json\r\n`);
    }
    let closedCount = 0;
    for (const r of raws) void r.closed.then(() => closedCount++);
    // Past the cap, connections are closed at once.
    await until(() => closedCount >= 24);
    expect(server.openFiles('socket:') - before).toBeLessThanOrEqual(16);
    // The held ones end when their headers time out, each answered 408 or closed.
    await Promise.all(raws.map((r) => r.closed));
    for (const r of raws) if (r.received()) expect(statusOf(r.received())).toBe(408);
    const client = await connectHttp(server.url);
    expect((await callTool(client, 'list_files', {})).isError).toBe(false);
    await client.close();
  }, 30_000);
});

describe('sessions: evicted under pressure, not a lockout', () => {
  let server: HttpServer;
  let cfg: ReturnType<typeof configFile>;
  beforeAll(async () => {
    cfg = configFile({ maxSessions: 8 });
    server = await startHttp(['--config', cfg.file]);
  });
  afterAll(async () => {
    expect(await server.stop()).toBe(0);
    cfg.remove();
  });

  test('8 sessions opened and left unused fill the table; a new client still gets a session; the least recently used is gone', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 8; i++) {
      const res = await fetch(server.url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: INITIALIZE });
      expect(res.status).toBe(200);
      ids.push(res.headers.get('mcp-session-id')!);
      await res.text();
    }
    const client = await connectHttp(server.url);
    expect((await callTool(client, 'list_files', {})).isError).toBe(false);
    await client.close();
    // The first session opened (used least recently) made room: its id is now unknown (404: the client starts anew).
    const stale = await fetch(server.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': ids[0]!, 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' }),
    });
    expect(stale.status).toBe(404);
    await stale.text();
  }, 30_000);
});

describe('request framing and bodies', () => {
  let server: HttpServer;
  beforeAll(async () => {
    server = await startHttp(['--root', EXAMPLES]);
  });
  afterAll(async () => {
    expect(await server.stop()).toBe(0);
    expect(server.stdout()).toBe('');
  });

  test('two Host headers, the loopback one first → 400 (RFC 9112 §3.2)', async () => {
    const r = await rawSocket(server.url);
    await write(r.socket, `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${server.url.port}\r\nHost: evil.example\r\nContent-Type: application/json\r\n` +
      `Accept: application/json, text/event-stream\r\nContent-Length: ${Buffer.byteLength(INITIALIZE)}\r\nConnection: close\r\n\r\n${INITIALIZE}`);
    await r.closed;
    expect(statusOf(r.received())).toBe(400);
    expect(r.received()).toContain('Host');
  });

  test('a declared 5 MiB body written whole after the 413: every write succeeds and the 413 is read (no EPIPE, no reset)', async () => {
    const r = await rawSocket(server.url);
    const size = 5 * 1024 * 1024;
    await write(r.socket, `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${server.url.port}\r\nContent-Type: application/json\r\nContent-Length: ${size}\r\n\r\n`);
    const mib = Buffer.alloc(1024 * 1024, 0x20);
    for (let i = 0; i < 5; i++) await write(r.socket, mib);
    await until(() => r.received().includes('}'));
    expect(statusOf(r.received())).toBe(413);
    expect(r.received()).toContain('maxBodyBytes');
    r.socket.end();
    await r.closed;
    expect(r.errors).toEqual([]);
  }, 30_000);

  test('a chunked body growing past 4 MiB, written whole: the 413 is read and no write fails', async () => {
    const r = await rawSocket(server.url);
    await write(r.socket, `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${server.url.port}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`);
    const mib = Buffer.alloc(1024 * 1024, 0x20);
    const chunk = Buffer.concat([Buffer.from(`${mib.length.toString(16)}\r\n`), mib, Buffer.from('\r\n')]);
    for (let i = 0; i < 5; i++) await write(r.socket, chunk);
    await write(r.socket, '0\r\n\r\n');
    await until(() => r.received().includes('}'));
    expect(statusOf(r.received())).toBe(413);
    r.socket.end();
    await r.closed;
    expect(r.errors).toEqual([]);
  }, 30_000);

  test('a body nested 1,000,000 deep → 400 naming the depth bound, before it is parsed; the server serves on', async () => {
    const body = '['.repeat(1_000_000) + ']'.repeat(1_000_000);
    const res = await fetch(server.url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body });
    expect(res.status).toBe(400);
    const answer = await res.json() as { error: { code: number; message: string } };
    expect(answer.error.code).toBe(-32700);
    expect(answer.error.message).toMatch(/nest/i);
    const client = await connectHttp(server.url);
    expect((await callTool(client, 'list_files', {})).isError).toBe(false);
    await client.close();
  }, 30_000);
});
