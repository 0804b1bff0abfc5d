import type { IncomingHttpHeaders } from 'node:http';
import {
  bearerAuthChallengeResponse,
  isJsonContentType,
  localhostAllowedOrigins,
  validateHostHeader,
  validateOriginHeader,
  verifyBearerToken,
  type AuthInfo,
  type OAuthTokenVerifier,
} from '@modelcontextprotocol/server';
import type { HttpSettings } from '../config/http';

/** An HTTP answer decided before the request reaches MCP: status, headers, body text. */
export interface Rejection {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** A JSON-RPC error body without an id (the request was never read), as the SDK's own guards answer. */
export function jsonRpcRejection(status: number, message: string, headers: Record<string, string> = {}, code = -32000): Rejection {
  return { status, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }) };
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/**
 * Exactly one `Host` header (RFC 9112 §3.2: a request with more than one is answered 400). Node keeps only the first
 * in `headers`, so a second one, which a proxy or cache behind may read instead, is counted on the raw lines.
 */
export function checkSingleHost(rawHeaders: readonly string[]): Rejection | null {
  let hosts = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) if (rawHeaders[i]!.toLowerCase() === 'host') hosts++;
  if (hosts <= 1) return null;
  return jsonRpcRejection(400, `Bad Request: ${hosts} Host headers; a request carries exactly one (RFC 9112 section 3.2).`, { connection: 'close' });
}

/** `Host` must name an allowed host (DNS rebinding protection) → otherwise 403. */
export function checkHost(headers: IncomingHttpHeaders, settings: Pick<HttpSettings, 'allowedHosts'>): Rejection | null {
  const r = validateHostHeader(header(headers, 'host'), settings.allowedHosts);
  if (r.ok) return null;
  return jsonRpcRejection(403, `Forbidden: ${r.message}. Allowed hosts: ${settings.allowedHosts.join(', ')} (http.allowedHosts).`);
}

/**
 * A request carrying `Origin` must come from an allowed origin → otherwise 403. Without configured
 * origins, only loopback origins pass (any port). With them, the SDK's host-name check runs first (it
 * also refuses `null` and unparsable origins), then the whole origin (scheme, host, port) must be listed.
 */
export function checkOrigin(headers: IncomingHttpHeaders, settings: Pick<HttpSettings, 'allowedOrigins'>): Rejection | null {
  const origin = header(headers, 'origin');
  if (origin === undefined || origin === '') return null;
  const allowed = settings.allowedOrigins;
  const hostnames = allowed ? allowed.map((o) => new URL(o).hostname) : localhostAllowedOrigins();
  const r = validateOriginHeader(origin, hostnames);
  if (!r.ok) return jsonRpcRejection(403, `Forbidden: ${r.message}. Allowed origins: ${allowed ? allowed.join(', ') : 'loopback only'} (http.allowedOrigins).`);
  if (allowed && !allowed.includes(new URL(origin).origin)) {
    return jsonRpcRejection(403, `Forbidden: Invalid Origin: ${origin}. Allowed origins: ${allowed.join(', ')} (http.allowedOrigins).`);
  }
  return null;
}

/** Methods and headers a browser may use across origins (CORS), when origins are configured. */
const CORS_METHODS = 'GET, POST, DELETE, OPTIONS';
const CORS_EXPOSE = 'Mcp-Session-Id, Mcp-Protocol-Version, WWW-Authenticate';

/**
 * CORS response headers for an allowed origin (the request passed {@link checkOrigin}); none when no
 * origins are configured or the request has no `Origin`.
 */
export function corsHeaders(headers: IncomingHttpHeaders, settings: Pick<HttpSettings, 'allowedOrigins'>): Record<string, string> {
  const origin = header(headers, 'origin');
  if (!settings.allowedOrigins || !origin) return {};
  return { 'access-control-allow-origin': new URL(origin).origin, 'access-control-expose-headers': CORS_EXPOSE, vary: 'Origin' };
}

/** The answer to an OPTIONS request: a CORS preflight (204) when origins are configured, else 405. */
export function preflight(headers: IncomingHttpHeaders, settings: Pick<HttpSettings, 'allowedOrigins'>): Rejection {
  const cors = corsHeaders(headers, settings);
  if (Object.keys(cors).length === 0) return jsonRpcRejection(405, 'Method not allowed.', { allow: 'GET, POST, DELETE' });
  const requested = header(headers, 'access-control-request-headers');
  return {
    status: 204,
    headers: {
      ...cors,
      'access-control-allow-methods': CORS_METHODS,
      ...(requested ? { 'access-control-allow-headers': requested } : {}),
      'access-control-max-age': '600',
    },
    body: '',
  };
}

/**
 * `Authorization: Bearer <token>` checked with the SDK's verifyBearerToken against `verifier` (which
 * compares in constant time). Resolves to the caller's AuthInfo, or to the SDK's 401 answer with a
 * `WWW-Authenticate: Bearer` challenge.
 */
export async function checkToken(headers: IncomingHttpHeaders, verifier: OAuthTokenVerifier): Promise<AuthInfo | Rejection> {
  try {
    return await verifyBearerToken(header(headers, 'authorization'), { verifier });
  } catch (err) {
    const response = bearerAuthChallengeResponse(err);
    const out: Record<string, string> = {};
    response.headers.forEach((v, k) => (out[k] = v));
    return { status: response.status, headers: out, body: await response.text() };
  }
}

/**
 * Before any byte of the body is read: a declared `Content-Length` over `maxBodyBytes` → 413, and a POST
 * whose media type is not `application/json` → 415. (A body that grows past the bound while streaming is
 * cut off by the SDK's Node adapter, also with 413.)
 */
export function checkBody(method: string, headers: IncomingHttpHeaders, settings: Pick<HttpSettings, 'maxBodyBytes'>): Rejection | null {
  const declared = Number(header(headers, 'content-length'));
  if (Number.isFinite(declared) && declared > settings.maxBodyBytes) {
    return jsonRpcRejection(413, `Payload Too Large: the body is ${declared} bytes, over http.maxBodyBytes ${settings.maxBodyBytes}.`, { connection: 'close' });
  }
  if (method === 'POST' && !isJsonContentType(header(headers, 'content-type') ?? null)) {
    return jsonRpcRejection(415, 'Unsupported Media Type: Content-Type must be application/json.');
  }
  return null;
}

export function isRejection(x: AuthInfo | Rejection): x is Rejection {
  return typeof (x as Rejection).status === 'number' && typeof (x as Rejection).body === 'string';
}
