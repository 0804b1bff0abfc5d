/**
 * A JSON Lines log with NUL holes (an unclean shutdown leaves the space a writer had reserved as NUL bytes) opens as
 * JSON Lines in every tool set — the explorer, the reader, list_files, the CLI — its holes reported as malformed
 * lines; an image named .json (no JSON once the NUL bytes are out) is still refused. Expected values: Python
 * (bytes.split(b'\n'), json.loads per line).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { call, CLI, connect, NODE, type Connected } from '../helpers/mcp';

let dir: string;
let c: Connected;
const text = Buffer.concat([
  Buffer.from('{"a":1}\n{"a":2}\n'),
  Buffer.alloc(300), // the hole: NUL bytes, then the writer went on after the restart
  Buffer.from('{"a":3}\n{"a":4}\n'),
  Buffer.alloc(50),
]);
let py: { lines: number; bad: number[]; values: unknown[] };

beforeAll(async () => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-holes-')));
  for (const name of ['log.jsonl', 'log.ndjson']) fs.writeFileSync(path.join(dir, name), text);
  fs.writeFileSync(path.join(dir, 'image.json'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d]));
  // Python: the non-blank lines, which of them json.loads refuses, the values of the others
  py = JSON.parse(execFileSync('python3', ['-c', String.raw`
import json, sys
lines = [l for l in open(sys.argv[1], 'rb').read().split(b'\n') if l.strip(b' \t\r')]
bad, values = [], []
for i, l in enumerate(lines):
    try: values.append(json.loads(l))
    except Exception: bad.append(i); values.append(None)
print(json.dumps({'lines': len(lines), 'bad': bad, 'values': values}))
`, path.join(dir, 'log.jsonl')], { encoding: 'utf8' }));
  c = await connect(['--root', dir]);
});
afterAll(async () => {
  await c.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('the explorer opens .jsonl and .ndjson with holes as JSON Lines; the holes are malformed lines', async () => {
  expect(py).toEqual({ lines: 5, bad: [2, 4], values: [{ a: 1 }, { a: 2 }, null, { a: 4 }, null] });
  for (const name of ['log.jsonl', 'log.ndjson']) {
    const r = await call(c.client, 'open_file', { path: name });
    expect(r.isError).toBe(false);
    expect(r.data.file_type).toBe('ndjson'); // the explorer's wire name for JSON Lines
    expect(r.data.record_count).toBe(py.lines);
    expect(r.data.validation.malformed_records).toBe(py.bad.length);
    const got = await call(c.client, 'get_record', { handle: r.data.handle, index: 3 });
    expect(JSON.parse(got.data.record)).toEqual(py.values[3]);
    const hole = await call(c.client, 'get_record', { handle: r.data.handle, index: 2 });
    expect(hole.data.error.code).toBe('SYNTAX_ERROR');
  }
});

test('the reader and list_files too; an image named .json stays refused', async () => {
  const r = await call(c.client, 'json_open', { path: 'log.jsonl' });
  expect(r.isError).toBe(false);
  const read = await call(c.client, 'json_read', { path: 'log.jsonl', language: 'pointer', query: '/3' });
  expect(read.isError).toBe(false);
  const list = await call(c.client, 'list_files', {});
  const byName = Object.fromEntries(list.data.files.map((f: any) => [f.path, [f.format, f.note ?? null]]));
  expect(byName['log.jsonl'][0]).toBe('jsonl');
  expect(byName['log.jsonl'][1]).toMatch(/NUL byte at offset 16: read as its name says, the holes as malformed records/);
  expect(byName['image.json']).toEqual([null, 'binary data, not JSON text']);
  const image = await call(c.client, 'open_file', { path: 'image.json' });
  expect(image.data.error.code).toBe('UNSUPPORTED_FORMAT');
});

test('the CLI reads it as JSON Lines', () => {
  const r = spawnSync(NODE, [CLI, 'query', path.join(dir, 'log.jsonl'), '$[3].a'], { encoding: 'utf8' });
  expect(r.status).toBe(0);
  expect(JSON.parse(r.stdout)).toEqual({ path: '/3/a', value: 4 });
});
