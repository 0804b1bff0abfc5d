#!/usr/bin/env node
// bench/many-groups.mjs — a high-cardinality group-by: `aggregate {group_by: "scope", top: 10}` over a JSON Lines file
// with 250,000 distinct `scope` values, against Python (json + collections.Counter) over the same file, in the same run.
// Each run: a fresh server (persistent index off), the file opened untimed, then the timed call; the server's memory
// growth during it (VmHWM reset just before it − VmRSS then; worker threads included) and CPU time (all its threads,
// /proc/PID/stat); then Python, timed from outside, its CPU time from getrusage.
// The top 10 (count descending, ties by key ascending, as aggregate orders them) must equal Python's, group for group.
//
//   node bench/many-groups.mjs [--file FILE.jsonl] [--records 2500000] [--groups 250000] [--runs 3] [--gateway bin/mcpgw.js] [--warm]
//
// --warm: an untimed aggregate of 4 groups (`level`) first, so that the engine's threads and read buffers exist before
// the timed call and its memory growth is what the groups cost (without it, two threads start inside the call).
//
// Without --file, generates one (deterministic) in the system's temp folder and keeps it for later runs.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(HERE, '..');
const arg = (name, dflt) => { const i = process.argv.indexOf(name); return i > 0 ? process.argv[i + 1] : dflt; };
const RECORDS = Number(arg('--records', '2500000'));
const GROUPS = Number(arg('--groups', '250000'));
const RUNS = Math.max(1, Number(arg('--runs', '3')));
const GATEWAY = path.resolve(arg('--gateway', path.join(REPO, 'bin', 'mcpgw.js')));
const WARM = process.argv.includes('--warm');
const FILE = path.resolve(arg('--file', path.join(os.tmpdir(), `mcpgw-many-groups-${RECORDS}-${GROUPS}.jsonl`)));

/** Record i: every scope once in the first GROUPS records, then scopes drawn with a skew (a few frequent, most rare). */
function generate() {
  let s = 0x2545f491;
  const rnd = () => { s ^= s << 13; s >>>= 0; s ^= s >>> 17; s ^= s << 5; s >>>= 0; return s / 4294967296; };
  const fd = fs.openSync(FILE + '.tmp', 'w');
  let buf = [];
  const levels = ['info', 'warn', 'error', 'debug'];
  for (let i = 0; i < RECORDS; i++) {
    const k = i < GROUPS ? (i * 7919) % GROUPS : Math.floor(GROUPS * rnd() ** 3);
    buf.push(`{"ts":${1700000000000 + i * 13},"scope":"svc-${k.toString(36)}/${(k % 97).toString().padStart(2, '0')}","level":"${levels[i % 4]}","ms":${(rnd() * 1000).toFixed(2)}}`);
    if (buf.length === 65536) { fs.writeSync(fd, buf.join('\n') + '\n'); buf = []; }
  }
  if (buf.length) fs.writeSync(fd, buf.join('\n') + '\n');
  fs.closeSync(fd);
  fs.renameSync(FILE + '.tmp', FILE);
}
if (!fs.existsSync(FILE)) generate();

function mem(pid) {
  const out = {};
  for (const l of fs.readFileSync(`/proc/${pid}/status`, 'utf8').split('\n')) if (/^Vm(RSS|HWM):/.test(l)) out[l.slice(0, 5)] = parseInt(l.slice(6), 10);
  return out;
}
/** CPU seconds the process has used, all its threads (utime + stime of /proc/PID/stat, in clock ticks of 1/100 s). */
function cpu(pid) {
  const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
}
const resetPeak = (pid) => { try { fs.writeFileSync(`/proc/${pid}/clear_refs`, '5'); return true; } catch { return false; } };
const median = (a) => [...a].sort((x, y) => x - y)[a.length >> 1];
const range = (a, d = 0) => `${median(a).toFixed(d)} [${Math.min(...a).toFixed(d)}–${Math.max(...a).toFixed(d)}]`;

const PY = `
import json, sys, collections, resource
c = collections.Counter()
with open(sys.argv[1], 'rb') as f:
    for line in f:
        c[json.loads(line)['scope']] += 1
top = sorted(c.items(), key=lambda kv: (-kv[1], kv[0]))[:10]
ru = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({'total': len(c), 'top': top, 'cpu': ru.ru_utime + ru.ru_stime}))
`;

