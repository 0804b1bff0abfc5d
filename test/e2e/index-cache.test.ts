/**
 * The persistent index across server processes: a file opened in one server is opened by the next from the stored
 * index (its stderr says so at log level debug) and every answer is identical; a damaged entry is discarded with a
 * warning on stderr and answers stay right; `cache: false` stores nothing. Through a real MCP client, with the cache in
 * a temporary folder: the first server is the built CLI's process (its stderr), the next ones are new kernels served
 * in-process (test/helpers/in-process.ts; their log lines as stderr would show them), each reading what the one
 * before stored.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { call, connect } from '../helpers/mcp';
import { serveInProcess } from '../helpers/in-process';

let dir: string;
let cacheDir: string;

beforeAll(() => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-index-cache-e2e-')));
  cacheDir = path.join(dir, 'cache');
  fs.mkdirSync(path.join(dir, 'root'));
  // over the 1 MiB below which no index is stored: 40,000 records, lines past many checkpoints
  const lines = Array.from({ length: 40_000 }, (_, i) => JSON.stringify({ id: i, status: i % 300 === 7 ? 'failed' : 'ok', pad: 'p'.repeat(i % 23) }));
  fs.writeFileSync(path.join(dir, 'root', 'events.jsonl'), lines.join('\n') + '\n');
  fs.writeFileSync(path.join(dir, 'on.json'), JSON.stringify({ root: 'root', cacheDir: 'cache' }));
  fs.writeFileSync(path.join(dir, 'off.json'), JSON.stringify({ root: 'root', cacheDir: 'cache-off', cache: false }));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** The settings of on.json and off.json. */
const CONFIGS: Record<string, { cacheDir: string; config?: Record<string, unknown> }> = {
  'on.json': { cacheDir: 'cache' },
  'off.json': { cacheDir: 'cache-off', config: { cache: false } },
};

/**
 * A fresh server with `config` (on.json, off.json): `process`: `mcpgw serve --config …` as a process, its stderr;
 * else a new kernel in-process, its log lines as they would be written to stderr at log level debug.
 */
async function server(config: string, process = false) {
  if (process) return connect(['--config', path.join(dir, config), '--log-level', 'debug']);
  const { cacheDir, config: more } = CONFIGS[config]!;
  const s = await serveInProcess({ root: path.join(dir, 'root'), cacheDir: path.join(dir, cacheDir), ...(more ? { config: more } : {}) });
  const stderr = () => s.tester.logged.map(([level, message, fields]) => `mcpgw ${level} ${message}${fields && Object.keys(fields).length ? ' ' + JSON.stringify(fields) : ''}\n`).join('');
  return { client: s.client, stderr, close: () => s.close() };
}

/** A fresh server: open the file, read records, search, read pages through the reader; every answer kept. */
async function session(config: string, process = false): Promise<{ answers: unknown[]; stderr: string }> {
  const c = await server(config, process);
  try {
    const answers: unknown[] = [];
    const open = await call(c.client, 'open_file', { path: 'events.jsonl' });
    expect(open.isError).toBe(false);
    const { handle, ...rest } = open.data;
    answers.push(rest);
    for (const index of [0, 1, 1024, 20_000, 39_999]) answers.push((await call(c.client, 'get_record', { handle, index })).data);
    const found = await call(c.client, 'search', { handle, query: '$.status == "failed"', max_results: 5 });
    // cursor ids are random per server: only that there is one is compared
    const { next_cursor: cursor, ...page } = found.data;
    expect(typeof cursor).toBe('string');
    answers.push(page);
    const read = await call(c.client, 'json_read', { path: 'events.jsonl', language: 'jsonpath', query: '$[?@.status=="failed"].id', max_items: 50 });
    answers.push(read.data.items ?? read.data);
    return { answers, stderr: c.stderr() };
  } finally {
    await c.close();
  }
}

