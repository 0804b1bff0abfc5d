#!/usr/bin/env node
// bench/load.mjs — a team server under load: CLIENTS concurrent clients on one `mcpgw serve --http` for SECONDS, in
// each protocol era (2025-11-25 sessions, 2026-07-28 per-request), on a mixed workload: open_file, search, get_record,
// json_read pages (path-based, then the cursor), close, with a ping between calls (the ping-class latency a client
// sees while the server works for everyone else; tools/list in the 2026 era, which has no ping). Every answer is checked; reports p50/p99 per call, failures, and the
// server's resident memory (RSS) before the load, at its end, and once the clients have closed (polled until back within
// 20 % or 30 s), plus the data files the server still holds open.
//
//   node bench/load.mjs [--clients 64] [--seconds 60] [--era legacy|modern|both] [--json out.json] [--default-limits 1] [--keep-sessions 1]
//
// The config raises maxOpenFiles to 256 and maxCursors to 1,024 (a team's store is shared in the 2026 era);
// --default-limits 1 runs with the defaults (32 and 128).
//
// Run it only under the machine-wide suite lock (bench/README.md "How it measures").

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const GATEWAY = path.join(here, '..', 'bin', 'mcpgw.js');
const args = process.argv.slice(2);
const opt = (name, def) => { const i = args.indexOf(`--${name}`); return i >= 0 ? args[i + 1] : def; };
const CLIENTS = Number(opt('clients', 64));
const SECONDS = Number(opt('seconds', 60));
const KEEP_SESSIONS = opt('keep-sessions', '0') === '1';
const ERAS = opt('era', 'both') === 'both' ? ['legacy', 'modern'] : [opt('era')];
const OUT = opt('json', null);
const RECORDS = 20_000;
const LEVELS = ['info', 'warn', 'error', 'debug'];

const quantile = (xs, q) => {
  if (!xs.length) return null;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
};
const rssMiB = (pid) => Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'latin1'))[1]) / 1024;
const openData = (pid, dir) => fs.readdirSync(`/proc/${pid}/fd`).filter((fd) => { try { return fs.readlinkSync(`/proc/${pid}/fd/${fd}`).startsWith(dir); } catch { return false; } }).length;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function makeData() {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-load-'));
  const data = path.join(base, 'data');
  fs.mkdirSync(data);
  const lines = [];
  for (let i = 0; i < RECORDS; i++) {
    lines.push(JSON.stringify({ id: i, level: LEVELS[i % 4], user: `u${i % 97}`, msg: `event ${i} of the load run ${'x'.repeat(i % 50)}`, ts: 1_700_000_000_000 + i * 1000 }));
  }
  fs.writeFileSync(path.join(data, 'events.jsonl'), lines.join('\n') + '\n');
  // A team's config (docs/http.md "Whose state: principals"): in the 2026 era every caller of the token shares one store,
  // so its handle and cursor caps are raised for 64 clients; the 2025 era's sessions have the defaults each.
  const limits = opt('default-limits', null) === null ? { maxOpenFiles: 256, maxCursors: 1024 } : {};
  fs.writeFileSync(path.join(base, '.mcpgwrc.json'), JSON.stringify({ root: './data', profiles: { team: { bundles: ['explore', 'reader'] } }, profile: 'team', limits }));
  return { base, data, config: path.join(base, '.mcpgwrc.json'), cache: path.join(base, 'cache') };
}

function startServer(d) {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [GATEWAY, 'serve', '--http', '--port', '0', '--config', d.config], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, XDG_CACHE_HOME: d.cache } });
    let err = '', out = '';
    proc.stdout.on('data', (b) => (out += b));
    proc.stderr.on('data', (b) => {
      err += b;
      const m = /serving MCP over HTTP at (\S+)/.exec(err);
      if (m) resolve({ proc, url: new URL(m[1]), stdout: () => out, stop: () => new Promise((r) => { proc.once('exit', r); proc.kill('SIGTERM'); }) });
    });
    proc.once('exit', (code) => reject(new Error(`serve --http exited with ${code}: ${err.slice(-500)}`)));
  });
}

