#!/usr/bin/env node
// bench/peers/duck.mjs — the DuckDB peer: runs one SQL statement in an in-memory DuckDB and prints
// the first column of the first row on stdout; on stderr one JSON line {load_ms, query_ms}.
//   node bench/peers/duck.mjs "SELECT count(*) FROM read_ndjson_auto('f.jsonl') WHERE status='failed'"
// @duckdb/node-api is loaded from the bench's scratch folder (bench/.peers, or $MCPGW_BENCH_PEERS),
// installed by `npm run bench -- --install-peers`; it is never a dependency of the gateway.
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const peers = process.env.MCPGW_BENCH_PEERS || path.join(here, '..', '.peers');
const sql = process.argv[2];
if (!sql) { console.error('usage: node bench/peers/duck.mjs "SQL"'); process.exit(2); }

const t0 = performance.now();
let api;
try {
  const req = createRequire(path.join(peers, 'package.json'));
  api = await import(pathToFileURL(req.resolve('@duckdb/node-api')).href);
} catch (e) {
  console.error(`duckdb peer: @duckdb/node-api is not installed in ${peers} (npm run bench -- --install-peers): ${e.message}`);
  process.exit(3);
}
const instance = await api.DuckDBInstance.create(':memory:');
const conn = await instance.connect();
const t1 = performance.now();
const reader = await conn.runAndReadAll(sql);
const rows = reader.getRows();
const t2 = performance.now();
console.log(String(rows[0]?.[0] ?? ''));
console.error(JSON.stringify({ load_ms: +(t1 - t0).toFixed(1), query_ms: +(t2 - t1).toFixed(1) }));
conn.closeSync();
