/**
 * `mcpgw plugin new <format|language|tools> <name>` (src/cli/plugin-new.ts), without the network: the built CLI
 * writes each kind of package into a temporary folder, whose node_modules then link this checkout as `mcpgw` (what
 * the package's own `file:` devDependency gives) and mcpgw's zod and Node types; the three packages build with one
 * TypeScript run (tsc -b) and each passes its own test (Node's test runner over the tool tester).
 * test/e2e/plugin-new-package.test.ts does the same with `npm install` of the packed mcpgw (`npm run test:package`).
 * The mcpgw commands run on the CLI host (test/helpers/cli-host.ts: the built CLI's main() in one process), but for
 * one refusal run as a process of its own, whose exit code is the process's.
 */
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CLI, NODE, REPO } from '../helpers/mcp';
import { startCliHost, type CliHost, type CliRun } from '../helpers/cli-host';

const TSC = path.join(REPO, 'node_modules', 'typescript', 'bin', 'tsc');
const KINDS = [
  ['tools', 'mcpgw-tools-stats', 'mcpgw-tools-stats', 2],
  ['format', 'mcpgw-format-logfmt', 'mcpgw-format-logfmt', 2],
  ['language', '@acme/mcpgw-language-dots', 'mcpgw-language-dots', 1],
] as const;
let tmp: string;
/** Each kind's `plugin new` run and its folder's listing as written (before node_modules is linked). */
const made = new Map<string, { run: CliRun; listing: string[] }>();
/** The one TypeScript build of the three packages. */
let built: SpawnSyncReturns<string>;

let host: CliHost;
const mcpgw = (args: string[], cwd: string) => host.run(args, cwd, { PATH: process.env.PATH ?? '' });
/** `mcpgw ARGS` as a process of its own. */
const mcpgwProcess = (args: string[], cwd: string) => spawnSync(NODE, [CLI, ...args], { cwd, encoding: 'utf8', env: { PATH: process.env.PATH ?? '' }, timeout: 60_000 });
const packageTest = (dir: string) => spawnSync(NODE, ['--test', 'test/plugin.test.mjs'], { cwd: dir, encoding: 'utf8', env: { PATH: process.env.PATH ?? '', XDG_CACHE_HOME: tmp }, timeout: 120_000 });

/** Links what `npm install` would put in the package's node_modules: this checkout as mcpgw, mcpgw's zod and @types/node. */
function linkDependencies(dir: string): void {
  fs.mkdirSync(path.join(dir, 'node_modules', '@types'), { recursive: true });
  fs.symlinkSync(REPO, path.join(dir, 'node_modules', 'mcpgw'));
  fs.symlinkSync(path.join(REPO, 'node_modules', 'zod'), path.join(dir, 'node_modules', 'zod'));
  fs.symlinkSync(path.join(REPO, 'node_modules', '@types', 'node'), path.join(dir, 'node_modules', '@types', 'node'));
}

beforeAll(async () => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-plugin-new-')));
  host = startCliHost();
  for (const [kind, name, folder] of KINDS) {
    const run = await mcpgw(['plugin', 'new', kind, name], tmp);
    const dir = path.join(tmp, folder);
    const listing = fs.existsSync(dir) ? fs.readdirSync(dir).sort() : [];
    made.set(kind, { run, listing });
    if (fs.existsSync(dir)) linkDependencies(dir);
  }
  // One TypeScript process builds the three packages (tsc -b, each its own tsconfig.json): a process each cost a
  // TypeScript start and a read of Node's types apiece.
  built = spawnSync(NODE, [TSC, '-b', ...KINDS.map(([, , folder]) => path.join(tmp, folder))], { cwd: tmp, encoding: 'utf8' });
}, 180_000);
afterAll(async () => {
  try { await host?.close(); } finally { fs.rmSync(tmp, { recursive: true, force: true }); }
});

test.each(KINDS)('plugin new %s %s: a package that builds and passes its own test', (kind, name, folder, tests) => {
  const { run: r, listing } = made.get(kind)!;
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  const dir = path.join(tmp, folder);
  expect(r.stdout).toContain(`wrote ${path.join(dir, 'src', 'index.ts')}`);
  expect(listing).toEqual(['.gitignore', 'README.md', 'package.json', 'src', 'test', 'tsconfig.json']);
  const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
  expect(pkg).toMatchObject({
    name, main: 'dist/index.js', peerDependencies: { mcpgw: '^0.1.0', zod: '^4.0.0' },
    devDependencies: { mcpgw: `file:${REPO}`, zod: JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')).dependencies.zod },
  });
  expect(built.stdout + built.stderr).toBe('');
  expect(built.status).toBe(0);
  expect(fs.readdirSync(path.join(dir, 'dist')).filter((f) => !f.endsWith('.tsbuildinfo')).sort()).toEqual(['index.d.ts', 'index.js']);
  const tested = packageTest(dir);
  expect({ status: tested.status, out: tested.stdout.match(/^# (pass|fail) \d+$/gm) }).toEqual({ status: 0, out: [`# pass ${tests}`, '# fail 0'] });
}, 180_000);

test('the package\'s test fails when the plugin is broken (the test is no formality)', () => {
  // Broken in its build (target ES2023 keeps the statement as written), so no second TypeScript run is needed.
  const dir = path.join(tmp, 'mcpgw-tools-stats');
  const js = path.join(dir, 'dist', 'index.js');
  const text = fs.readFileSync(js, 'utf8');
  expect(text.split('records += batch.count;').length).toBe(2);
  fs.writeFileSync(js, text.replace('records += batch.count;', 'records += batch.count + 1;'));
  const tested = packageTest(dir);
  expect(tested.status).not.toBe(0);
  expect(tested.stdout).toMatch(/^# fail [12]$/m);
}, 180_000);

test('mcpgw --help names plugin new; mcpgw plugin new --help its arguments', async () => {
  const help = await mcpgw(['--help'], tmp);
  expect(help.status).toBe(0);
  expect(help.stdout).toMatch(/^ {2}plugin +plugin development: `plugin new` writes a$/m);
  const own = await mcpgw(['plugin', 'new', '--help'], tmp);
  expect(own.status).toBe(0);
  expect(own.stdout).toContain('Usage: mcpgw plugin new [options] <kind> <name>');
  expect(own.stdout).toContain('format, language or tools');
});

test('refusals exit 2 with what to do: an unknown kind, a name npm refuses, a folder that is not empty', async () => {
  const kind = mcpgwProcess(['plugin', 'new', 'theme', 'x'], tmp);
  expect({ status: kind.status, stderr: kind.stderr }).toEqual({ status: 2, stderr: 'mcpgw: plugin new: the kind is one of format, language, tools, not "theme".\n' });
  const name = await mcpgw(['plugin', 'new', 'tools', 'My Tools'], tmp);
  expect(name.status).toBe(2);
  expect(name.stderr).toContain('"My Tools" is not an npm package name');
  fs.mkdirSync(path.join(tmp, 'taken'));
  fs.writeFileSync(path.join(tmp, 'taken', 'keep.txt'), 'mine\n');
  const taken = await mcpgw(['plugin', 'new', 'tools', 'taken'], tmp);
  expect(taken.status).toBe(2);
  expect(taken.stderr).toBe(`mcpgw: plugin new: ${path.join(tmp, 'taken')} exists and is not empty; give another name or --dir.\n`);
  expect(fs.readdirSync(path.join(tmp, 'taken'))).toEqual(['keep.txt']);
});
