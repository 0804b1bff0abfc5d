import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { serverCacheHome } from './cache-home';

export const REPO = path.resolve(__dirname, '..', '..');
export const CLI = path.join(REPO, 'bin', 'mcpgw.js');
/** The Node running the tests (the pinned Node 22 under npm test). */
export const NODE = process.execPath;

export interface Connected {
  client: Client;
  transport: StdioClientTransport;
  stderr: () => string;
  /** The server's XDG_CACHE_HOME (a temporary folder removed on close, unless the test gave its own). */
  cacheHome: string;
  close(): Promise<void>;
}

export type Era = 'legacy' | 'modern';

/**
 * Spawns the built CLI (`mcpgw serve …args`) and connects a real 2.x MCP client over stdio.
 * `legacy` speaks 2025-11-25 (initialize); `modern` pins 2026-07-28 (server/discover).
 * `cli`: another mcpgw bin to run (e.g. the one installed from the packed tarball in a temp project).
 * The server gets a temporary cache folder of its own (XDG_CACHE_HOME, removed on close) unless `env` names one.
 * `clientName`: the clientInfo.name the client sends (default `mcpgw-tests`, a name no client family lists).
 */
export async function connect(args: string[], opts: { era?: Era; cwd?: string; env?: Record<string, string>; cli?: string; clientName?: string } = {}): Promise<Connected> {
  const era = opts.era ?? 'legacy';
  const client = new Client(
    { name: opts.clientName ?? 'mcpgw-tests', version: '1.0.0' },
    era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
  );
  const cache = serverCacheHome(opts.env);
  const transport = new StdioClientTransport({
    command: NODE,
    args: [opts.cli ?? CLI, 'serve', ...args],
    cwd: opts.cwd ?? REPO,
    env: { PATH: process.env.PATH ?? '', ...(opts.env ?? {}), XDG_CACHE_HOME: cache.XDG_CACHE_HOME },
    stderr: 'pipe',
  });
  let err = '';
  transport.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  try {
    await client.connect(transport);
  } catch (e) {
    cache.remove();
    throw e;
  }
  return {
    client, transport, stderr: () => err, cacheHome: cache.XDG_CACHE_HOME,
    close: async () => {
      try {
        await client.close();
      } finally {
        cache.remove();
      }
    },
  };
}

/** Calls a tool and returns structuredContent (and the raw result). */
export async function call(client: Client, name: string, args: Record<string, unknown>) {
  const result = (await client.callTool({ name, arguments: args })) as {
    structuredContent?: any;
    content: { type: string; text: string }[];
    isError?: boolean;
  };
  return { data: result.structuredContent, text: result.content[0]?.text ?? '', isError: result.isError === true, result };
}

/** A real MCP client connected in-process (an in-memory transport pair) to a server the kernel's factory built. */
export async function inProcessClient(server: { connect(transport: unknown): Promise<void> }): Promise<Client> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { InMemoryTransport } = require('@modelcontextprotocol/server') as typeof import('@modelcontextprotocol/server');
  const client = new Client({ name: 't', version: '1' });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  await client.connect(clientSide);
  return client;
}
