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
  queue = queue.then(() => runOne(m));
});
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
