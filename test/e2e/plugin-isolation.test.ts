/**
 * Plugin code cannot take the server down (docs/architecture.md "Isolation and blame"), through the built CLI and a
 * real MCP client: a rejection nobody handles and a throw from a timer are logged with the plugin's name and answer
 * the call in flight INTERNAL_ERROR; a throw from a timer outside any call is logged and the server goes on; what a
 * plugin writes on stdout goes to stderr; a handler that never settles is answered at its deadline (in-process, on a
 * fake clock: the kernel's guard, no process fault); a format's fault
 * is blamed on the format's plugin, not on the tool that called it. Every test ends with stdout having carried only
 * JSON-RPC (the client reports anything else as an error). Requires a build: `npm test` runs `tsc -b` before jest.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { call, connect, REPO, type Connected } from '../helpers/mcp';
import { until } from '../helpers/until';
import { testTools } from '../../src/plugin-kit/index';
import { FakeClock } from '../../src/kernel/fake-clock';

const FIXTURES = path.join(REPO, 'test', 'fixtures', 'plugins');
let tmp: string;
let server: Connected;
/** What the client could not take as JSON-RPC (a stray line on stdout, a response to no request). */
const notProtocol: string[] = [];

beforeAll(async () => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-isolation-')));
  fs.mkdirSync(path.join(tmp, 'data'));
  fs.writeFileSync(path.join(tmp, 'data', 'a.jsonl'), '{"id":1}\n');
  fs.writeFileSync(path.join(tmp, 'data', 'two.faulty'), 'two records\n');
  fs.writeFileSync(path.join(tmp, 'data', 'boom.jsonl'), '{"id":1}\n{"id":2,"boom":true}\n');
  fs.writeFileSync(path.join(tmp, '.mcpgwrc.json'), JSON.stringify({
    root: './data',
    plugins: [path.join(FIXTURES, 'faulty-async.cjs'), path.join(FIXTURES, 'faulty-format.cjs'), path.join(FIXTURES, 'faulty-language.cjs')],
    limits: { requestTimeoutMs: 2000 },
    logLevel: 'info',
  }));
  server = await connect([], { cwd: tmp, env: { HOME: tmp, MCPGW_TEST_LATE_THROW: '1' } });
  server.client.onerror = (e) => notProtocol.push(String(e));
});
afterAll(async () => {
  await server.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});
afterEach(async () => {
  // The server still serves, and nothing but protocol messages came on stdout.
  expect((await call(server.client, 'fault_ok', {})).data).toEqual({ ok: true });
  expect(notProtocol).toEqual([]);
});

const lineOf = (pattern: RegExp) => server.stderr().split('\n').find((l) => pattern.test(l));

