import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import * as fs from 'node:fs';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CLI, NODE, REPO, type Era } from './mcp';
import { serverCacheHome } from './cache-home';

/** A built CLI serving over HTTP (`mcpgw serve --http --port 0 …`), its URL read from stderr. */
export interface HttpServer {
  proc: ChildProcessWithoutNullStreams;
  url: URL;
  stdout: () => string;
  stderr: () => string;
  /** The server's XDG_CACHE_HOME (a temporary folder removed once it has exited, unless the test gave its own). */
  cacheHome: string;
  /** Sends `signal` (default SIGTERM) and resolves to the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  /** Resident set size of the server process, bytes (Linux /proc). */
  rss(): number;
  /** Open descriptors of the server process whose target path contains `needle` (Linux /proc). */
  openFiles(needle: string): number;
}

/**
 * Starts `mcpgw serve --http --port 0 …args` and waits for the "serving MCP over HTTP at URL" line. The server gets a
 * temporary cache folder of its own (XDG_CACHE_HOME, removed once it has exited) unless `env` names one.
 */
export async function startHttp(args: string[], opts: { env?: Record<string, string>; cwd?: string } = {}): Promise<HttpServer> {
  const cache = serverCacheHome(opts.env);
  const proc = spawn(NODE, [CLI, 'serve', '--http', '--port', '0', ...args], {
    cwd: opts.cwd ?? REPO,
    env: { PATH: process.env.PATH ?? '', ...(opts.env ?? {}), XDG_CACHE_HOME: cache.XDG_CACHE_HOME },
  });
  proc.once('exit', () => cache.remove());
  let out = '';
  let err = '';
  proc.stdout.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((r) => proc.once('exit', (code) => r(code)));
  const url = await new Promise<URL>((resolve, reject) => {
    const onData = () => {
      const m = /serving MCP over HTTP at (\S+)/.exec(err);
      if (m) {
        proc.stderr.off('data', onData);
        resolve(new URL(m[1]!));
      }
    };
    proc.stderr.on('data', onData);
    void exited.then((code) => reject(new Error(`server exited with ${code} before listening: ${err}`)));
  });
  return {
    proc,
    url,
    stdout: () => out,
    stderr: () => err,
    cacheHome: cache.XDG_CACHE_HOME,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
      return exited;
    },
    rss() {
      const status = fs.readFileSync(`/proc/${proc.pid}/status`, 'utf8');
      return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) * 1024;
    },
    openFiles(needle: string) {
      const dir = `/proc/${proc.pid}/fd`;
      let n = 0;
      for (const fd of fs.readdirSync(dir)) {
        try {
          if (fs.readlinkSync(`${dir}/${fd}`).includes(needle)) n++;
        } catch {
          /* closed meanwhile */
        }
      }
      return n;
    },
  };
}

export interface HttpClientOptions {
  era?: Era;
  token?: string;
  headers?: Record<string, string>;
}

/** A 2.x client over Streamable HTTP: `legacy` speaks 2025-11-25 (initialize + session), `modern` pins 2026-07-28. */
export async function connectHttp(url: URL, opts: HttpClientOptions = {}): Promise<Client> {
  const era = opts.era ?? 'legacy';
  const client = new Client({ name: 'mcpgw-http-tests', version: '1.0.0' }, era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {});
  const headers = { ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}), ...(opts.headers ?? {}) };
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
  return client;
}

/** A 1.32 SDK client over Streamable HTTP (2025 era). */
export async function connectV1Http(url: URL, opts: { token?: string } = {}): Promise<V1Client> {
  const client = new V1Client({ name: 'mcpgw-http-tests-v1', version: '1.0.0' });
  const headers = opts.token ? { authorization: `Bearer ${opts.token}` } : {};
  await client.connect(new V1StreamableHTTPClientTransport(url, { requestInit: { headers } }));
  return client;
}

/** Calls a tool and returns structuredContent and the text block (either client major). */
export async function callTool(client: Client | V1Client, name: string, args: Record<string, unknown>, options?: { signal?: AbortSignal; onprogress?: (p: { progress: number; total?: number }) => void }) {
  const result = (await (client as Client).callTool({ name, arguments: args }, options as never)) as {
    structuredContent?: any;
    content: { type: string; text: string }[];
    isError?: boolean;
  };
  return { data: result.structuredContent, text: result.content[0]?.text ?? '', isError: result.isError === true };
}
