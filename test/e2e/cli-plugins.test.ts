/**
 * Plugin loading and configuration through the BUILT CLI (dist/cli/main.js): its main() run for each command in one
 * Node process (test/helpers/cli-host.ts; servers and the pipe-closing reader are processes of their own), real config
 * files in temp folders, real ESM and CommonJS plugin modules (test/fixtures/plugins). Jest's module system cannot run
 * the loader's `import()` of an ESM file, so this is the only place ESM plugin loading is exercised.
 *
 * Requires a build: `npm test` runs `tsc -b` before jest.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { call, CLI, connect, NODE, REPO, type Connected } from '../helpers/mcp';
import { PLUGIN_API_VERSION } from '../../src/kernel/version';
import { startCliHost, type CliHost, type CliRun } from '../helpers/cli-host';

const FIXTURES = path.join(REPO, 'test', 'fixtures', 'plugins');
const HELLO_ESM = path.join(FIXTURES, 'hello-esm.mjs');
const GREET_CJS = path.join(FIXTURES, 'greet-cjs.cjs');
const API_V4 = path.join(FIXTURES, 'api-v4.mjs');
const NO_CONTRACT = path.join(FIXTURES, 'no-contract.cjs');
const DUP_ECHO = path.join(FIXTURES, 'dup-echo.cjs');
/** The built-ins' tools, read from the built CLI (they grow as bundles grow). */
let BUILTIN_TOOLS: string[] = [];
const VERSION: string = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')).version;

let host: CliHost;
beforeAll(async () => {
  if (!fs.existsSync(path.join(REPO, 'dist', 'cli', 'main.js'))) {
    throw new Error('dist/cli/main.js is missing: build first (`npx tsc -b`; `npm test` does it before jest).');
  }
  host = startCliHost();
  const r = await host.run(['list-tools', '--json'], os.tmpdir(), { PATH: process.env.PATH ?? '', XDG_CACHE_HOME: process.env.XDG_CACHE_HOME ?? '' });
  BUILTIN_TOOLS = (JSON.parse(r.stdout) as { name: string }[]).map((t) => t.name);
  expect(BUILTIN_TOOLS).toEqual(expect.arrayContaining(['open_file', 'get_record', 'search']));
});
afterAll(async () => host?.close());

let tmp: string;
beforeEach(() => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-cli-')));
  fs.mkdirSync(path.join(tmp, 'data'));
  fs.writeFileSync(path.join(tmp, 'data', 'people.jsonl'), '{"id":1,"name":"Alice"}\n');
});
afterEach(() => {
  fs.rmSync(tmp, { recursive: true, force: true });
});

/** Writes JSON config `rel` (default `.mcpgwrc.json`) under the temp folder; returns its path. */
function writeConfig(config: unknown, rel = '.mcpgwrc.json'): string {
  const p = path.join(tmp, rel);
  fs.mkdirSync(path.dirname(p), { recursive: true });
  fs.writeFileSync(p, JSON.stringify(config, null, 2));
  return p;
}

/**
 * Runs `mcpgw …args` in `cwd` (the temp folder by default) with a clean environment: the built CLI's main() in one
 * process for the file's commands (test/helpers/cli-host.ts), each in its folder with exactly this environment, its
 * exit code, stdout and stderr as a process of its own would give them.
 */
function mcpgw(args: string[], cwd = tmp, env: Record<string, string> = {}): Promise<CliRun> {
  return host.run(args, cwd, { PATH: process.env.PATH ?? '', XDG_CACHE_HOME: process.env.XDG_CACHE_HOME ?? '', HOME: process.env.HOME ?? tmp, ...env });
}

/** Tool names from `mcpgw list-tools --json`. */
async function toolNames(args: string[] = [], cwd = tmp): Promise<string[]> {
  const r = await mcpgw(['list-tools', '--json', ...args], cwd);
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  return (JSON.parse(r.stdout) as { name: string }[]).map((t) => t.name);
}

