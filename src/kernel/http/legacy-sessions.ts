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
  /**
   * Open sessions at most; an `initialize` past it closes the least recently used session with no request running
   * (503 only when every session is running one).
   */
  maxSessions: number;
  /** Open sessions of one principal at most (default maxSessions); past it, that principal's own are closed first. */
  maxSessionsPerPrincipal?: number;
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
  /** POST and DELETE requests of the session being answered (their response not yet ended): never evicted then. */
  busy: number;
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
  async handle(request: Request, authInfo: AuthInfo | undefined, parsedBody?: unknown): Promise<Response> {
    const principal = principalOf(authInfo);
    const id = request.headers.get('mcp-session-id');
    if (id) {
      const entry = this.sessions.get(id);
      if (!entry || entry.principal !== principal) return json(404, -32001, 'Session not found');
      entry.lastUsed = this.clock.now();
      // A GET opens the session's standing SSE stream, which lasts: it does not keep the session from eviction.
      if (request.method === 'GET') return entry.transport.handleRequest(request, { authInfo });
      entry.busy++;
      let response: Response;
      try {
        response = await entry.transport.handleRequest(request, { authInfo, ...(parsedBody !== undefined ? { parsedBody } : {}) });
      } catch (err) {
        entry.busy--;
        throw err;
      }
      return whenEnded(response, request.signal, () => {
        entry.busy--;
        entry.lastUsed = this.clock.now();
      });
    }
    if (request.method !== 'POST') return json(400, -32000, 'Bad Request: Mcp-Session-Id header is required');
    let body: unknown = parsedBody;
    if (body === undefined) {
      try {
        body = await request.clone().json();
      } catch {
        return json(400, -32700, 'Parse error: the body is not JSON');
      }
    }
    const messages = Array.isArray(body) ? body : [body];
    if (!messages.some((m) => isInitializeRequest(m))) return json(400, -32000, 'Bad Request: Mcp-Session-Id header is required');
    this.sweep();
    const perPrincipal = this.options.maxSessionsPerPrincipal ?? this.options.maxSessions;
    if (this.countOf(principal) >= perPrincipal && !this.evictOne(principal)) {
      this.options.log.warn('http: session limit of a principal reached, every session busy', { maxSessionsPerPrincipal: perPrincipal });
      return json(503, -32000, `Service Unavailable: ${perPrincipal} sessions of this caller are open and running requests (http.maxSessionsPerPrincipal); retry later.`, { 'retry-after': '5' });
    }
    if (this.sessions.size >= this.options.maxSessions && !this.evictOne(null)) {
      this.options.log.warn('http: session limit reached, every session busy', { maxSessions: this.options.maxSessions });
      return json(503, -32000, `Service Unavailable: ${this.options.maxSessions} sessions are open and running requests (http.maxSessions); retry later.`, { 'retry-after': '5' });
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
        entry = { transport, server, session, principal, lastUsed: this.clock.now(), busy: 0 };
        this.sessions.set(sid, entry);
        this.arm();
        this.options.log.debug('http: session opened', { session: sid, principal });
      },
    });
    await server.connect(transport);
    // A request the client cancels gets no answer (MCP "Cancellation"), so the SSE stream its POST opened would stay
    // open with nothing more to carry: it is ended once the cancellation has been delivered.
    const deliver = transport.onmessage;
    transport.onmessage = (message, extra) => {
      deliver?.(message, extra);
      const cancelled = cancelledRequest(message);
      if (cancelled !== undefined) setImmediate(() => transport.closeSSEStream(cancelled));
    };
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

  private countOf(principal: string): number {
    let n = 0;
    for (const e of this.sessions.values()) if (e.principal === principal) n++;
    return n;
  }

  /**
   * Under pressure: closes the least recently used session (of `principal`, or of anyone) that has no request running.
   * Its client hears 404 at its next request and starts a new session (MCP Streamable HTTP, "Session Management").
   * @returns false when every candidate is busy
   */
  private evictOne(principal: string | null): boolean {
    let victim: [string, Entry] | null = null;
    for (const [sid, e] of this.sessions) {
      if (e.busy > 0 || (principal !== null && e.principal !== principal)) continue;
      if (!victim || e.lastUsed < victim[1].lastUsed) victim = [sid, e];
    }
    if (!victim) return false;
    const [sid, e] = victim;
    this.sessions.delete(sid);
    this.options.log.debug('http: session evicted to make room', { session: sid });
    void e.server.close().catch(() => undefined);
    return true;
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

/**
 * `response` with `ended` called once its body has been read to the end, failed or been cancelled, or the client has
 * gone (`signal`: the Node adapter stops reading a body without cancelling it); at once without a body.
 */
function whenEnded(response: Response, signal: AbortSignal, ended: () => void): Response {
  let called = false;
  const end = () => {
    if (!called) {
      called = true;
      signal.removeEventListener('abort', end);
      ended();
    }
  };
  if (!response.body || signal.aborted) {
    end();
    return response;
  }
  signal.addEventListener('abort', end, { once: true });
  const reader = response.body.getReader();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) {
          end();
          controller.close();
        } else controller.enqueue(value);
      } catch (err) {
        end();
        controller.error(err);
      }
    },
    cancel(reason) {
      end();
      return reader.cancel(reason);
    },
  });
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}

/** The request id a `notifications/cancelled` message names, else undefined. */
function cancelledRequest(message: unknown): string | number | undefined {
  const m = message as { method?: unknown; id?: unknown; params?: { requestId?: unknown } };
  if (m?.method !== 'notifications/cancelled' || m.id !== undefined) return undefined;
  const id = m.params?.requestId;
  return typeof id === 'string' || typeof id === 'number' ? id : undefined;
}
