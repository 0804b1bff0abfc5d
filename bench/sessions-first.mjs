#!/usr/bin/env node
/**
 * The sessions tools' first calls on a large history: a new server with an empty cache folder, then
 * `get_usage_stats` and `semantic_search` as a client would call them (again while `complete: false`), and warm
 * `semantic_search` once the index is built. The history is bench/gen-sessions.mjs's with Zipf text (`--text zipf`),
 * ≥ 6,000 sessions across the six sources.
 *
 *   node bench/sessions-first.mjs [--sessions 6000] [--size 700MiB] [--seed 5] [--runs 3] [--keep DIR] [--only usage,list,semantic]
 *
 * Per run (each with a new server and an empty cache folder): the first call's time and whether it was complete, the
 * calls and total time until complete, the progress notifications received, and the server's CPU time for them
 * (user + system, from /proc); then every session listed with the cursor by a new server over another empty cache
 * folder (nothing read, nothing kept); then semantic_search on a new server and the median of 10 warm queries; then a
 * server over the first cache folder (the next conversation): its first get_usage_stats and semantic_search, and every
 * session listed again. `--only` runs a part of these.
 * Prints JSON on stdout with each run and the medians.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { generate } from './gen-sessions.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(HERE, '..');
const log = (s) => process.stderr.write(`[first] ${s}\n`);
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor((s.length - 1) / 2)]; };
const WARM = ['websocket connection drops after a minute', 'memory keeps growing in the worker', 'calendar shows the wrong day', 'tests fail on the build server', 'payment webhook handled twice', 'slow query on the orders table', 'certificate expired on staging', 'lock file conflicts after rebase', 'translate the settings page', 'docker image too large'];

async function connect(env, config) {
  const { Client } = await import('@modelcontextprotocol/client');
  const { StdioClientTransport } = await import('@modelcontextprotocol/client/stdio');
  const client = new Client({ name: 'mcpgw-bench-first', version: '1.0.0' });
  const transport = new StdioClientTransport({ command: process.execPath, args: [path.join(REPO, 'bin', 'mcpgw.js'), 'serve', '--config', config], env, stderr: 'pipe' });
  await client.connect(transport);
  client.serverPid = transport.pid;
  return client;
}

/** CPU time (user + system, ms) of process `pid` and its threads so far, from /proc; NaN where there is none. */
function cpuMs(pid) {
  try {
    const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(f[11]) + Number(f[12])) * 1000) / 100;
  } catch {
    return NaN;
  }
}

/** CPU time (ms) of the main thread of process `pid` and of its other threads together, from /proc. */
function cpuSplit(pid) {
  let main = 0, others = 0;
  try {
    for (const t of fs.readdirSync(`/proc/${pid}/task`)) {
      try {
        const f = fs.readFileSync(`/proc/${pid}/task/${t}/stat`, 'utf8').split(') ')[1].split(' ');
        const ms = ((Number(f[11]) + Number(f[12])) * 1000) / 100;
        if (Number(t) === pid) main += ms; else others += ms;
      } catch { /* the thread ended */ }
    }
  } catch {
    return { main: NaN, others: NaN };
  }
  return { main, others };
}

/** Every session listed with the cursor: calls, time, sessions, the server's CPU time. */
async function listAll(client) {
  const list = { calls: 0, ms: 0, sessions: 0, cpu_ms: 0, complete: true };
  const cpu0 = cpuMs(client.serverPid);
  let cursor;
  do {
    const t = performance.now();
    const r = await client.callTool({ name: 'list_sessions', arguments: cursor ? { cursor } : {} }, { timeout: 600000 });
    list.ms += performance.now() - t;
    list.calls++;
    list.sessions += r.structuredContent.sessions.length;
    if (!r.structuredContent.complete) list.complete = false;
    cursor = r.structuredContent.next_cursor;
  } while (cursor && list.calls < 1000);
  list.cpu_ms = cpuMs(client.serverPid) - cpu0;
  return list;
}