const CONFIG = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-many-groups-')), 'config.json');
fs.writeFileSync(CONFIG, JSON.stringify({ cache: false }));
const { Client } = await import('@modelcontextprotocol/client');
const { StdioClientTransport } = await import('@modelcontextprotocol/client/stdio');
const rows = { gw: [], py: [], growth: [], ratio: [], gwCpu: [], pyCpu: [], cpuRatio: [], load: [] };
try {
  for (let run = 1; run <= RUNS; run++) {
    const transport = new StdioClientTransport({ command: process.execPath, cwd: REPO, stderr: 'inherit', args: [GATEWAY, 'serve', '--root', path.dirname(FILE), '--config', CONFIG] });
    const client = new Client({ name: 'mcpgw-bench-many-groups', version: '1.0.0' });
    await client.connect(transport);
    const opened = await client.callTool({ name: 'open_file', arguments: { path: path.basename(FILE) } }, undefined, { timeout: 600000 });
    if (opened.isError) throw new Error(`open_file: ${opened.content?.[0]?.text}`);
    const pid = transport.pid;
    if (WARM) {
      const w = await client.callTool({ name: 'aggregate', arguments: { handle: opened.structuredContent.handle, group_by: 'level', top: 10 } }, undefined, { timeout: 600000 });
      if (w.isError) throw new Error(`warm-up aggregate: ${w.content?.[0]?.text}`);
    }
    const canReset = resetPeak(pid);
    const before = mem(pid).VmRSS;
    const cpu0 = cpu(pid);
    const t0 = performance.now();
    const r = await client.callTool({ name: 'aggregate', arguments: { handle: opened.structuredContent.handle, group_by: 'scope', top: 10 } }, undefined, { timeout: 600000 });
    const wall = performance.now() - t0;
    const growth = canReset ? (mem(pid).VmHWM - before) / 1024 : NaN;
    const gwCpu = cpu(pid) - cpu0;
    await client.close();
    if (r.isError || !r.structuredContent?.complete) throw new Error(`aggregate: ${r.content?.[0]?.text ?? 'not complete'}`);
    const t1 = performance.now();
    const p = spawnSync('python3', ['-c', PY, FILE], { encoding: 'utf8', maxBuffer: 1 << 26 });
    const pyWall = performance.now() - t1;
    if (p.status !== 0) throw new Error(`python: ${p.stderr.slice(-300)}`);
    const py = JSON.parse(p.stdout);
    const gw = r.structuredContent.groups.map((g) => [Array.isArray(g.key) ? g.key[0] : g.key, g.count]);
    if (JSON.stringify(gw) !== JSON.stringify(py.top)) throw new Error(`top 10 differ: gateway ${JSON.stringify(gw)}, Python ${JSON.stringify(py.top)}`);
    if (r.structuredContent.groups_total !== py.total) throw new Error(`groups: gateway ${r.structuredContent.groups_total}, Python ${py.total}`);
    const load = os.loadavg()[0];
    console.error(`run ${run}: gateway ${wall.toFixed(0)} ms (CPU ${gwCpu.toFixed(2)} s), +${growth.toFixed(0)} MiB; Python ${pyWall.toFixed(0)} ms (CPU ${py.cpu.toFixed(2)} s); ${(wall / pyWall).toFixed(2)}× wall, ${(gwCpu / py.cpu).toFixed(2)}× CPU; ${py.total} groups, top 10 equal; load ${load.toFixed(1)}`);
    rows.gw.push(wall); rows.py.push(pyWall); rows.growth.push(growth); rows.ratio.push(wall / pyWall);
    rows.gwCpu.push(gwCpu); rows.pyCpu.push(py.cpu); rows.cpuRatio.push(gwCpu / py.cpu); rows.load.push(load);
  }
} finally {
  fs.rmSync(path.dirname(CONFIG), { recursive: true, force: true });
}
console.log(`aggregate {group_by: "scope", top: 10} on ${path.basename(FILE)} (${(fs.statSync(FILE).size / 1e6).toFixed(1)} MB), ${RUNS} fresh servers${WARM ? ', each after an untimed aggregate of 4 groups' : ''}; medians [min–max]:`);
console.log(`  gateway: ${range(rows.gw)} ms, memory growth ${range(rows.growth)} MiB`);
console.log(`  Python (json + Counter): ${range(rows.py)} ms`);
console.log(`  gateway ÷ Python (same run): ${range(rows.ratio, 2)}`);
console.log(`  CPU: gateway ${range(rows.gwCpu, 2)} s (every thread), Python ${range(rows.pyCpu, 2)} s; gateway ÷ Python ${range(rows.cpuRatio, 2)}`);
console.log(`  load average (1 min) at the runs: ${Math.min(...rows.load).toFixed(1)}–${Math.max(...rows.load).toFixed(1)}`);
