#!/usr/bin/env node
// bench/big-record.mjs — reading one big record in pages: get_record (first page and a page from the middle),
// get_value_at_path of a big member, json_read of the record and sample_records (which cuts it), through the real
// MCP interface; and --pages pages of the record read in a row following next_offset, from a fresh handle.
//
//   node bench/big-record.mjs [--mb 8] [--runs 7] [--pages 40] [--gateway bin/mcpgw.js]
//
// The record is one JSON Lines line of about --mb MiB (default 8): an object holding an array of event-like
// objects (strings with escapes and emoji, integers, decimals, nested objects). The file is written to a temp
// folder and removed after. Each figure is the median (min–max) of --runs calls after one warm-up call, timed
// as the tools/call round trip with performance.now().

import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(HERE, '..');
const arg = (name, dflt) => { const i = process.argv.indexOf(name); return i > 0 ? process.argv[i + 1] : dflt; };
const MB = Number(arg('--mb', '8'));
const RUNS = Math.max(1, Number(arg('--runs', '7')));
const PAGES = Math.max(1, Number(arg('--pages', '40')));
const GATEWAY = path.resolve(arg('--gateway', path.join(REPO, 'bin', 'mcpgw.js')));

/** One record of about `bytes` bytes (deterministic). */
function bigRecord(bytes) {
  const items = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const item = `{"id":${i},"name":"item ${i} caf\\u00e9 \\"q\\" 😀","score":${(i * 7919) % 1000}.${i % 100},"tags":["a${i % 13}","b${i % 7}"],"meta":{"ok":${i % 2 === 0},"note":null,"path":"\\/x\\/${i}"}}`;
    items.push(item);
    size += Buffer.byteLength(item) + 1;
  }
  return `{"kind":"big","count":${items.length},"items":[${items.join(',')}]}`;
}

function stats(ms) {
  const s = [...ms].sort((a, b) => a - b);
  return { median: s[Math.floor(s.length / 2)], min: s[0], max: s[s.length - 1] };
}
const fmt = (x) => `${x.median.toFixed(1)} ms (${x.min.toFixed(1)}–${x.max.toFixed(1)})`;

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-bench-big-'));
const record = bigRecord(MB * 1024 * 1024);
fs.writeFileSync(path.join(dir, 'big.jsonl'), record + '\n');
const { Client } = await import('@modelcontextprotocol/client');
const { StdioClientTransport } = await import('@modelcontextprotocol/client/stdio');
// the persistent index cache off: every open is measured as a pass, and the user's cache is never touched
const configFile = path.join(dir, '.mcpgwrc.json');
fs.writeFileSync(configFile, JSON.stringify({ cache: false }));
const transport = new StdioClientTransport({ command: process.execPath, args: [GATEWAY, 'serve', '--root', dir, '--config', configFile], stderr: 'pipe', cwd: REPO });
const client = new Client({ name: 'mcpgw-bench', version: '1.0.0' });
try {
  await client.connect(transport);
  const call = async (name, args) => {
    const t0 = performance.now();
    const r = await client.callTool({ name, arguments: args }, undefined, { timeout: 600000 });
    const ms = performance.now() - t0;
    if (r.isError) throw new Error(`${name}: ${r.content[0]?.text}`);
    return { ms, data: r.structuredContent };
  };
  const { data: open } = await call('open_file', { path: 'big.jsonl' });
  const handle = open.handle;
  const first = (await call('get_record', { handle, index: 0 })).data;
  const middle = Math.floor(first.record_bytes / 2);
  const middleItems = Math.floor(first.record_bytes / 4);
  const fresh = async () => (await call('open_file', { path: 'big.jsonl' })).data.handle;
  // [label, tool, args (a function of the handle), setup: a fresh handle per call (untimed open and close)?]
  const cases = [
    ['get_record, first page (a fresh handle)', 'get_record', (h) => ({ handle: h, index: 0 }), true],
    ['get_record, first page', 'get_record', (h) => ({ handle: h, index: 0 })],
    ['get_record, a page from the middle (offset)', 'get_record', (h) => ({ handle: h, index: 0, offset: middle, length: 16384 })],
    ['get_value_at_path items (compact, first page)', 'get_value_at_path', (h) => ({ handle: h, index: 0, path: 'items' })],
    ['get_value_at_path items, a page from the middle', 'get_value_at_path', (h) => ({ handle: h, index: 0, path: 'items', offset: middleItems })],
    ['json_read $[0].items (first page)', 'json_read', () => ({ path: 'big.jsonl', language: 'jsonpath', query: '$[0].items', max_items: 1 })],
    ['sample_records count 1 (the record cut)', 'sample_records', (h) => ({ handle: h, count: 1 })],
  ];
  const rows = [];
  let digest = '';
  for (const [label, tool, args, own] of cases) {
    const once = async () => {
      const h = own ? await fresh() : handle;
      const r = await call(tool, args(h));
      if (own) await call('close_file', { handle: h });
      return r.ms;
    };
    await once(); // warm-up
    const ms = [];
    for (let r = 0; r < RUNS; r++) ms.push(await once());
    rows.push([label, stats(ms)]);
  }
  // Reading the whole record page after page, following next_offset (16 KiB pages), from a fresh handle.
  {
    const h = await fresh();
    let offset = 0, pages = 0;
    const t0 = performance.now();
    const per = [];
    const hash = crypto.createHash('sha256');
    for (;;) {
      const { ms, data } = await call('get_record', { handle: h, index: 0, offset, length: 16384 });
      per.push(ms);
      hash.update(data.record);
      pages++;
      if (data.next_offset === undefined || pages >= PAGES) break;
      offset = data.next_offset;
    }
    const total = performance.now() - t0;
    await call('close_file', { handle: h });
    rows.push([`get_record, ${pages} pages in a row (each)`, stats(per)]);
    rows.push([`get_record, ${pages} pages in a row (all)`, { median: total, min: total, max: total }]);
    digest = `sha256 of the ${pages} pages: ${hash.digest('hex').slice(0, 16)}`;
  }
  console.log(`One record of ${(Buffer.byteLength(record) / 1048576).toFixed(2)} MiB (re-indented: ${(first.record_bytes / 1048576).toFixed(2)} MiB), ${RUNS} runs, median (min–max):`);
  for (const [label, s] of rows) console.log(`  ${label.padEnd(48)} ${fmt(s)}`);
  console.log(`  ${digest}`);
} finally {
  await client.close().catch(() => undefined);
  fs.rmSync(dir, { recursive: true, force: true });
}
