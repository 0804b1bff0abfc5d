import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { localhostAllowedHostnames } from '@modelcontextprotocol/server';
import { ConfigError, HTTP_DEFAULTS, isLoopbackHost, LOOPBACK_HOSTNAMES, resolveHttpConfig, type HttpSettings } from '../../src/kernel/config';
import { configSchema, type ConfigFile } from '../../src/kernel/config/schema';

/** The `http` section of the config: `serve --http`'s address, endpoint, lock-down and token. */
const TOKEN = 'abcdefghijklmnop0123';

function resolve(http: ConfigFile['http'], flags = {}, env: NodeJS.ProcessEnv = {}, dir = '/cfg'): HttpSettings {
  return resolveHttpConfig({ config: { http }, dir }, flags, env);
}

function error(http: ConfigFile['http'], flags = {}, env: NodeJS.ProcessEnv = {}, dir = '/cfg'): string {
  try {
    resolve(http, flags, env, dir);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error('expected a ConfigError');
}

test('defaults: 127.0.0.1:8786/mcp, loopback host names, no origins, 4 MiB, no token', () => {
  expect(resolve(undefined)).toEqual({
    host: '127.0.0.1',
    port: 8786,
    path: '/mcp',
    allowedHosts: ['localhost', '127.0.0.1', '[::1]'],
    allowedOrigins: null,
    maxBodyBytes: 4 * 1024 * 1024,
    token: null,
    tokenSource: null,
    maxSessions: 256,
    maxSessionsPerPrincipal: 256,
    maxConnections: 512,
    headersTimeoutMs: 10_000,
    bodyTimeoutMs: 30_000,
  });
  expect(HTTP_DEFAULTS.maxBodyBytes).toBe(4194304);
});

test('the connection limits: configured, a per-principal cap no larger than maxSessions, the whole request no shorter than its headers', () => {
  expect(resolve({ maxConnections: 64, headersTimeoutMs: 2000, bodyTimeoutMs: 5000, maxSessions: 10, maxSessionsPerPrincipal: 50 }))
    .toMatchObject({ maxConnections: 64, headersTimeoutMs: 2000, bodyTimeoutMs: 5000, maxSessions: 10, maxSessionsPerPrincipal: 10 });
  // a body timeout alone shorter than the default header timeout takes the header timeout down with it
  expect(resolve({ bodyTimeoutMs: 3000 })).toMatchObject({ headersTimeoutMs: 3000, bodyTimeoutMs: 3000 });
  expect(resolve({ headersTimeoutMs: 60_000 })).toMatchObject({ headersTimeoutMs: 60_000, bodyTimeoutMs: 60_000 });
  expect(() => resolve({ headersTimeoutMs: 9000, bodyTimeoutMs: 4000 })).toThrow(/http\.bodyTimeoutMs \(4000\) is shorter than http\.headersTimeoutMs \(9000\)/);
});

test('the default loopback host names are the SDK\'s', () => {
  expect([...LOOPBACK_HOSTNAMES].sort()).toEqual([...localhostAllowedHostnames()].sort());
});

test('flag > config > default for host and port; port 0 is allowed', () => {
  expect(resolve({ host: 'localhost', port: 9000 })).toMatchObject({ host: 'localhost', port: 9000 });
  expect(resolve({ host: 'localhost', port: 9000 }, { host: '127.0.0.2', port: 0 })).toMatchObject({ host: '127.0.0.2', port: 0 });
});

test('token: MCPGW_HTTP_TOKEN > http.token; an empty variable is no token', () => {
  expect(resolve({ token: TOKEN })).toMatchObject({ token: TOKEN, tokenSource: 'http.token' });
  expect(resolve({ token: TOKEN }, {}, { MCPGW_HTTP_TOKEN: `${TOKEN}-env` })).toMatchObject({ token: `${TOKEN}-env`, tokenSource: 'MCPGW_HTTP_TOKEN' });
  expect(resolve({}, {}, { MCPGW_HTTP_TOKEN: '' })).toMatchObject({ token: null });
});

describe('tokenFile', () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-http-config-'));
    fs.writeFileSync(path.join(dir, 'token'), `${TOKEN}\n`);
    fs.writeFileSync(path.join(dir, 'crlf'), `${TOKEN}\r\n`);
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  test('relative to the config file, its final newline dropped', () => {
    expect(resolve({ tokenFile: 'token' }, {}, {}, dir)).toMatchObject({ token: TOKEN, tokenSource: 'http.tokenFile' });
    expect(resolve({ tokenFile: 'crlf' }, {}, {}, dir).token).toBe(TOKEN);
  });

  test('a missing file names the file', () => {
    expect(error({ tokenFile: 'nope' }, {}, {}, dir)).toContain(path.join(dir, 'nope'));
  });

  test('token and tokenFile together are refused', () => {
    expect(error({ token: TOKEN, tokenFile: 'token' }, {}, {}, dir)).toContain('http.token and http.tokenFile are both set');
  });
});

