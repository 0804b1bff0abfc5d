/**
 * `requires` through the BUILT CLI: a plugin whose requirement no loaded plugin registers stops start-up with exit 2
 * and a message naming both plugins, for `check` and `serve` alike, before anything is served.
 * Requires a build: `npm test` runs `tsc -b` before jest.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CLI, NODE, REPO } from '../helpers/mcp';

const NEEDS_JQ = path.join(REPO, 'test', 'fixtures', 'plugins', 'needs-jq.cjs');
let tmp: string;
beforeEach(() => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-req-')));
  fs.mkdirSync(path.join(tmp, 'data'));
  fs.writeFileSync(path.join(tmp, 'data', 'a.jsonl'), '{"id":1}\n');
});
afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

function mcpgw(config: unknown, args: string[]) {
  fs.writeFileSync(path.join(tmp, '.mcpgwrc.json'), JSON.stringify(config));
  const r = spawnSync(NODE, [CLI, ...args], { cwd: tmp, input: '', encoding: 'utf8', timeout: 30_000, env: { PATH: process.env.PATH ?? '', XDG_CACHE_HOME: process.env.XDG_CACHE_HOME ?? '', HOME: tmp } });
  if (r.error) throw r.error;
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

const EXPLORE_WITHOUT_JSONPATH =
  'mcpgw: Plugin @mcpgw/tools-explore@0.1.0: requires query language "jsonpath", which no loaded plugin registers. '
  + 'Load @mcpgw/query-jsonpath, which provides it (config "builtins" or "plugins").\n';

test.each([['check'], ['serve'], ['list-tools']])('the explorer without the jsonpath plugin: %s exits 2 naming both plugins', (command) => {
  const r = mcpgw({ root: './data', builtins: ['format-jsonl', 'query-pointer', 'tools-explore'] }, [command]);
  expect(r.stderr).toBe(EXPLORE_WITHOUT_JSONPATH);
  expect(r.status).toBe(2);
  expect(r.stdout).toBe('');
});

test('a third-party plugin requiring jq without the jq plugin: exit 2 naming it and mcpgw-query-jq', () => {
  const r = mcpgw({ root: './data', plugins: [NEEDS_JQ] }, ['check']);
  expect(r.stderr).toBe(
    'mcpgw: Plugin mcpgw-tools-jqpeek@0.2.0: requires query language "jq", which no loaded plugin registers. '
    + 'Load mcpgw-query-jq, which provides it (config "builtins" or "plugins").\n',
  );
  expect(r.status).toBe(2);
});

test('with the required plugin loaded, start-up succeeds and mcpgw plugins lists the requirement', () => {
  const config = { root: './data', builtins: ['format-jsonl', 'query-jsonpath', 'tools-explore'] };
  const check = mcpgw(config, ['check']);
  expect(check.status).toBe(0);
  expect(check.stdout).toContain('ok\n');
  const listed = JSON.parse(mcpgw(config, ['plugins', '--json']).stdout) as { name: string; requires?: unknown }[];
  expect(listed.find((p) => p.name === '@mcpgw/tools-explore')!.requires).toEqual([{ kind: 'queryLanguage', name: 'jsonpath', providedBy: '@mcpgw/query-jsonpath' }]);
  expect(mcpgw(config, ['plugins']).stdout).toContain('  requires: query language jsonpath (from @mcpgw/query-jsonpath)\n');
});
