#!/usr/bin/env node
// bench/open-cpu.mjs — one open call on a fresh server, timed twice: wall (the tools/call round trip) and the server's
// CPU time (user + system of all its threads, from /proc, 10 ms ticks), beside `wc -l` on the same file (wall, and its
// CPU from GNU time). On a machine shared with other work the wall times swell with the load and the ratios of wall
// times with it; CPU times stay near what the work costs, so both are printed.
//
//   node bench/open-cpu.mjs FILE [--tool open_file|json_open] [--runs 5] [--gateway bin/mcpgw.js]
//
// Each server is started, initialized, listed, and primed with a call of a tool name that does not exist (the MCP
// client compiles every tool's outputSchema before its first tools/call, once per session: that is not the open's
// cost); then the open call is timed. The persistent index cache is off (a config file of its own), so every open indexes. One warm-up run, then --runs; medians, and per-run ratios median [min–max].

import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(HERE, '..');
const arg = (name, dflt) => { const i = process.argv.indexOf(name); return i > 0 ? process.argv[i + 1] : dflt; };
const FILE = path.resolve(process.argv[2] ?? '');
if (!process.argv[2] || !fs.existsSync(FILE)) { console.error('usage: node bench/open-cpu.mjs FILE [--tool open_file|json_open] [--runs 5] [--gateway bin/mcpgw.js]'); process.exit(2); }
const TOOL = arg('--tool', 'open_file');
const RUNS = Math.max(1, Number(arg('--runs', '5')));
const GATEWAY = path.resolve(arg('--gateway', path.join(REPO, 'bin', 'mcpgw.js')));

/** CPU ms (user + system) of every thread of `pid`. */
function cpuMs(pid) {
  let ticks = 0;
  for (const t of fs.readdirSync(`/proc/${pid}/task`)) {
    try {
      const f = fs.readFileSync(`/proc/${pid}/task/${t}/stat`, 'utf8').split(') ')[1].split(' ');
      ticks += Number(f[11]) + Number(f[12]);
    } catch { /* the thread ended */ }
  }
  return ticks * 10;
}

const median = (a) => [...a].sort((x, y) => x - y)[a.length >> 1];
const range = (a) => `${median(a).toFixed(2)} [${Math.min(...a).toFixed(2)}–${Math.max(...a).toFixed(2)}]`;

// the persistent index cache off: every open indexes (as the bench's servers do)
const CONFIG = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-open-cpu-')), 'config.json');
fs.writeFileSync(CONFIG, JSON.stringify({ cache: false }));
const { Client } = await import('@modelcontextprotocol/client');
const { StdioClientTransport } = await import('@modelcontextprotocol/client/stdio');
execFileSync('cat', [FILE], { stdio: ['ignore', 'ignore', 'inherit'] }); // page-cached
const rows = { wall: [], cpu: [], wcWall: [], wcCpu: [] };
for (let run = 0; run <= RUNS; run++) {
  const transport = new StdioClientTransport({ command: process.execPath, args: [GATEWAY, 'serve', '--root', path.dirname(FILE), '--config', CONFIG], stderr: 'inherit', cwd: REPO });
  const client = new Client({ name: 'mcpgw-bench-open-cpu', version: '1.0.0' });
  await client.connect(transport);
  await client.listTools();
  await client.callTool({ name: 'bench-prime-no-such-tool', arguments: {} }).catch(() => undefined);
  const c0 = cpuMs(transport.pid);
  const t0 = performance.now();
  const r = await client.callTool({ name: TOOL, arguments: { path: path.basename(FILE) } }, undefined, { timeout: 600000 });
  const wall = performance.now() - t0;
  const cpu = cpuMs(transport.pid) - c0;
  await client.close();
  if (r.isError) throw new Error(`${TOOL}: ${r.content[0]?.text}`);
  const t1 = performance.now();
  const wc = spawnSync('/usr/bin/time', ['-f', '%U %S', 'wc', '-l', FILE], { encoding: 'utf8', stdio: ['ignore', 'ignore', 'pipe'] });
  const wcWall = performance.now() - t1;
  if (wc.status !== 0) throw new Error(`wc -l: ${wc.stderr}`);
  const [u, s] = wc.stderr.trim().split('\n').pop().split(' ').map(Number);
  if (run === 0) continue;
  rows.wall.push(wall); rows.cpu.push(cpu); rows.wcWall.push(wcWall); rows.wcCpu.push((u + s) * 1000);
}
fs.rmSync(path.dirname(CONFIG), { recursive: true, force: true });
const bytes = fs.statSync(FILE).size;
const wallRatio = rows.wall.map((w, i) => w / rows.wcWall[i]);
const cpuRatio = rows.cpu.map((c, i) => c / Math.max(10, rows.wcCpu[i]));
console.log(`${TOOL} ${path.basename(FILE)} (${(bytes / 1e6).toFixed(1)} MB), ${RUNS} runs, medians:`);
console.log(`  wall: ${median(rows.wall).toFixed(0)} ms (${(bytes / 1e3 / median(rows.wall)).toFixed(0)} MB/s); wc -l ${median(rows.wcWall).toFixed(0)} ms; ratio ${range(wallRatio)}`);
console.log(`  server CPU: ${median(rows.cpu).toFixed(0)} ms (${(bytes / 1e3 / median(rows.cpu)).toFixed(0)} MB/s); wc -l CPU ${median(rows.wcCpu).toFixed(0)} ms; ratio ${range(cpuRatio)}`);
