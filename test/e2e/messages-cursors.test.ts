/**
 * What the messages say is true: a full search (or aggregate) cursor table says what frees a cursor (no tool closes
 * one), an unknown aggregate cursor is "an aggregate cursor", and json_read of a query into a JSON Lines record over
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

test('a full search cursor table says what frees a cursor: paging to the end or expiry, no tool', async () => {
  const handle = (await call(server.client, 'open_file', { path: 'rows.jsonl' })).data.handle;
  for (let k = 0; k < 2; k++) expect(typeof (await call(server.client, 'search', { handle, query: '$.i', max_results: 1 })).data.next_cursor).toBe('string');
  const full = await call(server.client, 'search', { handle, query: '$.i', max_results: 1 });
  expect(full.data.error.code).toBe('RESOURCE_LIMIT_EXCEEDED');
  expect(full.data.error.limit).toMatchObject({ name: 'maxCursors', limit: 2 });
  expect(full.data.error.hint).not.toMatch(/^Close/);
  expect(full.data.error.hint).toContain('No tool closes a search cursor');
  expect(full.data.error.hint).toContain('paged to the end');
  expect(full.data.error.hint).toContain('600 s unused (cursorIdleMs)');
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
