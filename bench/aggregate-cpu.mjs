#!/usr/bin/env node
// bench/aggregate-cpu.mjs — aggregate {group_by} on a fresh server: the first call over a freshly opened file (every
// record checked whole) and a second call (records already checked), each timed twice: wall (the tools/call round trip)
// and the server's CPU time (user + system of the process, its worker threads included, exited ones too: /proc/PID/stat,
// 10 ms ticks; and per live thread by role: main, worker, read), with the server's memory growth during the call
// (VmHWM reset just before it − VmRSS then); beside the DuckDB peer of `--only aggregate-status` on the same file
// (wall, and its CPU from GNU time: Node, loading DuckDB, the query). On a machine shared with other work, wall times
// swell with the load; CPU times stay near what the work costs.
//
//   node bench/aggregate-cpu.mjs FILE.jsonl [--group-by status] [--runs 3] [--gateway bin/mcpgw.js] [--cpu-prof DIR]
//
// Each server is started, initialized, listed and primed (as bench/open-cpu.mjs does), the file opened (untimed; the
// persistent index cache off), then the two calls. One warm-up run, then --runs; medians, ratios per run.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(HERE, '..');
const arg = (name, dflt) => { const i = process.argv.indexOf(name); return i > 0 ? process.argv[i + 1] : dflt; };
const FILE = path.resolve(process.argv[2] ?? '');
if (!process.argv[2] || !fs.existsSync(FILE)) {
  console.error('usage: node bench/aggregate-cpu.mjs FILE.jsonl [--group-by status] [--runs 3] [--gateway bin/mcpgw.js] [--cpu-prof DIR]');
  process.exit(2);
}
const GROUP_BY = arg('--group-by', 'status');
const RUNS = Math.max(1, Number(arg('--runs', '3')));
const GATEWAY = path.resolve(arg('--gateway', path.join(REPO, 'bin', 'mcpgw.js')));
const PROF = arg('--cpu-prof', null);

/**
 * CPU ms of each live thread of `pid` by role: `main` (the server's thread), `worker` (Node worker threads: named
 * `node`), `read` (libuv's pool, which reads the file), `other` (V8 and Node helpers).
 */
function threadsCpu(pid) {
  const out = new Map();
  for (const t of fs.readdirSync(`/proc/${pid}/task`)) {
    try {
      const raw = fs.readFileSync(`/proc/${pid}/task/${t}/stat`, 'utf8');
      const name = raw.slice(raw.indexOf('(') + 1, raw.lastIndexOf(')'));
      const f = raw.slice(raw.lastIndexOf(')') + 2).split(' ');
      const role = t === String(pid) ? 'main' : name === 'node' ? 'worker' : name.startsWith('libuv') ? 'read' : 'other';
      out.set(t, { role, ms: (Number(f[11]) + Number(f[12])) * 10 });
    } catch { /* the thread ended */ }
  }
  return out;
}
/** CPU ms by role between two threadsCpu readings (threads that ended between them are not counted). */
function byRole(a, b) {
  const out = {};
  for (const [t, v] of b) out[v.role] = (out[v.role] ?? 0) + v.ms - (a.get(t)?.ms ?? 0);
  return out;
}

/** CPU ms (user + system) of process `pid`, threads that ended included. */
function cpuMs(pid) {
  const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) * 10;
}
/** VmRSS and VmHWM of `pid`, KiB. */
function mem(pid) {
  const out = {};
  for (const l of fs.readFileSync(`/proc/${pid}/status`, 'utf8').split('\n')) if (/^Vm(RSS|HWM):/.test(l)) out[l.slice(0, 5)] = parseInt(l.slice(6), 10);
  return out;
}
/** Resets VmHWM to the current RSS (Linux clear_refs "5"); the growth measured is then the call's own peak. */
const resetPeak = (pid) => { try { fs.writeFileSync(`/proc/${pid}/clear_refs`, '5'); return true; } catch { return false; } };

const median = (a) => [...a].sort((x, y) => x - y)[a.length >> 1];
const range = (a, d = 0) => `${median(a).toFixed(d)} [${Math.min(...a).toFixed(d)}–${Math.max(...a).toFixed(d)}]`;

const CONFIG = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-aggregate-cpu-')), 'config.json');
fs.writeFileSync(CONFIG, JSON.stringify({ cache: false }));
const { Client } = await import('@modelcontextprotocol/client');
const { StdioClientTransport } = await import('@modelcontextprotocol/client/stdio');
const sqlStr = (s) => `'${s.replace(/'/g, "''")}'`;
const col = `"${GROUP_BY.replace(/"/g, '""')}"`;
const SQL = `SELECT count(*) FROM (SELECT ${col}, count(*) FROM read_ndjson_auto(${sqlStr(FILE)}) GROUP BY 1)`;
const rows = { first: [], firstCpu: [], firstGrowth: [], second: [], secondCpu: [], secondGrowth: [], duck: [], duckCpu: [] };

