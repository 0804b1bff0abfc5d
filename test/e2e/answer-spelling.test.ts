/**
 * Queries spelled the way assistants spell them, through the built CLI and a real MCP client: a text query written as
 * JSON (`"status": "failed"`) that the file spaces differently finds nothing and says which predicate finds it; `@`
 * (the current node, as JSONPath filters write it) names the unit in aggregate paths, as `$` does.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { call, connect, type Connected } from '../helpers/mcp';

const RECORDS = [
  { id: 1, status: 'failed', tags: ['a', 'b'] }, { id: 2, status: 'ok', tags: ['a'] }, { id: 3, status: 'failed', tags: [] }, { id: 4, status: 'ok', tags: ['c', 'a'] },
];
let tmp: string;
let c: Connected;
let handle: string;
beforeAll(async () => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-spell-')));
  fs.writeFileSync(path.join(tmp, 'ev.jsonl'), RECORDS.map((r) => JSON.stringify(r)).join('\n') + '\n'); // compact: "status":"failed"
  c = await connect(['--root', tmp]);
  handle = (await call(c.client, 'open_file', { path: 'ev.jsonl' })).data.handle;
});
afterAll(async () => {
  await c.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

test('"status":"failed" as the file writes it: found in the raw text; spaced otherwise: nothing, with the predicate that finds it', async () => {
  const failed = RECORDS.filter((r) => r.status === 'failed').map((r) => r.id - 1);
  const raw = (await call(c.client, 'search', { handle, query: '"status":"failed"' })).data;
  expect(raw.matches.map((m: { record_index: number }) => m.record_index)).toEqual(failed);
  expect(raw.hint).toBeUndefined();
  const spaced = (await call(c.client, 'search', { handle, query: '"status": "failed"' })).data;
  expect(spaced.total_matches).toBe(0);
  expect(spaced.hint).toBe('Nothing matched: text search finds a query inside one member name or value, or in a record\'s raw text exactly as the file '
    + 'writes it (its spacing and escapes may differ from "\\"status\\": \\"failed\\""). To test the member whatever its spelling, search the predicate $.status == "failed".');
  const predicate = (await call(c.client, 'search', { handle, query: '$.status == "failed"' })).data;
  expect(predicate.matches.map((m: { record_index: number }) => m.record_index)).toEqual(failed);
  // No hint for an empty answer of a plain word.
  expect((await call(c.client, 'search', { handle, query: 'nowhere' })).data.hint).toBeUndefined();
});

test('aggregate: group_by "@" is the unit itself, as "$" is (each tag), and "@.status" a member of it', async () => {
  const counts = new Map<string, number>();
  for (const r of RECORDS) for (const t of r.tags) counts.set(t, (counts.get(t) ?? 0) + 1);
  const expected = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([key, count]) => ({ key, count }));
  for (const g of ['@', '$']) {
    const r = (await call(c.client, 'aggregate', { handle, each: '$.tags[*]', group_by: [g] })).data;
    expect({ g, groups: r.groups }).toEqual({ g, groups: expected });
  }
  const byStatus = (await call(c.client, 'aggregate', { handle, group_by: ['@.status'] })).data;
  expect(byStatus.groups).toEqual([{ key: 'failed', count: 2 }, { key: 'ok', count: 2 }]);
});
