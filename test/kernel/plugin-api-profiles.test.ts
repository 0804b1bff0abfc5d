/**
 * Shareable profiles (`extends: "<npm package>"`, docs/architecture.md "Configuration"): where packages are looked
 * up — the config file's folder first, then mcpgw's own folder — and how they merge. The CLI paths
 * (ESM-only packages, error exits) are in test/e2e/profiles.test.ts.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { resolveConfig } from '../../src/kernel/config';

let tmp: string;
beforeEach(() => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-share-')));
});
afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

function pkg(base: string, name: string, profile: unknown): void {
  const dir = path.join(tmp, base, 'node_modules', name);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name, version: '1.0.0' }));
  fs.writeFileSync(path.join(dir, 'index.js'), `module.exports = ${JSON.stringify(profile)};\n`);
}

const resolve = (profiles: Record<string, unknown>, profile: string) =>
  resolveConfig({ config: { root: '.', profiles: profiles as never, profile }, dir: path.join(tmp, 'project') }, {}, {}, tmp, { ownDir: path.join(tmp, 'mcpgw') });

test('a package next to the config wins over one in mcpgw\'s folder; mcpgw\'s folder is the fallback', () => {
  fs.mkdirSync(path.join(tmp, 'project'));
  pkg('mcpgw', 'mcpgw-profile-readonly', { bundles: ['explore'], deny: ['close_file'], limits: { maxItems: 10 } });
  const fallback = resolve({ team: { extends: 'mcpgw-profile-readonly', limits: { maxDepth: 50 } } }, 'team');
  expect(fallback).toMatchObject({ bundles: ['explore'], deny: ['close_file'] });
  expect(fallback.limits).toMatchObject({ maxItems: 10, maxDepth: 50 });

  pkg('project', 'mcpgw-profile-readonly', { bundles: ['reader'] });
  expect(resolve({ team: { extends: 'mcpgw-profile-readonly' } }, 'team')).toMatchObject({ bundles: ['reader'], deny: [] });
});

test('a config profile of the same name as a package is the one taken', () => {
  fs.mkdirSync(path.join(tmp, 'project'));
  pkg('project', 'base', { bundles: ['reader'] });
  expect(resolve({ base: { bundles: ['explore'] }, team: { extends: 'base' } }, 'team').bundles).toEqual(['explore']);
});

test('a cycle through packages is named', () => {
  fs.mkdirSync(path.join(tmp, 'project'));
  pkg('project', 'p-a', { extends: 'p-b' });
  pkg('project', 'p-b', { extends: 'p-a' });
  expect(() => resolve({ team: { extends: 'p-a' } }, 'team')).toThrow('Profiles extend each other in a cycle: team → p-a → p-b → p-a.');
});