test.each([
  ['too short', 'abc123'],
  ['a space', 'abcdefgh ijklmnopq'],
  ['a quote', 'abcdefghijklmnopq"'],
  ['non-ASCII', 'abcdefghijklmnopqé'],
])('a token with %s is refused, naming where it came from', (_what, token) => {
  expect(error({ token })).toMatch(/^http\.token: a token must be at least 16 characters/);
  expect(error({}, {}, { MCPGW_HTTP_TOKEN: token })).toMatch(/^MCPGW_HTTP_TOKEN: /);
});

test('RFC 6750 b64token characters, with trailing "=", are accepted', () => {
  expect(resolve({ token: 'Ab0-._~+/Ab0-._~+/==' }).token).toBe('Ab0-._~+/Ab0-._~+/==');
});

test('a non-loopback host without a token is refused; with one it is allowed', () => {
  for (const host of ['0.0.0.0', '::', '192.168.1.10', 'files.example.com']) {
    expect(error({ host })).toContain(`Refusing to listen on ${host} without a token`);
    expect(resolve({ host, token: TOKEN }).host).toBe(host);
  }
  for (const host of ['127.0.0.1', '127.1.2.3', 'localhost', '::1']) expect(resolve({ host }).token).toBeNull();
});

test('isLoopbackHost', () => {
  expect(['localhost', 'LOCALHOST', '127.0.0.1', '127.255.0.9', '::1', '[::1]', '::ffff:127.0.0.1'].map(isLoopbackHost)).toEqual(Array(7).fill(true));
  expect(['0.0.0.0', '::', '10.0.0.1', '128.0.0.1', 'localhost.example.com', '::2'].map(isLoopbackHost)).toEqual(Array(6).fill(false));
});

test('allowedHosts: the bound host joins the loopback names unless it is a wildcard; a configured list replaces them', () => {
  expect(resolve({ host: '10.1.2.3', token: TOKEN }).allowedHosts).toEqual(['localhost', '127.0.0.1', '[::1]', '10.1.2.3']);
  expect(resolve({ host: 'fd00::5', token: TOKEN }).allowedHosts).toEqual(['localhost', '127.0.0.1', '[::1]', '[fd00::5]']);
  expect(resolve({ host: '0.0.0.0', token: TOKEN }).allowedHosts).toEqual(['localhost', '127.0.0.1', '[::1]']);
  expect(resolve({ host: '0.0.0.0', token: TOKEN, allowedHosts: ['Files.Example.COM'] }).allowedHosts).toEqual(['files.example.com']);
});

test('allowedOrigins are origins (scheme, host, port), normalized; anything else names its index', () => {
  expect(resolve({ allowedOrigins: ['https://app.example.com', 'http://localhost:5173/', 'https://x.example:443'] }).allowedOrigins).toEqual([
    'https://app.example.com',
    'http://localhost:5173',
    'https://x.example',
  ]);
  expect(error({ allowedOrigins: ['https://ok.example', 'app.example.com'] })).toContain('http.allowedOrigins.1: "app.example.com" is not an origin');
  expect(error({ allowedOrigins: ['https://app.example.com/path'] })).toContain('is not an origin');
});

test('the schema: unknown keys, a bad path, a port out of range, a tiny maxBodyBytes name their key', () => {
  const issues = (http: unknown) => {
    const r = configSchema.safeParse({ http });
    return r.success ? [] : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
  };
  expect(issues({ hots: 'x' })).toEqual([expect.stringContaining('http: Unrecognized key')]);
  expect(issues({ path: 'mcp' })).toEqual(['http.path: expected a URL path starting with "/"']);
  expect(issues({ port: 70000 })[0]).toMatch(/^http\.port: /);
  expect(issues({ maxBodyBytes: 10 })[0]).toMatch(/^http\.maxBodyBytes: /);
  expect(issues({ host: '0.0.0.0', port: 0, path: '/api/v1/mcp', allowedHosts: ['a'], allowedOrigins: ['https://a'], maxBodyBytes: 1024, token: TOKEN, maxSessions: 5 })).toEqual([]);
});
