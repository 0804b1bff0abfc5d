/**
 * A profile `extends` chain far longer than any real config (10,000 long once ended in a RangeError and exit 1):
 * a config error naming the bound, exit 2, for check and serve alike; stdout stays empty.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CLI, NODE } from '../helpers/mcp';

test('an extends chain 10,000 long → exit 2 with a config error (check and serve)', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-chain-'));
  try {
    fs.mkdirSync(path.join(dir, 'data'));
    const profiles: Record<string, unknown> = { p0: { bundles: ['explore'] } };
    for (let i = 1; i < 10_000; i++) profiles[`p${i}`] = { extends: `p${i - 1}` };
    fs.writeFileSync(path.join(dir, '.mcpgwrc.json'), JSON.stringify({ root: './data', profile: 'p9999', profiles }));
    for (const command of [['check'], ['serve']]) {
      const r = spawnSync(NODE, [CLI, ...command, '--config', path.join(dir, '.mcpgwrc.json')], { cwd: dir, env: { PATH: process.env.PATH ?? '', HOME: dir, XDG_CACHE_HOME: path.join(dir, 'cache') }, encoding: 'utf8', timeout: 30_000, input: '' });
      expect([command[0], r.status]).toEqual([command[0], 2]);
      expect(r.stderr).toContain('extends');
      expect(r.stderr).toContain('32');
      expect(r.stderr).not.toContain('RangeError');
      expect(r.stdout).toBe('');
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}, 60_000);

test('a chain of 32 profiles is served as one profile', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-chain-'));
  try {
    fs.mkdirSync(path.join(dir, 'data'));
    const profiles: Record<string, unknown> = { p0: { bundles: ['reader'] } };
    for (let i = 1; i < 32; i++) profiles[`p${i}`] = { extends: `p${i - 1}` };
    fs.writeFileSync(path.join(dir, '.mcpgwrc.json'), JSON.stringify({ root: './data', profile: 'p31', profiles }));
    const r = spawnSync(NODE, [CLI, 'list-tools', '--json', '--config', path.join(dir, '.mcpgwrc.json')], { cwd: dir, env: { PATH: process.env.PATH ?? '', HOME: dir, XDG_CACHE_HOME: path.join(dir, 'cache') }, encoding: 'utf8', timeout: 30_000 });
    expect(r.status).toBe(0);
    expect((JSON.parse(r.stdout) as { name: string }[]).map((t) => t.name).sort()).toEqual(['json_close', 'json_open', 'json_read']);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}, 60_000);