async function call(client, pid, args) {
  const canReset = resetPeak(pid);
  const th0 = threadsCpu(pid);
  const before = mem(pid).VmRSS;
  const c0 = cpuMs(pid);
  const t0 = performance.now();
  const r = await client.callTool({ name: 'aggregate', arguments: args }, undefined, { timeout: 600000 });
  const wall = performance.now() - t0;
  const cpu = cpuMs(pid) - c0;
  const roles = byRole(th0, threadsCpu(pid));
  if (r.isError || !r.structuredContent?.complete) throw new Error(`aggregate: ${r.content?.[0]?.text ?? 'not complete'}`);
  return { wall, cpu, roles, growth: canReset ? (mem(pid).VmHWM - before) / 1024 : NaN, groups: r.structuredContent.groups_total };
}

try {
  for (let run = 0; run <= RUNS; run++) {
    const transport = new StdioClientTransport({
      command: process.execPath, cwd: REPO, stderr: 'inherit',
      args: [...(PROF ? ['--cpu-prof', '--cpu-prof-dir', PROF] : []), GATEWAY, 'serve', '--root', path.dirname(FILE), '--config', CONFIG],
    });
    const client = new Client({ name: 'mcpgw-bench-aggregate-cpu', version: '1.0.0' });
    await client.connect(transport);
    await client.listTools();
    await client.callTool({ name: 'bench-prime-no-such-tool', arguments: {} }).catch(() => undefined);
    const opened = await client.callTool({ name: 'open_file', arguments: { path: path.basename(FILE) } }, undefined, { timeout: 600000 });
    if (opened.isError) throw new Error(`open_file: ${opened.content?.[0]?.text}`);
    const args = { handle: opened.structuredContent.handle, group_by: GROUP_BY };
    const first = await call(client, transport.pid, args);
    const second = await call(client, transport.pid, args);
    await client.close();
    const t1 = performance.now();
    const d = spawnSync('/usr/bin/time', ['-f', '%U %S', process.execPath, path.join(HERE, 'peers', 'duck.mjs'), SQL], { encoding: 'utf8' });
    const duckWall = performance.now() - t1;
    if (d.status !== 0) throw new Error(`DuckDB: ${d.stderr.slice(-300)}`);
    const [u, s] = d.stderr.trim().split('\n').pop().split(' ').map(Number);
    const duckGroups = Number(d.stdout.trim());
    if (duckGroups !== first.groups || duckGroups !== second.groups) throw new Error(`groups: DuckDB ${duckGroups}, gateway ${first.groups} / ${second.groups}`);
    console.error(`run ${run}${run === 0 ? ' (warm-up)' : ''}: first ${first.wall.toFixed(0)} ms wall, ${first.cpu} ms CPU, +${first.growth.toFixed(0)} MiB; `
      + `second ${second.wall.toFixed(0)} ms, ${second.cpu} ms CPU, +${second.growth.toFixed(0)} MiB; DuckDB ${duckWall.toFixed(0)} ms, ${((u + s) * 1000).toFixed(0)} ms CPU; ${duckGroups} groups`);
    const roles = (c) => Object.entries(c.roles).filter(([, v]) => v > 0).map(([k, v]) => `${k} ${v}`).join(', ');
    console.error(`  CPU ms by thread (live threads; worker threads kept between calls show in both): first ${roles(first)}; second ${roles(second)}`);
    if (run === 0) continue;
    rows.first.push(first.wall); rows.firstCpu.push(first.cpu); rows.firstGrowth.push(first.growth);
    rows.second.push(second.wall); rows.secondCpu.push(second.cpu); rows.secondGrowth.push(second.growth);
    rows.duck.push(duckWall); rows.duckCpu.push((u + s) * 1000);
  }
} finally {
  fs.rmSync(path.dirname(CONFIG), { recursive: true, force: true });
}
const per = (a, b) => a.map((x, i) => x / b[i]);
console.log(`aggregate {group_by: ${JSON.stringify(GROUP_BY)}} on ${path.basename(FILE)} (${(fs.statSync(FILE).size / 1e6).toFixed(1)} MB), ${RUNS} fresh servers; medians [min–max]:`);
console.log(`  first call:  wall ${range(rows.first)} ms, server CPU ${range(rows.firstCpu)} ms, memory growth ${range(rows.firstGrowth)} MiB`);
console.log(`  second call: wall ${range(rows.second)} ms, server CPU ${range(rows.secondCpu)} ms, memory growth ${range(rows.secondGrowth)} MiB`);
console.log(`  DuckDB:      wall ${range(rows.duck)} ms, CPU ${range(rows.duckCpu)} ms`);
console.log(`  first ÷ DuckDB: wall ${range(per(rows.first, rows.duck), 2)}, CPU ${range(per(rows.firstCpu, rows.duckCpu), 2)}`);
console.log(`  second ÷ DuckDB: wall ${range(per(rows.second, rows.duck), 2)}, CPU ${range(per(rows.secondCpu, rows.duckCpu), 2)}`);
