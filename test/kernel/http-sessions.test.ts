import { FakeClock } from '../../src/kernel/fake-clock';
import { McpServer, type AuthInfo } from '@modelcontextprotocol/server';
import { LegacySessions } from '../../src/kernel/http/legacy-sessions';
import { PrincipalStores } from '../../src/kernel/http/principal-stores';
import { ANONYMOUS, principalOf, sharedTokenVerifier } from '../../src/kernel/http/token';
import { Session } from '../../src/kernel/session/session';
import { z } from 'zod';

/**
 * The 2025-era session table and the 2026-era principal stores, driven through web Requests (no
 * sockets) with a fake clock: sessions belong to their principal, expire when idle, and ending one
 * ends its Session (whose handle tables close their files).
 */
const quiet = { error() {}, warn() {}, info() {}, debug() {} };
const IDLE = 60_000;

function initialize(headers: Record<string, string> = {}): Request {
  return new Request('http://127.0.0.1/mcp', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } }),
  });
}

function ping(sid: string): Request {
  return new Request('http://127.0.0.1/mcp', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' }),
  });
}

function setup(maxSessions = 8, maxSessionsPerPrincipal?: number) {
  const clock = new FakeClock();
  const evicted: string[] = [];
  const sessions: Session[] = [];
  const table = new LegacySessions({
    build: (session) => {
      sessions.push(session);
      // A file handle held by the session: evicted (closed) when the session ends.
      session.scope('test').handles<string>('files', { style: 'counter', prefix: 'f', noun: 'file handle', limit: 'maxOpenFiles', idleMs: 10 * IDLE, max: 4, onEvict: (v) => evicted.push(v) }).add(`file of session ${sessions.length}`);
      const server = new McpServer({ name: 't', version: '1' }, { capabilities: {} });
      server.server.onclose = () => session.end();
      return server;
    },
    maxSessions,
    ...(maxSessionsPerPrincipal !== undefined ? { maxSessionsPerPrincipal } : {}),
    idleMs: IDLE,
    maxBodyBytes: 1 << 20,
    log: quiet,
    clock,
    newSession: () => new Session(clock),
  });
  return { table, evicted, sessions, clock };
}

const alice: AuthInfo = { token: 'a', clientId: 'token:alice', scopes: [] };
const bob: AuthInfo = { token: 'b', clientId: 'token:bob', scopes: [] };

test('initialize opens a session; its id serves later requests; another principal gets 404 for it', async () => {
  const { table } = setup();
  const res = await table.handle(initialize(), alice);
  expect(res.status).toBe(200);
  const sid = res.headers.get('mcp-session-id')!;
  expect(sid).toMatch(/^[0-9a-f-]{36}$/);
  expect(table.size).toBe(1);
  expect((await table.handle(ping(sid), alice)).status).toBe(200);
  expect((await table.handle(ping(sid), bob)).status).toBe(404);
  expect((await table.handle(ping(sid), undefined)).status).toBe(404);
  expect((await table.handle(ping('00000000-0000-0000-0000-000000000000'), alice)).status).toBe(404);
  await table.closeAll();
});

test('a session is made by newSession (the kernel\'s, on its clock): its handles expire on that clock', async () => {
  const { table, sessions, clock } = setup();
  const res = await table.handle(initialize(), alice);
  expect(res.status).toBe(200);
  const files = sessions[0]!.scope('test').handles<string>('files', { style: 'counter', prefix: 'f', noun: 'file handle', limit: 'maxOpenFiles', idleMs: 10 * IDLE, max: 4 });
  expect(files.get('f1')).toBe('file of session 1');
  const sid = res.headers.get('mcp-session-id')!;
  // The session is kept in use (a ping every IDLE / 2) while its file handle is not used for 10 × IDLE.
  for (let t = 0; t <= 10 * IDLE; t += IDLE / 2) {
    await clock.advanceAsync(IDLE / 2);
    expect((await table.handle(ping(sid), alice)).status).toBe(200);
  }
  expect(() => files.get('f1')).toThrow(expect.objectContaining({ code: 'HANDLE_EXPIRED' }));
  await table.closeAll();
});

test('without a session id, only initialize is accepted (400 otherwise)', async () => {
  const { table } = setup();
  const bare = new Request('http://127.0.0.1/mcp', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) });
  expect((await table.handle(bare, undefined)).status).toBe(400);
  expect((await table.handle(new Request('http://127.0.0.1/mcp', { method: 'GET' }), undefined)).status).toBe(400);
  const junk = new Request('http://127.0.0.1/mcp', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"jsonrpc":' });
  expect((await table.handle(junk, undefined)).status).toBe(400);
  expect(table.size).toBe(0);
});

