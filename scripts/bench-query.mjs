#!/usr/bin/env node
// scripts/bench-query.mjs — times the scan engine on one file (needs a build: npx tsc -b).
//   node scripts/bench-query.mjs FILE QUERY [--threads N|0] [--limit N] [--count]
// Prints open (index) time, scan time (wall and process CPU, all threads), units found.
// --threads 0: main thread only; default: worker threads when the file is ≥ 8 MiB.
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(repo + '/');
require('reflect-metadata');
// Plugins import their runtime helpers from mcpgw/plugin-kit: resolve it to this kernel, as the loader does.
require(`${repo}/dist/kernel/plugins/api-module.js`).installApiResolution();
const { QueryScanEngine, ThreadPool } = require(`${repo}/dist/engine/scan/index.js`);
const { DEFAULT_LIMITS } = require(`${repo}/dist/kernel/config/defaults.js`);
const { FileService } = require(`${repo}/dist/kernel/files/file-service.js`);
const { Sandbox } = require(`${repo}/dist/kernel/files/sandbox.js`);
const { recordsToolkit } = require(`${repo}/dist/engine/records/index.js`);
const { McpgwError } = require(`${repo}/dist/kernel/errors.js`);
const { EngineIndexer } = require(`${repo}/dist/engine/files/indexer.js`);

const args = process.argv.slice(2);
const opt = (name, dflt) => { const i = args.indexOf(name); return i === -1 ? dflt : args.splice(i, 2)[1]; };
const flag = (name) => { const i = args.indexOf(name); if (i === -1) return false; args.splice(i, 1); return true; };
const threads = opt('--threads', undefined);
const limit = Number(opt('--limit', '1000'));
const count = flag('--count');
const [file, q] = args;
const langs = {}; const formats = [];
const noop = () => {};
const reg = { registerQueryLanguage: (l) => (langs[l.name] = l), registerFormat: (f) => formats.push(f), registerToolBundle: noop, records: recordsToolkit, error: (c, m, d) => new McpgwError(c, m, d), log: { debug: noop, info: noop, warn: noop, error: noop } };
for (const p of ['query-jsonpath', 'format-jsonl', 'format-jsonseq', 'format-json']) {
  try { await require(`${repo}/plugins/${p}/dist/index.js`).default.register(reg, {}); } catch { /* not built */ }
}
const files = new FileService(new Sandbox(path.dirname(path.resolve(file))), () => formats, DEFAULT_LIMITS, undefined, new EngineIndexer());
let t = performance.now(); let c = process.cpuUsage();
const f = await files.open(path.basename(file));
const openMs = performance.now() - t;
const pool = threads === '0' ? undefined : new ThreadPool({ pluginOf: () => ({ entry: `${repo}/plugins/query-jsonpath/dist/index.js`, options: {} }), ...(threads ? { threads: Number(threads) } : {}) });
const engine = new QueryScanEngine({ limits: () => DEFAULT_LIMITS, workers: pool });
t = performance.now(); c = process.cpuUsage();
const r = await engine.run({ source: f.source, query: langs.jsonpath.compile(q), addressing: 'file', limit, countAll: count || undefined });
const cpu = process.cpuUsage(c);
const scanMs = performance.now() - t;
console.log(JSON.stringify({ file: path.basename(file), query: q, records: f.source.count, open_ms: Math.round(openMs), scan_ms: Math.round(scanMs), scan_cpu_ms: Math.round((cpu.user + cpu.system) / 1000), total_ms: Math.round(openMs + scanMs), units: count ? r.total : r.nodes.length, skipped: r.skipped, threads: threads ?? 'auto' }));
f.close();
