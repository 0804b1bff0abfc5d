import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CLI, NODE, REPO } from '../helpers/mcp';

const C16 = path.join(REPO, 'test', 'fixtures', 'cases', 'C16');
const CONFIG = path.join(REPO, 'test', 'fixtures', 'stdio', 'mcpgwrc.json');

/** A server under raw JSON-RPC: every stdout line is collected and must parse as JSON-RPC 2.0. */
class RawServer {
  readonly proc: ChildProcessWithoutNullStreams;
  readonly messages: any[] = [];
  readonly badLines: string[] = [];
  stderr = '';
  private buf = '';
  private waiters: (() => void)[] = [];
  /** Resolves to the exit code once the process has exited and its stdout and stderr are drained. */
  private readonly closed: Promise<number | null>;
  private ended = false;

  constructor(args: string[]) {
    this.proc = spawn(NODE, [CLI, 'serve', ...args], { cwd: REPO, env: { PATH: process.env.PATH ?? '', XDG_CACHE_HOME: process.env.XDG_CACHE_HOME ?? '' } });
    this.proc.stdout.on('data', (d: Buffer) => {
      this.buf += d.toString('utf8');
      let nl: number;
      while ((nl = this.buf.indexOf('\n')) !== -1) {
        const line = this.buf.slice(0, nl);
        this.buf = this.buf.slice(nl + 1);
        try {
          const msg = JSON.parse(line);
          if (msg.jsonrpc !== '2.0') this.badLines.push(line);
          this.messages.push(msg);
        } catch {
          this.badLines.push(line);
        }
      }
      this.wake();
    });
    this.proc.stderr.on('data', (d: Buffer) => {
      this.stderr += d.toString('utf8');
      this.wake();
    });
    // Once stdout is drained, an unfinished last line is not a protocol message either.
    this.closed = new Promise((r) => this.proc.once('close', (code) => {
      if (this.buf) this.badLines.push(this.buf);
      this.buf = '';
      this.ended = true;
      this.wake();
      r(code);
    }));
  }

  private wake(): void {
    this.waiters.splice(0).forEach((w) => w());
  }

  send(msg: unknown | string): void {
    this.proc.stdin.write((typeof msg === 'string' ? msg : JSON.stringify(msg)) + '\n');
  }

  response(id: number): any {
    return this.messages.find((m) => m.id === id && ('result' in m || 'error' in m));
  }

  /** Waits until `pred` holds, checked whenever stdout or stderr says something; fails after `ms`. */
  async until(pred: () => boolean, ms = 10000): Promise<void> {
    let late = false;
    const deadline = setTimeout(() => { late = true; this.wake(); }, ms);
    try {
      while (!pred()) {
        if (late || this.ended) throw new Error(`${late ? 'timed out' : 'server exited'}; stdout so far: ${JSON.stringify(this.messages).slice(0, 2000)}; stderr: ${this.stderr.slice(0, 2000)}`);
        await new Promise<void>((r) => this.waiters.push(r));
      }
    } finally {
      clearTimeout(deadline);
    }
  }

  /** Ends stdin and resolves to the exit code once everything the server wrote has been read. */
  async stop(): Promise<number | null> {
    this.proc.stdin.end();
    return this.closed;
  }
}

describe('C16: stdio discipline, notifications, cancellation, interleaved requests', () => {
  const expected = JSON.parse(fs.readFileSync(path.join(C16, 'case.json'), 'utf8'));

  test('requests.jsonl: one response per id, none for notifications, noisy.jsonl line 2 reported, logs only on stderr', async () => {
    const server = new RawServer(['--root', C16, '--config', CONFIG, '--log-level', 'debug']);
    const lines = fs.readFileSync(path.join(C16, 'requests.jsonl'), 'utf8').split('\n').filter((l) => l.trim());
    server.send(lines[0]!);
    await server.until(() => !!server.response(1));
    for (const line of lines.slice(1)) server.send(line); // ids 4 and 5 go without waiting for 3
    await server.until(() => [1, 2, 3, 4, 5].every((id) => server.response(id)));

    // slow call, cancel it, then ping (extra_checks)
    server.send({ jsonrpc: '2.0', id: 6, method: 'tools/call', params: { name: 'slow_wait', arguments: {}, _meta: { progressToken: 'p6' } } });
    await server.until(() => server.messages.some((m) => m.method === 'notifications/progress' && m.params.progressToken === 'p6'));
    server.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 6, reason: 'test' } });
    server.send({ jsonrpc: '2.0', id: 7, method: 'ping' });
    await server.until(() => !!server.response(7));
    await server.until(() => server.stderr.includes('slow_wait: cancelled'));
    // stop() ends stdin and drains stdout to the exit: a response to 6 written at any time would be seen.
    const code = await server.stop();

    expect(server.badLines).toEqual([]);
    const ids = server.messages.filter((m) => 'id' in m && !('method' in m)).map((m) => m.id);
    expect(ids.sort()).toEqual([1, 2, 3, 4, 5, 7]); // exactly one each; none for 6 (cancelled) or notifications
    expect(server.response(1).result.serverInfo.name).toBe('mcpgw');
    expect(server.response(2).result.tools.map((t: { name: string }) => t.name)).toEqual(expect.arrayContaining(['open_file', 'slow_wait']));
    const opened = server.response(3).result.structuredContent;
    expect(opened).toMatchObject({ record_count: 3, validation: { complete: true, malformed_records: 1, records_examined: 3 } });
    expect(opened.warnings).toEqual([expect.objectContaining({ code: 'SYNTAX_ERROR', line: 2, record_index: 1 })]);
    expect(opened.record_count - opened.validation.malformed_records).toBe(2); // "2 valid records"
    expect(server.response(4).result).toEqual({});
    expect(server.response(5).result).toEqual({});
    expect(server.response(7).result).toEqual({});
    expect(server.stderr).toContain('noisy.jsonl');
    expect(server.stderr).toMatch(/mcpgw debug/);
    expect(code).toBe(0);
    expect(expected.expected.responses).toContain('exactly one response for each id 1,2,3,4,5');
  });

  test('garbage on stdin gets a JSON-RPC parse error or nothing, never a non-protocol line, and the server keeps serving', async () => {
    const server = new RawServer(['--root', C16, '--log-level', 'debug']);
    server.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } });
    await server.until(() => !!server.response(1));
    server.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    server.send('this is not json');
    server.send({ jsonrpc: '2.0', id: 2, method: 'no/such/method' });
    server.send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'no_such_tool', arguments: {} } });
    server.send({ jsonrpc: '2.0', id: 4, method: 'ping' });
    await server.until(() => !!server.response(4));
    await server.stop();
    expect(server.badLines).toEqual([]);
    expect(server.response(2).error.code).toBe(-32601);
    expect(server.response(3)).toBeDefined();
    expect(server.response(4).result).toEqual({});
  });
});
