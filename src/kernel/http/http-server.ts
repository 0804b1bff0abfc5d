import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMcpHandler, isLegacyRequest, type AuthInfo, type McpServer, type OAuthTokenVerifier } from '@modelcontextprotocol/server';
import { toNodeHandler } from '@modelcontextprotocol/node';
import type { HttpSettings } from '../config/http';
import type { Limits } from '../contracts/limits';
import type { Logger } from '../contracts/plugin';
import type { Clock } from '../contracts/clock';
import type { Session } from '../session/session';
import { checkBody, checkHost, checkOrigin, checkSingleHost, checkToken, corsHeaders, isRejection, jsonRpcRejection, preflight, type Rejection } from './guards';
import { depthExceededAt, MESSAGE_MAX_DEPTH } from '../server/json-depth';
import { LegacySessions } from './legacy-sessions';
import { PrincipalStores } from './principal-stores';
import { principalOf, sharedTokenVerifier } from './token';

/** How long an idle keep-alive connection is kept, ms. */
const KEEP_ALIVE_MS = 65_000;
/**
 * A body refused with 413 is still read (and dropped) up to this many bytes, so a client that goes on writing it reads
 * the 413 instead of failing its writes (EPIPE, or a reset that loses the answer); a longer one closes the connection.
 */
const DRAIN_MAX_BYTES = 64 * 1024 * 1024;
/** Requests answered before going quiet asks for a collection (a lone request does not). */
const QUIET_COLLECT_AFTER = 16;

export interface McpHttpServerOptions {
  settings: HttpSettings;
  /** Builds a server over a Session; `ownsSession` ends the Session when the server closes. */
  build: (session: Session, ownsSession: boolean) => McpServer;
  /** Makes a Session (a 2025-era session's, a principal's store); default `new Session()`. The kernel's runs on its clock. */
  newSession?: () => Session;
  limits: Pick<Limits, 'handleIdleMs' | 'cursorIdleMs' | 'requestTimeoutMs'>;
  log: Logger;
  /** The clock 2025-era sessions expire on (the kernel's; default the system clock). */
  clock?: Clock;
  /** Called when no request is in flight after at least 16 were answered (the CLI: a memory-reducing collection). */
  onQuiet?: () => void;
}

/**
 * MCP over HTTP on the SDK's own entry points, both protocol eras on one endpoint:
 *
 * - every request passes, in order: path → `Host` allow-list (403) → `Origin` allow-list (403) → CORS
 *   preflight → Bearer token (401 + `WWW-Authenticate`) → declared body size (413) and media type (415);
 * - the SDK's Node adapter (`toNodeHandler`) turns it into a web `Request` (a body growing past
 *   `maxBodyBytes` is 413) and the SDK's `isLegacyRequest` routes it: 2025-11-25 traffic to sessionful
 *   Streamable HTTP transports ({@link LegacySessions}), 2026-07-28 traffic to `createMcpHandler`, whose
 *   per-request instances use the caller's principal store ({@link PrincipalStores}).
 *
 * Progress notifications go out on SSE responses in both eras; cancellation is `notifications/cancelled`
 * (2025) or the client closing its request (2026).
 */
export class McpHttpServer {
  private readonly server: http.Server;
  private readonly verifier: OAuthTokenVerifier | null;
  private readonly legacy: LegacySessions;
  private readonly stores: PrincipalStores;
  private readonly modern;
  private readonly node;
  private stopping = false;
  /** Requests other than GET (SSE listen streams) being served: shutdown waits for them. */
  private inFlight = 0;
  private drained: (() => void) | null = null;
  /** Requests answered since the last collection asked for when the server went quiet. */
  private sinceCollection = 0;

