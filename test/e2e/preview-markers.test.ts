/**
 * Search previews mark the hit with « » and cuts with …; when the data shown holds those characters itself, the match
 * says where the markers are (`preview_markers`, code points), end to end through a real MCP client.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { call, connect, type Connected } from '../helpers/mcp';

let dir: string;
let c: Connected;
let handle: string;
const E = '\u{1F600}';
const RECORDS = [
  { id: 1, note: 'plain text with a needle in it' },
  { id: 2, note: `quote ${E} «needle» … and more text after it, long enough to be cut on the right side` },
];

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-markers-'));
  fs.writeFileSync(path.join(dir, 'm.jsonl'), RECORDS.map((r) => JSON.stringify(r)).join('\n') + '\n');
  c = await connect(['--root', dir]);
  handle = (await call(c.client, 'open_file', { path: 'm.jsonl' })).data.handle;
});

afterAll(async () => {
  await c?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** The characters of `preview` at `markers`. */
const at = (preview: string, markers: number[]) => markers.map((i) => [...preview][i]);

test('text search: no markers field when the data holds none of « » …; placed markers when it does', async () => {
  const r = await call(c.client, 'search', { handle, query: 'needle' });
  const [plain, quoted] = r.data.matches;
  const first = JSON.stringify(RECORDS[0]);
  const h0 = first.indexOf('needle');
  expect(plain).toEqual({ record_index: 0, preview: `…${first.slice(h0 - 20, h0)}«needle»${first.slice(h0 + 6)}`, match_path: '/note' });
  // 20 UTF-16 units of context each side (the emoji counts 2), cut with … on the right
  const context = JSON.stringify(RECORDS[1]);
  const hit = context.indexOf('needle');
  expect(quoted.preview).toBe(`…${context.slice(hit - 20, hit)}«needle»${context.slice(hit + 6, hit + 26)}…`);
  expect(quoted.preview).toBe(`…2,"note":"quote ${E} ««needle»» … and more text af…`);
  expect(quoted.preview_markers).toEqual([0, 20, 27, 48]);
  expect(at(quoted.preview, quoted.preview_markers)).toEqual(['…', '«', '»', '…']);
});

test('a JSONPath search: the value shown holds « »: path = «value» with its markers placed', async () => {
  const r = await call(c.client, 'search', { handle, query: '$.note', mode: 'jsonpath', max_results: 2 });
  const m = r.data.matches[1];
  const value = JSON.stringify(RECORDS[1]!.note);
  expect(m.preview).toBe(`/note = «${value}»`);
  expect(m.preview_markers).toEqual([8, 9 + [...value].length]);
  expect(r.data.matches[0]).not.toHaveProperty('preview_markers');
});
