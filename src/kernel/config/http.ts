import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { ConfigError } from './config-error';
import type { LoadedConfigLike } from './types';

/** What `mcpgw serve --http` listens on and whom it answers: every precedence rule applied. */
export interface HttpSettings {
  /** Address to bind (an IP address or a host name). */
  host: string;
  /** TCP port; 0 asks the system for a free one. */
  port: number;
  /** The MCP endpoint's URL path, e.g. `/mcp`. */
  path: string;
  /** `Host` header names accepted (no port; IPv6 in brackets), lower case. */
  allowedHosts: string[];
  /**
   * Browser origins accepted (`scheme://host[:port]`, as `URL.origin` writes them) and answered with CORS
   * headers; `null` when none are configured: then only loopback origins pass and no CORS header is sent.
   */
  allowedOrigins: string[] | null;
  /** Bytes; a POST body over it is refused with 413 before it is parsed. */
  maxBodyBytes: number;
  /** The Bearer token every request must carry, or null (loopback only). */
  token: string | null;
  /** Where the token came from (for messages), or null. */
  tokenSource: 'MCPGW_HTTP_TOKEN' | 'http.token' | 'http.tokenFile' | null;
  /**
   * Open 2025-era sessions at most. A new one past it (or past `maxSessionsPerPrincipal` for its principal) takes the
   * place of the least recently used session with no request running; 503 only when every session is busy.
   */
  maxSessions: number;
  /** Open 2025-era sessions of one principal (a token's identity, or anonymous) at most. */
  maxSessionsPerPrincipal: number;
  /** Open TCP connections at most (node:http `maxConnections`): past it, new connections are closed at once. */
  maxConnections: number;
  /** ms a request's headers may take to arrive (node:http `headersTimeout`; slowloris): then 408 and closed. */
  headersTimeoutMs: number;
  /** ms a whole request, headers and body, may take to arrive (node:http `requestTimeout`): then 408 and closed. */
  bodyTimeoutMs: number;
}

/** Command-line flags of `serve --http`. */
export interface HttpFlags {
  host?: string;
  port?: number;
}

export const HTTP_DEFAULTS = Object.freeze({
  host: '127.0.0.1',
  port: 8786,
  path: '/mcp',
  maxBodyBytes: 4 * 1024 * 1024,
  maxSessions: 256,
  maxConnections: 512,
  headersTimeoutMs: 10_000,
  bodyTimeoutMs: 30_000,
});

/** Loopback `Host` names accepted by default (DNS rebinding protection); the SDK's localhostAllowedHostnames(). */
export const LOOPBACK_HOSTNAMES: readonly string[] = Object.freeze(['localhost', '127.0.0.1', '[::1]']);

/** Shortest token accepted, characters. */
export const MIN_TOKEN_CHARS = 16;

/** RFC 6750 §2.1 b64token: the characters a Bearer token may use on the wire. */
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

/** True for `localhost`, 127.0.0.0/8 and ::1: addresses other machines cannot reach. */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (h === 'localhost') return true;
  if (net.isIPv4(h)) return h.startsWith('127.');
  if (net.isIPv6(h)) return h === '::1' || h === '0:0:0:0:0:0:0:1' || /^::ffff:127\./.test(h);
  return false;
}

/** True for the any-address binds (`0.0.0.0`, `::`), which have no one host name. */
function isWildcard(host: string): boolean {
  const h = host.replace(/^\[(.*)\]$/, '$1');
  return h === '0.0.0.0' || h === '::' || h === '0:0:0:0:0:0:0:0';
}

/**
 * Resolves the `http` section with flag > environment > config > default. The token comes from
 * MCPGW_HTTP_TOKEN, else `http.token`, else the file `http.tokenFile` (relative to the config file; its
 * trailing newline is dropped). A token must be at least {@link MIN_TOKEN_CHARS} characters of RFC 6750
 * b64token. Binding a non-loopback address without a token is refused: other machines could then call it.
 * `allowedHosts` defaults to the loopback names plus the bound host (unless it is 0.0.0.0 or ::).
 * @throws ConfigError (the CLI exits 2) naming the key and what was expected.
 */
