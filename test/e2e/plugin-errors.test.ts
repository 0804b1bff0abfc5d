/**
 * The error context of a third-party plugin, through the built CLI and a real MCP client: a programming error in a
 * plugin's tool is an INTERNAL_ERROR whose message names the plugin and the tool (where to report it), and a catalogue
 * error made by the tool's `ctx.error()` keeps its payload and is logged with the plugin that raised it. The server
 * keeps serving after both. Requires a build: `npm test` runs `tsc -b` before jest.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { call, connect, REPO, type Connected } from '../helpers/mcp';

const FAULTY = path.join(REPO, 'test', 'fixtures', 'plugins', 'faulty-tools.cjs');
let tmp: string;
let server: Connected;
beforeAll(async () => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-plugerr-')));
  fs.mkdirSync(path.join(tmp, 'data'));
  fs.writeFileSync(path.join(tmp, 'data', 'a.jsonl'), '{"id":1}\n');
  fs.writeFileSync(path.join(tmp, '.mcpgwrc.json'), JSON.stringify({ root: './data', plugins: [FAULTY], logLevel: 'debug' }));
  server = await connect([], { cwd: tmp, env: { HOME: tmp } });
});
afterAll(async () => {
  await server.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

/** Resolves with the server's stderr once a line matching `pattern` has arrived (log lines may trail the result). */
function logged(pattern: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    const check = () => {
      if (!pattern.test(server.stderr())) return false;
      server.transport.stderr?.off('data', check);
      resolve(server.stderr());
      return true;
    };
    if (check()) return;
    server.transport.stderr?.on('data', check);
    server.transport.stderr?.once('close', () => reject(new Error(`the server's stderr closed without ${pattern}`)));
  });
}

test('a TypeError in a plugin tool: INTERNAL_ERROR naming the plugin and the tool, the stack in the log', async () => {
  const r = await call(server.client, 'faulty_crash', {});
  expect(r.isError).toBe(true);
  expect(r.data.error.code).toBe('INTERNAL_ERROR');
  expect(r.data.error.message).toBe("Internal error in acme-faulty (tool faulty_crash): Cannot read properties of undefined (reading 'size')");
  await logged(/^mcpgw error tool faulty_crash failed \{"plugin":"acme-faulty","bundle":"faulty","error":"TypeError: Cannot read/m);
});

test('ctx.error() in a plugin tool: the payload as made, the log line names the plugin that raised it', async () => {
  const r = await call(server.client, 'faulty_refuse', {});
  expect(r.data).toEqual({ error: { code: 'NOT_FOUND', message: 'No widget named "w1".', hint: 'List widgets first.' } });
  const line = (await logged(/^mcpgw debug tool faulty_refuse [^\n]*(?=\n)/m)).match(/^mcpgw debug tool faulty_refuse [^\n]*(?=\n)/m)![0];
  expect(line).toBe('mcpgw debug tool faulty_refuse answered NOT_FOUND {"plugin":"acme-faulty","bundle":"faulty","message":"No widget named \\"w1\\".","raisedBy":"acme-faulty"}');
});

test('a kernel error in a built-in tool is not attributed to a plugin, and the server keeps serving', async () => {
  const r = await call(server.client, 'open_file', { path: 'missing.jsonl' });
  expect(r.data.error.code).toBe('NOT_FOUND');
  const line = (await logged(/^mcpgw debug tool open_file [^\n]*(?=\n)/m)).match(/^mcpgw debug tool open_file [^\n]*(?=\n)/m)![0];
  expect(line).toBe('mcpgw debug tool open_file answered NOT_FOUND {"plugin":"@mcpgw/tools-explore","bundle":"explore","message":"No such file: missing.jsonl"}');
  const ok = await call(server.client, 'open_file', { path: 'a.jsonl' });
  expect(ok.isError).toBe(false);
});