/** Calls `name` until complete; the first call's time and completeness, calls and total time, progress notes. */
async function untilComplete(client, name, args) {
  const out = { first_ms: 0, first_complete: false, calls: 0, total_ms: 0, progress: 0, cpu_ms: 0 };
  const cpu0 = cpuMs(client.serverPid);
  const split0 = cpuSplit(client.serverPid);
  for (let i = 0; i < 100; i++) {
    const t = performance.now();
    const r = await client.callTool({ name, arguments: args }, { timeout: 600000, onprogress: () => { out.progress++; } });
    const ms = performance.now() - t;
    if (r.isError) throw new Error(`${name}: ${r.content?.[0]?.text}`);
    out.calls++;
    out.total_ms += ms;
    if (i === 0) { out.first_ms = ms; out.first_complete = r.structuredContent.complete; out.first_cpu_ms = cpuMs(client.serverPid) - cpu0; const sp = cpuSplit(client.serverPid); out.first_cpu_main_ms = sp.main - split0.main; out.first_cpu_other_threads_ms = sp.others - split0.others; }
    if (r.structuredContent.complete) { out.answer = name === 'get_usage_stats' ? { total_sessions: r.structuredContent.total_sessions, total_tokens: r.structuredContent.total_tokens } : { results: r.structuredContent.results.length, sessions_indexed: r.structuredContent.sessions_indexed }; break; }
  }
  out.cpu_ms = cpuMs(client.serverPid) - cpu0;
  return out;
}

