/**
 * A query written for the other addressing mode finds nothing, and the answer says why: in the explorer each record
 * is `$`, so `$[?@.status == "failed"]` tests a record's children; in json_read `$` is the whole file, so `$.status`
 * names a member of the array of records. Through the built CLI and a real MCP client; expected values from the data.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { call, connect, type Connected } from '../helpers/mcp';

const STATUSES = ['ok', 'ok', 'failed', 'ok', 'pending', 'failed', 'ok', 'ok', 'failed', 'ok'];
const FIRST_FAILED = STATUSES.indexOf('failed');
const FAILED = STATUSES.filter((s) => s === 'failed').length;
let tmp: string;
let c: Connected;
let handle: string;
beforeAll(async () => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-addr-')));
  fs.writeFileSync(path.join(tmp, 'ev.jsonl'), STATUSES.map((status, id) => JSON.stringify({ id, status, user: { name: `u${id}` } })).join('\n') + '\n');
  c = await connect(['--root', tmp]);
  handle = (await call(c.client, 'open_file', { path: 'ev.jsonl' })).data.handle;
});
afterAll(async () => {
  await c.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

test('explorer: $[?@.status == "failed"] finds nothing in records holding status; the hint says it matches with $ as the file, and how to test the record', async () => {
  const r = (await call(c.client, 'search', { handle, query: '$[?@.status == "failed"]', mode: 'jsonpath' })).data;
  expect(r.total_matches).toBe(0);
  expect(r.complete).toBe(true);
  expect(r.hint).toBe('Each record is $ here, so a first segment $[…] looks at the children of a record, and none matched. With $ as the whole '
    + `file (an array of the records) the query does match, first at /${FIRST_FAILED}. To select records by their own members, test the `
    + 'record\'s member itself (e.g. $.status == "failed" rather than $[?@.status == "failed"]).');
  // What the hint points to finds them.
  const p = (await call(c.client, 'search', { handle, query: '$.status == "failed"', match_case: true })).data;
  expect(p.total_matches).toBe(FAILED);
  expect(p.matches[0].record_index).toBe(FIRST_FAILED);
});

test('explorer: no hint when the query matches nothing either way, nor for a first segment that is not a filter, index or slice', async () => {
  const none = (await call(c.client, 'search', { handle, query: '$[?@.status == "lost"]', mode: 'jsonpath' })).data;
  expect(none.total_matches).toBe(0);
  expect(none.hint).toBeUndefined();
  const child = (await call(c.client, 'search', { handle, query: '$.user[?@ == "nobody"]', mode: 'jsonpath' })).data;
  expect(child.total_matches).toBe(0);
  expect(child.hint).toBeUndefined();
  const pred = (await call(c.client, 'search', { handle, query: '$.status == "lost"', match_case: true })).data;
  expect(pred.total_matches).toBe(0);
  expect(pred.hint).toBeUndefined();
});

test('explorer: $[0] (the first element of something in each record) gets the hint too; $[0] over the file is record 0', async () => {
  const r = (await call(c.client, 'search', { handle, query: '$[0]', mode: 'jsonpath' })).data;
  expect(r.total_matches).toBe(0);
  expect(r.hint).toContain('first at /0.');
});

test('json_read: $.status finds nothing with $ as the file; the hint says it matches in each record, first in record 0', async () => {
  const fid = (await call(c.client, 'json_open', { path: 'ev.jsonl' })).data.file_id;
  const r = (await call(c.client, 'json_read', { file_id: fid, language: 'jsonpath', query: '$.status' })).data;
  expect(r.items).toEqual([]);
  expect(r.hint).toBe('$ is the whole file here (an array of the records), so a member name right after $ names nothing. With each record as $ '
    + 'the query matches, first in record 0 at /status: write $[*].name for a member of every record, or $[?@.name == …] to select records.');
  const all = (await call(c.client, 'json_read', { file_id: fid, language: 'jsonpath', query: '$[?@.status == "failed"].id' })).data;
  expect(all.items.map((i: { value: number }) => i.value)).toEqual(STATUSES.flatMap((s, i) => (s === 'failed' ? [i] : [])));
  expect(all.hint).toBeUndefined();
  await call(c.client, 'json_close', { file_id: fid });
});
