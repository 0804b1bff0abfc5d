// Text search for a needle that never occurs (`max_results: 0`, every page to `complete`) over single JSON documents,
// through the real MCP client (stdio, the SDK 2.x client), beside `grep -c` on the same page-cached file in the same
// run. Per file and run: wall ms to the complete count, the server's CPU ms over those calls (/proc/PID/stat), pages.
//   node bench/doc-search.mjs --root DIR [--runs N] [--query zzzqqq] [--gateway DIR] FILE...
// Run it under the machine-wide lock: flock /tmp/mcpgw-bench.lock node bench/doc-search.mjs ...
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const argv = process.argv.slice(2);
const opt = (name, def) => { const k = argv.indexOf(`--${name}`); if (k === -1) return def; const v = argv[k + 1]; argv.splice(k, 2); return v; };
const root = opt('root');
const runs = Number(opt('runs', '3'));
const query = opt('query', 'zzzqqq');
const gateway = path.resolve(opt('gateway', '.'));
const files = argv;
if (!root || files.length === 0) { console.error('usage: node bench/doc-search.mjs --root DIR [--runs N] [--query Q] [--gateway DIR] FILE...'); process.exit(2); }

const tick = 100; // USER_HZ: /proc/PID/stat counts CPU time in 1/100 s
const cpuOf = (pid) => { const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' '); return (Number(f[11]) + Number(f[12])) * 1000 / tick; };
const median = (a) => { const s = [...a].sort((x, y) => x - y); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };
const client = new Client({ name: 'bench-doc-search', version: '1' });
const transport = new StdioClientTransport({ command: process.execPath, args: [path.join(gateway, 'bin/mcpgw.js'), 'serve', '--root', root], cwd: gateway, stderr: 'inherit' });
await client.connect(transport);
const pid = transport.pid;
const call = async (name, args) => { const r = await client.callTool({ name, arguments: args }, undefined, { timeout: 600_000 }); if (r.isError) throw new Error(JSON.stringify(r.content)); return r.structuredContent; };
const rows = [];
for (const f of files) {
  const size = fs.statSync(path.join(root, f)).size;
  execFileSync('cat', [path.join(root, f)], { stdio: ['ignore', 'ignore', 'ignore'] }); // page-cached
  const o = await call('open_file', { path: f });
  const ms = [], cpu = [], peer = [];
  let pages = 0, total = null, firstTotal = null;
  for (let r = 0; r < runs; r++) {
    const c0 = cpuOf(pid), t0 = performance.now();
    let page = await call('search', { handle: o.handle, query, mode: 'text', max_results: 0 });
    pages = 1; firstTotal = page.total_matches;
    while (!page.complete) { page = await call('search', { handle: o.handle, query, mode: 'text', max_results: 0, cursor: page.next_cursor }); pages++; }
    ms.push(performance.now() - t0); cpu.push(cpuOf(pid) - c0); total = page.total_matches;
    const p0 = performance.now();
    try { execFileSync('grep', ['-c', query, path.join(root, f)]); } catch { /* grep -c exits 1 on no match */ }
    peer.push(performance.now() - p0);
  }
  await call('close_file', { handle: o.handle });
  rows.push({ f, size, ms: median(ms), cpu: median(cpu), pages, firstTotal, total, peer: median(peer), all: ms.map(Math.round) });
  console.error(`${f}: ${ms.map(Math.round).join(', ')} ms`);
}
await client.close();
console.log(`load average before/after: see the caller; runs ${runs}, query ${JSON.stringify(query)}, gateway ${gateway}`);
console.log('| file | MB | search ms (median) | server CPU ms | pages | total | grep -c ms | ratio |');
console.log('|---|---|---|---|---|---|---|---|');
for (const r of rows) console.log(`| ${r.f} | ${(r.size / 1e6).toFixed(2)} | ${Math.round(r.ms)} | ${Math.round(r.cpu)} | ${r.pages} | ${r.total} | ${r.peer.toFixed(1)} | ${Math.round(r.ms / r.peer)}x |`);
