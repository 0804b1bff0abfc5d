/**
 * Config discovery passes over folders it cannot read — an unreadable, non-folder or looping `~/.config` — instead of
 * failing start-up (exit 2), and searches the same folders, in the same order, as cosmiconfig's "global" strategy.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadConfig } from '../../src/kernel/config';
import { discoveryFolders, globalConfigFolder } from '../../src/kernel/config/load';
import { CLI, NODE } from '../helpers/mcp';

/** A fresh home folder (passed to discovery; the CLI test gives it as HOME). */
let home: string;
const savedXdg = process.env.XDG_CONFIG_HOME;
beforeEach(() => {
  home = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-home-')));
  delete process.env.XDG_CONFIG_HOME;
});
afterEach(() => {
  if (savedXdg !== undefined) process.env.XDG_CONFIG_HOME = savedXdg;
  fs.chmodSync(home, 0o755);
  for (const e of fs.readdirSync(home)) try { fs.chmodSync(path.join(home, e), 0o755); } catch { /* a link */ }
  fs.rmSync(home, { recursive: true, force: true });
});

test('the folders and their order are cosmiconfig\'s "global" ones (its own config folder included)', () => {
  const cwd = path.join(home, 'a', 'b');
  expect(discoveryFolders(cwd, home)).toEqual([
    { dir: cwd, global: false }, { dir: path.join(home, 'a'), global: false }, { dir: home, global: false },
    { dir: path.join(home, '.config', 'mcpgw'), global: true },
  ]);
  // cosmiconfig's own computation (its explorer class; the public explorer does not expose it), for this process's home.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { Explorer } = require('cosmiconfig/dist/Explorer') as { Explorer: new (o: object) => { getGlobalConfigDir(): string } };
  expect(globalConfigFolder()).toBe(new Explorer({ moduleName: 'mcpgw', searchPlaces: [], loaders: {} }).getGlobalConfigDir());
});

test.each([
  ['a file', (p: string) => fs.writeFileSync(p, 'not a folder')],
  ['a symlink loop', (p: string) => fs.symlinkSync(p, p)],
])('~/.config that is %s is skipped: the config below is found, the folder named', async (_, make) => {
  make(path.join(home, '.config'));
  const project = path.join(home, 'project');
  fs.mkdirSync(project);
  expect(await loadConfig(undefined, project, home)).toEqual({ config: {}, filepath: null, dir: project, skipped: [path.join(home, '.config', 'mcpgw')] });
  fs.writeFileSync(path.join(project, '.mcpgwrc.json'), '{"root":"data"}');
  expect(await loadConfig(undefined, project, home)).toMatchObject({ config: { root: 'data' }, filepath: path.join(project, '.mcpgwrc.json') });
});

test('the user config folder is still read when readable', async () => {
  fs.mkdirSync(path.join(home, '.config', 'mcpgw'), { recursive: true });
  fs.writeFileSync(path.join(home, '.config', 'mcpgw', 'config.json'), '{"logLevel":"info"}');
  const loaded = await loadConfig(undefined, home, home);
  expect(loaded).toMatchObject({ config: { logLevel: 'info' }, filepath: path.join(home, '.config', 'mcpgw', 'config.json') });
  expect(loaded.skipped).toBeUndefined();
});

test('mcpgw check as an unprivileged user whose ~/.config cannot be read: exit 0, not 2', () => {
  const root = path.join(home, 'data');
  fs.mkdirSync(root);
  fs.mkdirSync(path.join(home, '.config'));
  fs.chmodSync(path.join(home, '.config'), 0o000);
  const asRoot = process.getuid?.() === 0;
  // As root, permissions do not apply: the check runs as "nobody" (uid 65534); otherwise as this user.
  if (asRoot) fs.chmodSync(home, 0o755);
  const out = spawnSync(NODE, [CLI, 'check', '--root', root], {
    cwd: home, encoding: 'utf8', timeout: 60_000,
    env: { PATH: process.env.PATH ?? '', XDG_CACHE_HOME: process.env.XDG_CACHE_HOME ?? '', HOME: home },
    ...(asRoot ? { uid: 65534, gid: 65534 } : {}),
  });
  if ((out.error as NodeJS.ErrnoException | undefined)?.code === 'EPERM') return; // this system lets no process change its user
  expect(out.stderr).toBe('');
  expect(out.status).toBe(0);
  expect(out.stdout).toMatch(/\nok\n$/);
}, 90_000);
