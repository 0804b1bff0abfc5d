import { randomUUID } from 'node:crypto';
import { isInitializeRequest, WebStandardStreamableHTTPServerTransport, type AuthInfo, type McpServer } from '@modelcontextprotocol/server';
import type { Logger } from '../contracts/plugin';
import type { Clock, ClockTimer } from '../contracts/clock';
import { systemClock } from '../clock';
import { Session } from '../session/session';
import { principalOf } from './token';

/** Builds a server over a Session it owns (ends it on close). */
export type OwningServerBuilder = (session: Session) => McpServer;

export interface LegacySessionsOptions {
  build: OwningServerBuilder;
  /** Open sessions at most; an `initialize` past it is answered 503. */
  maxSessions: number;
  /** A session unused this long (ms) is closed, and its files with it. */
  idleMs: number;
  /** Bytes; the transport answers 413 past it. */
  maxBodyBytes: number;
  log: Logger;
  /** The clock idle expiry reads and its sweep timer runs on (the kernel's; default the system clock). */
  clock?: Clock;
  /** Makes the Session of a new MCP session (default `new Session()`; the kernel's on its clock). */
  newSession?: () => Session;
}

interface Entry {
  transport: WebStandardStreamableHTTPServerTransport;
  server: McpServer;
  session: Session;
  /** The principal that opened it; a request from another is answered as for an unknown session. */
  principal: string;
  lastUsed: number;
}

const json = (status: number, code: number, message: string, headers: Record<string, string> = {}) =>
  Response.json({ jsonrpc: '2.0', error: { code, message }, id: null }, { status, headers });

/**
 * The 2025-11-25 Streamable HTTP leg: one sessionful SDK transport, McpServer and Session per
 * `Mcp-Session-Id` (created by `initialize`, ended by DELETE, by idle expiry or at shutdown; ending
 * one closes its files). A session belongs to the principal that opened it. Requests naming an unknown
 * session (or another principal's) get 404, after which a client starts a new session (MCP, Streamable
 * HTTP "Session Management").
 */
export class LegacySessions {
  private readonly sessions = new Map<string, Entry>();
  private readonly clock: Clock;
  private timer: ClockTimer | null = null;

  constructor(private readonly options: LegacySessionsOptions) {
    this.clock = options.clock ?? systemClock;
  }

  get size(): number {
    return this.sessions.size;
  }

  /** Serves one request of the 2025 era (as classified by the SDK's isLegacyRequest). */
  async handle(request: Request, authInfo: AuthInfo | undefined): Promise<Response> {
    const principal = principalOf(authInfo);
    const id = request.headers.get('mcp-session-id');
    if (id) {
      const entry = this.sessions.get(id);
      if (!entry || entry.principal !== principal) return json(404, -32001, 'Session not found');
      entry.lastUsed = this.clock.now();
      return entry.transport.handleRequest(request, { authInfo });
    }
    if (request.method !== 'POST') return json(400, -32000, 'Bad Request: Mcp-Session-Id header is required');
    let body: unknown;
    try {
      body = await request.clone().json();
    } catch {
      return json(400, -32700, 'Parse error: the body is not JSON');
    }
    const messages = Array.isArray(body) ? body : [body];
    if (!messages.some((m) => isInitializeRequest(m))) return json(400, -32000, 'Bad Request: Mcp-Session-Id header is required');
    this.sweep();
    if (this.sessions.size >= this.options.maxSessions) {
      this.options.log.warn('http: session limit reached', { maxSessions: this.options.maxSessions });
      return json(503, -32000, `Service Unavailable: ${this.options.maxSessions} sessions are open (http.maxSessions); close one or retry later.`, { 'retry-after': '5' });
    }
    return this.open(request, body, authInfo, principal);
  }

  private async open(request: Request, parsedBody: unknown, authInfo: AuthInfo | undefined, principal: string): Promise<Response> {
    const session = this.options.newSession?.() ?? new Session();
    const server = this.options.build(session);
    let entry: Entry | undefined;
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      maxRequestBodySize: this.options.maxBodyBytes,
      onsessioninitialized: (sid) => {
        entry = { transport, server, session, principal, lastUsed: this.clock.now() };
        this.sessions.set(sid, entry);
        this.arm();
        this.options.log.debug('http: session opened', { session: sid, principal });
      },
    });
    await server.connect(transport);
    const closed = transport.onclose;
    transport.onclose = () => {
      const sid = transport.sessionId;
      if (sid && this.sessions.get(sid) === entry) {
        this.sessions.delete(sid);
        this.options.log.debug('http: session closed', { session: sid });
      }
      closed?.();
    };
    const response = await transport.handleRequest(request, { authInfo, parsedBody });
    if (!entry) await server.close(); // initialize failed: nothing to keep
    return response;
  }

  /** Closes sessions unused for `idleMs` (their Sessions end, closing files). */
  sweep(): void {
    const cutoff = this.clock.now() - this.options.idleMs;
    for (const [sid, e] of this.sessions) {
      if (e.lastUsed < cutoff) {
        this.sessions.delete(sid);
        this.options.log.debug('http: session expired', { session: sid });
        void e.server.close().catch(() => undefined);
      }
    }
  }

  /** Closes every session (shutdown). */
  async closeAll(): Promise<void> {
    const all = [...this.sessions.values()];
    this.sessions.clear();
    this.timer?.cancel();
    this.timer = null;
    await Promise.all(all.map((e) => e.server.close().catch(() => undefined)));
  }

  private arm(): void {
    if (this.timer) return;
    const every = Math.max(1000, Math.min(60_000, this.options.idleMs / 2));
    this.timer = this.clock.setInterval(() => {
      this.sweep();
      if (this.sessions.size === 0 && this.timer) {
        this.timer.cancel();
        this.timer = null;
      }
    }, every, { unref: true });
  }
}
