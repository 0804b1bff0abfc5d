import { fork, type ChildProcess } from 'node:child_process';
import * as path from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { NODE } from './mcp';

/** One CLI command's outcome: the exit code, stdout and stderr. */
export interface CliRun { status: number | null; stdout: string; stderr: string }

/** Runs CLI commands (`mcpgw ARGS` in a folder, with an environment) in one long-lived process: see `startCliHost`. */
export interface CliHost {
  /** `tty`: stderr says it is a terminal during the command (`process.stderr.isTTY`), as a TTY would make it. */
  run(args: string[], cwd: string, env: Record<string, string>, options?: { tty?: boolean }): Promise<CliRun>;
  /**
   * What `mcpgw serve ARGS` (--config, --profile, --root, --log-level) serves in `cwd` with `env`, built by the CLI's
   * own prepare() in the host's process, with a real MCP client over the in-memory transport there: `client` forwards
   * listTools and callTool to it (a JSON-RPC error comes back as an Error with its message and code).
   */
  serve(args: string[], cwd: string, env: Record<string, string>): Promise<HostedServer>;
  close(): Promise<void>;
}

/** A server the CLI host serves in its process (see `CliHost.serve`). */
export interface HostedServer {
  /** listTools and callTool only (forwarded to the host's client). */
  client: Client;
  close(): Promise<void>;
}

/**
 * A Node process that runs the built CLI's `main()` (dist/, as bin/mcpgw.js does) for one command after another: each
 * in its folder, with exactly the environment given and its stdout and stderr captured, the exit code the one main()
 * resolves to (bin/mcpgw.js exits with it). Commands that read config, load plugins and print (check, list-tools,
 * plugins, and serve's start-up errors) cost a call instead of a process start each. Not for a `serve` that serves.
 */
export function startCliHost(): CliHost {
  const child: ChildProcess = fork(path.join(__dirname, 'cli-host-child.js'), [], { execPath: NODE, stdio: ['pipe', 'inherit', 'inherit', 'ipc'] });
  let next = 0;
  const pending = new Map<number, { resolve: (r: any) => void; reject: (e: Error) => void }>();
  child.on('message', (m: CliRun & { id: number; result?: unknown; error?: { message: string; code?: number; stack?: string } }) => {
    const p = pending.get(m.id);
    pending.delete(m.id);
    if (m.error) p?.reject(Object.assign(new Error(m.error.message), { code: m.error.code, hostStack: m.error.stack }));
    else if ('result' in m) p?.resolve(m.result);
    else p?.resolve({ status: m.status, stdout: m.stdout, stderr: m.stderr });
  });
  const send = <T>(message: Record<string, unknown>): Promise<T> => {
    const id = next++;
    return new Promise<T>((resolve, reject) => {
      pending.set(id, { resolve, reject });
      child.send({ id, ...message });
    });
  };
  child.on('exit', (code, signal) => {
    for (const p of pending.values()) p.reject(new Error(`the CLI host exited (${code ?? signal}) during a command`));
    pending.clear();
  });
  return {
    run(args, cwd, env, options = {}) {
      const id = next++;
      return new Promise<CliRun>((resolve, reject) => {
        pending.set(id, { resolve, reject });
        child.send({ id, args, cwd, env, tty: options.tty === true });
      });
    },
    async serve(args, cwd, env) {
      const session = await send<number>({ session: -1, op: 'open', args, cwd, env });
      return {
        client: {
          listTools: (params?: unknown) => send({ session, op: 'listTools', params }),
          callTool: (params: unknown) => send({ session, op: 'callTool', params }),
        } as unknown as Client,
        close: () => send<void>({ session, op: 'close' }),
      };
    },
    async close() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.disconnect();
      await exited;
    },
  };
}