describe('configuration errors exit 2', () => {
  test('an unknown key: stderr names the key', async () => {
    writeConfig({ root: './data', rooot: './oops' });
    const r = await mcpgw(['check']);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('unknown key "rooot"');
    expect(r.stderr).toContain(path.join(tmp, '.mcpgwrc.json'));
    expect(r.stdout).toBe('');
  });

  test('an unknown key inside a profile: stderr names its full path', async () => {
    writeConfig({ root: './data', profiles: { analysts: { bundles: ['explore'], limitz: {} } } });
    const r = await mcpgw(['list-tools']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/profiles\.analysts: unknown key "limitz"/);
  });

  test('a wrong type: stderr names limits.maxItems', async () => {
    writeConfig({ root: './data', limits: { maxItems: 'x' } });
    const r = await mcpgw(['check']);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('limits.maxItems');
  });

  test('a missing root: exit 2, stderr says how to set one', async () => {
    writeConfig({ profiles: { default: { bundles: ['explore'] } } });
    const r = await mcpgw(['check']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/No root folder/);
    expect(r.stderr).toContain('--root');
    expect(r.stderr).toContain('MCPGW_ROOT');
    expect(r.stdout).toBe('');
  });

  test('a missing root with no config at all (serve): exit 2', async () => {
    const r = await mcpgw(['serve']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/No root folder/);
    expect(r.stdout).toBe('');
  });

  test('a root folder that does not exist: exit 2 naming it', async () => {
    writeConfig({ root: './no-such-folder' });
    const r = await mcpgw(['check']);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('no-such-folder');
  });

  test('--root and MCPGW_ROOT supply the root; check prints the real root', async () => {
    writeConfig({});
    const byFlag = await mcpgw(['check', '--root', 'data']);
    expect(byFlag.status).toBe(0);
    expect(byFlag.stdout).toContain(`root: ${path.join(tmp, 'data')}\n`);
    const byEnv = await mcpgw(['check'], tmp, { MCPGW_ROOT: 'data' });
    expect(byEnv.status).toBe(0);
    expect(byEnv.stdout).toContain(`root: ${path.join(tmp, 'data')}\n`);
  });

  test('a missing --config file: exit 2 naming it', async () => {
    const r = await mcpgw(['check', '--config', 'nope.json']);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('nope.json');
  });

  test('a profile selecting a bundle no plugin registers: exit 2 naming the bundle and the known ones', async () => {
    writeConfig({ root: './data', profiles: { team: { bundles: ['explore', 'nosuch'] } }, profile: 'team' });
    const r = await mcpgw(['check']);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('Profile "team"');
    expect(r.stderr).toContain('"nosuch"');
    expect(r.stderr).toMatch(/Bundles: explore/);
    expect((await mcpgw(['list-tools'])).status).toBe(2);
  });

  test('an unknown profile: exit 2 listing the known profiles', async () => {
    writeConfig({ root: './data', profiles: { a: { bundles: ['explore'] }, b: { bundles: ['explore'] } } });
    const r = await mcpgw(['check', '--profile', 'zzz']);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('"zzz"');
    expect(r.stderr).toContain('Profiles: a, b.');
  });
});

