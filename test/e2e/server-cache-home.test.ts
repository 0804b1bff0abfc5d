/**
 * Servers spawned by the test helpers never write the user's cache folder: each gets a temporary XDG_CACHE_HOME of its
 * own, removed once it is gone, unless the test names one. Checked through the persistent index cache, which stores an
 * index for a file over 1 MiB as soon as it is opened.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { call, connect } from '../helpers/mcp';
import { callTool, connectHttp, startHttp } from '../helpers/http';
import { makeReaderDir, type ReaderDir } from '../helpers/reader-fixture';

let dir: ReaderDir;
let mine: string;
beforeAll(() => {
  const big = Array.from({ length: 20_000 }, (_, i) => `{"id":${i},"pad":"${'p'.repeat(60)}"}`).join('\n') + '\n';
  dir = makeReaderDir({ 'big.jsonl': big });
  mine = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-own-cache-'));
});
afterAll(() => {
  dir.remove();
  fs.rmSync(mine, { recursive: true, force: true });
});

/** The index entries stored under a cache home. */
const entries = (home: string) => {
  const index = path.join(home, 'mcpgw', 'index');
  return fs.existsSync(index) ? fs.readdirSync(index).filter((f) => f.endsWith('.idx')) : [];
};

test('stdio: the server indexes into a temporary cache home of its own, removed on close', async () => {
  const c = await connect(['--config', dir.config]);
  const home = c.cacheHome;
  try {
    expect(path.isAbsolute(home)).toBe(true);
    expect(home).not.toBe(process.env.XDG_CACHE_HOME);
    const opened = await call(c.client, 'json_open', { path: 'big.jsonl' });
    expect(opened.data.error).toBeUndefined();
    expect(entries(home)).toHaveLength(1);
  } finally {
    await c.close();
  }
  expect(fs.existsSync(home)).toBe(false);
});

test('stdio: two servers do not share a cache home (each indexes the file itself)', async () => {
  const a = await connect(['--config', dir.config]);
  const b = await connect(['--config', dir.config]);
  try {
    expect(a.cacheHome).not.toBe(b.cacheHome);
  } finally {
    await a.close();
    await b.close();
  }
});

test('stdio: a test that names its own cache home keeps it', async () => {
  const c = await connect(['--config', dir.config], { env: { XDG_CACHE_HOME: mine } });
  try {
    expect(c.cacheHome).toBe(mine);
    await call(c.client, 'json_open', { path: 'big.jsonl' });
  } finally {
    await c.close();
  }
  expect(entries(mine)).toHaveLength(1);
});

test('HTTP: the same, removed once the server has exited', async () => {
  const server = await startHttp(['--config', dir.config]);
  const home = server.cacheHome;
  try {
    expect(home).not.toBe(process.env.XDG_CACHE_HOME);
    const client = await connectHttp(server.url);
    const opened = await callTool(client, 'json_open', { path: 'big.jsonl' });
    expect(opened.isError).toBe(false);
    expect(entries(home)).toHaveLength(1);
    await client.close();
  } finally {
    await server.stop();
  }
  expect(fs.existsSync(home)).toBe(false);
});
