/**
 * Field case C37 end to end through a real MCP client: a JSON Lines file rewritten in place (same inode, larger, its
 * first 4 KiB and the 4 KiB before its old end unchanged) is not a file that grew, for the persistent index and for
 * an open handle, in the explorer and the reader; and a stored entry with sound checksums but an offset removed is not
 * trusted. Each server is in-process with a kernel of its own over the same index folder. The inputs are written by the case's own make_regrown.py (Python); the expected values are Python's
 * (v2.count('\n'), its lines), as case.json gives them.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { crc32 } from 'node:zlib';
import { testTools } from '../../src/plugin-kit/index';
import { REPO } from '../helpers/mcp';

const CASE = path.join(REPO, 'test', 'fixtures', 'cases', 'C37');
const spec = JSON.parse(fs.readFileSync(path.join(CASE, 'case.json'), 'utf8'));

let dir: string;
let root: string;
let v1: Buffer;
let v2: Buffer;
let v2Lines: string[];

beforeAll(() => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-c37-')));
  root = path.join(dir, 'root');
  fs.mkdirSync(root);
  execFileSync('python3', [path.join(CASE, 'make_regrown.py'), root]);
  v1 = fs.readFileSync(path.join(root, 'log.jsonl'));
  v2 = fs.readFileSync(path.join(root, 'v2.bin'));
  fs.rmSync(path.join(root, 'v2.bin'));
  v2Lines = v2.toString('utf8').split('\n').slice(0, -1);
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Rewrites `file` in place with `bytes`: open r+, truncate to 0, write (the same inode). */
function rewriteInPlace(file: string, bytes: Buffer): void {
  const ino = fs.statSync(file).ino;
  const fd = fs.openSync(file, 'r+');
  try {
    fs.ftruncateSync(fd, 0);
    fs.writeSync(fd, bytes, 0, bytes.length, 0);
  } finally {
    fs.closeSync(fd);
  }
  expect(fs.statSync(file).ino).toBe(ino);
}

/**
 * A new server over the same root and persistent index folder: in-process (the plugin kit's tool tester, a real MCP
 * client; explorer and reader), its kernel and index cache its own, so what it knows of a file is what the folder holds.
 * `stderr()`: its log lines as the CLI writes them at --log-level debug (message, then the fields as JSON).
 */
async function server() {
  const t = await testTools('@mcpgw/tools-explore', { root, cacheDir: path.join(dir, 'cache'), plugins: ['@mcpgw/tools-reader'] });
  return {
    client: t,
    close: () => t.close(),
    stderr: () => t.logged.map(([, message, fields]) => (fields ? `${message} ${JSON.stringify(fields)}` : message)).join('\n'),
  };
}
/** A tool call through the tester's client: `data` is the structuredContent. */
async function call(t: { call: (name: string, args: Record<string, unknown>) => Promise<{ isError: boolean; structuredContent: Record<string, any> }> }, name: string, args: Record<string, unknown>) {
  const r = await t.call(name, args);
  return { isError: r.isError, data: r.structuredContent };
}

test('the case\'s own numbers: Python made v2 with v1\'s first 4 KiB and the 4 KiB before v1\'s end', () => {
  expect(v2Lines).toHaveLength(spec.expected.record_count);
  expect(v1.subarray(0, 4096).equals(v2.subarray(0, 4096))).toBe(true);
  expect(v1.subarray(v1.length - 4096).equals(v2.subarray(v1.length - 4096, v1.length))).toBe(true);
});

test('C37 (a): the stored index of v1 is not extended over v2; the new server answers from a full pass', async () => {
  const file = path.join(root, 'a.jsonl');
  fs.writeFileSync(file, v1);
  const first = await server();
  try {
    const opened = await call(first.client, 'open_file', { path: 'a.jsonl' });
    expect(opened.data.record_count).toBe(10_200);
    await call(first.client, 'close_file', { handle: opened.data.handle });
  } finally {
    await first.close();
  }
  expect(first.stderr()).toMatch(/index cache: stored an index/);
  rewriteInPlace(file, v2);

  const second = await server();
  try {
    const opened = await call(second.client, 'open_file', { path: 'a.jsonl' });
    expect(opened.isError).toBe(false);
    expect(opened.data.record_count).toBe(spec.expected.record_count);
    const handle = opened.data.handle;
    const r150 = await call(second.client, 'get_record', { handle, index: 150 });
    // case.json says 201 b's; its own generator (make_regrown.py, Python) writes 218: Python's line is the reference
    expect(JSON.parse(r150.data.record)).toEqual({ m: 50, w: 'b'.repeat(218) });
    expect(JSON.parse(r150.data.record)).toEqual(JSON.parse(v2Lines[150]!));
    const r5209 = await call(second.client, 'get_record', { handle, index: 5209 });
    expect(JSON.parse(r5209.data.record)).toEqual({ i: 9, part: 'new' });
    const found = await call(second.client, 'search', { handle, query: '$.part == "new"', max_results: 0 });
    expect(found.data.total_matches).toBe(spec.expected['search $.part == "new" total_matches']);
    // the reader too, by whole-file addressing: the last record
    const last = await call(second.client, 'json_read', { path: 'a.jsonl', language: 'pointer', query: '/5209' });
    expect(last.isError).toBe(false);
    expect(JSON.stringify(last.data.items?.[0]?.value ?? last.data.value)).toContain('"part":"new"');
  } finally {
    await second.close();
  }
  // the entry was found not to fit (the rewrite moved v1's line starts) and the new pass replaced it
  expect(second.stderr()).toMatch(/index cache: discarded an entry that does not fit its file[^\n]*\n[^\n]*index cache: stored an index \{[^}]*"records":5210/);
});