describe('plugin loading', () => {
  test('a missing plugin package: exit 2, stderr names it', async () => {
    writeConfig({ root: './data', plugins: ['mcpgw-plugin-does-not-exist'] });
    const r = await mcpgw(['check']);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('Plugin mcpgw-plugin-does-not-exist');
    expect(r.stderr).toMatch(/cannot be found/);
    expect(r.stderr).toContain('npm install mcpgw-plugin-does-not-exist');
  });

  test('a missing plugin file by path: exit 2, stderr names it', async () => {
    writeConfig({ root: './data', plugins: ['./plugins/nope.mjs'] });
    const r = await mcpgw(['plugins']);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('./plugins/nope.mjs');
    expect(r.stderr).toContain(`relative to ${tmp}`);
  });

  test('an apiVersion mismatch: exit 2 naming the plugin, its range and the kernel\'s plugin API version', async () => {
    writeConfig({ root: './data', plugins: [API_V4] });
    const r = await mcpgw(['check']);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('future-plugin@4.1.0');
    expect(r.stderr).toContain('^4.0.0');
    expect(r.stderr).toContain(`provides plugin API ${PLUGIN_API_VERSION}.`);
    expect(PLUGIN_API_VERSION).toMatch(/^3\.\d+\.\d+$/);
    expect(r.stdout).toBe('');
  });

  test('a module without the plugin contract: exit 2 naming the module and what is missing', async () => {
    writeConfig({ root: './data', plugins: [NO_CONTRACT] });
    const r = await mcpgw(['check']);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('no-contract.cjs');
    expect(r.stderr).toContain('does not export a plugin');
    expect(r.stderr).toContain('"apiVersion" is missing');
  });

  test('two plugins registering the same tool name: exit 2 naming both', async () => {
    writeConfig({ root: './data', builtins: false, plugins: [HELLO_ESM, DUP_ECHO] });
    const r = await mcpgw(['check']);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('"hello_echo"');
    expect(r.stderr).toContain('dup-echo');
    expect(r.stderr).toContain('hello-esm');
  });

  test('an ESM (.mjs) and a CommonJS (.cjs) plugin both load; their tools appear in list-tools', async () => {
    writeConfig({ root: './data', plugins: [HELLO_ESM, GREET_CJS] });
    expect(await toolNames()).toEqual([...BUILTIN_TOOLS, 'hello_echo', 'greet_hello']);

    const text = await mcpgw(['list-tools']);
    expect(text.status).toBe(0);
    expect(text.stdout).toMatch(/^hello_echo\s+Echo text\.$/m);
    expect(text.stdout).toMatch(/^greet_hello\s+Greet someone by name\.$/m);

    const plugins = await mcpgw(['plugins', '--json']);
    expect(plugins.status).toBe(0);
    const list = JSON.parse(plugins.stdout) as { name: string; version: string; source: string; bundles: string[]; tools: string[] }[];
    const builtins = list.filter((p) => p.source === 'builtin');
    expect(builtins.map((p) => p.name)).toEqual(expect.arrayContaining(['@mcpgw/format-jsonl', '@mcpgw/tools-explore']));
    expect(builtins.every((p) => p.name.startsWith('@mcpgw/'))).toBe(true);
    const added = list.slice(builtins.length);
    expect(added.map((p) => `${p.name}@${p.version}`)).toEqual(['hello-esm@1.0.0', 'greet-cjs@2.3.4']);
    expect(added[0]).toMatchObject({ source: HELLO_ESM, bundles: ['hello'], tools: ['hello_echo'] });
    expect(added[1]).toMatchObject({ source: GREET_CJS, bundles: ['greet'], tools: ['greet_hello'] });

    const check = await mcpgw(['check']);
    expect(check.status).toBe(0);
    expect(check.stdout).toMatch(/plugins: .*@mcpgw\/format-jsonl@/);
    expect(check.stdout).toContain('hello-esm@1.0.0, greet-cjs@2.3.4');
    expect(check.stdout).toMatch(new RegExp(`tools \\(${BUILTIN_TOOLS.length + 2}\\): .*hello_echo, greet_hello`));
    expect(check.stdout).toMatch(/ok\n$/);
  });

  test('a plugin by relative path resolves against the config file\'s folder, not the cwd', async () => {
    // tmp/conf/.mcpgwrc.json names ./plugins/local.cjs; run from tmp/elsewhere, which has no plugins/.
    fs.mkdirSync(path.join(tmp, 'conf', 'plugins'), { recursive: true });
    fs.writeFileSync(path.join(tmp, 'conf', 'plugins', 'local.cjs'), `module.exports = require(${JSON.stringify(GREET_CJS)});\n`);
    const cfg = writeConfig({ root: '../data', builtins: false, plugins: ['./plugins/local.cjs'] }, 'conf/.mcpgwrc.json');
    const elsewhere = path.join(tmp, 'elsewhere');
    fs.mkdirSync(elsewhere);
    expect(await toolNames(['--config', path.relative(elsewhere, cfg)], elsewhere)).toEqual(['greet_hello']);
    const check = await mcpgw(['check', '--config', '../conf/.mcpgwrc.json'], elsewhere);
    expect(check.status).toBe(0);
    expect(check.stdout).toContain(`root: ${path.join(tmp, 'data')}\n`); // root relative to the config too
    const plugins = JSON.parse((await mcpgw(['plugins', '--json', '--config', cfg], elsewhere)).stdout);
    expect(plugins).toEqual([
      { name: 'greet-cjs', version: '2.3.4', apiVersion: '^3.0.0', source: './plugins/local.cjs', formats: [], queryLanguages: [], bundles: ['greet'], tools: ['greet_hello'] },
    ]);
  });

  test('a plugin by relative path without extension (./plugins/local → local.mjs) loads', async () => {
    fs.mkdirSync(path.join(tmp, 'plugins'));
    fs.writeFileSync(path.join(tmp, 'plugins', 'local.mjs'), `export { default } from ${JSON.stringify(pathToFileURL(HELLO_ESM).href)};\n`);
    writeConfig({ root: './data', builtins: false, plugins: ['./plugins/local'] });
    expect(await toolNames()).toEqual(['hello_echo']);
  });

  test('an npm package in node_modules next to the config file loads (CommonJS, "main")', async () => {
    const pkg = path.join(tmp, 'node_modules', 'mcpgw-plugin-shout');
    fs.mkdirSync(pkg, { recursive: true });
    fs.writeFileSync(path.join(pkg, 'package.json'), JSON.stringify({ name: 'mcpgw-plugin-shout', version: '0.4.2', main: 'lib/plugin.js' }));
    fs.mkdirSync(path.join(pkg, 'lib'));
    fs.writeFileSync(
      path.join(pkg, 'lib', 'plugin.js'),
      `const { z } = require(${JSON.stringify(require.resolve('zod', { paths: [REPO] }))});
module.exports = {
  name: 'mcpgw-plugin-shout', version: '0.4.2', apiVersion: '^3.0.0',
  register(registry) {
    registry.registerToolBundle({ name: 'shout', tools: [{
      name: 'shout_upper', title: 'Shout', description: 'Upper-case text.',
      inputSchema: z.object({ text: z.string() }), outputSchema: z.object({ text: z.string() }),
      handler: (a) => ({ text: a.text.toUpperCase() }),
    }] });
  },
};
`,
    );
    writeConfig({ root: './data', plugins: ['mcpgw-plugin-shout'] });
    expect(await toolNames()).toEqual([...BUILTIN_TOOLS, 'shout_upper']);
    const list = JSON.parse((await mcpgw(['plugins', '--json'])).stdout) as { name: string; source: string }[];
    expect(list.at(-1)).toMatchObject({ name: 'mcpgw-plugin-shout', source: 'mcpgw-plugin-shout' });
  });

  test('a scoped ESM-only npm package ("type": "module", "exports") loads', async () => {
    const pkg = path.join(tmp, 'node_modules', '@acme', 'mcpgw-hello');
    fs.mkdirSync(path.join(pkg, 'dist'), { recursive: true });
    fs.writeFileSync(
      path.join(pkg, 'package.json'),
      JSON.stringify({ name: '@acme/mcpgw-hello', version: '1.2.3', type: 'module', exports: { '.': { import: './dist/index.js' } } }),
    );
    fs.writeFileSync(path.join(pkg, 'dist', 'index.js'), `export { default } from ${JSON.stringify(pathToFileURL(HELLO_ESM).href)};\n`);
    writeConfig({ root: './data', builtins: false, plugins: [['@acme/mcpgw-hello', {}]] });
    expect(await toolNames()).toEqual(['hello_echo']);
  });

  test('builtins: false with a plugin giving its own bundle lists only that bundle\'s tools', async () => {
    writeConfig({ root: './data', builtins: false, plugins: [HELLO_ESM] });
    expect(await toolNames()).toEqual(['hello_echo']);
    const plugins = await mcpgw(['plugins']);
    expect(plugins.status).toBe(0);
    expect(plugins.stdout).toContain('hello-esm@1.0.0');
    expect(plugins.stdout).toContain('tool bundles: hello (tools: hello_echo)');
    expect(plugins.stdout).not.toContain('@mcpgw/');
  });

  test('a profile can select the plugin\'s bundle alongside a built-in one', async () => {
    writeConfig({ root: './data', plugins: [HELLO_ESM, GREET_CJS], profiles: { mine: { bundles: ['greet', 'explore'], deny: ['search'] } }, profile: 'mine' });
    // explore's tools only, not the reader's
    expect(await toolNames()).toEqual(['greet_hello', ...BUILTIN_TOOLS.filter((t) => t !== 'search' && !t.startsWith('json_'))]);
  });
});

