#!/usr/bin/env node
// bench/start-cpu.mjs — a stdio server's start to its first tools/list answer, timed twice: wall, and the server's CPU
// time (user + system of all its threads at the answer, /proc/<pid>/task/*/schedstat, nanoseconds), beside the same
// Node with an empty script and with the SDK's import alone (each writes one byte when done; its CPU is read then). On
// a machine shared with other work wall times swell with the load; CPU times stay near what the start costs, so
// variants of the gateway are compared by CPU, in one run, in a random order per round.
//
//   node bench/start-cpu.mjs [--runs 15] [--gateway 'bin/mcpgw.js;FLAGS|/other/bin/mcpgw.js|ENV=1']
//
// --gateway: variants separated by ';', each `PATH`, `NODE_FLAGS|PATH` or `NODE_FLAGS|PATH|K=V K2=V2` (environment).
// Each server gets `serve --root <a temp folder> --config <a config whose cacheDir is a temp folder>`, so the tools'
// JSON Schemas are read back from a cache (as after a user's first start) and the user's cache is never touched. The
// first round is a warm-up that is not counted: its servers exit normally, which writes Node's compile cache (a server
// killed with SIGKILL writes none); the counted ones are killed at their answer. Medians; "ours" = gateway − SDK import,
// run by run (the SDK import's reference includes the empty Node's start).

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const argv = process.argv.slice(2);
const opt = (name, dflt) => { const i = argv.indexOf(name); return i >= 0 ? argv[i + 1] : dflt; };
const RUNS = Math.max(1, Number(opt('--runs', '15')));
const VARIANTS = opt('--gateway', 'bin/mcpgw.js').split(';').filter(Boolean).map((spec, i) => {
  const [flags, file, env] = spec.includes('|') ? spec.split('|') : ['', spec, ''];
  return {
    name: `gateway ${i}: ${spec}`,
    args: [...flags.split(/\s+/).filter(Boolean), path.resolve(REPO, file)],
    env: Object.fromEntries((env ?? '').split(/\s+/).filter(Boolean).map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)])),
  };
});

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-start-cpu-'));
const config = path.join(tmp, 'config.json');
fs.mkdirSync(path.join(tmp, 'root'));
fs.writeFileSync(config, JSON.stringify({ cacheDir: path.join(tmp, 'cache') }));

/** CPU ms (user + system) of every thread of `pid`. */
function cpuMs(pid) {
  let ns = 0;
  for (const t of fs.readdirSync(`/proc/${pid}/task`)) {
    try { ns += Number(fs.readFileSync(`/proc/${pid}/task/${t}/schedstat`, 'utf8').split(' ')[0]); } catch { /* thread gone */ }
  }
  return ns / 1e6;
}
const rssMiB = (pid) => Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN) / 1024;
const send = (p, msg) => p.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...msg })}\n`);

/** One start; resolves to {wall, cpu, rss} at the answer (tools/list for a gateway, the byte for a reference). */
function start(args, { mcp, env = {} }, graceful) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const p = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'inherit'], cwd: REPO, env: { ...process.env, ...env } });
    const done = () => {
      const figures = { wall: performance.now() - t0, cpu: cpuMs(p.pid), rss: rssMiB(p.pid) };
      // a reference never exits by itself; a server does when its input ends
      if (graceful && mcp) { p.once('exit', () => resolve(figures)); p.stdin.end(); } else { p.kill('SIGKILL'); resolve(figures); }
    };
    let buf = '';
    let answered = false;
    p.stdout.on('data', (b) => {
      if (!mcp) { if (!answered) { answered = true; done(); } return; }
      buf += b;
      for (let i; (i = buf.indexOf('\n')) >= 0;) {
        const m = JSON.parse(buf.slice(0, i));
        buf = buf.slice(i + 1);
        if (m.id === 1) { send(p, { method: 'notifications/initialized' }); send(p, { id: 2, method: 'tools/list' }); }
        if (m.id === 2) done();
      }
    });
    p.on('error', reject);
    if (mcp) send(p, { id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'start-cpu', version: '1' } } });
  });
}

const HOLD = "process.stdout.write('x');setInterval(()=>{},1e5)";
const cases = [
  { name: 'node: empty script', args: ['-e', HOLD], mcp: false },
  { name: 'node: the SDK import', args: ['-e', `require('@modelcontextprotocol/server');require('@modelcontextprotocol/server/stdio');${HOLD}`], mcp: false },
  ...VARIANTS.map((v) => ({ name: v.name, args: [...v.args, 'serve', '--root', path.join(tmp, 'root'), '--config', config], mcp: true, env: v.env })),
];
const got = cases.map(() => ({ wall: [], cpu: [], rss: [] }));
try {
  for (let round = 0; round <= RUNS; round++) {
    const order = cases.map((_, i) => i).sort(() => Math.random() - 0.5);
    for (const i of order) {
      const r = await start(cases[i].args, cases[i], round === 0);
      if (round > 0) for (const k of ['wall', 'cpu', 'rss']) got[i][k].push(r[k]);
    }
  }
} finally {
  fs.rmSync(tmp, { recursive: true, force: true });
}
const median = (a) => { const s = [...a].sort((x, y) => x - y); return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2; };
const f = (x) => x.toFixed(1).padStart(7);
console.log(`${RUNS} runs after a warm-up; load average ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}; medians (ms, MiB)`);
console.log(`${'start'.padEnd(60)} ${'cpu'.padStart(7)} ${'wall'.padStart(7)} ${'rss'.padStart(7)} ${'ours cpu'.padStart(9)} ${'ours wall'.padStart(9)}`);
cases.forEach((c, i) => {
  const ours = (k) => got[i][k].map((x, j) => x - got[1][k][j]);
  console.log(`${c.name.slice(0, 60).padEnd(60)} ${f(median(got[i].cpu))} ${f(median(got[i].wall))} ${c.mcp ? f(median(got[i].rss)) : '       '} ${c.mcp ? f(median(ours('cpu'))).padStart(9) : ''} ${c.mcp ? f(median(ours('wall'))).padStart(9) : ''}`);
});
