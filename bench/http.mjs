// bench/http.mjs — the `http` scenario of bench/run.mjs: tool-call latency over `mcpgw serve --http`.
//
// Two parts, on one small JSON Lines file (the latency of the transport and of concurrency, not of scanning):
//   1. one client alone, calls one after another: stdio, HTTP in the 2025-11-25 era (session), HTTP in the
//      2026-07-28 era (a server instance per request) — what HTTP costs over stdio, per tool;
//   2. a load: CLIENTS concurrent clients (2.x 2025-era, 2.x 2026-era, 1.32) × CALLS mixed calls on one server,
//      one warm-up burst then `runs` measured bursts — p50/p99 per tool, calls per second, server RSS.
// Every answer is checked (no error result, the expected record or count); a wrong one marks the row.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';

export const HTTP_CLIENTS = 64;
export const HTTP_CALLS = 50;
/** Records in the file the HTTP scenario uses (~2 MB of JSON Lines). */
export const HTTP_RECORDS = 5000;

const quantile = (xs, q) => {
  if (!xs.length) return null;
  const s = [...xs].sort((a, b) => a - b);
  const pos = (s.length - 1) * q, lo = Math.floor(pos), hi = Math.ceil(pos);
  return s[lo] + (s[hi] - s[lo]) * (pos - lo);
};
const rssKb = (pid) => { try { return Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'latin1'))[1]); } catch { return null; } };