describe('CLI usage', () => {
  test('--help exits 0 and lists the commands', async () => {
    const r = await mcpgw(['--help']);
    expect(r.status).toBe(0);
    for (const cmd of ['serve', 'list-tools', 'plugins', 'check']) expect(r.stdout).toContain(cmd);
  });

  test('a reader that closes the pipe early (mcpgw plugins | head -1) ends the command quietly, exit 0', async () => {
    // The read end is closed before the command writes anything, so every write meets EPIPE.
    const child = spawn(NODE, [CLI, 'plugins'], { cwd: os.tmpdir(), stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (d) => { stderr += d; });
    const status = await new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    expect({ status, stderr }).toEqual({ status: 0, stderr: '' });
  });

  test('a command\'s --help exits 0 and lists its options', async () => {
    const r = await mcpgw(['check', '--help']);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('--config');
    expect(r.stdout).toContain('--root');
  });

  test('--version exits 0 and prints the package version', async () => {
    const r = await mcpgw(['--version']);
    expect(r.status).toBe(0);
    expect(r.stdout.trim()).toBe(VERSION);
  });

  test('an unknown option exits 2', async () => {
    const top = await mcpgw(['--bogus']);
    expect(top.status).toBe(2);
    expect(top.stderr).toContain('--bogus');
    const sub = await mcpgw(['check', '--bogus']);
    expect(sub.status).toBe(2);
    expect(sub.stderr).toContain('--bogus');
  });

  test('an unknown command exits 2', async () => {
    const r = await mcpgw(['frobnicate']);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('frobnicate');
  });

  test('the first word of a plugin command (mcpgw sessions): --help lists its commands (exit 0); alone it says it needs one (exit 2)', async () => {
    writeConfig({ root: './data' });
    const line = '  sessions index           build or update the session-history search index (semantic_search) in the cache folder\n';
    const help = await mcpgw(['sessions', '--help']);
    expect(help).toMatchObject({ status: 0, stdout: `Usage: mcpgw sessions <command> [options]\n\nCommands:\n${line}\nRun mcpgw sessions index --help for a command's options.\n` });
    const bare = await mcpgw(['sessions']);
    expect(bare).toMatchObject({ status: 2, stdout: '', stderr: `mcpgw: "sessions" needs a command:\n${line}` });
    // `mcpgw help sessions` is `mcpgw sessions --help`
    expect(await mcpgw(['help', 'sessions'])).toMatchObject({ status: 0, stdout: help.stdout });
  });

  test('mcpgw --help ends with the commands the loaded plugins register; a config that does not load is said', async () => {
    writeConfig({ root: './data' });
    for (const form of [['--help'], ['-h'], ['help']]) {
      const r = await mcpgw(form);
      expect(r.status).toBe(0);
      expect(r.stdout).toContain('  query [options] <file> <query>');
      expect(r.stdout.endsWith('\nPlugin commands (from the plugins the config loads):\n'
        + '  aggregate                       count, group, sum and bucket over a whole file and print a table (the explorer\'s aggregate tool)\n'
        + '  sessions index                  build or update the session-history search index (semantic_search) in the cache folder\n'
        + '  sql                             run one SQL SELECT over FILE (the view t) with DuckDB, locked down as sql_query; one JSON object per row\n'
        + 'Run mcpgw <command> --help for a plugin command\'s options.\n')).toBe(true);
    }
    writeConfig({ root: './data', plugins: ['./no-such-plugin.js'] });
    const broken = await mcpgw(['--help']);
    expect(broken.status).toBe(0);
    expect(broken.stdout).toMatch(/\nPlugin commands: not listed, the config did not load \(.*no-such-plugin.*\)\. Run mcpgw check\.\n$/);
  });

  test('an invalid --log-level choice exits 2', async () => {
    writeConfig({ root: './data' });
    const r = await mcpgw(['check', '--log-level', 'loud']);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('loud');
  });
});

describe('a fixture plugin\'s tools run over MCP', () => {
  let conn: Connected | undefined;
  afterEach(async () => {
    await conn?.close();
    conn = undefined;
  });

  test('hello_echo (ESM) and greet_hello (CJS) answer through a real MCP client', async () => {
    const cfgPath = writeConfig({ root: './data', plugins: [HELLO_ESM, GREET_CJS] });
    const other = path.join(tmp, 'run-here');
    fs.mkdirSync(other);
    conn = await connect(['--config', cfgPath], { cwd: other });

    const { tools } = await conn.client.listTools();
    const names = tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['open_file', 'hello_echo', 'greet_hello']));
    const echo = tools.find((t) => t.name === 'hello_echo')!;
    expect(echo.title).toBe('Echo');
    expect(echo.description).toBe('Echo text.');
    expect(echo.inputSchema.properties).toHaveProperty('text');

    const res = await call(conn.client, 'hello_echo', { text: 'world' });
    expect(res.isError).toBe(false);
    expect(res.data).toEqual({ echo: 'hello world', length: 5 });
    expect(JSON.parse(res.text)).toEqual({ echo: 'hello world', length: 5 });

    const greet = await call(conn.client, 'greet_hello', { name: 'Ada' });
    expect(greet.data).toEqual({ greeting: 'Hello, Ada!' });

    const bad = await call(conn.client, 'hello_echo', { text: 42 });
    expect(bad.isError).toBe(true);
    expect(bad.data.error.code).toBe('INVALID_ARGUMENT');
    expect(bad.data.error.message).toContain('text');

    // the root from the config (relative to the config file) is the one served
    const opened = await call(conn.client, 'open_file', { path: 'people.jsonl' });
    expect(opened.isError).toBe(false);
    expect(opened.data).toMatchObject({ path: 'people.jsonl', record_count: 1 });
  });
});