  constructor(private readonly options: McpHttpServerOptions) {
    const { settings, build, log } = options;
    this.verifier = settings.token !== null ? sharedTokenVerifier(settings.token) : null;
    const onerror = (e: Error) => log.debug('http: request error', { error: e.message });
    this.stores = new PrincipalStores(options.newSession);
    this.legacy = new LegacySessions({
      ...(options.newSession ? { newSession: options.newSession } : {}),
      build: (session) => build(session, true),
      maxSessions: settings.maxSessions,
      maxSessionsPerPrincipal: settings.maxSessionsPerPrincipal,
      idleMs: Math.max(options.limits.handleIdleMs, options.limits.cursorIdleMs),
      maxBodyBytes: settings.maxBodyBytes,
      log,
      ...(options.clock ? { clock: options.clock } : {}),
    });
    this.modern = createMcpHandler((ctx) => build(this.stores.of(principalOf(ctx.authInfo)), false), {
      legacy: 'reject',
      maxRequestBodySize: settings.maxBodyBytes,
      onerror,
    });
    // A POST's body reaches here parsed once (serve): every leg takes it as parsedBody instead of parsing it again.
    const route = async (request: Request, extra?: { authInfo?: AuthInfo; parsedBody?: unknown }): Promise<Response> => {
      const authInfo = extra?.authInfo;
      const parsedBody = extra?.parsedBody;
      if (await isLegacyRequest(request, parsedBody, { maxRequestBodySize: settings.maxBodyBytes })) return this.legacy.handle(request, authInfo, parsedBody);
      return this.modern.fetch(request, { ...(authInfo ? { authInfo } : {}), ...(parsedBody !== undefined ? { parsedBody } : {}) });
    };
    this.node = toNodeHandler({ fetch: route }, { maxRequestBodySize: settings.maxBodyBytes, onerror });
    // node:http's own limits against clients that hold connections (slowloris): headers must arrive within
    // headersTimeoutMs and the whole request within bodyTimeoutMs (408, then closed; checked every second), at most
    // maxConnections are open (past it new ones are closed at once), at most 100 header lines are read.
    this.server = http.createServer({
      headersTimeout: settings.headersTimeoutMs,
      requestTimeout: settings.bodyTimeoutMs,
      connectionsCheckingInterval: Math.min(1000, settings.headersTimeoutMs),
      // Idle keep-alive connections outlive the clients' own idle timeout (undici: 4 s), so a client never sends a
      // request on a connection the server is closing at that moment (ECONNRESET under load with Node's 5 s).
      keepAliveTimeout: KEEP_ALIVE_MS,
    }, (req, res) => void this.serve(req, res));
    this.server.maxConnections = settings.maxConnections;
    this.server.maxHeadersCount = 100;
  }

  /** Binds and resolves to the endpoint's URL (with the port the system chose for port 0). */
  listen(): Promise<URL> {
    const { host, port, path } = this.options.settings;
    return new Promise((resolve, reject) => {
      const onError = (err: Error) => reject(err);
      this.server.once('error', onError);
      this.server.listen(port, host, () => {
        this.server.off('error', onError);
        const a = this.server.address() as AddressInfo;
        const shown = a.family === 'IPv6' || a.address.includes(':') ? `[${a.address}]` : a.address;
        resolve(new URL(`http://${shown}:${a.port}${path}`));
      });
    });
  }

  /** 2025-era sessions open now. */
  get sessions(): number {
    return this.legacy.size;
  }

  /**
   * Graceful stop: refuses new connections and requests (503), waits for requests in flight (at most
   * `graceMs`), then closes every session (files close with them) and every connection.
   */
  async stop(graceMs: number): Promise<void> {
    this.stopping = true;
    const closed = new Promise<void>((r) => this.server.close(() => r()));
    this.server.closeIdleConnections();
    if (this.inFlight > 0) {
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, graceMs);
        t.unref();
        this.drained = () => {
          clearTimeout(t);
          resolve();
        };
      });
    }
    await this.legacy.closeAll();
    await this.modern.close();
    this.stores.endAll();
    this.server.closeAllConnections();
    await closed;
  }

  private async serve(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const method = (req.method ?? 'GET').toUpperCase();
    if (method !== 'GET') {
      this.inFlight++;
      res.once('close', () => {
        this.sinceCollection++;
        if (--this.inFlight === 0) {
          this.drained?.();
          this.quiet();
        }
      });
    }
    try {
      const rejected = await this.gate(method, req);
      if (rejected) return refuse(req, res, rejected);
      for (const [k, v] of Object.entries(corsHeaders(req.headers, this.options.settings))) res.setHeader(k, v);
      let parsed: unknown;
      if (method === 'POST') {
        const body = await readBody(req, this.options.settings.maxBodyBytes);
        if (body === null) return refuse(req, res, tooLarge(this.options.settings.maxBodyBytes));
        const parsedOrRejected = parseOnce(body);
        if (isParseRejection(parsedOrRejected)) return send(res, parsedOrRejected.rejection);
        parsed = parsedOrRejected.value;
      }
      await this.node(req as Parameters<typeof this.node>[0], res, parsed as never);
    } catch (err) {
      this.options.log.error('http: request failed', { error: (err as Error)?.stack ?? String(err) });
      if (!res.headersSent) send(res, jsonRpcRejection(500, 'Internal server error', {}, -32603));
      else res.end();
    }
  }

  /**
   * No request in flight after a burst of requests: `onQuiet` (the CLI's: one memory-reducing collection a second later). Without
   * allocation pressure once the clients have gone, none runs, and what their calls left (closed files' indexes and
   * buffers, their sessions' servers) stays resident: RSS stayed 30-50 % over its level before a load.
   */
  private quiet(): void {
    if (this.sinceCollection < QUIET_COLLECT_AFTER) return;
    this.sinceCollection = 0;
    this.options.onQuiet?.();
  }

  /** The checks before MCP sees the request; sets `req.auth` for the SDK adapter. */
  private async gate(method: string, req: http.IncomingMessage & { auth?: AuthInfo }): Promise<Rejection | null> {
    const settings = this.options.settings;
    if (this.stopping) return jsonRpcRejection(503, 'Service Unavailable: the server is shutting down.', { connection: 'close' });
    const pathname = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (pathname !== settings.path) return jsonRpcRejection(404, `Not Found: the MCP endpoint is ${settings.path}.`);
    const rejected = checkSingleHost(req.rawHeaders) ?? checkHost(req.headers, settings) ?? checkOrigin(req.headers, settings);
    if (rejected) return rejected;
    if (method === 'OPTIONS') return preflight(req.headers, settings);
    if (this.verifier) {
      const auth = await checkToken(req.headers, this.verifier);
      if (isRejection(auth)) return { ...auth, headers: { ...auth.headers, ...corsHeaders(req.headers, settings) } };
      req.auth = auth;
    }
    return checkBody(method, req.headers, settings);
  }
}

