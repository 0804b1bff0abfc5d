/**
 * A misspelled group_by path gives one group of missing values, and says so: the hint names the member no record has
 * and the nearest names seen, as search does (ctx.scan.missingMembers). Through the real MCP client and the CLI;
 * expected values by hand from the three records written here.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { call, CLI, connect, NODE, type Connected } from '../../../test/helpers/mcp';

let dir: string;
let c: Connected;
let handle: string;
beforeAll(async () => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-agg-typo-')));
  fs.writeFileSync(path.join(dir, 'ev.jsonl'), ['{"status":"ok","user":{"country":"FR"}}', '{"status":"failed","user":{"country":"DE"}}', '{"status":"ok","user":{"country":"FR"}}'].join('\n') + '\n');
  c = await connect(['--root', dir]);
  handle = (await call(c.client, 'open_file', { path: 'ev.jsonl' })).data.handle;
});
afterAll(async () => {
  await c.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('group_by "statsu": one group of missing values, and a hint naming "status"', async () => {
  const r = await call(c.client, 'aggregate', { handle, group_by: 'statsu' });
  expect(r.data.groups).toEqual([{ key: null, count: 3, missing: ['statsu'] }]);
  expect(r.data.hint).toMatch(/^Every record lacks statsu: no record \(all 3 examined\) has a member named "statsu" \(nearest names seen: "status"[,)]/);
  const nested = await call(c.client, 'aggregate', { handle, group_by: ['status', 'user.contry'] });
  expect(nested.data.hint).toMatch(/Every record lacks user\.contry: .* "contry" \(nearest names seen: "country"/);
  // a right spelling: no hint
  const right = await call(c.client, 'aggregate', { handle, group_by: 'status' });
  expect(right.data.groups.map((g: any) => [g.key, g.count])).toEqual([['ok', 2], ['failed', 1]]);
  expect(right.data.hint).toBeUndefined();
});

test('the CLI prints the hint on stderr', () => {
  const r = spawnSync(NODE, [CLI, 'aggregate', path.join(dir, 'ev.jsonl'), '-g', 'statsu'], { encoding: 'utf8' });
  expect(r.status).toBe(0);
  expect(r.stderr).toContain('mcpgw: hint: Every record lacks statsu');
});
