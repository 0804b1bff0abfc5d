import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { CLI, NODE, REPO } from './mcp';
import { serverCacheHome } from './cache-home';

/** The built CLI's `serve` spoken to line by line, without an MCP client: what a hostile or broken client sends. */
export interface RawServer {
  proc: ChildProcessWithoutNullStreams;
  /** Writes raw text (add the newline yourself). */
  write(text: string): void;
  /** Every line written to stdout so far, as text. */
  lines(): string[];
  /** Resolves with the first stdout message (parsed) for which `match` holds, once it is written. */
  waitFor(match: (message: any) => boolean, timeoutMs?: number): Promise<any>;
  /** Sends a ping with a fresh id and resolves with everything written before its answer (the answer excluded). */
  sync(): Promise<unknown[]>;
  stderr(): string;
  close(): Promise<number | null>;
}

/** Spawns `mcpgw serve …args`, with a temporary cache folder of its own (XDG_CACHE_HOME, removed once it has exited). */
export function rawServer(args: string[]): RawServer {
  const cache = serverCacheHome(undefined);
  const proc = spawn(NODE, [CLI, 'serve', ...args], { cwd: REPO, env: { PATH: process.env.PATH ?? '', XDG_CACHE_HOME: cache.XDG_CACHE_HOME }, stdio: ['pipe', 'pipe', 'pipe'] });
  proc.once('exit', () => cache.remove());
  let out = '';
  let err = '';
  const lines: string[] = [];
  const waiters: { match: (m: any) => boolean; resolve: (m: any) => void }[] = [];
  proc.stdout.on('data', (d: Buffer) => {
    out += d.toString();
    let nl: number;
    while ((nl = out.indexOf('\n')) !== -1) {
      const line = out.slice(0, nl);
      out = out.slice(nl + 1);
      lines.push(line);
      let parsed: unknown;
      try { parsed = JSON.parse(line); } catch { continue; }
      for (const w of [...waiters]) if (w.match(parsed)) { waiters.splice(waiters.indexOf(w), 1); w.resolve(parsed); }
    }
  });
  proc.stderr.on('data', (d: Buffer) => (err += d.toString()));
  let seq = 0;
  const waitFor = (match: (m: any) => boolean, timeoutMs = 30_000) => new Promise<any>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`no matching message within ${timeoutMs} ms; stderr: ${err.slice(-2000)}`)), timeoutMs);
    waiters.push({ match, resolve: (m) => { clearTimeout(t); resolve(m); } });
  });
  return {
    proc,
    write: (text) => proc.stdin.write(text),
    lines: () => [...lines],
    waitFor,
    async sync() {
      const id = `sync-${++seq}`;
      const before = lines.length;
      const answered = waitFor((m) => m && m.id === id);
      proc.stdin.write(JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' }) + '\n');
      await answered;
      const all = lines.slice(before).map((l) => JSON.parse(l));
      return all.filter((m) => !(m && (m as { id?: unknown }).id === id));
    },
    stderr: () => err,
    close: () => new Promise((resolve) => {
      if (proc.exitCode !== null) return resolve(proc.exitCode);
      proc.once('exit', (code) => resolve(code));
      proc.stdin.end();
    }),
  };
}

/** The 2025-11-25 handshake. */
export async function initialize(s: RawServer): Promise<void> {
  const answered = s.waitFor((m) => m && m.id === 'init');
  s.write(JSON.stringify({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }) + '\n');
  await answered;
  s.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) + '\n');
}