test('a rejection nobody handles: logged with the plugin, the call answered INTERNAL_ERROR', async () => {
  const r = await call(server.client, 'fault_rejection', {});
  expect(r.data.error.code).toBe('INTERNAL_ERROR');
  expect(r.data.error.message).toBe('Internal error in acme-faulty-async (tool fault_rejection): unhandled rejection: a rejection nobody handles');
  await until(() => lineOf(/plugin fault: unhandled rejection/) !== undefined, 'the fault\'s log line');
  expect(lineOf(/plugin fault: unhandled rejection/)).toMatch(/^mcpgw error plugin fault: unhandled rejection \{"plugin":"acme-faulty-async","tool":"fault_rejection","error":"RangeError: a rejection nobody handles\\n    at .*faulty-async\.cjs/);
});

test('a throw from a timer a tool set: logged with the plugin, the call answered INTERNAL_ERROR', async () => {
  const r = await call(server.client, 'fault_timer', {});
  expect(r.data.error.code).toBe('INTERNAL_ERROR');
  expect(r.data.error.message).toBe('Internal error in acme-faulty-async (tool fault_timer): uncaught exception: thrown from a timer');
  await until(() => lineOf(/"tool":"fault_timer"/) !== undefined, 'the fault\'s log line');
  expect(lineOf(/"tool":"fault_timer"/)).toMatch(/^mcpgw error plugin fault: uncaught exception \{"plugin":"acme-faulty-async","tool":"fault_timer","error":"TypeError: thrown from a timer/);
});

test('a throw from a timer register() set, outside any call: logged with the plugin, the server goes on', async () => {
  await until(() => lineOf(/thrown by a timer register\(\) set/) !== undefined, 'the fault\'s log line');
  expect(lineOf(/thrown by a timer register\(\) set/)).toMatch(/^mcpgw error plugin fault: uncaught exception \{"plugin":"acme-faulty-async","error":"Error: thrown by a timer register\(\) set/);
});

test('console.log and stdout writes of a plugin (at load and in a tool) go to stderr', async () => {
  const r = await call(server.client, 'fault_stdout', {});
  expect(r.data).toEqual({ ok: true });
  await until(() => server.stderr().includes('console.log from a tool'), 'the tool\'s output on stderr');
  expect(server.stderr()).toContain('acme-faulty-async says hello on stdout while loading\n');
  expect(server.stderr()).toContain('{"jsonrpc":"2.0","id":999,"result":{}}\n');
});

test('a handler that never settles is answered at its deadline (requestTimeoutMs), naming the plugin', async () => {
  // In-process (the plugin kit's tool tester, a real MCP client) on a FakeClock, moved a second at a time until the
  // call is answered: the deadline and its grace pass in fake time, whatever the machine's speed.
  const clock = new FakeClock();
  const hello = jest.spyOn(console, 'log').mockImplementation(() => undefined); // the plugin's greeting at load
  const t = await testTools(path.join(FIXTURES, 'faulty-async.cjs'), { root: path.join(tmp, 'data'), clock, config: { limits: { requestTimeoutMs: 2000 } } }).finally(() => hello.mockRestore());
  try {
    let answered = false;
    const pending = t.call('fault_hang', {}).finally(() => (answered = true));
    const start = clock.now();
    while (!answered) {
      await new Promise((r) => setImmediate(r));
      if (!answered) clock.advance(1000);
    }
    const r = await pending;
    expect(r.error?.code).toBe('INTERNAL_ERROR');
    expect(r.error?.message).toBe('Internal error in acme-faulty-async (tool fault_hang): the tool did not answer by its deadline (requestTimeoutMs 2000 ms); its work was abandoned.');
    expect(r.error?.limit).toEqual({ name: 'requestTimeoutMs', limit: 2000, value: 7000 });
    expect(clock.now() - start).toBeGreaterThanOrEqual(7000);
  } finally {
    await t.close();
  }
});

test("a throw in a format's batches is blamed on the format's plugin, with its stack in the log", async () => {
  const r = await call(server.client, 'open_file', { path: 'two.faulty' });
  expect(r.data.error.code).toBe('INTERNAL_ERROR');
  expect(r.data.error.message).toBe("Internal error in acme-faulty-format (called by tool open_file of @mcpgw/tools-explore): Cannot read properties of undefined (reading 'batch')");
  await until(() => lineOf(/tool open_file failed/) !== undefined, 'the fault\'s log line');
  expect(lineOf(/tool open_file failed/)).toMatch(/^mcpgw error tool open_file failed \{"plugin":"@mcpgw\/tools-explore","bundle":"explore","raisedBy":"acme-faulty-format","error":"TypeError: Cannot read properties of undefined \(reading 'batch'\)\\n    at .*faulty-format\.cjs/);
});

test("a query language's crash on a worker thread: blamed on its plugin with its stack; its log lines reach the server's log", async () => {
  const r = await call(server.client, 'json_read', { path: 'boom.jsonl', language: 'faulty', query: 'any' });
  expect(r.data.error.code).toBe('INTERNAL_ERROR');
  expect(r.data.error.message).toBe("Internal error in acme-faulty-language (called by tool json_read of @mcpgw/tools-reader): Cannot read properties of undefined (reading 'nodes')");
  await until(() => lineOf(/tool json_read failed/) !== undefined, 'the fault\'s log line');
  expect(lineOf(/tool json_read failed/)).toMatch(/^mcpgw error tool json_read failed \{"plugin":"@mcpgw\/tools-reader","bundle":"reader","raisedBy":"acme-faulty-language","error":"TypeError: Cannot read properties of undefined \(reading 'nodes'\)\\n    at .*faulty-language\.cjs/);
  expect(lineOf(/about to fail/)).toBe('mcpgw warn about to fail {"plugin":"acme-faulty-language","main":false,"thread":true}');
  expect(lineOf(/failing on a record/)).toBe('mcpgw error failing on a record {"plugin":"acme-faulty-language","id":2,"thread":true}');
});
