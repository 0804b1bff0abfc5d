#!/usr/bin/env node
// bench/reopen-csv.mjs — a plugin format on the indexing kit against a built-in one: the same rows as CSV (read by the
// example plugin, examples/plugins/csv) and as JSON Lines, each opened once (index pass, index stored), then re-opened
// by a fresh server from the persistent index. Every run has an empty cache folder of its own; the re-opens of the two
// files run back to back in the same fresh server (their order alternating), after it opened a small file of each
// format (the first call of a server pays its own start: modules, the first parse), so the ratio CSV ÷ JSON Lines is
// taken run by run and then summarised. The gateway is timed through its MCP interface (open_file round trips).
//
//   node bench/reopen-csv.mjs [--rows 1200000] [--runs 7]
//
// It installs csv-parse (the example's one dependency, pinned) next to a copy of the example, from npm's cache when it
// has it. Data and that copy go to MCPGW_BENCH_DATA (default bench/.data). See bench/README.md.

import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { sfc32 } from './gen.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(HERE, '..');
const DATA = path.join(process.env.MCPGW_BENCH_DATA || path.join(HERE, '.data'), 'reopen-csv');
const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? dflt : Number(process.argv[i + 1]);
};
const ROWS = arg('rows', 1_200_000);
const RUNS = arg('runs', 7);