/** Starts `serve --http --port 0` and resolves once it printed its URL. */
function startHttpServer(node, gateway, configFile) {
  return new Promise((resolve, reject) => {
    const proc = spawn(node, [gateway, 'serve', '--http', '--port', '0', '--config', configFile], { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    proc.stderr.on('data', (d) => {
      err += d.toString();
      const m = /serving MCP over HTTP at (\S+)/.exec(err);
      if (m) resolve({ proc, url: new URL(m[1]), stop: () => new Promise((r) => { proc.once('exit', r); proc.kill('SIGTERM'); }) });
    });
    proc.once('exit', (code) => reject(new Error(`serve --http exited with ${code}: ${err.slice(-500)}`)));
  });
}

/** A connected client of `kind` (stdio | legacy | modern | v1) with a timed, checked `call`. */
async function connect(kind, { node, gateway, root, url, configFile }) {
  const { Client } = await import('@modelcontextprotocol/client');
  let client, transport;
  if (kind === 'v1') {
    const { Client: V1 } = await import('@modelcontextprotocol/sdk/client/index.js');
    const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
    client = new V1({ name: 'mcpgw-bench-v1', version: '1.0.0' });
    transport = new StreamableHTTPClientTransport(url);
  } else {
    client = new Client({ name: 'mcpgw-bench', version: '1.0.0' }, kind === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {});
    if (kind === 'stdio') {
      const { StdioClientTransport } = await import('@modelcontextprotocol/client/stdio');
      transport = new StdioClientTransport({ command: node, args: [gateway, 'serve', '--root', root, '--config', configFile], stderr: 'ignore' });
    } else {
      const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
      transport = new StreamableHTTPClientTransport(url);
    }
  }
  await client.connect(transport);
  return {
    async call(name, args) {
      const t0 = performance.now();
      const r = await client.callTool({ name, arguments: args });
      const ms = performance.now() - t0;
      if (r.isError) throw new Error(`${name}: ${r.content?.[0]?.text?.slice(0, 300)}`);
      return { ms, sc: r.structuredContent };
    },
    async close() {
      if (kind === 'legacy' || kind === 'v1') await transport.terminateSession().catch(() => undefined);
      await client.close();
    },
  };
}

/** The mixed calls of one client, checked against the data's meta (records, failed). */
function mixedSteps(meta, rel, calls) {
  const n = meta.records;
  const steps = [
    { tool: 'open_file', args: () => ({ path: rel }), keep: (s, sc) => (s.handle = sc.handle), check: (sc) => sc.record_count === n },
    { tool: 'json_open', args: () => ({ path: rel }), keep: (s, sc) => (s.fileId = sc.file_id), check: (sc) => typeof sc.file_id === 'string' },
  ];
  for (let k = 0; steps.length < calls - 2; k++) {
    const index = (k * 7919) % n;
    switch (k % 5) {
      case 0: steps.push({ tool: 'search', args: (s) => ({ handle: s.handle, query: '$.status = "failed"', match_case: true, max_results: 5 }), check: (sc) => sc.total_matches === meta.failed }); break;
      case 1: steps.push({ tool: 'get_record', args: (s) => ({ handle: s.handle, index }), check: (sc) => Number(/"id"\s*:\s*(\d+)/.exec(sc.record)?.[1]) === index }); break;
      case 2: steps.push({ tool: 'json_read', args: (s) => ({ file_id: s.fileId, language: 'jsonpath', query: '$[?@.status=="failed"].id', max_items: 5 }), keep: (s, sc) => (s.cursor = sc.next_cursor), check: (sc) => sc.items.length === Math.min(5, meta.failed) }); break;
      case 3: steps.push({ tool: 'json_read', label: 'json_read (cursor)', args: (s) => ({ cursor: s.cursor }), check: (sc) => Array.isArray(sc.items) }); break;
      default: steps.push({ tool: 'get_value_at_path', args: (s) => ({ handle: s.handle, index, path: 'user.address.city' }), check: (sc) => typeof sc.value === 'string' });
    }
  }
  steps.push({ tool: 'close_file', args: (s) => ({ handle: s.handle }), check: () => true }, { tool: 'json_close', args: (s) => ({ file_id: s.fileId }), check: () => true });
  return steps;
}

async function runSteps(client, steps, lat, wrong) {
  const state = {};
  for (const st of steps) {
    const { ms, sc } = await client.call(st.tool, st.args(state));
    st.keep?.(state, sc);
    if (!st.check(sc)) wrong.push(`${st.tool}: ${JSON.stringify(sc).slice(0, 200)}`);
    const key = st.label ?? st.tool;
    (lat[key] ??= []).push(ms);
  }
}

const summarize = (lat) => Object.entries(lat).map(([tool, xs]) => ({ tool, calls: xs.length, p50: quantile(xs, 0.5), p99: quantile(xs, 0.99), max: Math.max(...xs) }));

/**
 * Runs the scenario. `data` is the generated file ({ file, rel, meta }) inside `root`.
 * Resolves to { single: {stdio, legacy, modern: rows}, load: {rows, callsPerS, rssKb, ...}, wrong: [...] }.
 */
export async function benchHttp({ node, gateway, root, data, runs, log, quick = false }) {
  // --quick: a smoke check of the same paths, 16 clients and no warm-up burst; one client alone runs the calls × 2.
  const clients = quick ? 16 : HTTP_CLIENTS;
  const passes = quick ? 2 : 4;
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-bench-http-'));
  // 2026-era clients share one principal (no token): room for their files and unfinished cursors.
  const configFile = path.join(tmp, '.mcpgwrc.json');
  // the persistent index cache off: every open is measured as a pass, and the user's cache is never touched
  fs.writeFileSync(configFile, JSON.stringify({ root, cache: false, limits: { maxOpenFiles: 256, maxCursors: 4096 } }));
  const wrong = [];
  const out = { single: {}, load: null, wrong, clients, calls: HTTP_CALLS };
  let server;
  try {
    server = await startHttpServer(node, gateway, configFile);
    const env = { node, gateway, root, url: server.url, configFile };
    // 1. one client alone
    for (const kind of ['stdio', 'legacy', 'modern']) {
      log(`http: one ${kind} client, ${HTTP_CALLS} calls × ${passes}`);
      const c = await connect(kind, env);
      const lat = {};
      await runSteps(c, mixedSteps(data.meta, data.rel, HTTP_CALLS), {}, wrong); // warm-up
      for (let i = 0; i < passes; i++) await runSteps(c, mixedSteps(data.meta, data.rel, HTTP_CALLS), lat, wrong);
      await c.close();
      out.single[kind] = summarize(lat);
    }
    // 2. the load
    const kinds = Array.from({ length: clients }, (_, i) => (i % 8 < 3 ? 'legacy' : i % 8 < 5 ? 'modern' : 'v1'));
    const burst = async (lat) => {
      const t0 = performance.now();
      await Promise.all(kinds.map(async (kind) => {
        const c = await connect(kind, env);
        try { await runSteps(c, mixedSteps(data.meta, data.rel, HTTP_CALLS), lat, wrong); } finally { await c.close(); }
      }));
      return performance.now() - t0;
    };
    if (!quick) {
      log(`http: warm-up burst, ${clients} clients × ${HTTP_CALLS} calls`);
      await burst({});
    }
    const before = rssKb(server.proc.pid);
    const lat = {};
    const walls = [];
    for (let r = 0; r < runs; r++) {
      log(`http: burst ${r + 1}/${runs}`);
      walls.push(await burst(lat));
    }
    const total = Object.values(lat).reduce((a, xs) => a + xs.length, 0);
    out.load = { rows: summarize(lat), bursts: runs, wallMs: walls, callsPerS: total / (walls.reduce((a, b) => a + b, 0) / 1000), rssBeforeKb: before, rssAfterKb: rssKb(server.proc.pid),
      all: { p50: quantile(Object.values(lat).flat(), 0.5), p99: quantile(Object.values(lat).flat(), 0.99) } };
  } finally {
    if (server) await server.stop();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  return out;
}

/** The report section. */
export function httpMarkdown(r, fmtMs, fmtMiB) {
  const L = ['', '### HTTP (`serve --http`): latency per tool', ''];
  if (r.error) return [...L, `not measured: ${r.error}`].join('\n');
  L.push(`One client alone (calls one after another; ${r.single.stdio?.[0]?.calls ?? 0} of each open, more of the others):`, '');
  L.push('| tool | stdio p50 / p99 | HTTP 2025 session p50 / p99 | HTTP 2026-07-28 p50 / p99 |', '|---|---:|---:|---:|');
  const pick = (rows, tool) => rows?.find((x) => x.tool === tool);
  for (const { tool } of r.single.stdio ?? []) {
    const cells = ['stdio', 'legacy', 'modern'].map((k) => { const x = pick(r.single[k], tool); return x ? `${fmtMs(x.p50)} / ${fmtMs(x.p99)}` : ''; });
    L.push(`| ${tool} | ${cells.join(' | ')} |`);
  }
  if (r.load) {
    L.push('', `Load: ${r.clients} concurrent clients (24 × 2.x 2025-era, 16 × 2.x 2026-era, 24 × 1.32) × ${r.calls} mixed calls, ${r.load.bursts} burst(s) after a warm-up one; ` +
      `${r.load.callsPerS.toFixed(0)} calls/s; all calls p50 ${fmtMs(r.load.all.p50)} / p99 ${fmtMs(r.load.all.p99)}; server RSS ${fmtMiB(r.load.rssBeforeKb)} before, ${fmtMiB(r.load.rssAfterKb)} after.`, '');
    L.push('| tool | calls | p50 | p99 | max |', '|---|---:|---:|---:|---:|');
    for (const x of r.load.rows) L.push(`| ${x.tool} | ${x.calls} | ${fmtMs(x.p50)} | ${fmtMs(x.p99)} | ${fmtMs(x.max)} |`);
  }
  L.push('', r.wrong.length ? `**${r.wrong.length} WRONG ANSWERS**, first: ${r.wrong[0]}` : 'Every answer checked: ✓');
  return L.join('\n');
}
