import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { CLI, NODE, REPO } from '../helpers/mcp';
import { callTool, connectHttp, connectV1Http, startHttp, type HttpServer } from '../helpers/http';
import { startCliHost, type CliHost } from '../helpers/cli-host';

/** The lock-down of `serve --http`, probed with raw HTTP requests (node:http, so Host can be forged). */
const EXAMPLES = path.join(REPO, 'examples');
const TOKEN = 'test-token-0123456789abcdef';

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});

/** One raw request; `body` may be a Buffer (sent with Content-Length) or a list of chunks (sent chunked). */
function request(url: URL, opts: { method?: string; headers?: Record<string, string>; body?: string | Buffer | Buffer[]; path?: string } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = http.request(
      {
        agent: false,
        host: url.hostname,
        port: url.port,
        path: opts.path ?? url.pathname,
        method: opts.method ?? 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...(opts.headers ?? {}),
        },
      },
      (res) => {
        answered = true;
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
        res.on('error', reject);
      },
    );
    req.on('error', (err: NodeJS.ErrnoException) => {
      // The server may answer 413 and close before the whole body is written.
      if (answered && (err.code === 'EPIPE' || err.code === 'ECONNRESET')) return;
      reject(err);
    });
    if (Array.isArray(opts.body)) {
      for (const chunk of opts.body) req.write(chunk);
      req.end();
    } else req.end(opts.body ?? (opts.method === 'GET' || opts.method === 'OPTIONS' || opts.method === 'DELETE' ? undefined : INITIALIZE));
  });
}

const auth = { authorization: `Bearer ${TOKEN}` };

/**
 * A raw exchange on a socket: writes `head`, then `chunks` one by one (awaiting each write) until the
 * server answers, then `tail`; resolves with the status of the first response line once the server
 * closes or answers whole. Survives the server closing mid-upload (EPIPE), which is the point.
 */
function exchange(url: URL, head: string, chunks: Buffer[], tail?: Buffer): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(url.port), url.hostname);
    let received = '';
    const done = () => {
      const m = /^HTTP\/1\.1 (\d{3})/.exec(received);
      if (!m) return reject(new Error(`no HTTP answer: ${JSON.stringify(received.slice(0, 200))}`));
      resolve({ status: Number(m[1]), text: received });
      socket.destroy();
    };
    socket.on('data', (d: Buffer) => {
      received += d.toString();
      if (/\r\n\r\n/.test(received) && /^HTTP\/1\.1 \d{3}/.test(received) && received.includes('}')) done();
    });
    socket.on('error', () => undefined);
    socket.on('close', done);
    socket.on('connect', async () => {
      const write = (b: string | Buffer) => new Promise<void>((r) => socket.write(b, () => r()));
      await write(head);
      for (const c of chunks) {
        if (received || socket.destroyed) return;
        await write(c);
      }
      if (tail && !received && !socket.destroyed) await write(tail);
    });
  });
}

