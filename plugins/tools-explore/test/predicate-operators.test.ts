/**
 * A record predicate with an operator it does not have (`$.code =~ "^FR-"`) is named as such, at the operator, with the
 * forms that do what was meant (match()/search()) — not a JSONPath syntax error (found by the user trial); and the
 * forms suggested give Python's count; a bucket over a path of neither numbers nor times says why its key is null.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { call, connect, type Connected } from '../../../test/helpers/mcp';

let dir: string;
let c: Connected;
let handle: string;
const codes = ['FR-01', 'FR-02', 'DE-BY', 'XFR-1', 'fr-09'];
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-ops-'));
  fs.writeFileSync(path.join(dir, 'c.jsonl'), codes.map((code) => JSON.stringify({ code })).join('\n') + '\n');
  c = await connect(['--root', dir]);
  handle = (await call(c.client, 'open_file', { path: 'c.jsonl' })).data.handle;
});
afterAll(async () => {
  await c?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

test.each([['search'], ['aggregate']])('%s: "=~" is not a predicate operator, said at its position with match()/search()', async (tool) => {
  const r = await call(c.client, tool, tool === 'search' ? { handle, query: '$.code =~ "^FR-"' } : { handle, where: '$.code =~ "^FR-"' });
  expect(r.data.error).toMatchObject({ code: 'QUERY_SYNTAX_ERROR', location: { position: 7 } });
  expect(r.data.error.message).toBe('Bad record predicate at character 7: "=~" is not an operator of record predicates.');
  expect(r.data.error.hint).toContain('search($.code, "^FR-")');
});

test('the forms suggested: search() finds FR- at the start (case-sensitive: 2 of 5, as Python re.search)', async () => {
  const r = await call(c.client, 'aggregate', { handle, where: 'search($.code, "^FR-")', match_case: true });
  expect(r.data.records_matched).toBe(codes.filter((x) => /^FR-/.test(x)).length);
});

test('a bucket over a path that holds neither numbers nor times: one null group, and a hint saying why', async () => {
  const r = await call(c.client, 'aggregate', { handle, bucket: { path: 'code', width: '1h' } });
  expect(r.data.groups).toEqual([{ key: null, count: 5, unbucketable: ['code'] }]);
  expect(r.data.hint).toBe('No value of code could be bucketed: bucket needs numbers (width 100) or ISO 8601 / RFC 3339 times (width "1h"), and code holds neither. To count by its values, pass it as group_by.');
});