test('a session idle past idleMs is closed with its files by the sweep on the clock; one in use is kept', async () => {
  const { table, evicted, clock } = setup();
  const a = (await table.handle(initialize(), alice)).headers.get('mcp-session-id')!;
  const b = (await table.handle(initialize(), alice)).headers.get('mcp-session-id')!;
  await clock.advanceAsync(IDLE - 1000);
  expect((await table.handle(ping(b), alice)).status).toBe(200);
  expect(evicted).toEqual([]);
  await clock.advanceAsync(IDLE); // the sweep (every idleMs / 2, at least 1 s) runs past a's idle time, not b's
  expect(evicted).toEqual(['file of session 1']);
  expect(table.size).toBe(1);
  expect((await table.handle(ping(a), alice)).status).toBe(404);
  expect((await table.handle(ping(b), alice)).status).toBe(200);
  await table.closeAll();
  expect(evicted).toEqual(['file of session 1', 'file of session 2']);
});

test('DELETE ends the session and closes its files', async () => {
  const { table, evicted } = setup();
  const sid = (await table.handle(initialize(), alice)).headers.get('mcp-session-id')!;
  const del = new Request('http://127.0.0.1/mcp', { method: 'DELETE', headers: { 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' } });
  expect((await table.handle(del, alice)).status).toBe(200);
  expect(evicted).toEqual(['file of session 1']);
  expect(table.size).toBe(0);
});

test('past maxSessions a new session takes an idle one\'s place; expired ones are swept first', async () => {
  const { table, clock } = setup(2);
  await table.handle(initialize(), alice);
  await table.handle(initialize(), alice);
  expect((await table.handle(initialize(), alice)).status).toBe(200);
  expect(table.size).toBe(2);
  clock.advance(IDLE + 1); // past their idle time, before the next sweep (every IDLE / 2: the last one ran at IDLE)
  expect(table.size).toBe(2);
  expect((await table.handle(initialize(), alice)).status).toBe(200);
  expect(table.size).toBe(1);
  await table.closeAll();
});

test('principal stores: one Session per principal, the same across requests', () => {
  const stores = new PrincipalStores();
  expect(stores.of('token:x')).toBe(stores.of('token:x'));
  expect(stores.of('token:x')).not.toBe(stores.of(ANONYMOUS));
  expect(principalOf(undefined)).toBe(ANONYMOUS);
  expect(principalOf(alice)).toBe('token:alice');
});

test('the shared-token verifier: the right token only; the principal is derived from, but is not, the token', async () => {
  const v = sharedTokenVerifier('the-shared-secret-123');
  const info = await v.verifyAccessToken('the-shared-secret-123');
  expect(info.clientId).toMatch(/^token:[0-9a-f]{12}$/);
  expect(info.clientId).not.toContain('secret');
  expect(info.expiresAt! * 1000).toBeGreaterThan(Date.now());
  for (const wrong of ['the-shared-secret-12', 'the-shared-secret-1234', 'THE-SHARED-SECRET-123', '']) {
    await expect(v.verifyAccessToken(wrong)).rejects.toMatchObject({ code: 'invalid_token' });
  }
  expect((await sharedTokenVerifier('another-secret-4567890').verifyAccessToken('another-secret-4567890')).clientId).not.toBe(info.clientId);
});

describe('pressure evicts the least recently used idle session instead of locking new clients out', () => {
  test('a full table: initialize closes the session used least recently (its files with it) and opens a new one', async () => {
    const { table, clock, evicted } = setup(3);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await table.handle(initialize(), alice);
      ids.push(res.headers.get('mcp-session-id')!);
      clock.advance(1000);
    }
    // Session 0 is used again: session 1 is now the least recently used.
    expect((await table.handle(ping(ids[0]!), alice)).status).toBe(200);
    clock.advance(1000);
    const fresh = await table.handle(initialize(), alice);
    expect(fresh.status).toBe(200);
    expect(table.size).toBe(3);
    expect((await table.handle(ping(ids[1]!), alice)).status).toBe(404);
    expect((await table.handle(ping(ids[0]!), alice)).status).toBe(200);
    expect((await table.handle(ping(ids[2]!), alice)).status).toBe(200);
    await new Promise((r) => setImmediate(r));
    expect(evicted).toEqual(['file of session 2']);
    await table.closeAll();
  });

  test('a session whose request is still being answered is never the one evicted; all busy → 503', async () => {
    const { table, clock } = setup(1);
    const first = await table.handle(initialize(), alice);
    const sid = first.headers.get('mcp-session-id')!;
    clock.advance(1000);
    // A request whose answer is not read yet keeps the session busy.
    const pending = await table.handle(ping(sid), alice);
    const full = await table.handle(initialize(), bob);
    expect(full.status).toBe(503);
    expect(full.headers.get('retry-after')).toBe('5');
    await pending.text(); // answered: no longer busy
    expect((await table.handle(initialize(), bob)).status).toBe(200);
    expect((await table.handle(ping(sid), alice)).status).toBe(404);
    await table.closeAll();
  });

  test('per principal: past maxSessionsPerPrincipal the principal\'s own least recently used session makes room', async () => {
    const { table, clock } = setup(8, 2);
    const a1 = (await table.handle(initialize(), alice)).headers.get('mcp-session-id')!;
    clock.advance(1000);
    const b1 = (await table.handle(initialize(), bob)).headers.get('mcp-session-id')!;
    clock.advance(1000);
    const a2 = (await table.handle(initialize(), alice)).headers.get('mcp-session-id')!;
    clock.advance(1000);
    expect((await table.handle(initialize(), alice)).status).toBe(200);
    // alice's oldest went, not bob's (older still).
    expect((await table.handle(ping(a1), alice)).status).toBe(404);
    expect((await table.handle(ping(b1), bob)).status).toBe(200);
    expect((await table.handle(ping(a2), alice)).status).toBe(200);
    await table.closeAll();
  });
});

describe('streams are ended, not left open', () => {
  /** A table whose servers offer one tool, `wait`, that runs until its request is cancelled. */
  function waitingSetup() {
    const clock = new FakeClock();
    const cancelled: string[] = [];
    const table = new LegacySessions({
      build: (session) => {
        const server = new McpServer({ name: 't', version: '1' }, { capabilities: { tools: {} } });
        server.registerTool('wait', { description: 'waits until cancelled', inputSchema: z.object({}) }, async (_args: unknown, ctx: any) => {
          await new Promise<void>((resolve) => ctx.mcpReq.signal.addEventListener('abort', () => resolve(), { once: true }));
          cancelled.push('wait');
          return { content: [{ type: 'text' as const, text: 'stopped' }] };
        });
        server.server.onclose = () => session.end();
        return server;
      },
      maxSessions: 8,
      idleMs: IDLE,
      maxBodyBytes: 1 << 20,
      log: quiet,
      clock,
      newSession: () => new Session(clock),
    });
    return { table, clock, cancelled };
  }
  const post = (sid: string, body: unknown) => new Request('http://127.0.0.1/mcp', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' },
    body: JSON.stringify(body),
  });
  /** Reads a response body to its end; resolves to what it carried. */
  async function drain(res: Response): Promise<string> {
    return res.text();
  }

  test('a request cancelled with notifications/cancelled: its SSE stream ends (without an answer)', async () => {
    const { table, cancelled } = waitingSetup();
    const sid = (await table.handle(initialize(), alice)).headers.get('mcp-session-id')!;
    const call = await table.handle(post(sid, { jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'wait', arguments: {} } }), alice);
    expect(call.status).toBe(200);
    const body = drain(call);
    const cancel = await table.handle(post(sid, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 5, reason: 'user' } }), alice);
    expect(cancel.status).toBe(202);
    const text = await body; // on a server that leaves the stream open, this never resolves
    expect(text).not.toContain('"id":5');
    expect(cancelled).toEqual(['wait']);
    await table.closeAll();
  });

  test('a session expiring while its GET stream is open: the stream ends', async () => {
    const { table, clock } = waitingSetup();
    const sid = (await table.handle(initialize(), alice)).headers.get('mcp-session-id')!;
    const listen = await table.handle(new Request('http://127.0.0.1/mcp', {
      method: 'GET', headers: { accept: 'text/event-stream', 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' },
    }), alice);
    expect(listen.status).toBe(200);
    const body = drain(listen);
    await clock.advanceAsync(2 * IDLE);
    expect(table.size).toBe(0);
    await body; // on a server that leaves the stream open, this never resolves
    await table.closeAll();
  });
});