describe('a server with a token', () => {
  let server: HttpServer;
  beforeAll(async () => {
    server = await startHttp(['--root', EXAMPLES], { env: { MCPGW_HTTP_TOKEN: TOKEN } });
  });
  afterAll(async () => {
    expect(await server.stop()).toBe(0);
    expect(server.stdout()).toBe('');
  });

  test('the start-up line says where the token came from, never the token', () => {
    expect(server.stderr()).toContain('(Bearer token from MCPGW_HTTP_TOKEN)');
    expect(server.stderr()).not.toContain(TOKEN);
  });

  test('no token → 401 with a Bearer challenge', async () => {
    const r = await request(server.url);
    expect(r.status).toBe(401);
    expect(r.headers['www-authenticate']).toMatch(/^Bearer /);
    expect(JSON.parse(r.body)).toMatchObject({ error: 'invalid_token' });
  });

  test.each([
    ['a wrong token of the same length', `Bearer ${TOKEN.slice(0, -1)}X`],
    ['a prefix of the token', `Bearer ${TOKEN.slice(0, 10)}`],
    ['the token and more', `Bearer ${TOKEN}0`],
    ['another scheme', `Basic ${Buffer.from(`x:${TOKEN}`).toString('base64')}`],
  ])('%s → 401', async (_what, authorization) => {
    const r = await request(server.url, { headers: { authorization } });
    expect(r.status).toBe(401);
    expect(r.headers['www-authenticate']).toMatch(/^Bearer /);
  });

  test('the right token: both eras and the 1.32 client get through', async () => {
    for (const era of ['legacy', 'modern'] as const) {
      const c = await connectHttp(server.url, { era, token: TOKEN });
      expect((await callTool(c, 'get_record_count', { handle: 'file_999' })).data.error.code).toBe('NOT_FOUND');
      await c.close();
    }
    const v1 = await connectV1Http(server.url, { token: TOKEN });
    expect((await callTool(v1, 'list_files', { glob: '*.ndjson' })).data.files).toHaveLength(1);
    await v1.close();
    const raw = await request(server.url, { headers: auth });
    expect(raw.status).toBe(200);
    expect(raw.headers['mcp-session-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  test('Host: evil.example → 403, even with the token (DNS rebinding)', async () => {
    const r = await request(server.url, { headers: { ...auth, host: `evil.example:${server.url.port}` } });
    expect(r.status).toBe(403);
    expect(JSON.parse(r.body).error.message).toContain('evil.example');
    const ok = await request(server.url, { headers: { ...auth, host: `localhost:${server.url.port}` } });
    expect(ok.status).toBe(200);
  });

  test('Origin: http://evil.example → 403; a loopback origin passes, without CORS headers', async () => {
    const evil = await request(server.url, { headers: { ...auth, origin: 'http://evil.example' } });
    expect(evil.status).toBe(403);
    const opaque = await request(server.url, { headers: { ...auth, origin: 'null' } });
    expect(opaque.status).toBe(403);
    const local = await request(server.url, { headers: { ...auth, origin: 'http://localhost:5173' } });
    expect(local.status).toBe(200);
    expect(Object.keys(local.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
    const preflight = await request(server.url, { method: 'OPTIONS', headers: { origin: 'http://localhost:5173', 'access-control-request-method': 'POST' } });
    expect(preflight.status).toBe(405);
    expect(Object.keys(preflight.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
  });

  test('a 5 MiB body → 413 before it is read: declared (answered after the headers alone) or streamed', async () => {
    const head = (extra: string) => `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${server.url.port}\r\nContent-Type: application/json\r\nAuthorization: Bearer ${TOKEN}\r\n${extra}\r\n`;
    // Content-Length 5 MiB and not one byte of the body: the answer comes anyway.
    const declared = await exchange(server.url, head(`Content-Length: ${5 * 1024 * 1024}\r\n`), []);
    expect(declared.status).toBe(413);
    expect(declared.text).toContain('maxBodyBytes 4194304');
    // Chunked, no length: cut off with 413 once past 4 MiB.
    const mib = Buffer.alloc(1024 * 1024, 0x20);
    const chunk = Buffer.concat([Buffer.from(`${mib.length.toString(16)}\r\n`), mib, Buffer.from('\r\n')]);
    const streamed = await exchange(server.url, head('Transfer-Encoding: chunked\r\n'), Array.from({ length: 5 }, () => chunk), Buffer.from('0\r\n\r\n'));
    expect(streamed.status).toBe(413);
    // Just under the bound is read and parsed (whitespace is not JSON: 400, not 413).
    const under = await request(server.url, { headers: auth, body: Buffer.alloc(4 * 1024 * 1024 - 1, 0x20) });
    expect(under.status).toBe(400);
  });

  test('not JSON → 415; another path → 404', async () => {
    expect((await request(server.url, { headers: { ...auth, 'content-type': 'text/plain' } })).status).toBe(415);
    expect((await request(server.url, { headers: auth, path: '/other' })).status).toBe(404);
  });
});

describe('start-up checks', () => {
  function run(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stderr: string; stdout: string }> {
    return new Promise((resolve) => {
      const p = spawn(NODE, [CLI, 'serve', ...args], { cwd: REPO, env: { PATH: process.env.PATH ?? '', XDG_CACHE_HOME: process.env.XDG_CACHE_HOME ?? '', ...env } });
      let stderr = '';
      let stdout = '';
      p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      p.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      p.on('exit', (code) => resolve({ code, stderr, stdout }));
    });
  }
  /** `mcpgw serve ARGS` on the CLI host (the built CLI's main() in one process; its exit code is main()'s). */
  let host: CliHost;
  beforeAll(() => { host = startCliHost(); });
  afterAll(async () => { await host?.close(); });
  async function hosted(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stderr: string; stdout: string }> {
    const r = await host.run(['serve', ...args], REPO, { PATH: process.env.PATH ?? '', XDG_CACHE_HOME: process.env.XDG_CACHE_HOME ?? '', ...env });
    return { code: r.status, stderr: r.stderr, stdout: r.stdout };
  }

  test('a non-loopback bind without a token → exit 2 saying why', async () => {
    const r = await run(['--http', '--host', '0.0.0.0', '--port', '0', '--root', EXAMPLES]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('Refusing to listen on 0.0.0.0 without a token');
    expect(r.stderr).toContain('MCPGW_HTTP_TOKEN');
    expect(r.stdout).toBe('');
  });

  test('a token too short to be a secret → exit 2', async () => {
    const r = await hosted(['--http', '--port', '0', '--root', EXAMPLES], { MCPGW_HTTP_TOKEN: 'short' });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('at least 16 characters');
  });

  test('--port without --http → exit 2', async () => {
    const r = await hosted(['--port', '0', '--root', EXAMPLES]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--host and --port apply only with --http');
  });

  test('a port in use → exit 1 naming it', async () => {
    const first = await startHttp(['--root', EXAMPLES]);
    try {
      const r = await hosted(['--http', '--port', first.url.port, '--root', EXAMPLES]);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`Cannot listen on 127.0.0.1:${first.url.port}`);
      expect(r.stderr).toContain('EADDRINUSE');
    } finally {
      await first.stop();
    }
  });

  test('0.0.0.0 with a token from http.tokenFile: serves, warns that only loopback Host names pass', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-http-'));
    try {
      fs.writeFileSync(path.join(dir, 'token'), `${TOKEN}\n`);
      fs.writeFileSync(path.join(dir, '.mcpgwrc.json'), JSON.stringify({ root: EXAMPLES, http: { tokenFile: 'token' } }));
      const s = await startHttp(['--config', path.join(dir, '.mcpgwrc.json'), '--host', '0.0.0.0']);
      try {
        expect(s.stderr()).toContain('(Bearer token from http.tokenFile)');
        expect(s.stderr()).toContain('lists only loopback names');
        const url = new URL(`http://127.0.0.1:${s.url.port}/mcp`);
        expect((await request(url, { headers: auth })).status).toBe(200);
        expect((await request(url, {})).status).toBe(401);
      } finally {
        expect(await s.stop()).toBe(0);
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('configured origins: CORS for them, 403 for the rest', () => {
  let server: HttpServer;
  let dir: string;
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-http-'));
    fs.writeFileSync(path.join(dir, '.mcpgwrc.json'), JSON.stringify({ root: EXAMPLES, http: { allowedOrigins: ['https://app.example.com'], path: '/api/mcp' } }));
    server = await startHttp(['--config', path.join(dir, '.mcpgwrc.json')]);
  });
  afterAll(async () => {
    await server.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('the configured path is the endpoint', () => {
    expect(server.url.pathname).toBe('/api/mcp');
  });

  test('preflight from an allowed origin: 204 with the CORS headers', async () => {
    const r = await request(server.url, {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example.com', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type, mcp-session-id' },
    });
    expect(r.status).toBe(204);
    expect(r.headers['access-control-allow-origin']).toBe('https://app.example.com');
    expect(r.headers['access-control-allow-methods']).toContain('POST');
    expect(r.headers['access-control-allow-headers']).toBe('authorization, content-type, mcp-session-id');
  });

  test('a request from the allowed origin carries Access-Control-Allow-Origin and exposes Mcp-Session-Id', async () => {
    const r = await request(server.url, { headers: { origin: 'https://app.example.com' } });
    expect(r.status).toBe(200);
    expect(r.headers['access-control-allow-origin']).toBe('https://app.example.com');
    expect(r.headers['access-control-expose-headers']).toContain('Mcp-Session-Id');
  });

  test('the same host on another port or scheme, and loopback origins, are 403 once origins are configured', async () => {
    for (const origin of ['https://app.example.com:8443', 'http://app.example.com', 'http://localhost:5173']) {
      const r = await request(server.url, { headers: { origin } });
      expect([origin, r.status]).toEqual([origin, 403]);
    }
  });

  test('no Origin (a non-browser client): served, no CORS headers', async () => {
    const r = await request(server.url, {});
    expect(r.status).toBe(200);
    expect(r.headers['access-control-allow-origin']).toBeUndefined();
  });
});
