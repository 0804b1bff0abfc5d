#!/usr/bin/env node
// The sql bundle against the explorer's aggregate on one JSON Lines file, in the same run (bench/README.md "sql").
//
//   node bench/sql.mjs FILE [--runs 5]
//
// Per run, alternating, each on a fresh server (persistent index off):
//   aggregate-first   open_file (untimed), then aggregate {group_by: "status"} (timed: the first call)
//   aggregate-again   the same aggregate again on that server
//   sql-first         sql_query {sql: "SELECT status, count(*) …", path: FILE} (timed: DuckDB reads the whole file)
//   sql-again         the same sql_query again (no cache: DuckDB reads the file again)
//   sql-mat-first     sql_query over the configured table `events` (FILE) with sql.materialize on, its copy folder
//                     empty: the first call loads the copy (read_json_auto into a DuckDB file), then answers
//   sql-materialised  the same sql_query again: it reads the copy
// Answers checked: every count of "failed" equals FILE.meta.json's (bench/gen.mjs --meta).
import { performance } from 'node:perf_hooks';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(path.join(REPO, 'plugins', 'tools-sql', 'package.json'));
const args = process.argv.slice(2);
const file = path.resolve(args.find((a) => !a.startsWith('--')) ?? '');
const runs = Number(args[args.indexOf('--runs') + 1] ?? 5) || 5;
if (!fs.existsSync(file)) { console.error('usage: node bench/sql.mjs FILE [--runs N]  (FILE from bench/gen.mjs --meta)'); process.exit(2); }
const meta = JSON.parse(fs.readFileSync(`${file}.meta.json`, 'utf8'));
const expectFailed = meta.statuses?.failed ?? meta.failed;

const { Client } = await import(require.resolve('@modelcontextprotocol/client', { paths: [REPO] }));
const { StdioClientTransport } = await import(require.resolve('@modelcontextprotocol/client/stdio', { paths: [REPO] }));

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-bench-sql-'));
const config = path.join(tmp, 'mcpgw.json');
fs.writeFileSync(config, JSON.stringify({
  root: path.dirname(file), cache: false,
  limits: { requestTimeoutMs: 600000, maxResultBytes: 1048576 },
  profiles: { default: { bundles: ['explore', 'sql'] } },
  sql: { tables: { events: path.basename(file) }, materialize: ['events'], materializeDir: path.join(tmp, 'mat') },
}));

async function server() {
  const transport = new StdioClientTransport({ command: process.execPath, args: [path.join(REPO, 'bin', 'mcpgw.js'), 'serve', '--config', config], cwd: tmp, stderr: 'pipe', env: { PATH: process.env.PATH ?? '', XDG_CACHE_HOME: tmp } });
  const client = new Client({ name: 'mcpgw-bench-sql', version: '1.0.0' });
  await client.connect(transport, { timeout: 30000 });
  await client.listTools();
  await client.callTool({ name: 'bench-prime-no-such-tool', arguments: {} }).catch(() => undefined);
  return client;
}
async function timed(client, name, a) {
  const t = performance.now();
  const r = await client.callTool({ name, arguments: a }, undefined, { timeout: 600000 });
  const ms = performance.now() - t;
  if (r.isError) throw new Error(`${name}: ${r.content[0].text}`);
  return { ms, r: r.structuredContent };
}
const rel = path.basename(file);
const SQL = 'SELECT status, count(*) AS n FROM t GROUP BY status ORDER BY n DESC';
const failedOfGroups = (g) => g.find((x) => x.key === 'failed')?.count;
const failedOfRows = (rows) => Number(rows.find((x) => x[0] === 'failed')?.[1]);
const check = (what, n) => { if (n !== expectFailed) throw new Error(`WRONG ANSWER ${what}: failed = ${n}, expected ${expectFailed}`); };

spawnSyncCat(file);
const times = { 'aggregate-first': [], 'aggregate-again': [], 'sql-first': [], 'sql-again': [], 'sql-mat-first': [], 'sql-materialised': [] };
for (let run = 0; run <= runs; run++) {
  const record = run > 0; // run 0 warms up
  {
    const c = await server();
    await timed(c, 'open_file', { path: rel });
    const a1 = await timed(c, 'aggregate', { handle: 'file_1', group_by: 'status' });
    const a2 = await timed(c, 'aggregate', { handle: 'file_1', group_by: 'status' });
    check('aggregate', failedOfGroups(a1.r.groups));
    if (record) { times['aggregate-first'].push(a1.ms); times['aggregate-again'].push(a2.ms); }
    await c.close();
  }
  {
    const c = await server();
    const s1 = await timed(c, 'sql_query', { sql: SQL, path: rel });
    const s2 = await timed(c, 'sql_query', { sql: SQL, path: rel });
    check('sql_query', failedOfRows(s1.r.rows));
    if (record) { times['sql-first'].push(s1.ms); times['sql-again'].push(s2.ms); }
    await c.close();
  }
  {
    fs.rmSync(path.join(tmp, 'mat'), { recursive: true, force: true });
    const c = await server();
    const m1 = await timed(c, 'sql_query', { sql: SQL.replace('FROM t', 'FROM events') });
    const m2 = await timed(c, 'sql_query', { sql: SQL.replace('FROM t', 'FROM events') });
    check('sql_query materialised', failedOfRows(m2.r.rows));
    if (!m2.r.materialized) throw new Error('the table was not materialised');
    if (record) { times['sql-mat-first'].push(m1.ms); times['sql-materialised'].push(m2.ms); }
    await c.close();
  }
  process.stderr.write(`run ${run}${record ? '' : ' (warm-up)'} done\n`);
}
fs.rmSync(tmp, { recursive: true, force: true });

const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2; };
const fmt = (ms) => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(1)} ms`);
console.log(`${path.basename(file)} (${(fs.statSync(file).size / 2 ** 30).toFixed(2)} GiB, ${meta.records} records), ${runs} runs, answers checked (failed = ${expectFailed}); load ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}\n`);
console.log('| what | median | min–max |\n|---|---:|---:|');
for (const [k, v] of Object.entries(times)) console.log(`| ${k} | ${fmt(median(v))} | ${fmt(Math.min(...v))}–${fmt(Math.max(...v))} |`);
const ratio = (a, b) => { const per = times[a].map((x, i) => x / times[b][i]); return `${median(per).toFixed(2)}× [${Math.min(...per).toFixed(2)}–${Math.max(...per).toFixed(2)}]`; };
console.log(`\nsql-first ÷ aggregate-first (per run): ${ratio('sql-first', 'aggregate-first')}`);
console.log(`sql-again ÷ aggregate-again (per run): ${ratio('sql-again', 'aggregate-again')}`);
console.log(`sql-mat-first ÷ aggregate-first (per run): ${ratio('sql-mat-first', 'aggregate-first')}`);
console.log(`sql-materialised ÷ aggregate-again (per run): ${ratio('sql-materialised', 'aggregate-again')}`);

function spawnSyncCat(f) {
  // Page-cache the file once, as bench/run.mjs does.
  const fd = fs.openSync(f, 'r');
  const buf = Buffer.allocUnsafe(4 << 20);
  while (fs.readSync(fd, buf, 0, buf.length, null) > 0);
  fs.closeSync(fd);
}