test('C37 (b): an open handle over a file rewritten in place: SOURCE_CHANGED, never the old offsets extended', async () => {
  const file = path.join(root, 'b.jsonl');
  fs.writeFileSync(file, v1);
  const c = await server();
  try {
    const opened = await call(c.client, 'open_file', { path: 'b.jsonl' });
    const handle = opened.data.handle;
    expect(opened.data.record_count).toBe(10_200);
    rewriteInPlace(file, v2);
    for (const [tool, args] of [['get_record_count', { handle }], ['get_record', { handle, index: 150 }], ['search', { handle, query: '$.part == "new"', max_results: 0 }]] as const) {
      const r = await call(c.client, tool, args);
      expect(r.isError).toBe(true);
      expect(r.data.error.code).toBe('SOURCE_CHANGED');
    }
    // open again: the new content
    const again = await call(c.client, 'open_file', { path: 'b.jsonl' });
    expect(again.data.record_count).toBe(5210);
  } finally {
    await c.close();
  }
});

test('C37 (c), control: replaced by rename, a new server indexes the new file', async () => {
  const file = path.join(root, 'c.jsonl');
  fs.writeFileSync(file, v1);
  const first = await server();
  try {
    await call(first.client, 'open_file', { path: 'c.jsonl' });
  } finally {
    await first.close();
  }
  fs.writeFileSync(path.join(root, 'c.tmp'), v2);
  fs.renameSync(path.join(root, 'c.tmp'), file);
  const second = await server();
  try {
    const opened = await call(second.client, 'open_file', { path: 'c.jsonl' });
    expect(opened.data.record_count).toBe(5210);
    expect(JSON.parse((await call(second.client, 'get_record', { handle: opened.data.handle, index: 5209 })).data.record)).toEqual(JSON.parse(v2Lines[5209]!));
  } finally {
    await second.close();
  }
});

test('an appended file (a real append) still extends the stored index and the open handle', async () => {
  const file = path.join(root, 'grown.jsonl');
  fs.writeFileSync(file, v1);
  const c = await server();
  try {
    const opened = await call(c.client, 'open_file', { path: 'grown.jsonl' });
    fs.appendFileSync(file, '{"i":0,"part":"new"}\n');
    const count = await call(c.client, 'get_record_count', { handle: opened.data.handle });
    expect(count.isError).toBe(false);
    expect(count.data.record_count).toBe(10_201);
  } finally {
    await c.close();
  }
  fs.appendFileSync(file, '{"i":1,"part":"new"}\n');
  const d = await server();
  try {
    const opened = await call(d.client, 'open_file', { path: 'grown.jsonl' });
    expect(opened.data.record_count).toBe(10_202);
    expect(JSON.parse((await call(d.client, 'get_record', { handle: opened.data.handle, index: 10_201 })).data.record)).toEqual({ i: 1, part: 'new' });
  } finally {
    await d.close();
  }
  expect(d.stderr()).toMatch(/the stored index covers the file's first bytes/);
});

/**
 * A crafted entry: record 3's offset taken out of the stored index, the record count one less, and every checksum
 * (the block's, the head's) made right again, so nothing but the file itself can tell.
 */
test('a stored entry with sound checksums but an offset removed is not trusted: record 3 is record 3', async () => {
  const file = path.join(root, 'crafted.jsonl');
  fs.writeFileSync(file, v1);
  const lines = v1.toString('utf8').split('\n').slice(0, -1);
  const first = await server();
  try {
    await call(first.client, 'open_file', { path: 'crafted.jsonl' });
  } finally {
    await first.close();
  }
  const entries = fs.readdirSync(path.join(dir, 'cache')).filter((f) => f.endsWith('.idx'));
  const entryFile = path.join(dir, 'cache', entries.find((e) => e.endsWith(`-${fs.statSync(file).ino.toString(16)}.idx`))!);
  fs.writeFileSync(entryFile, removeOffset(fs.readFileSync(entryFile), 3));

  const second = await server();
  try {
    const opened = await call(second.client, 'open_file', { path: 'crafted.jsonl' });
    expect(opened.data.record_count).toBe(10_200);
    for (const index of [2, 3, 4, 10_199]) {
      const r = await call(second.client, 'get_record', { handle: opened.data.handle, index });
      expect(JSON.parse(r.data.record)).toEqual(JSON.parse(lines[index]!));
    }
  } finally {
    await second.close();
  }
  expect(second.stderr()).toMatch(/index cache: discarded an entry that does not fit its file/);
});

/** The entry (layout of src/engine/cache/entry.ts, one offset block) with record `k`'s offset taken out, checksums redone. */
function removeOffset(entry: Buffer, k: number): Buffer {
  const headerBytes = entry.readUInt32LE(12);
  const count = entry.readDoubleLE(72);
  const checkpoints = entry.readDoubleLE(80);
  const blocks = entry.readUInt32LE(92);
  expect(blocks).toBe(1);
  const table = headerBytes + 8 * checkpoints;
  const headEnd = table + 16 * blocks; // the head's CRC-32 follows, then 4 zero bytes
  const offsetsAt = headEnd + 8;
  const offsets = new Float64Array(entry.buffer.slice(entry.byteOffset + offsetsAt, entry.byteOffset + offsetsAt + 8 * count));
  const kept = Float64Array.from([...offsets.slice(0, k), ...offsets.slice(k + 1)]);
  const out = Buffer.concat([entry.subarray(0, offsetsAt), Buffer.from(kept.buffer)]);
  out.writeDoubleLE(count - 1, 72);
  out.writeDoubleLE(out.length, 16);
  out.writeUInt32LE(crc32(Buffer.from(kept.buffer)), table + 8);
  out.writeUInt32LE(crc32(out.subarray(0, headEnd)), headEnd);
  return out;
}
