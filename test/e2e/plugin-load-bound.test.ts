/**
 * A plugin cannot hang start-up (docs/architecture.md "Isolation and blame"): one that busy-loops in register() or
 * whose top-level await never settles stops `check` and `serve` past the load bound (MCPGW_PLUGIN_LOAD_TIMEOUT_MS)
 * with exit code 2 and a message naming it, stdout empty. The plugins hang for ever, so the outcome holds at any
 * machine speed; only how long the test takes depends on the bound. Requires a build (`npm test` runs `tsc -b`).
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CLI, NODE, REPO } from '../helpers/mcp';

const FIXTURES = path.join(REPO, 'test', 'fixtures', 'plugins');
let tmp: string;
beforeAll(() => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-loadbound-')));
  fs.mkdirSync(path.join(tmp, 'data'));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** Runs the CLI with `plugin` configured; resolves with its exit code and output (kills it after 50 s: a hang). */
function run(command: string, plugin: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const config = path.join(tmp, `${path.basename(plugin)}.json`);
  // The faulty plugin alone (no built-ins): the bound is per plugin, so no other plugin's load can meet it first on
  // a loaded machine.
  fs.writeFileSync(config, JSON.stringify({ root: './data', builtins: false, plugins: [path.join(FIXTURES, plugin)] }));
  return new Promise((resolve) => {
    const child = spawn(NODE, [CLI, command, '--config', config], { cwd: tmp, env: { PATH: process.env.PATH ?? '', HOME: tmp, MCPGW_PLUGIN_LOAD_TIMEOUT_MS: '1000' }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '', stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d));
    child.stderr.on('data', (d: Buffer) => (stderr += d));
    const hang = setTimeout(() => child.kill('SIGKILL'), 50_000);
    child.on('close', (code) => { clearTimeout(hang); resolve({ code, stdout, stderr }); });
  });
}

test.each(['check', 'serve'])('a plugin that busy-loops in register(): %s exits 2 naming it', async (command) => {
  const r = await run(command, 'hang-load.cjs');
  expect(r.stderr).toContain('mcpgw: Plugin acme-busy-loop@0.0.1: register() did not finish within 1000 ms');
  expect(r.code).toBe(2);
  expect(r.stdout).toBe('');
});

test.each(['check', 'serve'])('a plugin whose top-level await never settles: %s exits 2 naming it', async (command) => {
  const r = await run(command, 'hang-tla.mjs');
  expect(r.stderr).toContain(`mcpgw: Plugin ${path.join(FIXTURES, 'hang-tla.mjs')}: loading ${path.join(FIXTURES, 'hang-tla.mjs')} did not finish within 1000 ms`);
  expect(r.code).toBe(2);
  expect(r.stdout).toBe('');
});