async function main() {
  const args = process.argv.slice(2);
  const opt = (n, d) => { const i = args.indexOf(`--${n}`); return i === -1 ? d : args[i + 1]; };
  const sessions = Number(opt('sessions', '6000'));
  const m = /^(\d+(?:\.\d+)?)\s*(GiB|MiB)?$/i.exec(opt('size', '700MiB'));
  const size = Number(m[1]) * (m[2]?.toLowerCase() === 'gib' ? 2 ** 30 : 2 ** 20);
  const runs = Number(opt('runs', '3'));
  const dir = path.resolve(opt('keep', path.join(os.tmpdir(), `mcpgw-first-${process.pid}`)));
  let meta;
  if (fs.existsSync(path.join(dir, 'meta.json')) && args.includes('--keep')) meta = JSON.parse(fs.readFileSync(path.join(dir, 'meta.json'), 'utf8'));
  else {
    const t0 = Date.now();
    meta = generate({ out: dir, sessions, size, seed: Number(opt('seed', '5')), text: 'zipf' });
    log(`generated ${meta.files} sessions, ${(meta.bytes / 2 ** 20).toFixed(0)} MiB in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  }
  const config = path.join(dir, 'mcpgw.json');
  fs.writeFileSync(config, JSON.stringify({ profiles: { default: { bundles: ['sessions'] } } }));
  const results = [];
  for (let run = 0; run < runs; run++) {
    const cache = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-first-cache-'));
    const env = { PATH: process.env.PATH, HOME: dir, XDG_CACHE_HOME: cache };
    for (const s of ['claude', 'codex', 'copilot', 'gemini', 'qwen', 'kimi']) env[`MCPGW_${s.toUpperCase()}_HOME`] = path.join(dir, s);
    const only = new Set(opt('only', 'usage,list,semantic').split(','));
    const cold = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-first-cache-'));
    const result = { load_average: os.loadavg().map((x) => Number(x.toFixed(1))) };
    try {
      let client;
      if (only.has('usage')) {
        client = await connect(env, config);
        result.usage = await untilComplete(client, 'get_usage_stats', {});
        await client.close();
        log(`run ${run + 1}: get_usage_stats first ${result.usage.first_ms.toFixed(0)} ms (complete ${result.usage.first_complete}, CPU ${result.usage.first_cpu_ms.toFixed(0)} ms: main thread ${result.usage.first_cpu_main_ms.toFixed(0)}, other threads ${result.usage.first_cpu_other_threads_ms.toFixed(0)}, load ${os.loadavg()[0].toFixed(1)}), ${result.usage.calls} calls, ${result.usage.total_ms.toFixed(0)} ms to complete`);
      }
      if (only.has('list')) {
        // A new server over an empty cache folder of its own: nothing read, nothing kept.
        client = await connect({ ...env, XDG_CACHE_HOME: cold }, config);
        result.list_cold = await listAll(client);
        await client.close();
        log(`run ${run + 1}: cold list_sessions of all ${result.list_cold.sessions} sessions: ${result.list_cold.calls} calls, ${result.list_cold.ms.toFixed(0)} ms (CPU ${result.list_cold.cpu_ms.toFixed(0)} ms, complete ${result.list_cold.complete})`);
      }
      if (only.has('semantic')) {
        // semantic_search on a new server: nothing read yet in this process, no index in the cache folder.
        client = await connect(env, config);
        result.semantic = await untilComplete(client, 'semantic_search', { query: WARM[0] });
        log(`run ${run + 1}: semantic_search first ${result.semantic.first_ms.toFixed(0)} ms (complete ${result.semantic.first_complete}), ${result.semantic.calls} calls, ${result.semantic.total_ms.toFixed(0)} ms to complete, ${result.semantic.progress} progress notifications`);
        const warm = [];
        for (const q of WARM) {
          const t = performance.now();
          await client.callTool({ name: 'semantic_search', arguments: { query: q } }, { timeout: 600000 });
          warm.push(performance.now() - t);
        }
        result.warm_semantic_ms = median(warm);
        await client.close();
        log(`run ${run + 1}: warm semantic_search median ${median(warm).toFixed(0)} ms`);
      }
      // A new server over the same cache folder (the next conversation): its first calls, with what the servers before
      // kept (statistics, digests, the index).
      client = await connect(env, config);
      result.next_server = {};
      if (only.has('usage')) result.next_server.usage = await untilComplete(client, 'get_usage_stats', {});
      if (only.has('semantic')) result.next_server.semantic = await untilComplete(client, 'semantic_search', { query: WARM[1] });
      if (only.has('list')) result.next_server.list = await listAll(client);
      await client.close();
      log(`run ${run + 1}: next server: ${JSON.stringify({ usage_first_ms: result.next_server.usage?.first_ms, semantic_first_ms: result.next_server.semantic?.first_ms, list_ms: result.next_server.list?.ms, list_calls: result.next_server.list?.calls })}`);
      results.push(result);
    } finally {
      fs.rmSync(cache, { recursive: true, force: true });
      fs.rmSync(cold, { recursive: true, force: true });
    }
  }
  const med = (f) => { const xs = results.map(f).filter((x) => x !== undefined); return xs.length ? median(xs) : undefined; };
  process.stdout.write(JSON.stringify({
    sessions: meta.files, mib: Math.round(meta.bytes / 2 ** 20), runs,
    median: {
      usage_first_ms: med((r) => r.usage?.first_ms), usage_first_cpu_ms: med((r) => r.usage?.first_cpu_ms), usage_first_cpu_main_ms: med((r) => r.usage?.first_cpu_main_ms), usage_calls: med((r) => r.usage?.calls), usage_to_complete_ms: med((r) => r.usage?.total_ms),
      list_cold_calls: med((r) => r.list_cold?.calls), list_cold_ms: med((r) => r.list_cold?.ms), list_cold_cpu_ms: med((r) => r.list_cold?.cpu_ms),
      semantic_first_ms: med((r) => r.semantic?.first_ms), semantic_calls: med((r) => r.semantic?.calls), semantic_to_complete_ms: med((r) => r.semantic?.total_ms),
      semantic_progress_notifications: med((r) => r.semantic?.progress), warm_semantic_ms: med((r) => r.warm_semantic_ms),
      next_server_usage_first_ms: med((r) => r.next_server.usage?.first_ms), next_server_semantic_first_ms: med((r) => r.next_server.semantic?.first_ms),
      next_server_list_ms: med((r) => r.next_server.list?.ms), next_server_list_calls: med((r) => r.next_server.list?.calls),
    },
    results,
  }, null, 1) + '\n');
  if (!args.includes('--keep')) fs.rmSync(dir, { recursive: true, force: true });
}

main().catch((e) => { process.stderr.write(`${e.stack}\n`); process.exit(1); });
