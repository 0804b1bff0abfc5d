/**
 * Memory is given back at close: 16 handles on a 500 MB JSON Lines file, each indexed (some searched), then closed —
 * the server's resident memory returns near what it was before (it stayed ~200 MB above: indexes and buffers waited
 * for a collection that never came, and glibc kept freed buffers in its heap). The persistent index is off (`cache:
 * false`): with it, a re-open reads its offsets block by block on first use, so the 15 re-opens would hold little.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { call, connect, type Connected } from '../helpers/mcp';

const MB = 1024 * 1024;
let dir: string;
let c: Connected;
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-stress-mem-'));
  const lines: string[] = [];
  for (let i = 0; i < 2500; i++) lines.push(JSON.stringify({ id: i, status: i % 300 === 7 ? 'failed' : 'ok', latency_ms: (i * 37) % 500, user: { name: `user ${i}`, city: 'Paris' }, msg: 'x'.repeat(300) }));
  const block = Buffer.from(lines.join('\n') + '\n'); // ~1 MB
  const fd = fs.openSync(path.join(dir, 'big.jsonl'), 'w');
  for (let written = 0; written < 500 * MB; written += block.length) fs.writeSync(fd, block);
  fs.closeSync(fd);
  fs.writeFileSync(path.join(dir, '.mcpgwrc.yaml'), 'root: .\ncache: false\n');
  c = await connect(['--config', path.join(dir, '.mcpgwrc.yaml')], { cwd: dir });
});
afterAll(async () => {
  await c?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Resident memory of the server process, MB (Linux /proc). */
function rss(): number {
  const pid = (c.transport as unknown as { pid: number | null }).pid!;
  return Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
}

/** Reads `read()` every 50 ms until `done(value)` or until `deadlineMs` have passed; returns the last value read. */
async function pollUntil(read: () => number, done: (value: number) => boolean, deadlineMs: number): Promise<number> {
  const until = Date.now() + deadlineMs;
  for (;;) {
    const value = read();
    if (done(value) || Date.now() >= until) return value;
    await new Promise((r) => setTimeout(r, 50));
  }
}

const linux = process.platform === 'linux' ? test : test.skip;

linux('16 handles on a 500 MB file searched and closed: resident memory returns near the idle figure', async () => {
  await c.client.ping();
  const idle = rss();
  const handles: string[] = [];
  for (let i = 0; i < 16; i++) {
    const h = await call(c.client, 'open_file', { path: 'big.jsonl' });
    expect(h.isError).toBe(false);
    handles.push(h.data.handle);
    if (i % 5 === 0) {
      // a whole-file scan on every fifth handle (read buffers, the prefilter; counting every match)
      const s = await call(c.client, 'search', { handle: h.data.handle, query: 'failed', max_results: 5 });
      expect(s.data.total_matches).toBeGreaterThan(1000);
    }
  }
  const open = rss();
  for (const h of handles) await call(c.client, 'close_file', { handle: h });
  // The server collects shortly after the closes: its memory is read until it is back near the idle figure, or until
  // the deadline (then the last reading fails the test).
  const closed = await pollUntil(rss, (mb) => mb - idle < 60, 20_000);
  // 16 indexes of ~1.3 M records (8 bytes a record) are ~170 MB while open.
  expect(open - idle).toBeGreaterThan(100);
  expect(closed - idle).toBeLessThan(60);
}, 600_000);
