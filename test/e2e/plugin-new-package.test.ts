/**
 * The scaffold as a plugin author meets it (`npm run test:package`: needs the npm registry or npm's cache): this
 * repository packed (`npm pack`, the built-ins bundled), `mcpgw plugin new` of each kind with `--mcpgw` pointing at
 * that tarball, then in each package `npm install` and `npm test` as written — TypeScript build, then Node's test
 * runner over the installed mcpgw's tool tester.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { CLI, NODE, REPO } from '../helpers/mcp';
import { cleanEnv, INSTALL, pack } from '../helpers/packages';

let tmp: string;
let tarball: string;
beforeAll(() => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-plugin-new-pkg-')));
  tarball = pack(REPO, path.join(tmp, 'tarballs'));
}, 240_000);
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

// npm scripts find Node 22 (the package's engines) first on PATH, as a developer's shell would.
const env = () => cleanEnv({ PATH: `${path.dirname(NODE)}${path.delimiter}${process.env.PATH ?? ''}`, XDG_CACHE_HOME: path.join(tmp, 'cache') });

test.each([
  ['tools', 'mcpgw-tools-stats', 2],
  ['format', 'mcpgw-format-logfmt', 2],
  ['language', 'mcpgw-language-dots', 1],
] as const)('plugin new %s %s, npm install, npm test: the package passes its own test', (kind, name, tests) => {
  const made = spawnSync(NODE, [CLI, 'plugin', 'new', kind, name, '--mcpgw', tarball], { cwd: tmp, encoding: 'utf8', env: env() });
  expect(made.stderr).toBe('');
  expect(made.status).toBe(0);
  const dir = path.join(tmp, name);
  expect(JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')).devDependencies.mcpgw).toBe(tarball);
  const installed = spawnSync('npm', INSTALL, { cwd: dir, encoding: 'utf8', env: env(), timeout: 240_000 });
  expect({ status: installed.status, stderr: installed.stderr }).toEqual({ status: 0, stderr: '' });
  const tested = spawnSync('npm', ['test'], { cwd: dir, encoding: 'utf8', env: env(), timeout: 240_000 });
  expect({ status: tested.status, out: tested.stdout.match(/^# (pass|fail) \d+$/gm) }).toEqual({ status: 0, out: [`# pass ${tests}`, '# fail 0'] });
}, 480_000);
