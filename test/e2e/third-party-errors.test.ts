/**
 * What a broken third-party plugin does to start-up, through the built CLI with real plugin files:
 * every case stops `serve`, `check` and `list-tools` with exit 2 and a message naming the plugin. The commands run
 * in one process with the built CLI's main() (test/helpers/cli-host.ts: each in its folder, with exactly its
 * environment, the exit code main() resolves to); one case also runs `serve` as a process of its own, so the exit
 * code of a real process is asserted too. (The packed, working plugins are in third-party.test.ts; the loader's cases one by one in
 * test/plugin-kit/plugin-api.test.ts.)
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CLI, NODE } from '../helpers/mcp';
import { startCliHost, type CliHost, type CliRun } from '../helpers/cli-host';
import { PLUGIN_API_VERSION } from '../../src/kernel/version';

let tmp: string;
let host: CliHost;
const ENV = () => ({ PATH: process.env.PATH ?? '', XDG_CACHE_HOME: process.env.XDG_CACHE_HOME ?? '', HOME: tmp });
beforeAll(() => {
  host = startCliHost();
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-3perr-')));
  fs.mkdirSync(path.join(tmp, 'data'));
  const format = (name: string) => `{ name: ${JSON.stringify(name)}, extensions: ['.${name}'], detect: () => null, open: async () => { throw new Error('unused'); } }`;
  const files: Record<string, string> = {
    'throws.cjs': `module.exports = { name: 'mcpgw-throws', version: '0.0.1', apiVersion: '^3.0.0', register() { throw new Error('missing API key ACME_TOKEN'); } };\n`,
    'rejects.mjs': `export default { name: 'mcpgw-rejects', version: '0.0.2', apiVersion: '^3.0.0', async register() { await new Promise((r) => setTimeout(r, 5)); throw new Error('wasm instantiate failed'); } };\n`,
    'csv-a.cjs': `module.exports = { name: 'csv-a', version: '1.0.0', apiVersion: '^3.0.0', register(r) { r.registerFormat(${format('csv')}); } };\n`,
    'csv-b.mjs': `export default { name: 'csv-b', version: '2.0.0', apiVersion: '^3.0.0', register(r) { r.registerFormat(${format('csv')}); } };\n`,
    'jsonl-again.cjs': `module.exports = { name: 'my-jsonl', version: '1.0.0', apiVersion: '^3.0.0', register(r) { r.registerFormat(${format('jsonl')}); } };\n`,
    'old-api.cjs': `module.exports = { name: 'old-api', version: '0.9.0', apiVersion: '~0.5.0', register() {} };\n`,
  };
  for (const [f, text] of Object.entries(files)) fs.writeFileSync(path.join(tmp, f), text);
});
afterAll(async () => {
  await host?.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

async function runAll(plugins: string[]): Promise<CliRun[]> {
  fs.writeFileSync(path.join(tmp, '.mcpgwrc.json'), JSON.stringify({ root: './data', plugins }));
  const runs: CliRun[] = [];
  for (const cmd of ['check', 'list-tools', 'serve']) runs.push(await host.run([cmd], tmp, ENV()));
  return runs;
}

test.each([
  ['register() throws', ['./throws.cjs'], 'mcpgw: Plugin mcpgw-throws@0.0.1: register() failed: missing API key ACME_TOKEN'],
  ['an async register() rejects (ESM)', ['./rejects.mjs'], 'mcpgw: Plugin mcpgw-rejects@0.0.2: register() failed: wasm instantiate failed'],
  ['two plugins claim the format "csv"', ['./csv-a.cjs', './csv-b.mjs'], 'mcpgw: Plugin csv-b@2.0.0: Plugin csv-b registers format "csv", which plugin csv-a already registered.'],
  ['a plugin claims a built-in format name', ['./jsonl-again.cjs'], 'Plugin my-jsonl registers format "jsonl", which plugin @mcpgw/format-jsonl already registered.'],
  ['an apiVersion outside the kernel\'s', ['./old-api.cjs'], `mcpgw: Plugin old-api@0.9.0: is built for plugin API ~0.5.0, but this mcpgw 0.1.0 provides plugin API ${PLUGIN_API_VERSION}.`],
])('%s: exit 2 naming the plugin (check, list-tools, serve)', async (_name, plugins, message) => {
  const runs = await runAll(plugins);
  expect(runs).toHaveLength(3);
  for (const r of runs) {
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(message);
    expect(r.stdout).toBe('');
  }
});

test('serve as a process of its own: a plugin whose register() throws exits it with 2, naming the plugin', () => {
  fs.writeFileSync(path.join(tmp, '.mcpgwrc.json'), JSON.stringify({ root: './data', plugins: ['./throws.cjs'] }));
  const r = spawnSync(NODE, [CLI, 'serve'], { cwd: tmp, env: ENV(), encoding: 'utf8', timeout: 30_000, input: '' });
  expect(r.status).toBe(2);
  expect(r.stderr).toContain('mcpgw: Plugin mcpgw-throws@0.0.1: register() failed: missing API key ACME_TOKEN');
  expect(r.stdout).toBe('');
});