export function resolveHttpConfig(loaded: LoadedConfigLike, flags: HttpFlags, env: NodeJS.ProcessEnv): HttpSettings {
  const http = loaded.config.http ?? {};
  const host = flags.host ?? http.host ?? HTTP_DEFAULTS.host;
  const port = flags.port ?? http.port ?? HTTP_DEFAULTS.port;

  let token: string | null = null;
  let tokenSource: HttpSettings['tokenSource'] = null;
  if (http.token !== undefined && http.tokenFile !== undefined) throw new ConfigError('http.token and http.tokenFile are both set: keep one.');
  if (env.MCPGW_HTTP_TOKEN !== undefined && env.MCPGW_HTTP_TOKEN !== '') {
    token = env.MCPGW_HTTP_TOKEN;
    tokenSource = 'MCPGW_HTTP_TOKEN';
  } else if (http.token !== undefined) {
    token = http.token;
    tokenSource = 'http.token';
  } else if (http.tokenFile !== undefined) {
    const file = path.resolve(loaded.dir, http.tokenFile);
    try {
      token = fs.readFileSync(file, 'utf8').replace(/\r?\n$/, '');
    } catch (err) {
      throw new ConfigError(`http.tokenFile: cannot read ${file}: ${(err as Error).message}`);
    }
    tokenSource = 'http.tokenFile';
  }
  if (token !== null) {
    if (token.length < MIN_TOKEN_CHARS || !B64TOKEN.test(token)) {
      throw new ConfigError(
        `${tokenSource}: a token must be at least ${MIN_TOKEN_CHARS} characters of letters, digits and - . _ ~ + / (RFC 6750 b64token). ` +
          'Make one with: node -e "console.log(require(\'crypto\').randomBytes(32).toString(\'hex\'))"',
      );
    }
  }
  if (!isLoopbackHost(host) && token === null) {
    throw new ConfigError(
      `Refusing to listen on ${host} without a token: a non-loopback address lets other machines call the server. ` +
        'Set a token (MCPGW_HTTP_TOKEN, http.token or http.tokenFile), or listen on 127.0.0.1.',
    );
  }

  const allowedHosts = (http.allowedHosts ?? defaultAllowedHosts(host)).map((h) => h.toLowerCase());
  let allowedOrigins: string[] | null = null;
  if (http.allowedOrigins) {
    allowedOrigins = http.allowedOrigins.map((o, i) => {
      const origin = originOf(o);
      if (origin === null) throw new ConfigError(`http.allowedOrigins.${i}: "${o}" is not an origin; expected scheme://host[:port] such as https://app.example.com.`);
      return origin;
    });
  }
  const maxSessions = http.maxSessions ?? HTTP_DEFAULTS.maxSessions;
  const headersTimeoutMs = http.headersTimeoutMs ?? Math.min(HTTP_DEFAULTS.headersTimeoutMs, http.bodyTimeoutMs ?? Infinity);
  const bodyTimeoutMs = http.bodyTimeoutMs ?? Math.max(HTTP_DEFAULTS.bodyTimeoutMs, headersTimeoutMs);
  if (bodyTimeoutMs < headersTimeoutMs) {
    throw new ConfigError(`http.bodyTimeoutMs (${bodyTimeoutMs}) is shorter than http.headersTimeoutMs (${headersTimeoutMs}): the whole request includes its headers; raise bodyTimeoutMs.`);
  }
  return {
    host,
    port,
    path: http.path ?? HTTP_DEFAULTS.path,
    allowedHosts,
    allowedOrigins,
    maxBodyBytes: http.maxBodyBytes ?? HTTP_DEFAULTS.maxBodyBytes,
    token,
    tokenSource,
    maxSessions,
    maxSessionsPerPrincipal: Math.min(http.maxSessionsPerPrincipal ?? maxSessions, maxSessions),
    maxConnections: http.maxConnections ?? HTTP_DEFAULTS.maxConnections,
    headersTimeoutMs,
    bodyTimeoutMs,
  };
}

function defaultAllowedHosts(host: string): string[] {
  const names = [...LOOPBACK_HOSTNAMES];
  if (isWildcard(host)) return names;
  const named = net.isIPv6(host) ? `[${host}]` : host;
  if (!names.includes(named.toLowerCase())) names.push(named);
  return names;
}

/** `scheme://host[:port]` as `URL.origin` writes it (default port dropped, lower case), or null for anything more or less. */
function originOf(text: string): string | null {
  let u: URL;
  try {
    u = new URL(text);
  } catch {
    return null;
  }
  if (u.origin === 'null' || u.pathname !== '/' || u.search || u.hash || u.username || u.password) return null;
  return u.origin;
}