async function connect(url, era) {
  const { Client, StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
  const client = new Client({ name: 'mcpgw-load', version: '1.0.0' }, era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {});
  const transport = new StreamableHTTPClientTransport(url);
  await client.connect(transport);
  return { client, transport };
}

/** One client's loop until `until` (ms, performance.now()), at most `rounds` rounds: timed, checked calls. */
async function clientLoop(url, era, until, stats, k, rounds = Infinity) {
  const times = (name) => (stats.times[name] ??= []);
  const fail = (name, why) => { stats.failures.push(`${name}: ${String(why).slice(0, 200)}`); };
  let client, transport;
  try {
    ({ client, transport } = await connect(url, era));
  } catch (e) {
    fail('connect', e?.message ?? e);
    return;
  }
  const call = async (name, a, check) => {
    const t = performance.now();
    try {
      const r = await client.callTool({ name, arguments: a }, undefined, { timeout: 120_000 });
      times(name).push(performance.now() - t);
      const data = r.structuredContent;
      if (r.isError) { fail(name, JSON.stringify(data?.error ?? r.content)); return null; }
      const bad = check?.(data);
      if (bad) { fail(name, bad); return null; }
      return data;
    } catch (e) {
      times(name).push(performance.now() - t);
      fail(name, e?.message ?? e);
      return null;
    }
  };
  // The ping-class call: `ping` in the 2025 era; the 2026-07-28 era has no ping, its cheapest request is tools/list.
  const pingName = era === 'modern' ? 'tools/list' : 'ping';
  const ping = async () => {
    const t = performance.now();
    try {
      if (era === 'modern') await client.listTools(undefined, { timeout: 120_000 });
      else await client.ping({ timeout: 120_000 });
      times(pingName).push(performance.now() - t);
    } catch (e) { times(pingName).push(performance.now() - t); fail(pingName, e?.message ?? e); }
  };
  let n = k;
  for (let round = 0; round < rounds && performance.now() < until; round++) {
    n += 7919;
    const index = n % RECORDS;
    await ping();
    const opened = await call('open_file', { path: 'events.jsonl' }, (d) => (d.record_count === RECORDS ? null : `record_count ${d.record_count}`));
    await ping();
    if (opened) {
      const level = LEVELS[n % 4];
      await call('search', { handle: opened.handle, query: `$.level = "${level}" && $.user = "u${n % 97}"`, max_results: 5 },
        (d) => (d.matches.every((m) => m.record_index % 4 === LEVELS.indexOf(level)) ? null : 'a match of another level'));
      await ping();
      await call('get_record', { handle: opened.handle, index, record_format: 'compact' }, (d) => (JSON.parse(d.record).id === index ? null : `record ${d.record.slice(0, 40)}`));
      await ping();
      await call('close_file', { handle: opened.handle }, (d) => (d.closed ? null : 'not closed'));
      await ping();
    }
    const from = index % (RECORDS - 400);
    const page1 = await call('json_read', { path: 'events.jsonl', language: 'jsonpath', query: `$[${from}:${from + 400}].id`, max_items: 200 },
      (d) => (d.items.length === 200 && d.items[0].value === from && d.next_cursor ? null : `page 1: ${d.items.length} items from ${d.items[0]?.value}`));
    await ping();
    if (page1) {
      await call('json_read', { cursor: page1.next_cursor }, (d) => (d.items.length === 200 && d.items[0].value === from + 200 && d.complete ? null : `page 2: ${d.items.length} items from ${d.items[0]?.value}`));
      await ping();
    }
  }
  // A client that is done ends its 2025-era session (HTTP DELETE: the 2025-11-25 transport spec, "Session Management"),
  // unless --keep-sessions 1 (clients that just drop the connection: their sessions live until the idle timeout).
  if (era !== 'modern' && !KEEP_SESSIONS) {
    try { await transport.terminateSession(); } catch (e) { fail('terminate', e?.message ?? e); }
  }
  try { await client.close(); } catch (e) { fail('close', e?.message ?? e); }
}

async function runEra(era) {
  const d = makeData();
  const server = await startServer(d);
  try {
    const pid = server.proc.pid;
    const idle = rssMiB(pid);
    // A warm-up client: one round of the workload, so every tool's code is loaded once (what loads on first use is not
    // the load's memory). It used to be given 1 ms, which ran out while it connected: no call was made.
    const warm = { times: {}, failures: [] };
    await clientLoop(server.url, era, Infinity, warm, 0, 1);
    if (warm.failures.length || !warm.times.json_read) throw new Error(`the warm-up round failed: ${warm.failures.slice(0, 3).join('; ') || 'no json_read call'}`);
    await sleep(2000);
    const before = rssMiB(pid);
    const stats = { times: {}, failures: [] };
    let peak = before;
    const sampler = setInterval(() => { peak = Math.max(peak, rssMiB(pid)); }, 250);
    const started = performance.now();
    const until = started + SECONDS * 1000;
    await Promise.all(Array.from({ length: CLIENTS }, (_, k) => clientLoop(server.url, era, until, stats, k)));
    const elapsed = (performance.now() - started) / 1000;
    clearInterval(sampler);
    const atEnd = rssMiB(pid);
    // Back near the level before the load? Polled, at most 30 s.
    let after = rssMiB(pid);
    const t0 = performance.now();
    while (after > before * 1.2 && performance.now() - t0 < 30_000) { await sleep(500); after = rssMiB(pid); }
    const settle = (performance.now() - t0) / 1000;
    const open = openData(pid, d.data);
    const rows = Object.fromEntries(Object.entries(stats.times).map(([name, xs]) => [name, { calls: xs.length, p50: quantile(xs, 0.5), p99: quantile(xs, 0.99), max: Math.max(...xs) }]));
    const calls = Object.values(stats.times).reduce((a, xs) => a + xs.length, 0);
    const stdout = server.stdout();
    return { era, clients: CLIENTS, seconds: SECONDS, elapsed, calls, failures: stats.failures.length, failureSamples: [...new Set(stats.failures)].slice(0, 5), rows, rssMiB: { idle, before, peak, atEnd, after, settleSeconds: settle }, openDataFiles: open, stdoutBytes: stdout.length };
  } finally {
    await server.stop();
    fs.rmSync(d.base, { recursive: true, force: true });
  }
}

const fmt = (x) => (x === null || x === undefined ? '—' : x >= 100 ? x.toFixed(0) : x.toFixed(1));
const results = [];
for (const era of ERAS) {
  const r = await runEra(era);
  results.push(r);
  console.log(`\n${era === 'legacy' ? '2025-11-25 (sessions)' : '2026-07-28 (per request)'}: ${r.clients} clients × ${r.elapsed.toFixed(1)} s, ${r.calls} calls, ${r.failures} failed`);
  console.log('call         calls    p50 ms   p99 ms   max ms');
  for (const [name, row] of Object.entries(r.rows)) console.log(`${name.padEnd(12)} ${String(row.calls).padStart(6)} ${fmt(row.p50).padStart(9)} ${fmt(row.p99).padStart(8)} ${fmt(row.max).padStart(8)}`);
  console.log(`RSS MiB: idle ${fmt(r.rssMiB.idle)}, before ${fmt(r.rssMiB.before)}, peak ${fmt(r.rssMiB.peak)}, at end ${fmt(r.rssMiB.atEnd)}, after close ${fmt(r.rssMiB.after)} (${(r.rssMiB.after / r.rssMiB.before).toFixed(2)}× before, after ${r.rssMiB.settleSeconds.toFixed(1)} s); data files still open: ${r.openDataFiles}; stdout bytes: ${r.stdoutBytes}`);
  if (r.failureSamples.length) console.log('failures, e.g.:', r.failureSamples);
}
if (OUT) fs.writeFileSync(OUT, JSON.stringify(results, null, 2));
