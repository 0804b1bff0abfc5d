/**
 * What the messages say is true: a full search cursor table drops its least recently used cursor and a late use of it
 * says so, an unknown aggregate cursor is "an aggregate cursor", and json_read of a query into a JSON Lines record over
 * maxRecordBytes answers what get_value_at_path answers. Through a real MCP client against the built CLI.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { call, connect, type Connected } from '../helpers/mcp';

let dir: string;
let server: Connected;

beforeAll(async () => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-messages-')));
  fs.mkdirSync(path.join(dir, 'root'));
  fs.writeFileSync(path.join(dir, 'root', 'rows.jsonl'), Array.from({ length: 20 }, (_, i) => JSON.stringify({ i, g: i % 4 })).join('\n') + '\n');
  fs.writeFileSync(path.join(dir, 'root', 'big.jsonl'), JSON.stringify({ head: 1, pad: 'x'.repeat(5000), tail: { a: 1 } }) + '\n' + JSON.stringify({ head: 2, tail: 3 }) + '\n');
  fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify({ root: 'root', limits: { maxCursors: 2, maxRecordBytes: 1000, cursorIdleMs: 600_000 } }));
  server = await connect(['--config', path.join(dir, 'config.json')]);
});
afterAll(async () => {
  await server?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('a full search cursor table drops its least recently used cursor, and a use of it says why', async () => {
  const handle = (await call(server.client, 'open_file', { path: 'rows.jsonl' })).data.handle;
  const first = (await call(server.client, 'search', { handle, query: '$.i', max_results: 1 })).data;
  const second = (await call(server.client, 'search', { handle, query: '$.g', max_results: 1 })).data;
  expect(first.matches[0].record_index).toBe(0);
  // The first is used again (a page), so the second is the least recently used when a third search needs room.
  const firstNext = (await call(server.client, 'search', { handle, query: '$.i', max_results: 1, cursor: first.next_cursor })).data;
  expect(firstNext.matches[0].record_index).toBe(1);
  const third = await call(server.client, 'search', { handle, query: '$.i', max_results: 1 });
  expect(third.isError).toBeFalsy();
  expect(third.data.matches[0].record_index).toBe(0);
  const dropped = await call(server.client, 'search', { handle, query: '$.g', max_results: 1, cursor: second.next_cursor });
  expect(dropped.data.error.code).toBe('HANDLE_EXPIRED');
  expect(dropped.data.error.message).toContain('was dropped to make room: 2 search cursors (maxCursors) were open and it was the least recently used');
  expect(dropped.data.error.limit).toMatchObject({ name: 'maxCursors', limit: 2 });
  // The more recently used one pages on.
  expect((await call(server.client, 'search', { handle, query: '$.i', max_results: 1, cursor: firstNext.next_cursor })).data.matches[0].record_index).toBe(2);
});

test('an unknown aggregate cursor: "Pass an aggregate cursor"', async () => {
  const handle = (await call(server.client, 'open_file', { path: 'rows.jsonl' })).data.handle;
  const r = await call(server.client, 'aggregate', { handle, group_by: 'g', cursor: 'ac_0000000000000000' });
  expect(r.data.error.code).toBe('NOT_FOUND');
  expect(r.data.error.hint).toMatch(/^Pass an aggregate cursor this server returned/);
});

test('json_read into a JSON Lines record over maxRecordBytes reads what get_value_at_path reads', async () => {
  const handle = (await call(server.client, 'open_file', { path: 'big.jsonl' })).data.handle;
  const v = await call(server.client, 'get_value_at_path', { handle, index: 0, path: '/tail' });
  expect(JSON.parse(v.data.value)).toEqual({ a: 1 });
  for (const [language, query] of [['pointer', '/0/tail'], ['jsonpath', '$[0].tail']] as const) {
    const r = await call(server.client, 'json_read', { path: 'big.jsonl', language, query });
    expect(r.data.error).toBeUndefined();
    expect(r.data.items).toEqual([{ path: '/0/tail', value: { a: 1 } }]);
    expect(r.data.stats.skipped).toBe(0);
  }
});
