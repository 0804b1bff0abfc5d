/**
 * Every page advances, at the smallest maxResultBytes the config allows (4096): a page holds at least one item even
 * when that item alone passes the page's byte budget (the cut says so), and following next_offset reaches every
 * item once; a maxResultBytes under the minimum is refused at start. Through a real MCP client against the built CLI.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { call, CLI, connect, NODE, type Connected } from '../helpers/mcp';

let dir: string;
let server: Connected;
/** Member names of 1,100 characters: each costs over the 2 KiB a 4 KiB answer has for its keys. */
const names = Array.from({ length: 5 }, (_, i) => `k${i}`.padEnd(1100, String.fromCharCode(97 + i)));
/** A folder path of over 2 KiB, so that one list_files entry alone passes the budget. */
const deep = Array.from({ length: 9 }, (_, i) => `${i}`.padEnd(240, 'd'));

beforeAll(async () => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-pages-')));
  fs.mkdirSync(path.join(dir, 'root', ...deep), { recursive: true });
  fs.writeFileSync(path.join(dir, 'root', 'long-keys.jsonl'), names.map((n, i) => JSON.stringify({ [n]: i })).join('\n') + '\n');
  fs.writeFileSync(path.join(dir, 'root', 'big-record.jsonl'), JSON.stringify({ text: 'y'.repeat(20_000) }) + '\n{"text":"z"}\n');
  for (const f of ['a.jsonl', 'b.jsonl']) fs.writeFileSync(path.join(dir, 'root', ...deep, f), '{"a":1}\n');
  fs.writeFileSync(path.join(dir, 'small.json'), JSON.stringify({ root: 'root', limits: { maxResultBytes: 4096 } }));
  server = await connect(['--config', path.join(dir, 'small.json')]);
});
afterAll(async () => {
  await server?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('extract_keys: one key a page when one alone passes the budget; next_offset always moves on', async () => {
  const handle = (await call(server.client, 'open_file', { path: 'long-keys.jsonl' })).data.handle;
  const seen: string[] = [];
  const offsets: number[] = [];
  let offset = 0;
  for (let k = 0; k < 20; k++) {
    const page = await call(server.client, 'extract_keys', { handle, offset });
    expect(page.isError).toBe(false);
    expect(page.data.keys).toHaveLength(1);
    seen.push(...page.data.keys);
    offsets.push(offset);
    if (page.data.next_offset === undefined) break;
    expect(page.data.cut.at).toContain('alone passes');
    offset = page.data.next_offset;
  }
  expect(offsets).toEqual([0, 1, 2, 3, 4]);
  expect(seen).toEqual([...names].sort());
});

test('list_files: a listing whose first entry alone passes the budget still lists it, and says so', async () => {
  const r = await call(server.client, 'list_files', { glob: '*.jsonl' });
  expect(r.isError).toBe(false);
  const shown = [...deep, 'a.jsonl'].join('/');
  expect(r.data.files.map((f: { path: string }) => f.path)).toEqual([shown]);
  expect(r.data.truncated).toBe(true);
  expect(r.data.cut.at).toContain('alone passes the byte budget');
  // narrowing (the cut's remedy) reaches the next one
  const narrowed = await call(server.client, 'list_files', { glob: 'b.jsonl' });
  expect(narrowed.data.files.map((f: { path: string }) => f.path)).toEqual([[...deep, 'b.jsonl'].join('/')]);
});

test('sample_records: a record longer than the page carries its first part, as get_record does, never an error', async () => {
  const handle = (await call(server.client, 'open_file', { path: 'big-record.jsonl' })).data.handle;
  const r = await call(server.client, 'sample_records', { handle, count: 2 });
  expect(r.isError).toBe(false);
  // record 0 cut at (4096 - 2048) / 2 bytes of its text, as get_record cuts it; record 1 whole
  expect(r.data.records.map((x: { index: number }) => x.index)).toEqual([0, 1]);
  expect(r.data.records[0]).toMatchObject({ index: 0, truncated: true, record_bytes: 20_000 + '{"text":""}'.length });
  expect(r.data.records[0].record.startsWith(`{"text":"${'y'.repeat(1024 - 9)}… [cut at 1024 of 20011 bytes: get_record 0`)).toBe(true);
  expect(r.data.records[1]).toEqual({ index: 1, record: '{"text":"z"}' });
});

test('a maxResultBytes under 4096 is refused at start, naming the limit', () => {
  fs.writeFileSync(path.join(dir, 'tiny.json'), JSON.stringify({ root: 'root', limits: { maxResultBytes: 2000 } }));
  const r = spawnSync(NODE, [CLI, 'serve', '--config', path.join(dir, 'tiny.json')], { encoding: 'utf8', input: '', timeout: 20_000 });
  expect(r.status).not.toBe(0);
  expect(r.stderr).toContain('maxResultBytes');
  expect(r.stderr).toContain('4096');
});