/** The same rows, as CSV (with quoted fields holding commas, quotes and line breaks) and as JSON Lines. */
function generate() {
  const csv = path.join(DATA, 'data', `rows-${ROWS}.csv`);
  const jsonl = path.join(DATA, 'data', `rows-${ROWS}.jsonl`);
  if (fs.existsSync(csv) && fs.existsSync(jsonl) && fs.existsSync(path.join(path.dirname(csv), 'warm.csv'))) return { csv, jsonl };
  fs.mkdirSync(path.dirname(csv), { recursive: true });
  const rnd = sfc32(28);
  const notes = ['plain', 'with, comma', 'with "quotes"', 'multi\nline', '', 'café €'];
  const statuses = ['ok', 'failed', 'retry', 'timeout'];
  const c = fs.openSync(csv, 'w'), j = fs.openSync(jsonl, 'w');
  let cb = 'id,user,status,latency_ms,note\r\n', jb = '';
  const quote = (s) => (/[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s);
  for (let i = 0; i < ROWS; i++) {
    const row = { id: String(i), user: `user${Math.floor(rnd() * 50000)}`, status: statuses[Math.floor(rnd() * 4)], latency_ms: String(Math.floor(rnd() * 5000)), note: notes[Math.floor(rnd() * notes.length)] };
    cb += `${row.id},${row.user},${row.status},${row.latency_ms},${quote(row.note)}\r\n`;
    jb += JSON.stringify(row) + '\n';
    if (cb.length > 1 << 20) { fs.writeSync(c, cb); fs.writeSync(j, jb); cb = ''; jb = ''; }
  }
  fs.writeSync(c, cb); fs.writeSync(j, jb);
  fs.closeSync(c); fs.closeSync(j);
  fs.writeFileSync(path.join(path.dirname(csv), 'warm.csv'), 'id,note\r\n1,"a, b"\r\n2,c\r\n');
  fs.writeFileSync(path.join(path.dirname(csv), 'warm.jsonl'), '{"id":"1","note":"a, b"}\n{"id":"2","note":"c"}\n');
  return { csv, jsonl };
}

/** A copy of the example plugin with csv-parse installed beside it and the repository's zod (a peer: mcpgw's own). */
function plugin() {
  const dir = path.join(DATA, 'plugin-csv');
  fs.rmSync(dir, { recursive: true, force: true });
  fs.cpSync(path.join(REPO, 'examples', 'plugins', 'csv'), dir, { recursive: true });
  const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
  const r = spawnSync('npm', ['install', '--no-save', '--legacy-peer-deps', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error', `csv-parse@${pkg.dependencies['csv-parse']}`], { cwd: dir, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`npm install csv-parse failed: ${r.stderr}`);
  fs.symlinkSync(path.join(REPO, 'node_modules', 'zod'), path.join(dir, 'node_modules', 'zod'));
  return dir;
}

async function server(config) {
  const { Client } = await import('@modelcontextprotocol/client');
  const { StdioClientTransport } = await import('@modelcontextprotocol/client/stdio');
  const transport = new StdioClientTransport({ command: process.execPath, args: [path.join(REPO, 'bin', 'mcpgw.js'), 'serve', '--config', config], stderr: 'pipe', cwd: REPO });
  let stderr = '';
  transport.stderr?.on('data', (b) => { stderr += b; });
  const client = new Client({ name: 'mcpgw-bench', version: '1.0.0' });
  await client.connect(transport, { timeout: 60000 });
  await client.listTools();
  const open = async (name) => {
    const t = performance.now();
    const r = await client.callTool({ name: 'open_file', arguments: { path: name } }, undefined, { timeout: 30 * 60 * 1000 });
    const ms = performance.now() - t;
    if (r.isError) throw new Error(`open_file ${name}: ${JSON.stringify(r.structuredContent)} ${stderr.slice(-500)}`);
    return { ms, count: r.structuredContent.record_count };
  };
  return { open, stderr: () => stderr, close: () => client.close() };
}

const median = (xs) => { const s = [...xs].sort((a, b) => a - b); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };
const fmt = (xs) => `${median(xs).toFixed(2)} [${Math.min(...xs).toFixed(2)}–${Math.max(...xs).toFixed(2)}]`;

const files = generate();
const dir = plugin();
const out = { passCsv: [], passJsonl: [], reopenCsv: [], reopenJsonl: [], ratio: [], passRatio: [] };
for (let run = 0; run <= RUNS; run++) {
  const cacheDir = path.join(DATA, `cache-${run}`);
  fs.rmSync(cacheDir, { recursive: true, force: true });
  const config = path.join(DATA, 'config.json');
  fs.writeFileSync(config, JSON.stringify({ root: path.dirname(files.csv), cacheDir, logLevel: 'debug', plugins: [dir] }));
  const a = await server(config);
  const pc = await a.open(path.basename(files.csv));
  const pj = await a.open(path.basename(files.jsonl));
  await a.close();
  if (pc.count !== ROWS || pj.count !== ROWS) throw new Error(`record counts ${pc.count} (CSV), ${pj.count} (JSON Lines), not ${ROWS}`);
  const b = await server(config);
  await b.open('warm.csv');
  await b.open('warm.jsonl');
  const order = run % 2 ? ['jsonl', 'csv'] : ['csv', 'jsonl'];
  const got = {};
  for (const k of order) got[k] = await b.open(path.basename(files[k]));
  const restored = (b.stderr().match(/opened from the stored index without a pass/g) ?? []).length;
  await b.close();
  fs.rmSync(cacheDir, { recursive: true, force: true });
  if (restored !== 2) throw new Error(`run ${run}: ${restored} of the 2 re-opens came from the stored index`);
  if (run === 0) continue; // warm-up
  out.passCsv.push(pc.ms); out.passJsonl.push(pj.ms);
  out.reopenCsv.push(got.csv.ms); out.reopenJsonl.push(got.jsonl.ms);
  out.ratio.push(got.csv.ms / got.jsonl.ms);
  out.passRatio.push(pc.ms / pj.ms);
}
const size = (f) => `${(fs.statSync(f).size / 1048576).toFixed(1)} MiB`;
console.log(`rows ${ROWS}: CSV ${size(files.csv)}, JSON Lines ${size(files.jsonl)}; ${RUNS} runs after a warm-up; medians [min–max], ms`);
console.log(`first open (pass + index stored)   CSV ${fmt(out.passCsv)}   JSON Lines ${fmt(out.passJsonl)}   ratio ${fmt(out.passRatio)}`);
console.log(`re-open, fresh server (stored, after a warm-up open of each format)      CSV ${fmt(out.reopenCsv)}   JSON Lines ${fmt(out.reopenJsonl)}   ratio ${fmt(out.ratio)}`);
console.log(JSON.stringify({ rows: ROWS, runs: RUNS, ...out }));