function send(res: http.ServerResponse, r: Rejection): void {
  res.writeHead(r.status, r.headers);
  res.end(r.body);
}

/**
 * Answers a request refused before its body was read. The rest of the body is read and dropped (up to
 * {@link DRAIN_MAX_BYTES}; node:http's bodyTimeoutMs bounds the time) with the connection kept, so a client still
 * writing its body finishes and reads the answer; a body declared or grown past that bound closes the connection.
 */
function refuse(req: http.IncomingMessage, res: http.ServerResponse, r: Rejection): void {
  if (r.status !== 413) return send(res, r); // node:http reads and drops an unread body itself
  const declared = Number(req.headers['content-length']);
  if ((Number.isFinite(declared) && declared > DRAIN_MAX_BYTES) || req.socket.destroyed) return send(res, { ...r, headers: { ...r.headers, connection: 'close' } });
  const { connection: _dropped, ...headers } = r.headers;
  void _dropped;
  let drained = 0;
  req.on('data', (chunk: Buffer) => {
    drained += chunk.length;
    if (drained > DRAIN_MAX_BYTES) req.socket.destroy();
  });
  req.resume();
  send(res, { ...r, headers });
}

function tooLarge(max: number): Rejection {
  return jsonRpcRejection(413, `Payload Too Large: the body is over http.maxBodyBytes ${max} bytes.`);
}

/**
 * The body of a POST, or null as soon as it passes `max` bytes (declared or received; what was read stays read, and
 * {@link refuse} reads on from there). Node's bodyTimeoutMs bounds the time it may take.
 */
function readBody(req: http.IncomingMessage, max: number): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > max) {
        cleanup();
        resolve(null);
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    };
    const onError = (err: Error) => {
      cleanup();
      reject(err);
    };
    const onAborted = () => {
      cleanup();
      reject(new Error('the client closed the connection before its body was read'));
    };
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onAborted);
      req.pause();
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onAborted);
  });
}

type Parsed = { value: unknown } | { rejection: Rejection };
const isParseRejection = (p: Parsed): p is { rejection: Rejection } => 'rejection' in p;

/**
 * A POST body parsed once, its nesting checked before the parse ({@link MESSAGE_MAX_DEPTH}): 400 with a JSON-RPC
 * parse error (-32700) for text nested too deep or not JSON.
 */
function parseOnce(body: Buffer): Parsed {
  const at = depthExceededAt(body);
  if (at >= 0) {
    return { rejection: jsonRpcRejection(400, `Parse error: the message nests deeper than ${MESSAGE_MAX_DEPTH} levels (at byte ${at}); it was not parsed.`, {}, -32700) };
  }
  try {
    return { value: JSON.parse(body.toString('utf8')) };
  } catch (err) {
    return { rejection: jsonRpcRejection(400, `Parse error: the body is not JSON (${(err as Error).message.slice(0, 200)}).`, {}, -32700) };
  }
}
