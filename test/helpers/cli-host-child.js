// The child of test/helpers/cli-host.ts: runs the built CLI's main() once per message, each in the folder and with
// the environment the message gives, its stdout and stderr captured, and answers with the exit code main() resolved
// to and what was written. One Node start and one load of mcpgw serve many commands.
'use strict';
const path = require('node:path');
const { main } = require(path.join(__dirname, '..', '..', 'dist', 'cli', 'main.js'));

const realWrite = { out: process.stdout.write, err: process.stderr.write };
// A command that exits the process is not one this host can run: say so instead of dying silently.
process.exit = (code) => {
  throw new Error(`cli-host: the command called process.exit(${code}); run it in a process of its own`);
};

let queue = Promise.resolve();
process.on('message', (m) => {
  queue = queue.then(() => (m.session !== undefined ? runSession(m) : runOne(m)));
});

/**
 * What `mcpgw serve ARGS` serves, in this process: the CLI's own prepare() (config discovery, --config, --profile,
 * --root, the environment, every plugin) in the message's folder and environment, the server its kernel builds, and a
 * real MCP client over the SDK's in-memory transport (each message crossing as JSON text, as on a wire). Sessions
 * stay open for calls until closed. Stdio framing is not in it: tests of that start a process.
 */
const sessions = new Map();
let nextSession = 0;
const FLAGS = { '--config': 'config', '--profile': 'profile', '--root': 'root', '--log-level': 'logLevel' };
async function runSession({ id, session, op, args, cwd, env, params }) {
  try {
    if (op === 'open') {
      const opts = {};
      for (let i = 0; i < args.length; i += 2) {
        if (!FLAGS[args[i]]) throw new Error(`cli-host: serve sessions take ${Object.keys(FLAGS).join(', ')}, not ${args[i]}`);
        opts[FLAGS[args[i]]] = args[i + 1];
      }
      const { prepare } = require(path.join(__dirname, '..', '..', 'dist', 'cli', 'setup.js'));
      const { Client } = require('@modelcontextprotocol/client');
      const { InMemoryTransport } = require('@modelcontextprotocol/server');
      const saved = { ...process.env };
      const savedCwd = process.cwd();
      let prepared;
      try {
        process.chdir(cwd);
        for (const k of Object.keys(process.env)) delete process.env[k];
        Object.assign(process.env, env);
        prepared = await prepare(opts, true);
      } finally {
        for (const k of Object.keys(process.env)) delete process.env[k];
        Object.assign(process.env, saved);
        process.chdir(savedCwd);
      }
      const server = prepared.kernel.serverFactory(prepared.config)();
      const client = new Client({ name: 'mcpgw-tests', version: '1.0.0' });
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      for (const side of [clientSide, serverSide]) {
        const send = side.send.bind(side);
        side.send = (message, options) => send(JSON.parse(JSON.stringify(message)), options);
      }
      await server.connect(serverSide);
      await client.connect(clientSide);
      const n = nextSession++;
      sessions.set(n, { client, server });
      return process.send({ id, result: n });
    }
    const s = sessions.get(session);
    if (op === 'close') {
      sessions.delete(session);
      await s.client.close();
      await s.server.close();
      return process.send({ id, result: null });
    }
    if (op === 'listTools') return process.send({ id, result: await s.client.listTools(params) });
    if (op === 'callTool') return process.send({ id, result: await s.client.callTool(params) });
    throw new Error(`cli-host: unknown session operation ${op}`);
  } catch (err) {
    process.send({ id, error: { message: String(err && err.message), code: err && err.code, stack: err && err.stack } });
  }
}
process.on('disconnect', () => process.kill(process.pid, 'SIGKILL'));

async function runOne({ id, args, cwd, env, tty }) {
  let stdout = '';
  let stderr = '';
  const saved = { ...process.env };
  const savedCwd = process.cwd();
  let status;
  let ttyWas;
  try {
    process.chdir(cwd);
    // stderr a terminal for this command, as a TTY would make it (the pipe to the host is none).
    if (tty) {
      ttyWas = Object.getOwnPropertyDescriptor(process.stderr, 'isTTY');
      Object.defineProperty(process.stderr, 'isTTY', { value: true, configurable: true });
    }
    for (const k of Object.keys(process.env)) delete process.env[k];
    Object.assign(process.env, env);
    process.stdout.write = (chunk, ...rest) => { stdout += String(chunk); const cb = rest.find((r) => typeof r === 'function'); if (cb) cb(); return true; };
    process.stderr.write = (chunk, ...rest) => { stderr += String(chunk); const cb = rest.find((r) => typeof r === 'function'); if (cb) cb(); return true; };
    status = await main(['node', 'mcpgw', ...args]);
  } catch (err) {
    stderr += `cli-host: ${err && err.stack ? err.stack : err}\n`;
    status = -1;
  } finally {
    process.stdout.write = realWrite.out;
    process.stderr.write = realWrite.err;
    if (tty) {
      delete process.stderr.isTTY;
      if (ttyWas) Object.defineProperty(process.stderr, 'isTTY', ttyWas);
    }
    for (const k of Object.keys(process.env)) delete process.env[k];
    Object.assign(process.env, saved);
    process.chdir(savedCwd);
  }
  process.send({ id, status, stdout, stderr });
}
