/**
 * The index cache folder against what another local user (or a stale process) may leave in it: a FIFO at
 * an entry's predictable path (device-inode.idx) must not wedge the server, and the folders mcpgw makes for its
 * caches are 0700 whichever cache makes them first (the tools/list schema cache writes there before any index).
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { connect, type Connected } from '../helpers/mcp';

describe('index cache folder', () => {
  let base: string;
  let cacheHome: string;
  let c: Connected;
  const lines = Array.from({ length: 20_000 }, (_, i) => `{"id":${i},"pad":"${'x'.repeat(60)}"}`).join('\n') + '\n'; // ~1.5 MB: stored
  beforeAll(async () => {
    base = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-cache-hostile-'));
    cacheHome = path.join(base, 'cache');
    fs.mkdirSync(cacheHome);
    fs.mkdirSync(path.join(base, 'data'));
    fs.writeFileSync(path.join(base, 'data', 'big.jsonl'), lines);
    c = await connect(['--root', path.join(base, 'data')], { env: { XDG_CACHE_HOME: cacheHome } });
  });
  afterAll(async () => {
    await c.close();
    fs.rmSync(base, { recursive: true, force: true });
  });

  test('the folders made for the caches are 0700 (the schema cache made them before any index was stored)', async () => {
    await c.client.listTools();
    const made = [path.join(cacheHome, 'mcpgw'), path.join(cacheHome, 'mcpgw', 'index')];
    for (const dir of made) expect([dir, (fs.statSync(dir).mode & 0o777).toString(8)]).toEqual([dir, '700']);
  });

  test('a FIFO at the entry\'s path: open_file answers (the entry is not used), and the server serves on', async () => {
    const st = fs.statSync(path.join(base, 'data', 'big.jsonl'));
    const dir = path.join(cacheHome, 'mcpgw', 'index');
    fs.mkdirSync(dir, { recursive: true });
    const entry = path.join(dir, `${st.dev.toString(16)}-${st.ino.toString(16)}.idx`);
    execFileSync('mkfifo', [entry]);
    // A server that opened the FIFO for reading would wait for a writer forever: this call would never answer.
    const opened = await c.client.callTool({ name: 'open_file', arguments: { path: 'big.jsonl' } }, undefined, { timeout: 20_000 });
    expect((opened.structuredContent as any).record_count).toBe(20_000);
    expect((await c.client.callTool({ name: 'get_record_count', arguments: { handle: (opened.structuredContent as any).handle } })).structuredContent).toEqual({ record_count: 20_000 });
  }, 30_000);
});