test('a new server process reads the stored index and answers exactly as the first', async () => {
  const first = await session('on.json', true);
  const entries = fs.readdirSync(cacheDir).filter((f) => f.endsWith('.idx'));
  expect(entries).toHaveLength(1);
  expect(first.stderr).toMatch(/index cache: stored an index/);
  const second = await session('on.json');
  expect(second.stderr).toMatch(/index cache: the stored index fits the file/);
  expect(second.stderr).not.toMatch(/stored an index/);
  expect(second.answers).toEqual(first.answers);
  // the answers are the file's: record 20,000 is id 20,000, the failed ones are every 300th from 7
  expect((first.answers[0] as { record_count: number }).record_count).toBe(40_000);
  expect(JSON.parse((first.answers[4] as { record: string }).record)).toEqual({ id: 20_000, status: 'ok', pad: 'p'.repeat(20_000 % 23) });
  expect((first.answers[first.answers.length - 1] as { value: number }[]).slice(0, 3).map((n) => n.value)).toEqual([7, 307, 607]);

  // a damaged entry (a byte among its offsets, the last of the entry): a warning on stderr, the same answers, a sound
  // entry again
  const entry = path.join(cacheDir, entries[0]!);
  const bytes = fs.readFileSync(entry);
  bytes[bytes.length - 100]! ^= 0xff;
  fs.writeFileSync(entry, bytes);
  const third = await session('on.json');
  expect(third.stderr).toMatch(/index cache: discarded a damaged entry \(offset block 0: its checksum does not match\); the file is indexed again/);
  expect(third.answers).toEqual(first.answers);
  const fourth = await session('on.json');
  expect(fourth.stderr).toMatch(/the stored index fits the file/);
});

test('cache: false stores nothing and reads nothing', async () => {
  const off = await session('off.json');
  expect(fs.existsSync(path.join(dir, 'cache-off'))).toBe(false);
  expect(off.stderr).not.toMatch(/index cache/);
});

test('a rewrite in place to the same size with the modification time put back is indexed again (the change time tells)', async () => {
  const file = path.join(dir, 'root', 'rewritten.jsonl');
  const lines = Array.from({ length: 40_000 }, (_, i) => JSON.stringify({ id: i, pad: 'q'.repeat(i % 17) }));
  fs.writeFileSync(file, lines.join('\n') + '\n');
  const mtime = Math.floor(fs.statSync(file).mtimeMs / 1000) - 60; // whole seconds: utimes puts them back exactly
  fs.utimesSync(file, mtime, mtime);
  const open = async () => {
    const c = await server('on.json');
    try {
      const opened = await call(c.client, 'open_file', { path: 'rewritten.jsonl' });
      const rec = await call(c.client, 'get_record', { handle: opened.data.handle, index: 20_000 });
      return { count: opened.data.record_count, rec, stderr: c.stderr() };
    } finally {
      await c.close();
    }
  };
  const first = await open();
  expect(first.count).toBe(40_000);
  expect(first.stderr).toMatch(/index cache: stored an index/);
  // the same inode and size, the first and last 4 KiB unchanged: two lines in the middle joined (a newline becomes
  // a space), then the modification time put back
  const ino = fs.statSync(file).ino;
  const text = fs.readFileSync(file, 'utf8');
  const k = text.indexOf('\n', text.length >> 2);
  fs.writeFileSync(file, text.slice(0, k) + ' ' + text.slice(k + 1));
  fs.utimesSync(file, mtime, mtime);
  expect(fs.statSync(file)).toMatchObject({ ino, size: text.length, mtimeMs: mtime * 1000 });
  const joinedAt = text.slice(0, k).split('\n').length - 1; // the record the next line was joined to
  const second = await open();
  expect(second.stderr).not.toMatch(/the stored index fits the file/);
  expect(second.count).toBe(39_999);
  expect(second.rec.isError).toBe(false);
  expect(JSON.parse(second.rec.data.record)).toEqual(JSON.parse(lines[20_001]!));
  expect(joinedAt).toBeLessThan(20_000);
});
