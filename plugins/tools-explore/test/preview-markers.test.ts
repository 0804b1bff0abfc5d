/**
 * Search previews mark the hit with « » and cuts with …; when the data shown holds those characters itself, the match
 * says where the markers are (`preview_markers`, code points), end to end through a real MCP client.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { call, connect, type Connected } from '../../../test/helpers/mcp';

let dir: string;
let c: Connected;
let handle: string;
const E = '\u{1F600}';
const RECORDS = [
  { id: 1, note: 'plain text with a needle in it' },
  { id: 2, note: `quote ${E} «needle» … and more text after it, long enough to be cut on the right side` },
  { long: 'Wait… ' + 'x'.repeat(100), short: 'so…', plain: 'y'.repeat(100), quoted: '«q»' },
];

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-markers-'));
  fs.writeFileSync(path.join(dir, 'm.jsonl'), RECORDS.map((r) => JSON.stringify(r)).join('\n') + '\n');
  // a record over 1 MiB, outlined through lazy nodes: a string over 64 KiB shows as "…" (a marker); one that is "…"
  fs.writeFileSync(path.join(dir, 'big.json'), JSON.stringify({ big: 'z'.repeat(1_200_000), dots: '…', long: '…'.repeat(90) }));
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

test('get_outline: a shortened value holding … of its own gets value_markers; other values are unchanged', async () => {
  const r = await call(c.client, 'get_outline', { handle, index: 2 });
  const byKey = Object.fromEntries(r.data.outline.members.map((m: any) => [m.key, m]));
  const long = JSON.stringify(RECORDS[2]!.long);
  expect(byKey.long).toEqual({ key: 'long', type: 'string', bytes: Buffer.byteLength(long), value: `${long.slice(0, 79)}…"`, value_markers: [79] });
  expect(byKey.short).toEqual({ key: 'short', type: 'string', bytes: 7, value: '"so…"', value_markers: [] });
  expect(byKey.plain).toEqual({ key: 'plain', type: 'string', bytes: 102, value: `"${'y'.repeat(78)}…"` });
  expect(byKey.quoted).toEqual({ key: 'quoted', type: 'string', bytes: 7, value: '"«q»"' });
});

test('get_outline through lazy nodes: an undecoded big string is "…" (a marker), the string "…" is the data\'s own', async () => {
  const h = (await call(c.client, 'open_file', { path: 'big.json' })).data.handle;
  const r = await call(c.client, 'get_outline', { handle: h });
  const byKey = Object.fromEntries(r.data.outline.members.map((m: any) => [m.key, m]));
  expect(byKey.big).toEqual({ key: 'big', type: 'string', bytes: 1_200_002, value: '"…"' });
  expect(byKey.dots).toEqual({ key: 'dots', type: 'string', bytes: 5, value: '"…"', value_markers: [] });
  expect(byKey.long).toEqual({ key: 'long', type: 'string', bytes: 272, value: `"${'…'.repeat(78)}…"`, value_markers: [79] });
});
