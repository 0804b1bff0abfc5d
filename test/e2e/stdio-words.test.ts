/**
 * Small words on stdio: U+2028 and U+2029 are written escaped (JSON allows them raw inside strings, but a client that
 * reads lines with Node 24's readline, or any JavaScript line splitter, splits there), and `mcpgw serve` started at a
 * terminal says on stderr that it waits for an MCP client (stdout stays protocol only).
 */
import { execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CLI, NODE } from '../helpers/mcp';
import { until } from '../helpers/until';

let dir: string;
beforeAll(() => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-stdio-words-')));
  // raw U+2028 and U+2029 inside a string (RFC 8259 allows them unescaped)
  fs.writeFileSync(path.join(dir, 'seps.jsonl'), '{"s":"a\u2028b\u2029c"}\n');
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

test('U+2028 and U+2029 in an answer are written as \\u2028 and \\u2029: every line a whole message', async () => {
  const proc = spawn(NODE, [CLI, 'serve', '--root', dir], { env: { PATH: process.env.PATH ?? '', XDG_CACHE_HOME: process.env.XDG_CACHE_HOME ?? '' } });
  let out = '';
  proc.stdout.on('data', (d: Buffer) => { out += d.toString('utf8'); });
  const send = (m: unknown) => proc.stdin.write(JSON.stringify(m) + '\n');
  send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } });
  await until(() => out.includes('"id":1'));
  send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'json_read', arguments: { path: 'seps.jsonl', language: 'pointer', query: '/0/s' } } });
  await until(() => out.includes('"id":2'));
  proc.kill();
  expect(out).not.toMatch(/[\u2028\u2029]/);
  // split as a JavaScript line reader splits: every piece is a whole JSON-RPC message
  const lines = out.split(/\r?\n|\u2028|\u2029/).filter((l) => l.length > 0);
  const messages = lines.map((l) => JSON.parse(l));
  const answer = messages.find((m) => m.id === 2);
  expect(answer.result.structuredContent.items[0].value).toBe('a\u2028b\u2029c');
  expect(out).toContain('a\\u2028b\\u2029c');
});

test('mcpgw serve at a terminal says on stderr that it waits for an MCP client; stdout holds nothing', () => {
  // a pseudo-terminal on stdin (Python's pty), stdout and stderr read separately; the server is stopped 1 s after its
  // first line on stderr (or when it ends): no fixed sleep, which a loaded machine outlasts before node has started
  const r = JSON.parse(execFileSync('python3', ['-c', String.raw`
import json, os, pty, subprocess, sys, time
master, slave = pty.openpty()
p = subprocess.Popen(sys.argv[1:], stdin=slave, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
first = b''
while b'\n' not in first:
    chunk = os.read(p.stderr.fileno(), 4096)
    if not chunk:
        break
    first += chunk
time.sleep(1)
p.terminate()
out, err = p.communicate(timeout=60)
print(json.dumps({'out': out.decode(), 'err': (first + err).decode()}))
`, NODE, CLI, 'serve', '--root', dir], { encoding: 'utf8' }));
  expect(r.out).toBe('');
  expect(r.err).toMatch(/^mcpgw: waiting for an MCP client on stdin/m);
  expect(r.err.split('\n').filter((l: string) => /waiting for an MCP client/.test(l))).toHaveLength(1);
});
