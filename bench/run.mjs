#!/usr/bin/env node
// bench/run.mjs — mcpgw against wc, ripgrep, grep, jq and DuckDB on the same page-cached files.
//
//   npm run bench                         1 GiB of JSON Lines (+ JSON-seq, + a ~290 MB pretty array)
//   npm run bench -- --quick              every scenario on ~50 MB (the document on 16 MB), 1 run: a smoke check (< 2 minutes)
//   npm run bench -- --size 200MB --runs 7 --only needle,get-record
//   npm run bench -- --install-peers      put DuckDB (@duckdb/node-api) in bench/.peers
//   npm run bench -- --help
//
// The gateway is timed through its real MCP interface: an MCP client spawns `mcpgw serve` over
// stdio and times each tools/call round trip. Each peer is a child process timed from spawn to
// exit, its peak RSS taken by GNU time (/usr/bin/time -f %M). Every figure is the median of --runs
// runs after one warm-up run; ratios are gateway ÷ peer computed run by run (the gateway call and
// its peers run back to back in the same run) and then summarised. See bench/README.md.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { parseSize, sfc32, GEN_VERSION, NEEDLE } from './gen.mjs';
import { benchHttp, httpMarkdown, HTTP_RECORDS } from './http.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(HERE, '..');
const DATA_DIR = process.env.MCPGW_BENCH_DATA || path.join(HERE, '.data'); // big files: put them on a scratch disk (e.g. /tmp)
const PEERS_DIR = process.env.MCPGW_BENCH_PEERS || path.join(HERE, '.peers');
const RESULTS_DIR = path.join(HERE, 'results');
const DUCKDB_PKG = '@duckdb/node-api';
const DUCKDB_VERSION = '1.5.6-r.1';
const TIME_BIN = '/usr/bin/time';
const CALL_TIMEOUT_MS = 30 * 60 * 1000;
const MiB = 1024 * 1024;
// error codes that mean "this feature has not landed yet" rather than "this is broken"
const NOT_YET_CODES = new Set(['UNSUPPORTED_FORMAT', 'UNSUPPORTED_QUERY_FEATURE', 'UNSUPPORTED_QUERY_LANGUAGE', 'NOT_IMPLEMENTED']);

const SCENARIOS = [
  ['cold-start', '8. spawn to the first tools/list answer'],
  ['open-jsonl', '1. open_file + index JSON Lines, vs wc -l'],
  ['open-seq', '1b. open_file + index JSON-seq (RFC 7464), vs wc -l (no target)'],
  ['needle', '2. text search for the needle, case-sensitive and not, vs rg -c/-ci and grep -c/-ci'],
  ['filter-selective', '3. status == "failed" (~1 in 300): explorer search and reader json_read, vs jq and DuckDB'],
  ['filter-nonselective', '4. latency_ms > 100 (~43%): explorer search and reader first page, vs jq and DuckDB'],
  ['open-array', '5. open_file + index the pretty JSON array, vs jq -c .[] and DuckDB read_json_auto'],
  ['get-record', '6. random get_record calls: p50 / p99 latency'],
  ['memory', '7. server RSS idle, and its growth with the big file open and scanned'],
  ['paging', '9. json_read page 100 vs page 1 of a 100,000-match query'],
  ['http', '10. serve --http: p50/p99 per tool, one client (stdio vs both HTTP eras) and 64 concurrent clients × 50 calls'],
  ['regex', '11. search {regex: true}: a pattern with a required literal and one without, vs rg -c with the same pattern'],
  ['sessions', '12. the session-history bundle on a synthetic 2,000-session / 1 GiB history (bench/sessions.mjs)'],
  ['document', '13. one big document (a GeoJSON FeatureCollection of SIZE) and the pretty array: open, one element, a filter over all, vs DuckDB read_json'],
  ['aggregate-status', '14. aggregate group_by status (count), vs DuckDB GROUP BY and jq -s group_by'],
  ['aggregate-bucket', '15. aggregate where level == "error", bucket ts 1h, vs DuckDB time_bucket'],
  ['aggregate-first', '14b. aggregate group_by status as the first call on a freshly opened file (a fresh server per run), vs DuckDB GROUP BY'],
  ['count-only', '16. search max_results 0 and json_read count: count-only vs the same with results'],
  ['reopen', '17. open_file of an already-indexed file in a new server (persistent index) vs the first open and the open with the cache off'],
  ['context', '18. bytes, not time: tools/list and the exploration workflow per step (bench/context.mjs; run alone)'],
  ['predicate-case', '19. the explorer predicate $.status = "failed": case-insensitive (the default) vs match_case: true'],
];
const NAMES = SCENARIOS.map((s) => s[0]);

// ---------------------------------------------------------------- arguments
function usage() {
  return `usage: npm run bench -- [options]     (or: node bench/run.mjs [options])
  --quick              every scenario on ~50 MB, the document on 16 MB, 1 timed run; the warm-up run only
                       warms the shared server (smoke check, < 2 min)
  --size SIZE          JSON Lines size (default 1GiB; 50MB with --quick); the pretty array holds the
                       records of SIZE*200/1024 of JSON Lines (~280 MB of array for 1 GiB); the GeoJSON
                       document is SIZE too (16MB with --quick and no --size)
  --runs N             timed runs per figure, after one warm-up (default 5; 1 with --quick; minimum 1)
  --only a,b           scenarios to run: ${NAMES.join(', ')}
  --calls N            get_record calls (default 10000; 1000 with --quick)
  --sessions N         sessions scenario: sessions in the synthetic history (default 2000; 200 with --quick)
  --sessions-size SIZE sessions scenario: bytes of history (default 1GiB; 60MB with --quick)
  --seed N             data seed (default 42)
  --records N          context scenario: event records in its file (default 200000)
  --json               context scenario: the figures as JSON instead of markdown
  --gateway FILE       the CLI to spawn (default bin/mcpgw.js); run as FILE serve --root bench/.data
  --node FILE          the Node binary for the gateway and DuckDB (default: this Node if >= 22, else
                       the repository's pinned node_modules/.bin/node)
  --no-save            do not write bench/results/<date>.json
  --cpu-prof           run the gateway under node --cpu-prof; profiles go to bench/results/profiles/<date>/
                       (one per server process; open them in Chrome DevTools or speedscope)
  --install-peers      npm-install ${DUCKDB_PKG}@${DUCKDB_VERSION} into bench/.peers and exit
  --list               list the scenarios and exit`;
}
function parseArgs(argv) {
  const o = { quick: false, size: null, runs: null, only: null, calls: null, seed: 42, save: true,
    gateway: path.join(REPO, 'bin', 'mcpgw.js'), node: null, installPeers: false };
  const val = (i) => { if (i + 1 >= argv.length) die(2, `${argv[i]} needs a value`); return argv[i + 1]; };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    switch (a) {
      case '--quick': o.quick = true; break;
      case '--size': o.size = val(i); i++; break;
      case '--runs': o.runs = Number(val(i)); i++; break;
      case '--only': o.only = val(i).split(',').map((s) => s.trim()).filter(Boolean); i++; break;
      case '--calls': o.calls = Number(val(i)); i++; break;
      case '--sessions': o.sessions = Number(val(i)); i++; break;
      case '--sessions-size': o.sessionsSize = val(i); i++; break;
      case '--seed': o.seed = Number(val(i)); i++; break;
      case '--records': o.records = Number(val(i)); i++; break;
      case '--json': o.json = true; break;
      case '--gateway': o.gateway = path.resolve(val(i)); i++; break;
      case '--node': o.node = path.resolve(val(i)); i++; break;
      case '--no-save': o.save = false; break;
      case '--cpu-prof': o.cpuProf = path.join(RESULTS_DIR, 'profiles', new Date().toISOString().replace(/:/g, '-').replace(/\..*/, '')); break;
      case '--install-peers': o.installPeers = true; break;
      case '--list': console.log(SCENARIOS.map(([n, d]) => `${n.padEnd(20)} ${d}`).join('\n')); process.exit(0); break;
      case '-h': case '--help': console.log(usage()); process.exit(0); break;
      default: die(2, `unknown option ${a}\n${usage()}`);
    }
  }
  // --quick is a smoke check: fewer runs and latency calls unless given (1 and 1,000; else 5 and 10,000).
  o.runs ??= o.quick ? 1 : 5;
  o.calls ??= o.quick ? 1000 : 10000;
  if (!Number.isInteger(o.runs) || o.runs < 1) die(2, '--runs must be an integer >= 1');
  if (!Number.isInteger(o.calls) || o.calls < 1) die(2, '--calls must be an integer >= 1');
  if (!Number.isInteger(o.seed) || o.seed < 0 || o.seed > 0xffffffff) die(2, '--seed must be an integer 0..2^32-1');
  for (const n of o.only ?? []) if (!NAMES.includes(n)) die(2, `unknown scenario "${n}" (known: ${NAMES.join(', ')})`);
  try { o.sizeBytes = parseSize(o.size ?? (o.quick ? '50MB' : '1GiB')); } catch (e) { die(2, e.message); }
  o.sizeLabel = o.size ?? (o.quick ? '50MB' : '1GiB');
  // The document scenario opens its GeoJSON document in a fresh server for each of its calls: on --quick a smaller
  // one (16 MB: ~22,000 features, past the 12,346 its one-element read needs), unless --size names one.
  o.geojsonBytes = o.quick && o.size == null ? parseSize('16MB') : o.sizeBytes;
  return o;
}
function die(code, msg) { console.error(`bench: ${msg}`); process.exit(code); }
const log = (msg) => console.error(`[bench ${new Date().toISOString().slice(11, 19)}] ${msg}`);

// ---------------------------------------------------------------- small helpers
const sq = (s) => `'${String(s).replace(/'/g, `'\\''`)}'`;
const sqlStr = (s) => `'${String(s).replace(/'/g, "''")}'`;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
function quantile(xs, q) {
  if (!xs.length) return null;
  const s = [...xs].sort((a, b) => a - b);
  const pos = (s.length - 1) * q, lo = Math.floor(pos), hi = Math.ceil(pos);
  return s[lo] + (s[hi] - s[lo]) * (pos - lo);
}
const median = (xs) => quantile(xs, 0.5);
const stats = (xs) => (xs.length ? { median: median(xs), min: Math.min(...xs), max: Math.max(...xs), n: xs.length } : null);
function fmtMs(ms) {
  if (ms == null) return '';
  if (ms < 1) return `${ms.toFixed(3)} ms`;
  if (ms < 10) return `${ms.toFixed(2)} ms`;
  if (ms < 1000) return `${ms.toFixed(1)} ms`;
  return `${(ms / 1000).toFixed(ms < 10000 ? 3 : 2)} s`;
}
const fmtMiB = (kb) => (kb == null ? '' : `${(kb / 1024).toFixed(kb < 10 * 1024 ? 1 : 0)} MiB`);
const fmtBytes = (b) => (b >= 1e9 ? `${(b / 1e9).toFixed(2)} GB` : `${(b / 1e6).toFixed(1)} MB`);
const fmtRatio = (r) => (r == null ? '' : r >= 10 ? r.toFixed(1) : r >= 0.1 ? r.toFixed(2) : r.toFixed(3));
const fmtInt = (n) => (n == null ? '' : Number(n).toLocaleString('en-US'));

// ---------------------------------------------------------------- process memory (/proc)
function childrenMap() {
  const kids = new Map();
  for (const d of fs.readdirSync('/proc')) {
    if (d.charCodeAt(0) < 48 || d.charCodeAt(0) > 57) continue;
    let st;
    try { st = fs.readFileSync(`/proc/${d}/stat`, 'latin1'); } catch { continue; }
    const ppid = Number(st.slice(st.lastIndexOf(')') + 2).split(' ')[1]);
    if (!kids.has(ppid)) kids.set(ppid, []);
    kids.get(ppid).push(Number(d));
  }
  return kids;
}
function procTree(pid) {
  if (!pid) return [];
  const kids = childrenMap();
  const out = [], todo = [pid];
  while (todo.length) { const p = todo.pop(); out.push(p); for (const c of kids.get(p) ?? []) todo.push(c); }
  return out;
}
// RSS and peak RSS (VmHWM) in KiB, summed over the server's process tree
function memOf(pid) {
  let rss = 0, hwm = 0, seen = 0;
  for (const p of procTree(pid)) {
    try {
      const s = fs.readFileSync(`/proc/${p}/status`, 'latin1');
      rss += Number(/VmRSS:\s+(\d+)/.exec(s)?.[1] ?? 0);
      hwm += Number(/VmHWM:\s+(\d+)/.exec(s)?.[1] ?? 0);
      seen++;
    } catch { /* gone */ }
  }
  return seen ? { rss, hwm } : null;
}
// resets VmHWM to the current RSS (Linux clear_refs "5"); false where not permitted
function resetPeak(pid) {
  let ok = true;
  for (const p of procTree(pid)) { try { fs.writeFileSync(`/proc/${p}/clear_refs`, '5'); } catch { ok = false; } }
  return ok;
}

// ---------------------------------------------------------------- the gateway over MCP
class NotYet extends Error {}
class GwError extends Error {}
const liveGateways = new Set();

class Gateway {
  /**
   * A fresh server. The persistent index cache is off (every open is a full pass, as the scenarios measure) unless
   * `cacheDir` names a folder for it (the `reopen` scenario); the user's own cache is never touched.
   */
  static async start(cfg, { cacheDir = null } = {}) {
    const { Client } = await import('@modelcontextprotocol/client');
    const { StdioClientTransport } = await import('@modelcontextprotocol/client/stdio');
    const g = new Gateway();
    g.stderrTail = '';
    g.cache = new Map();
    const t0 = performance.now();
    g.transport = new StdioClientTransport({
      command: cfg.node, args: [...(cfg.cpuProf ? ['--cpu-prof', '--cpu-prof-dir', cfg.cpuProf] : []), cfg.gateway, 'serve', '--root', DATA_DIR, '--config', benchConfig(cacheDir)],
      stderr: 'pipe', cwd: REPO,
      maxBufferSize: 64 * MiB,
    });
    g.transport.stderr?.on('data', (b) => { g.stderrTail = (g.stderrTail + b.toString()).slice(-4000); });
    g.client = new Client({ name: 'mcpgw-bench', version: '1.0.0' });
    liveGateways.add(g);
    try {
      await g.client.connect(g.transport, { timeout: 30000 });
      g.pid = g.transport.pid;
      const { tools } = await g.client.listTools(undefined, { timeout: 30000 });
      g.coldMs = performance.now() - t0;
      g.tools = new Map(tools.map((t) => [t.name, t]));
      // The client's one-time work before its first tools/call of a session: it compiles the outputSchema of every
      // listed tool (ajv). Paid here, untimed, with a call of a tool name that does not exist (the server only
      // dispatches it), so that a timed first call measures the call itself; the figure is `primeMs` (cold-start).
      const tp = performance.now();
      await g.client.callTool({ name: 'bench-prime-no-such-tool', arguments: {} }, { timeout: 30000 }).catch(() => undefined);
      g.primeMs = performance.now() - tp;
    } catch (e) {
      await g.close();
      throw new GwError(`gateway did not start: ${e.message}${g.stderrTail ? ` — stderr: ${g.stderrTail.trim().slice(-500)}` : ''}`);
    }
    return g;
  }
  mem() { return memOf(this.pid); }
  // throws NotYet when the tool, or an enum value of one of its inputs, is not offered
  need(name, enums = {}) {
    const t = this.tools.get(name);
    if (!t) throw new NotYet(`tool ${name} is not in tools/list`);
    for (const [prop, value] of Object.entries(enums)) {
      const s = t.inputSchema?.properties?.[prop];
      if (!s) continue;
      const alts = [s, ...(s.anyOf ?? []), ...(s.oneOf ?? [])];
      const allowed = alts.flatMap((x) => x.enum ?? (x.const !== undefined ? [x.const] : []));
      if (allowed.length && !allowed.includes(value)) throw new NotYet(`${name} offers ${prop} ∈ {${allowed.join(', ')}}, not "${value}"`);
    }
  }
  async call(name, args, timeout = CALL_TIMEOUT_MS) {
    const t0 = performance.now();
    let res;
    try {
      res = await this.client.callTool({ name, arguments: args }, { timeout, resetTimeoutOnProgress: true });
    } catch (e) {
      throw new GwError(`${name}: protocol error: ${e.message}${this.stderrTail ? ` — stderr: ${this.stderrTail.trim().slice(-300)}` : ''}`);
    }
    const ms = performance.now() - t0;
    let sc = res.structuredContent;
    if (!sc) { try { sc = JSON.parse(res.content?.find((c) => c.type === 'text')?.text ?? 'null'); } catch { sc = null; } }
    if (res.isError) {
      const err = sc?.error ?? { code: 'UNKNOWN', message: String(res.content?.[0]?.text ?? '').slice(0, 300) };
      const msg = `${name}: ${err.code}${err.message ? `: ${String(err.message).slice(0, 200)}` : ''}`;
      if (NOT_YET_CODES.has(err.code)) throw new NotYet(msg);
      throw new GwError(msg);
    }
    return { ms, sc: sc ?? {} };
  }
  // open once per server (cached): explorer handle / reader file_id
  async handle(rel) {
    const k = `h:${rel}`;
    if (!this.cache.has(k)) { this.need('open_file'); this.cache.set(k, (await this.call('open_file', { path: rel })).sc.handle); }
    return this.cache.get(k);
  }
  async fileId(rel) {
    const k = `f:${rel}`;
    if (!this.cache.has(k)) { this.need('json_open'); this.cache.set(k, (await this.call('json_open', { path: rel })).sc.file_id); }
    return this.cache.get(k);
  }
  async close() {
    liveGateways.delete(this);
    const tree = procTree(this.pid);
    try { await Promise.race([this.client.close(), sleep(3000)]); } catch { /* closing anyway */ }
    for (let i = 0; i < 30 && tree.some(alive); i++) await sleep(100);
    for (const p of tree) if (alive(p)) { try { process.kill(p, 'SIGKILL'); } catch { /* gone */ } }
  }
}
/** A config file for the bench's servers: the index cache off, or in `cacheDir`. */
function benchConfig(cacheDir) {
  const file = path.join(os.tmpdir(), `mcpgw-bench-${process.pid}-${cacheDir ? 'cache-' + path.basename(cacheDir) : 'nocache'}.json`);
  if (!fs.existsSync(file)) {
    fs.writeFileSync(file, JSON.stringify(cacheDir ? { cacheDir } : { cache: false }));
    process.once('exit', () => { try { fs.unlinkSync(file); } catch { /* gone */ } });
  }
  return file;
}
function alive(pid) { try { process.kill(pid, 0); return !fs.readFileSync(`/proc/${pid}/stat`, 'latin1').includes(') Z '); } catch { return false; } }

// json_read continues from a cursor; send whatever else its schema requires
function continueArgs(gw, cursor, first) {
  const a = { cursor };
  for (const k of gw.tools.get('json_read')?.inputSchema?.required ?? []) if (k !== 'cursor' && first[k] !== undefined) a[k] = first[k];
  return a;
}

// ---------------------------------------------------------------- peers
function detectPeers(cfg) {
  const ver = (cmd, args) => {
    const r = spawnSync(cmd, args, { encoding: 'utf8' });
    return r.status === 0 ? ((r.stdout || r.stderr).split('\n')[0].trim() || cmd) : null;
  };
  const peers = {
    wc: { version: ver('wc', ['--version']), install: 'apt-get install -y coreutils' },
    grep: { version: ver('grep', ['--version']), install: 'apt-get install -y grep' },
    rg: { version: ver('rg', ['--version']), install: 'apt-get install -y ripgrep' },
    jq: { version: ver('jq', ['--version']), install: 'apt-get install -y jq' },
    duckdb: { version: null, install: 'npm run bench -- --install-peers' },
  };
  try {
    const req = createRequire(path.join(PEERS_DIR, 'package.json'));
    const pj = JSON.parse(fs.readFileSync(req.resolve(`${DUCKDB_PKG}/package.json`), 'utf8'));
    peers.duckdb.version = `${DUCKDB_PKG} ${pj.version} (via node ${spawnSync(cfg.node, ['--version'], { encoding: 'utf8' }).stdout.trim()})`;
  } catch { /* missing */ }
  return peers;
}
const HAVE_TIME = fs.existsSync(TIME_BIN) && spawnSync(TIME_BIN, ['-f', '%M', 'true'], { encoding: 'utf8' }).status === 0;

const SHELL = spawnSync('bash', ['-c', 'true']).status === 0 ? 'bash' : 'sh';
// runs `bash -c cmd` under GNU time; resolves {ms, code, out, err, rssKb}
function runShell(cmd) {
  return new Promise((resolve, reject) => {
    const tf = path.join(os.tmpdir(), `mcpgw-bench-${process.pid}.time`);
    const sh = [SHELL, '-c', SHELL === 'bash' ? `set -o pipefail; ${cmd}` : cmd]; // a failing jq must not read as "0 lines"
    const [bin, args] = HAVE_TIME ? [TIME_BIN, ['-f', '%M', '-o', tf, ...sh]] : [sh[0], sh.slice(1)];
    const t0 = performance.now();
    const child = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '', err = '';
    child.stdout.on('data', (b) => { if (out.length < 4096) out += b; });
    child.stderr.on('data', (b) => { err = (err + b).slice(-2000); });
    child.on('error', reject);
    child.on('close', (code) => {
      const ms = performance.now() - t0;
      let rssKb = null;
      if (HAVE_TIME) {
        try {
          const lines = fs.readFileSync(tf, 'utf8').trim().split('\n');
          rssKb = Number(lines[lines.length - 1]) || null;
          fs.unlinkSync(tf);
        } catch { /* no figure */ }
      }
      resolve({ ms, code, out: out.trim(), err: err.trim(), rssKb });
    });
  });
}
async function runPeer(p) {
  const r = await runShell(p.cmd);
  const count = /^\d+$/.test(r.out.split(/\s+/)[0] ?? '') ? Number(r.out.split(/\s+/)[0]) : (r.out === '' && r.code === 1 ? 0 : NaN);
  // grep/rg exit 1 when nothing matched; anything else non-zero is a failure
  if (!(r.code === 0 || (r.code === 1 && p.exit1ok)) || Number.isNaN(count)) {
    throw new Error(`exit ${r.code}: ${(r.err || r.out).slice(-300)}`);
  }
  let queryMs = null;
  if (p.tool === 'duckdb') { try { queryMs = JSON.parse(r.err.split('\n').pop()).query_ms; } catch { /* none */ } }
  return { ms: r.ms, count, rssKb: r.rssKb, queryMs };
}

// ---------------------------------------------------------------- data
function ensureData(cfg, format, spec) {
  fs.mkdirSync(DATA_DIR, { recursive: true });
  const ext = { jsonl: 'jsonl', json: 'json', 'json-seq': 'json-seq', geojson: 'geojson.json' }[format];
  const key = spec.size != null ? `${spec.size}B` : `r${spec.records}`;
  const file = path.join(DATA_DIR, `${format === 'geojson' ? 'places' : 'events'}-s${cfg.seed}-${key}.${ext}`);
  const metaFile = `${file}.meta.json`;
  try {
    const meta = JSON.parse(fs.readFileSync(metaFile, 'utf8'));
    if (meta.gen_version === GEN_VERSION && fs.statSync(file).size === meta.bytes) return { file, rel: path.basename(file), meta };
  } catch { /* (re)generate */ }
  const tmp = path.join(DATA_DIR, `.tmp-${process.pid}-${path.basename(file)}`);
  const args = [path.join(HERE, 'gen.mjs'), '--format', format, '--seed', String(cfg.seed), '--out', tmp, '--meta',
    ...(spec.size != null ? ['--size', String(spec.size)] : ['--records', String(spec.records)])];
  log(`generating ${path.basename(file)} …`);
  const r = spawnSync(process.execPath, args, { stdio: ['ignore', 'inherit', 'inherit'] });
  if (r.status !== 0) die(1, `data generation failed (${format})`);
  fs.renameSync(`${tmp}.meta.json`, metaFile);
  fs.renameSync(tmp, file);
  return { file, rel: path.basename(file), meta: JSON.parse(fs.readFileSync(metaFile, 'utf8')) };
}
function warmCache(...files) {
  for (const f of files) spawnSync('sh', ['-c', `cat ${sq(f)} > /dev/null`], { stdio: 'ignore' });
}

// ---------------------------------------------------------------- the generic paired scenario
// scenario: { name, server: 'fresh'|'shared', files, groups: [{ title, ops: [op], peers: [peer] }] }
// op: { id, label, bytes, expect, run(gw) → {ms, count} } ; peer: { id, tool, label, cmd, expect, exit1ok }
// Per run: every op, then every peer of its group, back to back; ratios are taken per run.
async function pairedScenario(ctx, sc) {
  const { cfg } = ctx;
  warmCache(...sc.files);
  const rows = [];
  let shared = null;
  const sharedIdle = { kb: null };
  for (const g of sc.groups) {
    for (const op of g.ops) {
      op.row = { scenario: sc.name, group: g.title, kind: 'gateway', tool: 'mcpgw', label: op.label, bytes: op.bytes,
        expect: op.expect, status: 'ok', reason: null, times: [], counts: [], idleKb: [], peakKb: [], extra: {} };
      if (ctx.gatewayDown) Object.assign(op.row, { status: 'error', reason: ctx.gatewayDown });
      rows.push(op.row);
    }
    for (const p of g.peers) {
      const pv = ctx.peers[p.tool];
      p.row = { scenario: sc.name, group: g.title, kind: 'peer', tool: p.tool, label: p.label, cmd: p.cmd, bytes: p.bytes,
        expect: p.expect, status: pv.version ? 'ok' : 'missing', reason: pv.version ? null : `not installed (${pv.install})`,
        times: [], counts: [], peakKb: [], queryMs: [] };
      rows.push(p.row);
    }
  }
  try {
    if (sc.server === 'shared' && !ctx.gatewayDown) {
      try {
        shared = await Gateway.start(cfg);
        await sleep(200);
        sharedIdle.kb = shared.mem()?.rss ?? null;
      } catch (e) { // the peers still run: their figures are the baseline
        for (const r of rows) if (r.kind === 'gateway' && r.status === 'ok') Object.assign(r, { status: 'error', reason: e.message });
        log(`${sc.name}: ${e.message}`);
      }
    }
    for (let run = 0; run <= cfg.runs; run++) {
      const timed = run > 0;
      // On --quick the warm-up warms only what lives on: the shared server (its code's JIT). A peer, or a gateway
      // started for one call, is a new process on files already in the page cache (warmCache): its warm-up run would
      // warm nothing it keeps.
      const warmOnlyShared = !timed && cfg.quick;
      for (const g of sc.groups) {
        for (const op of g.ops) {
          const row = op.row;
          if (row.status !== 'ok') continue;
          if (warmOnlyShared && !shared) continue;
          let gw = shared;
          try {
            if (!gw) { gw = await Gateway.start(cfg); await sleep(100); }
            const idle = shared ? sharedIdle.kb : gw.mem()?.rss;
            if (op.prepare) await op.prepare(gw);
            const canReset = resetPeak(gw.pid);
            const res = await op.run(gw);
            const m = gw.mem();
            if (timed) {
              row.times.push(res.ms); row.counts.push(res.count);
              if (idle != null) row.idleKb.push(idle);
              if (m) row.peakKb.push(m.hwm);
              row.peakIsPerCall = canReset;
              if (res.extra) for (const [k, v] of Object.entries(res.extra)) (row.extra[k] ??= []).push(v);
            }
          } catch (e) {
            if (e instanceof NotYet) Object.assign(row, { status: 'not available yet', reason: e.message });
            else Object.assign(row, { status: 'error', reason: e.message });
            log(`${sc.name} / ${op.label}: ${row.status}: ${e.message}`);
          } finally {
            if (!shared && gw) await gw.close();
          }
        }
        for (const p of g.peers) {
          const row = p.row;
          if (row.status !== 'ok') continue;
          if (warmOnlyShared) continue;
          try {
            const r = await runPeer(p);
            if (timed) {
              row.times.push(r.ms); row.counts.push(r.count);
              if (r.rssKb != null) row.peakKb.push(r.rssKb);
              if (r.queryMs != null) row.queryMs.push(r.queryMs);
            }
          } catch (e) {
            Object.assign(row, { status: 'error', reason: e.message });
            log(`${sc.name} / ${p.label}: error: ${e.message}`);
          }
        }
      }
      if (timed) log(`${sc.name}: run ${run}/${cfg.runs} done`);
    }
  } catch (e) {
    for (const r of rows) if (r.kind === 'gateway' && r.status === 'ok' && !r.times.length) Object.assign(r, { status: 'error', reason: e.message });
    log(`${sc.name}: ${e.message}`);
  } finally {
    if (shared) await shared.close();
  }
  // ratios: gateway ÷ peer, run by run, within each group
  const ratios = [];
  for (const g of sc.groups) {
    for (const op of g.ops) {
      for (const p of g.peers) {
        const per = [];
        if (op.row.status === 'ok' && p.row.status === 'ok') {
          for (let i = 0; i < Math.min(op.row.times.length, p.row.times.length); i++) per.push(op.row.times[i] / p.row.times[i]);
        }
        ratios.push({ scenario: sc.name, op: op.id, opLabel: op.label, peer: p.id, peerLabel: p.label,
          status: op.row.status !== 'ok' ? op.row.status : p.row.status !== 'ok' ? `peer ${p.row.status}` : 'ok',
          values: per, ...(per.length ? stats(per) : {}) });
      }
    }
  }
  for (const r of rows) finishRow(r);
  return { rows, ratios };
}
function finishRow(r) {
  if (r.times?.length) Object.assign(r, stats(r.times));
  if (r.bytes && r.median) r.mbPerS = r.bytes / 1e6 / (r.median / 1000);
  if (r.peakKb?.length) r.peak = Math.max(...r.peakKb);
  if (r.idleKb?.length) r.idle = median(r.idleKb);
  if (r.expect != null && r.counts?.length) {
    const bad = r.counts.filter((c) => c !== r.expect);
    r.check = bad.length ? { ok: false, got: bad[0], expected: r.expect } : { ok: true, got: r.expect, expected: r.expect };
  }
  if (r.queryMs?.length) r.queryMedian = median(r.queryMs);
}

// ---------------------------------------------------------------- scenarios
function peerDefs(ctx, file, bytes, kinds) { // file: absolute path
  const F = sq(file);
  const duck = (sql) => `${sq(ctx.cfg.node)} ${sq(path.join(HERE, 'peers', 'duck.mjs'))} ${sq(sql)}`;
  const nd = `read_ndjson_auto(${sqlStr(file)})`;
  const defs = {
    'wc': { tool: 'wc', label: 'wc -l', cmd: `wc -l < ${F}` },
    'rg-c': { tool: 'rg', label: 'rg -c', cmd: `rg -c ${sq(NEEDLE)} ${F}`, exit1ok: true },
    'grep-c': { tool: 'grep', label: 'grep -c', cmd: `grep -c ${sq(NEEDLE)} ${F}`, exit1ok: true },
    'rg-c-literal': { tool: 'rg', label: `rg -c '${REGEX_LITERAL}'`, cmd: `rg -c ${sq(REGEX_LITERAL)} ${F}`, exit1ok: true },
    'rg-c-noliteral': { tool: 'rg', label: `rg -c '${REGEX_NO_LITERAL}'`, cmd: `rg -c ${sq(REGEX_NO_LITERAL)} ${F}`, exit1ok: true },
    'rg-ci': { tool: 'rg', label: 'rg -ci', cmd: `rg -ci ${sq(NEEDLE)} ${F}`, exit1ok: true },
    'grep-ci': { tool: 'grep', label: 'grep -ci', cmd: `grep -ci ${sq(NEEDLE)} ${F}`, exit1ok: true },
    'jq-failed': { tool: 'jq', label: `jq -c 'select(.status=="failed")' | wc -l`, cmd: `jq -c 'select(.status=="failed")' ${F} | wc -l` },
    'duck-failed': { tool: 'duckdb', label: `DuckDB count(*) read_ndjson_auto WHERE status='failed'`, cmd: duck(`SELECT count(*) FROM ${nd} WHERE status='failed'`) },
    'jq-slow': { tool: 'jq', label: `jq -c 'select(.latency_ms > 100)' | wc -l`, cmd: `jq -c 'select(.latency_ms > 100)' ${F} | wc -l` },
    'duck-slow': { tool: 'duckdb', label: 'DuckDB count(*) read_ndjson_auto WHERE latency_ms > 100', cmd: duck(`SELECT count(*) FROM ${nd} WHERE latency_ms > 100`) },
    'jq-array': { tool: 'jq', label: `jq -c '.[]' | wc -l`, cmd: `jq -c '.[]' ${F} | wc -l` },
    'duck-array': { tool: 'duckdb', label: 'DuckDB count(*) read_json_auto', cmd: duck(`SELECT count(*) FROM read_json_auto(${sqlStr(file)})`) },
    // The groups of every status are computed; the answer checked is the "failed" group's count.
    'duck-group-status': { tool: 'duckdb', label: `DuckDB SELECT status, count(*) … GROUP BY 1 (the failed group's n)`, cmd: duck(`SELECT n FROM (SELECT status, count(*) AS n FROM ${nd} GROUP BY 1) WHERE status='failed'`) },
    'jq-group-status': { tool: 'jq', label: `jq -s 'group_by(.status)|map({key:.[0].status,n:length})' (the failed group's n)`, cmd: `jq -s 'group_by(.status)|map({key:.[0].status,n:length})|.[]|select(.key=="failed")|.n' ${F}` },
    'duck-bucket': { tool: 'duckdb', label: `DuckDB time_bucket(1 hour, ts), count(*) WHERE level='error' GROUP BY 1 (groups)`, cmd: duck(`SELECT count(*) FROM (SELECT time_bucket(INTERVAL '1 hour', CAST(ts AS TIMESTAMP)) AS h, count(*) FROM ${nd} WHERE level='error' GROUP BY 1)`) },
  };
  return Object.entries(kinds).map(([id, expect]) => ({ id, ...defs[id], expect, bytes }));
}

// The explorer evaluates each record as `$` (docs/architecture.md "Two addressing modes"): its record predicate form
// `$.status == "failed"` selects records; an RFC 9535 filter `$[?…]` there would filter each record's members.
// match_case: true compares strings exactly, as jq and DuckDB do.
// Regular expressions (RE2 syntax, the same text for rg): one whose matches all contain the literal "NEEDLE-" (the
// gateway searches bytes for it first), and an ID-shaped one with no literal (six capitals, a separator that is
// not a lowercase letter or space, four hex digits), which only the needle fits, so every record is tested.
const REGEX_LITERAL = 'NEEDLE-[0-9a-f]{4}';
const REGEX_NO_LITERAL = '[A-Z]{6}[^a-z ][0-9a-f]{4}';

const SELECTIVE = { explorer: '$.status == "failed"', reader: '$[?@.status=="failed"]' };
const NONSELECTIVE = { explorer: '$.latency_ms > 100', reader: '$[?@.latency_ms > 100]' };

function openOp(file, fmtLabel) {
  return { id: 'open_file', label: `open_file (${fmtLabel})`, bytes: file.meta.bytes, expect: file.meta.records,
    run: async (gw) => { gw.need('open_file'); const r = await gw.call('open_file', { path: file.rel }); return { ms: r.ms, count: r.sc.record_count }; } };
}
function searchOp(file, id, label, args, expect) {
  return { id, label, bytes: file.meta.bytes, expect,
    prepare: (gw) => gw.handle(file.rel),
    run: async (gw) => {
      gw.need('search', { mode: args.mode });
      const r = await gw.call('search', { handle: await gw.handle(file.rel), max_results: 50, ...args });
      return { ms: r.ms, count: r.sc.total_matches, extra: { first_page: r.sc.matches?.length ?? null, complete: r.sc.complete ?? null } };
    } };
}
function readerFirstPageOp(file, id, query, expectItems) {
  return { id, label: `json_read first page (max_items 50) ${query}`, bytes: null, expect: expectItems,
    prepare: (gw) => gw.fileId(file.rel),
    run: async (gw) => {
      gw.need('json_read', { language: 'jsonpath' });
      const r = await gw.call('json_read', { file_id: await gw.fileId(file.rel), language: 'jsonpath', query, max_items: 50 });
      return { ms: r.ms, count: r.sc.items?.length ?? null };
    } };
}
function readerAllPagesOp(file, id, query, expect) {
  return { id, label: `json_read all pages (count) ${query}`, bytes: file.meta.bytes, expect,
    prepare: (gw) => gw.fileId(file.rel),
    run: async (gw) => {
      gw.need('json_read', { language: 'jsonpath' });
      const first = { file_id: await gw.fileId(file.rel), language: 'jsonpath', query, max_items: 100 };
      const t0 = performance.now();
      let r = await gw.call('json_read', first);
      let n = r.sc.items?.length ?? 0, pages = 1;
      while (!r.sc.complete && r.sc.next_cursor) {
        r = await gw.call('json_read', continueArgs(gw, r.sc.next_cursor, first));
        n += r.sc.items?.length ?? 0; pages++;
      }
      return { ms: performance.now() - t0, count: n, extra: { pages } };
    } };
}

function aggregateOp(file, id, label, args, count, expect) {
  return { id, label, bytes: file.meta.bytes, expect,
    prepare: (gw) => gw.handle(file.rel),
    run: async (gw) => {
      gw.need('aggregate');
      const handle = await gw.handle(file.rel);
      const before = gw.mem()?.rss ?? null; // the file open: growth is what the call itself adds
      const r = await gw.call('aggregate', { handle, ...args });
      if (!r.sc.complete) throw new GwError(`aggregate: the answer is not complete (requestTimeoutMs)`);
      return { ms: r.ms, count: count(r.sc), extra: { groups: r.sc.groups_total, before } };
    } };
}

/** Hour buckets between the file's first and last record (every hour of the generated data has errors). */
function hoursSpanned(file) {
  const fd = fs.openSync(file, 'r');
  try {
    const head = Buffer.alloc(4096), tail = Buffer.alloc(8192);
    fs.readSync(fd, head, 0, head.length, 0);
    const size = fs.fstatSync(fd).size;
    fs.readSync(fd, tail, 0, tail.length, Math.max(0, size - tail.length));
    const ts = (b, last) => { const all = [...b.toString('latin1').matchAll(/"ts":\s*"([^"]+)"/g)]; return Date.parse((last ? all[all.length - 1] : all[0])[1]); };
    return Math.floor(ts(tail, true) / 3600000) - Math.floor(ts(head, false) / 3600000) + 1;
  } finally { fs.closeSync(fd); }
}

/**
 * Count-only against the same search with a page of results, on one server: search {max_results: 0} vs
 * {max_results: 50} (text and a record predicate), json_read {count: true} vs every page of the same query.
 */
async function scenarioCountOnly(ctx) {
  const { cfg, jsonl } = ctx;
  warmCache(jsonl.file);
  const m = jsonl.meta;
  const pairs = [
    { id: 'search-text', what: `search text "${NEEDLE}"`, tool: 'search', args: { query: NEEDLE, mode: 'text', match_case: false }, expect: m.needles, total: (sc) => sc.total_matches },
    { id: 'search-failed', what: `search ${SELECTIVE.explorer}`, tool: 'search', args: { query: SELECTIVE.explorer, mode: 'jsonpath', match_case: true }, expect: m.failed, total: (sc) => sc.total_matches },
    { id: 'read-failed', what: `json_read ${SELECTIVE.reader}`, tool: 'json_read', args: { language: 'jsonpath', query: SELECTIVE.reader }, expect: m.failed, total: (sc) => sc.count },
  ];
  const rows = [];
  const ratios = [];
  let gw = null;
  try {
    gw = ctx.gatewayDown ? null : await Gateway.start(cfg);
    for (const p of pairs) {
      const count = { scenario: 'count-only', kind: 'gateway', tool: 'mcpgw', id: `${p.id}-count`, label: `${p.what}, count only (${p.tool === 'search' ? 'max_results 0' : 'count: true'})`, bytes: m.bytes, expect: p.expect, status: 'ok', times: [], counts: [], idleKb: [], peakKb: [] };
      const page = { scenario: 'count-only', kind: 'gateway', tool: 'mcpgw', id: `${p.id}-page`, label: `${p.what}, ${p.tool === 'search' ? 'count + first 50 matches' : 'all pages of 100 items'}`, bytes: m.bytes, expect: p.expect, status: 'ok', times: [], counts: [], idleKb: [], peakKb: [] };
      rows.push(count, page);
      if (!gw) { for (const r of [count, page]) Object.assign(r, { status: 'error', reason: ctx.gatewayDown }); continue; }
      try {
        gw.need(p.tool);
        const target = p.tool === 'search' ? { handle: await gw.handle(jsonl.rel) } : { file_id: await gw.fileId(jsonl.rel) };
        for (let run = 0; run <= cfg.runs; run++) {
          const a = await gw.call(p.tool, { ...target, ...p.args, ...(p.tool === 'search' ? { max_results: 0 } : { count: true }) });
          let ms = 0, total;
          if (p.tool === 'search') {
            const b = await gw.call('search', { ...target, ...p.args, max_results: 50 });
            ms = b.ms; total = b.sc.total_matches;
          } else {
            const first = { ...target, ...p.args, max_items: 100 };
            const t0 = performance.now();
            let r = await gw.call('json_read', first);
            let n = r.sc.items?.length ?? 0;
            while (!r.sc.complete && r.sc.next_cursor) { r = await gw.call('json_read', continueArgs(gw, r.sc.next_cursor, first)); n += r.sc.items?.length ?? 0; }
            ms = performance.now() - t0; total = n;
          }
          if (run > 0) {
            count.times.push(a.ms); count.counts.push(p.total(a.sc));
            page.times.push(ms); page.counts.push(total);
          }
        }
      } catch (e) {
        for (const r of [count, page]) Object.assign(r, { status: e instanceof NotYet ? 'not available yet' : 'error', reason: e.message });
      }
      const per = count.times.map((t, i) => t / page.times[i]);
      ratios.push({ scenario: 'count-only', op: count.id, opLabel: count.label, peer: page.id, peerLabel: page.label, status: count.status, values: per, ...(per.length ? stats(per) : {}) });
    }
  } finally { if (gw) await gw.close(); }
  for (const r of rows) finishRow(r);
  return { rows, ratios };
}

// The explorer's record predicate with its default (case-insensitive: Unicode simple case folding) against the same with
// match_case: true, on one server, back to back; both count every record and return the first 50.
async function scenarioPredicateCase(ctx) {
  const { cfg, jsonl } = ctx;
  warmCache(jsonl.file);
  const m = jsonl.meta;
  const q = '$.status = "failed"';
  const mk = (id, label) => ({ scenario: 'predicate-case', kind: 'gateway', tool: 'mcpgw', id, label, bytes: m.bytes, expect: m.failed, status: 'ok', times: [], counts: [], idleKb: [], peakKb: [] });
  const fold = mk('fold', `search ${q} (default: case-insensitive), count + first 50`);
  const exact = mk('exact', `search ${q} match_case: true, count + first 50`);
  let gw = null;
  try {
    gw = ctx.gatewayDown ? null : await Gateway.start(cfg);
    if (!gw) for (const r of [fold, exact]) Object.assign(r, { status: 'error', reason: ctx.gatewayDown });
    else {
      try {
        gw.need('search');
        const handle = await gw.handle(jsonl.rel);
        for (let run = 0; run <= cfg.runs; run++) {
          const a = await gw.call('search', { handle, query: q, max_results: 50 });
          const b = await gw.call('search', { handle, query: q, max_results: 50, match_case: true });
          if (run > 0) { fold.times.push(a.ms); fold.counts.push(a.sc.total_matches); exact.times.push(b.ms); exact.counts.push(b.sc.total_matches); }
        }
      } catch (e) {
        for (const r of [fold, exact]) Object.assign(r, { status: e instanceof NotYet ? 'not available yet' : 'error', reason: e.message });
      }
    }
  } finally { if (gw) await gw.close(); }
  finishRow(fold); finishRow(exact);
  const per = fold.times.map((t, i) => t / exact.times[i]);
  return { rows: [fold, exact], ratios: [{ scenario: 'predicate-case', op: 'fold', opLabel: fold.label, peer: 'exact', peerLabel: exact.label, status: fold.status, values: per, ...(per.length ? stats(per) : {}) }] };
}

async function scenarioCold(ctx) {
  const row = { scenario: 'cold-start', kind: 'gateway', tool: 'mcpgw', id: 'cold', label: 'spawn → initialize → tools/list answer',
    status: 'ok', times: [], idleKb: [], peakKb: [] };
  // a reference, not a peer: the same Node starting and exiting with nothing to do
  const ref = { scenario: 'cold-start', kind: 'peer', tool: 'node', id: 'node-empty', label: `node -e 0 (the gateway's Node, empty script; reference)`,
    status: 'ok', times: [], peakKb: [], counts: [] };
  // the MCP SDK's own import cost: the same Node loading the server SDK's stdio entry points and nothing else
  const sdk = { scenario: 'cold-start', kind: 'peer', tool: 'node', id: 'sdk-import', label: `node -e "require('@modelcontextprotocol/server'); require('@modelcontextprotocol/server/stdio')" (the SDK's import; reference)`,
    status: 'ok', times: [], peakKb: [], counts: [] };
  // with the cache off every start converts the tools' zod schemas to JSON Schema (informational)
  const off = { scenario: 'cold-start', kind: 'gateway', tool: 'mcpgw', id: 'cold-nocache', label: 'the same with the cache off (the tools\' JSON Schemas converted at every start)',
    status: 'ok', times: [], idleKb: [], peakKb: [] };
  const sdkCmd = `cd ${sq(REPO)} && ${sq(ctx.cfg.node)} -e ${sq("require('@modelcontextprotocol/server'); require('@modelcontextprotocol/server/stdio')")}`;
  if (ctx.gatewayDown) Object.assign(row, { status: 'error', reason: ctx.gatewayDown });
  // A cache folder of the scenario's own (the user's is never touched): the warm-up run stores the tools' advertised
  // JSON Schemas there, as a user's first start does, and the timed runs read them back.
  const cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-bench-cold-'));
  try {
    for (let run = 0; run <= ctx.cfg.runs; run++) {
      const s = await runShell(sdkCmd);
      if (run > 0) { sdk.times.push(s.ms); if (s.rssKb) sdk.peakKb.push(s.rssKb); }
      for (const [r, opts] of [[row, { cacheDir }], [off, {}]]) {
        if (r.status !== 'ok' || row.status !== 'ok') continue;
        try {
          const gw = await Gateway.start(ctx.cfg, opts);
          const m = gw.mem();
          if (run > 0) { r.times.push(gw.coldMs); if (r === row) (row.firstCall ??= []).push(gw.primeMs); if (m) { r.idleKb.push(m.rss); r.peakKb.push(m.hwm); } }
          r.tools = [...gw.tools.keys()];
          await gw.close();
        } catch (e) { Object.assign(r, { status: 'error', reason: e.message }); }
      }
      const r = await runShell(`${sq(ctx.cfg.node)} -e 0`);
      if (run > 0) { ref.times.push(r.ms); if (r.rssKb) ref.peakKb.push(r.rssKb); }
    }
  } finally { fs.rmSync(cacheDir, { recursive: true, force: true }); }
  if (row.status !== 'ok') Object.assign(off, { status: row.status, reason: row.reason });
  finishRow(row); finishRow(off); finishRow(ref); finishRow(sdk);
  const per = row.times.map((t, i) => t / ref.times[i]);
  const ratios = per.length ? [{ scenario: 'cold-start', op: 'cold', opLabel: row.label, peer: 'node-empty', peerLabel: 'node -e 0 (reference)', status: 'ok', values: per, ...stats(per) }] : [];
  // the SDK's share of the start: (SDK import − empty Node) ÷ (cold start − empty Node), per run; the rest is ours
  const share = row.times.map((t, i) => (sdk.times[i] - ref.times[i]) / (t - ref.times[i]));
  if (share.length) ratios.push({ scenario: 'cold-start', op: 'sdk-share', opLabel: 'the SDK import\'s share of the start beyond an empty Node', peer: 'cold', peerLabel: row.label, status: 'ok', values: share, ...stats(share) });
  row.ours = stats(row.times.map((t, i) => t - ref.times[i] - (sdk.times[i] - ref.times[i])));
  return { rows: [row, off, ref, sdk], ratios };
}

/**
 * Re-open of an already-indexed file in a new server process: per run, an empty cache folder; server A opens the file
 * (index pass + the index stored), server B (a new process) opens it again (the stored index read back); server C, the
 * cache off, opens it too (the pass alone). open_file times, client-side; the server's peak RSS after the open.
 */
async function scenarioReopen(ctx) {
  const { cfg, jsonl } = ctx;
  warmCache(jsonl.file);
  const mk = (id, label) => ({ scenario: 'reopen', kind: 'gateway', tool: 'mcpgw', id, label, bytes: jsonl.meta.bytes, expect: jsonl.meta.records, status: 'ok', times: [], counts: [], peakKb: [] });
  const first = mk('open-store', 'open_file, fresh server, empty cache: index pass + index stored');
  const reopen = mk('reopen', 'open_file, fresh server, file already indexed: stored index read back');
  const nocache = mk('open-nocache', 'open_file, fresh server, cache off: index pass');
  const rows = [first, reopen, nocache];
  if (ctx.gatewayDown) for (const r of rows) Object.assign(r, { status: 'error', reason: ctx.gatewayDown });
  const openIn = async (row, run, opts) => {
    const gw = await Gateway.start(cfg, opts);
    try {
      gw.need('open_file');
      const r = await gw.call('open_file', { path: jsonl.rel });
      if (run > 0) { row.times.push(r.ms); row.counts.push(r.sc.record_count); row.peakKb.push(gw.mem()?.hwm); }
    } finally { await gw.close(); }
  };
  // Every open is in a new server: on --quick no warm-up run (it would warm nothing the timed run keeps).
  for (let run = cfg.quick ? 1 : 0; run <= cfg.runs && first.status === 'ok'; run++) {
    const cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-bench-index-'));
    try {
      await openIn(first, run, { cacheDir });
      await openIn(reopen, run, { cacheDir });
      await openIn(nocache, run, {});
      if (run === 1) reopen.entryBytes = fs.readdirSync(cacheDir).reduce((n, f) => n + fs.statSync(path.join(cacheDir, f)).size, 0);
    } catch (e) {
      for (const r of rows) Object.assign(r, { status: e instanceof NotYet ? 'not available yet' : 'error', reason: e.message });
    } finally { fs.rmSync(cacheDir, { recursive: true, force: true }); }
  }
  for (const r of rows) finishRow(r);
  const ratio = (a, b, peerLabel) => {
    const per = a.times.map((t, i) => t / b.times[i]);
    return { scenario: 'reopen', op: a.id, opLabel: a.label, peer: b.id, peerLabel, status: a.status, values: per, ...(per.length ? stats(per) : {}) };
  };
  return { rows, ratios: [ratio(reopen, nocache, nocache.label), ratio(first, nocache, nocache.label)] };
}

async function scenarioGetRecord(ctx) {
  const { cfg, jsonl } = ctx;
  warmCache(jsonl.file);
  const n = jsonl.meta.records;
  const row = { scenario: 'get-record', kind: 'gateway', tool: 'mcpgw', label: `${fmtInt(cfg.calls)} random get_record calls (${cfg.runs} runs of ${fmtInt(Math.ceil(cfg.calls / cfg.runs))})`,
    status: 'ok', times: [], p50s: [], p99s: [], all: [], idleKb: [], peakKb: [], wrong: 0 };
  if (ctx.gatewayDown) Object.assign(row, { status: 'error', reason: ctx.gatewayDown });
  let gw = null;
  try {
    if (row.status === 'ok') {
      gw = await Gateway.start(cfg);
      await sleep(200);
      row.idleKb.push(gw.mem()?.rss);
      gw.need('open_file'); gw.need('get_record');
      const handle = await gw.handle(jsonl.rel);
      resetPeak(gw.pid);
      const rnd = sfc32(cfg.seed ^ 0x5eed);
      const one = async () => {
        const index = Math.floor(rnd() * n);
        const r = await gw.call('get_record', { handle, index }, 60000);
        const rec = r.sc.record; // re-indented text, or a value
        const id = typeof rec === 'string' ? Number(/"id"\s*:\s*(\d+)/.exec(rec)?.[1]) : rec && typeof rec === 'object' ? Number(rec.id) : NaN;
        if (r.sc.index !== index || id !== index) row.wrong++;
        return r.ms;
      };
      for (let i = 0; i < Math.min(500, cfg.calls); i++) await one(); // warm-up
      // the transport's floor: MCP ping round trips on the same connection
      const pings = [];
      for (let i = 0; i < 1000; i++) { const t = performance.now(); await gw.client.ping(); pings.push(performance.now() - t); }
      row.ping = { p50: quantile(pings, 0.5), p99: quantile(pings, 0.99) };
      row.wrong = 0;
      const per = Math.ceil(cfg.calls / cfg.runs);
      for (let run = 0; run < cfg.runs; run++) {
        const lat = [];
        for (let i = 0; i < per && row.all.length < cfg.calls; i++) lat.push(await one());
        row.all.push(...lat);
        row.p50s.push(quantile(lat, 0.5)); row.p99s.push(quantile(lat, 0.99));
        row.times.push(lat.reduce((a, b) => a + b, 0));
      }
      row.peakKb.push(gw.mem()?.hwm);
    }
  } catch (e) {
    Object.assign(row, { status: e instanceof NotYet ? 'not available yet' : 'error', reason: e.message });
  } finally { if (gw) await gw.close(); }
  if (row.all.length) {
    Object.assign(row, { p50: stats(row.p50s), p99: stats(row.p99s), overall: { p50: quantile(row.all, 0.5), p90: quantile(row.all, 0.9), p99: quantile(row.all, 0.99), max: Math.max(...row.all), calls: row.all.length } });
    row.check = row.wrong ? { ok: false, got: `${row.wrong} wrong records`, expected: 'record i has id i' } : { ok: true };
  }
  delete row.all;
  finishRow(row);
  row.median = row.p50?.median; row.min = row.p50?.min; row.max = row.p50?.max; // the row shows p50 per call
  return { rows: [row], ratios: [] };
}

async function scenarioMemory(ctx) {
  const { cfg, jsonl } = ctx;
  warmCache(jsonl.file);
  const row = { scenario: 'memory', kind: 'gateway', tool: 'mcpgw', status: 'ok', label: `RSS idle; growth after open_file + full scans of ${fmtBytes(jsonl.meta.bytes)}`,
    idleKb: [], peakKb: [], afterKb: [], growthPeakKb: [], growthKeptKb: [], scans: [] };
  if (ctx.gatewayDown) Object.assign(row, { status: 'error', reason: ctx.gatewayDown });
  for (let run = 0; run <= cfg.runs && row.status === 'ok'; run++) {
    let gw = null;
    try {
      gw = await Gateway.start(cfg);
      await sleep(500);
      const idle = gw.mem().rss;
      resetPeak(gw.pid);
      gw.need('open_file'); gw.need('search');
      const handle = await gw.handle(jsonl.rel);
      const scans = ['text/match_case:false'];
      await gw.call('search', { handle, query: NEEDLE, mode: 'text', match_case: false, max_results: 50 });
      try { // a parsing scan too, once JSONPath has landed
        gw.need('search', { mode: 'jsonpath' });
        await gw.call('search', { handle, query: SELECTIVE.explorer, mode: 'jsonpath', match_case: true, max_results: 50 });
        scans.push('jsonpath');
      } catch (e) { if (!(e instanceof NotYet)) throw e; }
      await sleep(200);
      const m = gw.mem();
      if (run > 0) {
        row.idleKb.push(idle); row.peakKb.push(m.hwm); row.afterKb.push(m.rss);
        row.growthPeakKb.push(m.hwm - idle); row.growthKeptKb.push(m.rss - idle); row.scans = scans;
      }
    } catch (e) {
      Object.assign(row, { status: e instanceof NotYet ? 'not available yet' : 'error', reason: e.message });
    } finally { if (gw) await gw.close(); }
  }
  if (row.idleKb.length) {
    row.idle = median(row.idleKb); row.peak = Math.max(...row.peakKb);
    row.growthPeak = stats(row.growthPeakKb); row.growthKept = stats(row.growthKeptKb);
    row.limitKb = (32 * MiB + 8 * jsonl.meta.records) / 1024;
  }
  return { rows: [row], ratios: [] };
}

async function scenarioPaging(ctx) {
  const { cfg, jsonl } = ctx;
  warmCache(jsonl.file);
  const matches = Math.min(100000, jsonl.meta.records);
  const perPage = 500;
  const query = `$[?@.id < ${matches}].id`;
  const row = { scenario: 'paging', kind: 'gateway', tool: 'mcpgw', status: 'ok', label: `json_read ${query}, max_items ${perPage}: page 1 vs page 100`,
    page1: [], page100: [], ratiosPer: [], pagesSeen: [], itemsSeen: [], idleKb: [], peakKb: [] };
  if (ctx.gatewayDown) Object.assign(row, { status: 'error', reason: ctx.gatewayDown });
  let gw = null;
  try {
    if (row.status === 'ok') {
      gw = await Gateway.start(cfg);
      await sleep(200);
      row.idleKb.push(gw.mem()?.rss);
      gw.need('json_open'); gw.need('json_read', { language: 'jsonpath' });
      const fileId = await gw.fileId(jsonl.rel);
      resetPeak(gw.pid);
      for (let run = 0; run <= cfg.runs; run++) {
        const first = { file_id: fileId, language: 'jsonpath', query, max_items: perPage };
        let r = await gw.call('json_read', first);
        const p1 = r.ms;
        let pages = 1, items = r.sc.items?.length ?? 0, last = r.ms;
        while (pages < 100 && !r.sc.complete && r.sc.next_cursor) {
          r = await gw.call('json_read', continueArgs(gw, r.sc.next_cursor, first));
          pages++; items += r.sc.items?.length ?? 0; last = r.ms;
        }
        if (run > 0) { row.page1.push(p1); row.page100.push(last); row.ratiosPer.push(last / p1); row.pagesSeen.push(pages); row.itemsSeen.push(items); }
      }
      row.peakKb.push(gw.mem()?.hwm);
    }
  } catch (e) {
    Object.assign(row, { status: e instanceof NotYet ? 'not available yet' : 'error', reason: e.message });
  } finally { if (gw) await gw.close(); }
  if (row.page1.length) {
    Object.assign(row, { p1: stats(row.page1), p100: stats(row.page100), ratio: stats(row.ratiosPer) });
    const pages = Math.min(...row.pagesSeen);
    row.check = pages >= 100 ? { ok: true, got: `${pages} pages, ${row.itemsSeen[0]} items`, expected: '100 pages' }
      : { ok: false, got: `${pages} pages (${row.itemsSeen[0]} items) before complete`, expected: '100 pages' };
    row.median = row.p100.median; row.min = row.p100.min; row.max = row.p100.max;
  }
  finishRow(row);
  return { rows: [row], ratios: [] };
}

function buildScenario(ctx, name) {
  const { jsonl, seq, array } = ctx;
  const m = jsonl.meta;
  switch (name) {
    case 'open-jsonl': return { name, server: 'fresh', files: [jsonl.file],
      groups: [{ title: 'open JSON Lines', ops: [openOp(jsonl, 'jsonl')], peers: peerDefs(ctx, jsonl.file, m.bytes, { wc: m.records }) }] };
    case 'open-seq': return { name, server: 'fresh', files: [seq.file],
      groups: [{ title: 'open JSON-seq', ops: [openOp(seq, 'json-seq')], peers: peerDefs(ctx, seq.file, seq.meta.bytes, { wc: seq.meta.records }) }] };
    case 'needle': return { name, server: 'shared', files: [jsonl.file], groups: [
      { title: 'needle, case-sensitive', ops: [searchOp(jsonl, 'search-cs', `search text "${NEEDLE}" match_case:true`, { query: NEEDLE, mode: 'text', match_case: true }, m.needles)],
        peers: peerDefs(ctx, jsonl.file, m.bytes, { 'rg-c': m.needles, 'grep-c': m.needles }) },
      { title: 'needle, case-insensitive', ops: [searchOp(jsonl, 'search-ci', `search text "${NEEDLE}" match_case:false`, { query: NEEDLE, mode: 'text', match_case: false }, m.needles)],
        peers: peerDefs(ctx, jsonl.file, m.bytes, { 'rg-ci': m.needles, 'grep-ci': m.needles }) }] };
    case 'regex': return { name, server: 'shared', files: [jsonl.file], groups: [
      { title: 'regex with a required literal', ops: [searchOp(jsonl, 'regex-literal', `search regex ${REGEX_LITERAL} match_case:true`, { query: REGEX_LITERAL, mode: 'text', regex: true, match_case: true }, m.needles)],
        peers: peerDefs(ctx, jsonl.file, m.bytes, { 'rg-c-literal': m.needles }) },
      { title: 'regex without a literal', ops: [searchOp(jsonl, 'regex-noliteral', `search regex ${REGEX_NO_LITERAL} match_case:true`, { query: REGEX_NO_LITERAL, mode: 'text', regex: true, match_case: true }, m.needles)],
        peers: peerDefs(ctx, jsonl.file, m.bytes, { 'rg-c-noliteral': m.needles }) }] };
    case 'filter-selective': return { name, server: 'shared', files: [jsonl.file], groups: [{ title: 'status == failed', ops: [
      searchOp(jsonl, 'explorer', `search jsonpath ${SELECTIVE.explorer} (count + first 50)`, { query: SELECTIVE.explorer, mode: 'jsonpath', match_case: true }, m.failed),
      readerFirstPageOp(jsonl, 'reader-first', SELECTIVE.reader, Math.min(50, m.failed)),
      readerAllPagesOp(jsonl, 'reader-all', SELECTIVE.reader, m.failed)],
    peers: peerDefs(ctx, jsonl.file, m.bytes, { 'jq-failed': m.failed, 'duck-failed': m.failed }) }] };
    case 'filter-nonselective': return { name, server: 'shared', files: [jsonl.file], groups: [{ title: 'latency_ms > 100', ops: [
      searchOp(jsonl, 'explorer', `search jsonpath ${NONSELECTIVE.explorer} (count + first 50)`, { query: NONSELECTIVE.explorer, mode: 'jsonpath', match_case: true }, m.slow),
      readerFirstPageOp(jsonl, 'reader-first', NONSELECTIVE.reader, Math.min(50, m.slow))],
    peers: peerDefs(ctx, jsonl.file, m.bytes, { 'jq-slow': m.slow, 'duck-slow': m.slow }) }] };
    case 'open-array': return { name, server: 'fresh', files: [array.file], groups: [{ title: 'open pretty array', ops: [
      openOp(array, 'pretty JSON array'),
      { id: 'json_open', label: 'json_open (pretty JSON array)', bytes: array.meta.bytes, expect: null,
        run: async (gw) => { gw.need('json_open'); const r = await gw.call('json_open', { path: array.rel }); return { ms: r.ms, count: r.sc.record_count ?? null }; } }],
    peers: peerDefs(ctx, array.file, array.meta.bytes, { 'jq-array': array.meta.records, 'duck-array': array.meta.records }) }] };
    case 'aggregate-status': return { name, server: 'shared', files: [jsonl.file], groups: [{ title: 'group_by status', ops: [
      aggregateOp(jsonl, 'aggregate-status', 'aggregate {group_by: "status"} (the failed group\'s count)', { group_by: 'status' }, (sc) => sc.groups.find((g) => g.key === 'failed')?.count ?? 0, m.failed)],
    peers: peerDefs(ctx, jsonl.file, m.bytes, { 'duck-group-status': m.failed, 'jq-group-status': m.failed }) }] };
    // A fresh server per run: the file is opened untimed (prepare), then the timed call is the first aggregate over it,
    // which checks every record (later calls over the same names read only the records' members: aggregate-status).
    case 'aggregate-first': return { name, server: 'fresh', files: [jsonl.file], groups: [{ title: 'group_by status, first call', ops: [
      aggregateOp(jsonl, 'aggregate-first', 'aggregate {group_by: "status"}, first call after open_file in a fresh server (the failed group\'s count)', { group_by: 'status' }, (sc) => sc.groups.find((g) => g.key === 'failed')?.count ?? 0, m.failed)],
    peers: peerDefs(ctx, jsonl.file, m.bytes, { 'duck-group-status': m.failed }) }] };
    case 'aggregate-bucket': {
      const hours = hoursSpanned(jsonl.file);
      return { name, server: 'shared', files: [jsonl.file], groups: [{ title: 'errors per hour', ops: [
        aggregateOp(jsonl, 'aggregate-bucket', 'aggregate {where: \'$.level == "error"\', match_case: true, bucket: {path: "ts", width: "1h"}} (groups)',
          { where: '$.level == "error"', match_case: true, bucket: { path: 'ts', width: '1h' }, order: 'key_asc', top: 1000 }, (sc) => sc.groups_total, hours)],
      peers: peerDefs(ctx, jsonl.file, m.bytes, { 'duck-bucket': hours }) }] };
    }
    case 'document': {
      const doc = ctx.geojson;
      const duck = (sql) => `${sq(ctx.cfg.node)} ${sq(path.join(HERE, 'peers', 'duck.mjs'))} ${sq(sql)}`;
      const docs = [{ f: doc, title: 'GeoJSON document', one: '$.features[12345]', filter: GEO_FILTER, expect: doc.meta.big_pop,
        duckLabel: 'DuckDB count(*) of unnest(features) from read_json(…) WHERE pop > 1000000',
        duck: `SELECT count(*) FROM (SELECT unnest(features) AS f FROM read_json(${sqlStr(doc.file)}, maximum_object_size=${doc.meta.bytes + 1024})) WHERE f.properties.pop > 1000000` }];
      if (array) docs.push({ f: array, title: 'pretty array', one: '$[12345]', filter: SELECTIVE.explorer, expect: array.meta.failed,
        duckLabel: `DuckDB count(*) read_json_auto(…) WHERE status='failed'`,
        duck: `SELECT count(*) FROM read_json_auto(${sqlStr(array.file)}) WHERE status='failed'` });
      return { name, server: 'fresh', files: docs.map((d) => d.f.file), groups: docs.map((d) => ({ title: d.title, ops: [
        { id: `open-${d.f.meta.format}`, label: `json_open (${d.title}): open + index`, bytes: d.f.meta.bytes, expect: null,
          run: async (gw) => { gw.need('json_open'); const r = await gw.call('json_open', { path: d.f.rel }); return { ms: r.ms, count: null }; } },
        { id: `one-${d.f.meta.format}`, label: `json_read ${d.one} (after open)`, bytes: null, expect: 1, prepare: (gw) => gw.fileId(d.f.rel),
          run: async (gw) => { const r = await gw.call('json_read', { file_id: await gw.fileId(d.f.rel), language: 'jsonpath', query: d.one }); return { ms: r.ms, count: r.sc.items?.length ?? null }; } },
        { id: `filter-${d.f.meta.format}`, label: `search ${d.filter}: count of all (after open)`, bytes: d.f.meta.bytes, expect: d.expect, prepare: (gw) => gw.handle(d.f.rel),
          run: async (gw) => {
            gw.need('search', { mode: 'jsonpath' });
            const r = await gw.call('search', { handle: await gw.handle(d.f.rel), query: d.filter, mode: 'jsonpath', match_case: true, max_results: 50 });
            return { ms: r.ms, count: r.sc.total_matches, extra: { counts: r.sc.counts ?? null } };
          } },
        { id: `schema-${d.f.meta.format}`, label: 'get_schema (after open)', bytes: null, expect: null, prepare: (gw) => gw.handle(d.f.rel),
          run: async (gw) => {
            gw.need('get_schema');
            const r = await gw.call('get_schema', { handle: await gw.handle(d.f.rel) });
            return { ms: r.ms, count: null, extra: { depth: r.sc.depth ?? null } };
          } }],
      peers: [{ id: `duck-${d.f.meta.format}`, tool: 'duckdb', label: d.duckLabel, cmd: duck(d.duck), expect: d.expect, bytes: d.f.meta.bytes }] })) };
    }
    default: throw new Error(name);
  }
}

/** The GeoJSON filter of the `document` scenario (pop is log-uniform over 10..10^7: ~1 in 6 passes). */
const GEO_FILTER = '$.features[?@.properties.pop > 1000000]';

// ---------------------------------------------------------------- targets
function targets(ctx, all) {
  const ratio = (sc, op, peer) => all.ratios.find((r) => r.scenario === sc && r.op === op && r.peer === peer);
  const row = (sc, pred = () => true) => all.rows.find((r) => r.scenario === sc && pred(r));
  const out = [];
  const fromRatio = (name, goal, sc, op, peer, limit, asSpeedup) => {
    if (!ctx.selected.has(sc)) return;
    const r = ratio(sc, op, peer);
    const gwRow = all.rows.find((x) => x.scenario === sc && x.kind === 'gateway' && x.id === op);
    const peerRow = all.rows.find((x) => x.scenario === sc && x.kind === 'peer' && x.id === peer);
    let result, measured = '';
    if (!r || r.status !== 'ok' || r.median == null) {
      result = gwRow?.status !== 'ok' ? gwRow?.status ?? 'not run' : peerRow?.status === 'missing' ? 'peer missing' : r?.status ?? 'not run';
    } else {
      measured = asSpeedup ? `${r.median <= 1 ? `${fmtRatio(1 / r.median)}× faster` : `${fmtRatio(r.median)}× slower`} (time ratio ${fmtRatio(r.median)} [${fmtRatio(r.min)}–${fmtRatio(r.max)}])`
        : `${fmtRatio(r.median)}× [${fmtRatio(r.min)}–${fmtRatio(r.max)}]`;
      result = r.median <= limit ? 'pass' : 'miss';
      if (gwRow?.check && !gwRow.check.ok) result = `${result === 'pass' ? 'pass on time, ' : 'miss, '}WRONG ANSWER`;
    }
    out.push({ target: name, goal, measured, result });
  };
  fromRatio('open + index JSON Lines', '≤ 2× wc -l', 'open-jsonl', 'open_file', 'wc', 2);
  fromRatio('needle search', '≤ 2× rg -c', 'needle', 'search-cs', 'rg-c', 2);
  fromRatio('needle search, case-insensitive', '≤ 3× rg -ci', 'needle', 'search-ci', 'rg-ci', 3);
  fromRatio('regex search, required literal', '≤ 3× rg -c', 'regex', 'regex-literal', 'rg-c-literal', 3);
  fromRatio('regex search, no literal', '≤ 10× rg -c', 'regex', 'regex-noliteral', 'rg-c-noliteral', 10);
  fromRatio('selective filter, explorer search', '≤ 1× DuckDB', 'filter-selective', 'explorer', 'duck-failed', 1);
  fromRatio('selective filter, explorer search', '≥ 18× faster than jq', 'filter-selective', 'explorer', 'jq-failed', 1 / 18, true);
  fromRatio('selective filter, reader (all pages)', '≤ 1× DuckDB', 'filter-selective', 'reader-all', 'duck-failed', 1);
  fromRatio('selective filter, reader (all pages)', '≥ 18× faster than jq', 'filter-selective', 'reader-all', 'jq-failed', 1 / 18, true);
  fromRatio('non-selective filter, explorer search', '≥ 5× faster than jq', 'filter-nonselective', 'explorer', 'jq-slow', 1 / 5, true);
  fromRatio('aggregate group_by status', '≤ 1× DuckDB', 'aggregate-status', 'aggregate-status', 'duck-group-status', 1);
  fromRatio('aggregate group_by status, first call on a fresh server', '≤ 1× DuckDB', 'aggregate-first', 'aggregate-first', 'duck-group-status', 1);
  fromRatio('aggregate group_by status', '≥ 20× faster than jq -s', 'aggregate-status', 'aggregate-status', 'jq-group-status', 1 / 20, true);
  fromRatio('aggregate bucket ts 1h where level == "error"', '≤ 1.2× DuckDB', 'aggregate-bucket', 'aggregate-bucket', 'duck-bucket', 1.2);
  for (const id of ['search-text', 'search-failed', 'read-failed']) {
    if (!ctx.selected.has('count-only')) break;
    const r = all.ratios.find((x) => x.scenario === 'count-only' && x.op === `${id}-count`);
    const gwRow = all.rows.find((x) => x.scenario === 'count-only' && x.id === `${id}-count`);
    const ok = r && r.status === 'ok' && r.median != null;
    out.push({ target: `count only: ${gwRow?.label ?? id}`, goal: `≤ 1.2× ${r?.peerLabel ?? 'the same with results'}`, measured: ok ? `${fmtRatio(r.median)}× [${fmtRatio(r.min)}–${fmtRatio(r.max)}]` : '',
      result: !ok ? gwRow?.status ?? 'not run' : (r.median <= 1.2 ? 'pass' : 'miss') + (gwRow.check && !gwRow.check.ok ? ', WRONG ANSWER' : '') });
  }
  if (ctx.selected.has('predicate-case')) {
    const r = all.ratios.find((x) => x.scenario === 'predicate-case');
    const gwRow = all.rows.find((x) => x.scenario === 'predicate-case' && x.id === 'fold');
    const ok = r && r.status === 'ok' && r.median != null;
    out.push({ target: 'case-insensitive predicate $.status = "failed"', goal: '≤ 1.2× match_case: true', measured: ok ? `${fmtRatio(r.median)}× [${fmtRatio(r.min)}–${fmtRatio(r.max)}]` : '',
      result: !ok ? gwRow?.status ?? 'not run' : (r.median <= 1.2 ? 'pass' : 'miss') + (gwRow.check && !gwRow.check.ok ? ', WRONG ANSWER' : '') });
  }
  for (const sc of ['aggregate-status', 'aggregate-first', 'aggregate-bucket']) {
    if (!ctx.selected.has(sc)) continue;
    // Per call: the peak during the call (VmHWM reset just before it) − RSS just before it (the file open); median.
    const r = row(sc, (x) => x.kind === 'gateway');
    const growth = r?.peakKb?.map((p, i) => p - (r.extra?.before?.[i] ?? p)) ?? [];
    const ok = r?.status === 'ok' && growth.length > 0 && r.peakIsPerCall;
    out.push({ target: `server memory growth during ${sc}`, goal: '≤ 64 MiB', measured: ok ? `${fmtMiB(median(growth))} [${fmtMiB(Math.min(...growth))}–${fmtMiB(Math.max(...growth))}] (peak during the call − RSS before it, file open)` : '',
      result: !ok ? r?.status ?? 'not run' : median(growth) <= 64 * 1024 ? 'pass' : 'miss' });
  }
  if (ctx.selected.has('open-array')) {
    const r = row('open-array', (x) => x.kind === 'gateway' && x.id === 'open_file');
    const ok = r?.status === 'ok' && r.mbPerS != null;
    out.push({ target: 'open pretty JSON array', goal: '≥ 300 MB/s, memory flat',
      measured: ok ? `${r.mbPerS.toFixed(0)} MB/s; server peak ${fmtMiB(r.peak)} (idle ${fmtMiB(r.idle)}) for ${fmtBytes(r.bytes)}` : '',
      result: !ok ? r?.status ?? 'not run' : (r.mbPerS >= 300 ? 'pass' : 'miss') + (r.check && !r.check.ok ? ', WRONG ANSWER' : '') });
  }
  if (ctx.selected.has('document')) {
    for (const [fmt, what] of [['geojson', 'GeoJSON document'], ['json', 'pretty array']]) {
      const open = row('document', (x) => x.kind === 'gateway' && x.id === `open-${fmt}`);
      if (!open) continue;
      const okOpen = open.status === 'ok' && open.mbPerS != null;
      out.push({ target: `open one ${what}`, goal: '≥ 500 MB/s', measured: okOpen ? `${open.mbPerS.toFixed(0)} MB/s (${fmtMs(open.median)} for ${fmtBytes(open.bytes)})` : '',
        result: !okOpen ? open.status : open.mbPerS >= 500 ? 'pass' : 'miss' });
      const one = row('document', (x) => x.kind === 'gateway' && x.id === `one-${fmt}`);
      const okOne = one?.status === 'ok';
      out.push({ target: `one element of the ${what} after open`, goal: '< 50 ms', measured: okOne ? `${fmtMs(one.median)} [${fmtMs(one.min)}–${fmtMs(one.max)}]` : '',
        result: !okOne ? one?.status ?? 'not run' : (one.median < 50 ? 'pass' : 'miss') + (one.check && !one.check.ok ? ', WRONG ANSWER' : '') });
      fromRatio(`filter over all of the ${what}`, '≤ 1× DuckDB', 'document', `filter-${fmt}`, `duck-${fmt}`, 1);
      const sch = row('document', (x) => x.kind === 'gateway' && x.id === `schema-${fmt}`);
      if (sch) {
        const depths = sch.extra?.depth?.filter((x) => x != null) ?? [];
        out.push({ target: `get_schema of the ${what}`, goal: 'about a second, at the depth that fits', measured: sch.status === 'ok' ? `${fmtMs(sch.median)} [${fmtMs(sch.min)}–${fmtMs(sch.max)}]${depths.length ? `, depth ${depths[0]}` : ', every level asked'}` : '',
          result: sch.status !== 'ok' ? sch.status : sch.median <= 1500 ? 'pass' : 'miss' });
      }
      const f = row('document', (x) => x.kind === 'gateway' && x.id === `filter-${fmt}`);
      if (f?.status === 'ok' && f.peak != null && f.idle != null && f.expect != null) {
        const meta = fmt === 'geojson' ? ctx.geojson.meta : ctx.array.meta;
        const limitKb = (64 * MiB + 8 * meta.records) / 1024;
        out.push({ target: `server RSS growth, ${what} open + filtered`, goal: `≤ 64 MiB + the index (${fmtMiB(limitKb)})`,
          measured: `peak ${fmtMiB(f.peak)}, idle ${fmtMiB(f.idle)}: +${fmtMiB(f.peak - f.idle)}`, result: f.peak - f.idle <= limitKb ? 'pass' : 'miss' });
      }
    }
  }
  if (ctx.selected.has('get-record')) {
    const r = row('get-record');
    const ok = r?.status === 'ok' && r.p99;
    out.push({ target: 'random get_record', goal: 'p99 < 2 ms',
      measured: ok ? `p99 ${fmtMs(r.p99.median)} [${fmtMs(r.p99.min)}–${fmtMs(r.p99.max)}], p50 ${fmtMs(r.p50.median)}` : '',
      result: !ok ? r?.status ?? 'not run' : (r.p99.median < 2 ? 'pass' : 'miss') + (r.check && !r.check.ok ? ', WRONG ANSWER' : '') });
  }
  if (ctx.selected.has('memory')) {
    const r = row('memory');
    const ok = r?.status === 'ok' && r.growthPeak;
    out.push({ target: 'server memory growth, big file open + scanned', goal: `≤ 32 MiB + 8 B/record (${fmtMiB(r?.limitKb)})`,
      measured: ok ? `peak growth ${fmtMiB(r.growthPeak.median)} [${fmtMiB(r.growthPeak.min)}–${fmtMiB(r.growthPeak.max)}], kept ${fmtMiB(r.growthKept.median)}; idle ${fmtMiB(r.idle)}` : '',
      result: !ok ? r?.status ?? 'not run' : r.growthPeak.median <= r.limitKb ? 'pass' : 'miss' });
  }
  if (ctx.selected.has('cold-start')) {
    const r = row('cold-start');
    const ok = r?.status === 'ok' && r.median != null;
    const share = all.ratios.find((x) => x.scenario === 'cold-start' && x.op === 'sdk-share');
    const first = r?.firstCall?.length ? [...r.firstCall].sort((a, b) => a - b)[r.firstCall.length >> 1] : null;
    out.push({ target: 'cold start to tools/list', goal: '< 300 ms', measured: ok ? `${fmtMs(r.median)} [${fmtMs(r.min)}–${fmtMs(r.max)}]${first != null ? `; then the client's first tools/call (it compiles every outputSchema) ${fmtMs(first)}` : ''}` : '',
      result: !ok ? r?.status ?? 'not run' : r.median < 300 ? 'pass' : 'miss' });
    if (ok && r.ours) out.push({ target: 'cold start: ours (beyond Node and the SDK import)', goal: '< 100 ms',
      measured: `${fmtMs(r.ours.median)} [${fmtMs(r.ours.min)}–${fmtMs(r.ours.max)}]; the SDK import ${share ? `${(share.median * 100).toFixed(0)}%` : '?'} of the start beyond Node`,
      result: r.ours.median < 100 ? 'pass' : 'miss' });
  }
  if (ctx.selected.has('reopen')) {
    const r = all.rows.find((x) => x.scenario === 'reopen' && x.id === 'reopen');
    const q = all.ratios.find((x) => x.scenario === 'reopen' && x.op === 'reopen');
    const ok = r?.status === 'ok' && r.median != null;
    out.push({ target: 'reopen of an indexed file, new server', goal: '< 50 ms (moonshot < 10 ms)',
      measured: ok ? `${fmtMs(r.median)} [${fmtMs(r.min)}–${fmtMs(r.max)}]; ${fmtRatio(q?.median)}× the open with the cache off; entry ${fmtMiB((r.entryBytes ?? 0) / 1024)}` : '',
      result: !ok ? r?.status ?? 'not run' : r.median < 10 ? 'pass (moonshot)' : r.median < 50 ? 'pass' : 'miss' });
  }
  if (ctx.selected.has('paging')) {
    const r = row('paging');
    const ok = r?.status === 'ok' && r.ratio;
    out.push({ target: 'json_read page 100 vs page 1', goal: '≤ 1.5×',
      measured: ok ? `${fmtRatio(r.ratio.median)}× [${fmtRatio(r.ratio.min)}–${fmtRatio(r.ratio.max)}] (page 1 ${fmtMs(r.p1.median)}, page 100 ${fmtMs(r.p100.median)})` : '',
      result: !ok ? r?.status ?? 'not run' : (r.ratio.median <= 1.5 ? 'pass' : 'miss') + (r.check && !r.check.ok ? ` (${r.check.got})` : '') });
  }
  return out;
}

// ---------------------------------------------------------------- report
function answer(r) {
  if (!r.check) return '';
  return r.check.ok ? `${typeof r.check.got === 'number' ? fmtInt(r.check.got) : r.check.got ?? ''} ✓`.trim() : `✗ ${typeof r.check.got === 'number' ? fmtInt(r.check.got) : r.check.got} (expected ${typeof r.check.expected === 'number' ? fmtInt(r.check.expected) : r.check.expected})`;
}
function markdown(ctx, all, tg) {
  const L = [];
  const c = ctx.env;
  L.push(`## mcpgw bench — ${c.date}`);
  L.push('');
  L.push(`${c.cpus} × ${c.cpuModel}, ${c.memGiB} GiB RAM, ${c.kernel}; load average ${c.loadStart} at start, ${c.loadEnd} at end. ` +
    `Gateway: \`${ctx.cfg.gateway.startsWith(REPO + path.sep) ? path.relative(REPO, ctx.cfg.gateway) : ctx.cfg.gateway}\` on ${c.gatewayNode} (${c.gitRev}). ` +
    `Data: seed ${ctx.cfg.seed}, ${ctx.files.join('; ')}. ${ctx.cfg.runs === 1 ? 'Each figure: 1 run' : `Each figure: median of ${ctx.cfg.runs} runs, [min–max]`}, after 1 warm-up${ctx.cfg.quick ? ' (of the shared server only: peers and servers started for one call are not warmed up)' : ''}. ` +
    `Peak RSS: GNU time %M for peers${HAVE_TIME ? '' : ' (unavailable here)'}; /proc VmHWM of the server process tree for the gateway (reset per call with clear_refs where allowed).`);
  L.push('');
  L.push('### Timings');
  L.push('');
  L.push('| scenario | tool | work | median | min–max | MB/s | peak RSS | answer |');
  L.push('|---|---|---|---:|---:|---:|---:|---|');
  for (const r of all.rows) {
    if (r.scenario === 'memory' || r.scenario === 'paging' || r.scenario === 'get-record') continue;
    const st = r.status === 'ok' ? fmtMs(r.median) : r.status === 'missing' ? 'peer missing' : r.status;
    const peak = r.kind === 'gateway' ? (r.peak != null ? `${fmtMiB(r.peak)} (idle ${fmtMiB(r.idle)})` : '') : fmtMiB(r.peak);
    const extra = r.queryMedian != null ? ` (query ${fmtMs(r.queryMedian)} in-process)` : '';
    L.push(`| ${r.scenario} | ${r.tool} | ${r.label.replace(/\|/g, '\\|')}${extra} | ${st} | ${r.status === 'ok' ? `${fmtMs(r.min)}–${fmtMs(r.max)}` : ''} | ${r.status === 'ok' && r.mbPerS ? r.mbPerS.toFixed(0) : ''} | ${r.status === 'ok' ? peak : ''} | ${r.status === 'ok' ? answer(r) : ''} |`);
  }
  for (const r of all.rows) {
    if (r.scenario === 'get-record') {
      if (r.ping) L.push(`| get-record | (MCP ping) | 1,000 ping round trips on the same connection: the transport's floor | p50 ${fmtMs(r.ping.p50)} / p99 ${fmtMs(r.ping.p99)} |  |  |  |  |`);
      L.push(`| get-record | mcpgw | ${r.label} | ${r.status === 'ok' ? `p50 ${fmtMs(r.p50?.median)} / p99 ${fmtMs(r.p99?.median)}` : r.status} | ${r.status === 'ok' ? `p99 ${fmtMs(r.p99?.min)}–${fmtMs(r.p99?.max)}; max ${fmtMs(r.overall?.max)}` : ''} |  | ${r.status === 'ok' ? `${fmtMiB(r.peak)} (idle ${fmtMiB(r.idle)})` : ''} | ${r.status === 'ok' ? answer(r) : ''} |`);
    }
    if (r.scenario === 'paging') {
      L.push(`| paging | mcpgw | ${r.label.replace(/\|/g, '\\|')} | ${r.status === 'ok' ? `p1 ${fmtMs(r.p1.median)} / p100 ${fmtMs(r.p100.median)}` : r.status} | ${r.status === 'ok' ? `p100 ${fmtMs(r.p100.min)}–${fmtMs(r.p100.max)}` : ''} |  | ${r.status === 'ok' ? `${fmtMiB(r.peak)} (idle ${fmtMiB(r.idle)})` : ''} | ${r.status === 'ok' ? answer(r) : ''} |`);
    }
    if (r.scenario === 'memory') {
      L.push(`| memory | mcpgw | ${r.label} | ${r.status === 'ok' ? `idle ${fmtMiB(r.idle)}; +${fmtMiB(r.growthPeak?.median)} peak, +${fmtMiB(r.growthKept?.median)} kept` : r.status} | ${r.status === 'ok' ? `peak +${fmtMiB(r.growthPeak.min)}–${fmtMiB(r.growthPeak.max)}` : ''} |  | ${r.status === 'ok' ? fmtMiB(r.peak) : ''} | ${r.status === 'ok' ? `scans: ${r.scans.join(', ')}` : ''} |`);
    }
  }
  L.push('');
  L.push('### Ratios (gateway time ÷ peer time, per run; median [min–max])');
  L.push('');
  L.push('| scenario | gateway | peer | gateway ÷ peer | reading |');
  L.push('|---|---|---|---:|---|');
  for (const r of all.ratios) {
    if (r.status !== 'ok' && !r.status.startsWith('peer')) continue; // listed under "Not measured"
    const reading = r.status !== 'ok' ? r.status : r.median <= 1 ? `${fmtRatio(1 / r.median)}× faster than the peer` : `${fmtRatio(r.median)}× the peer's time`;
    L.push(`| ${r.scenario} | ${r.opLabel.replace(/\|/g, '\\|')} | ${r.peerLabel.replace(/\|/g, '\\|')} | ${r.status === 'ok' ? `${fmtRatio(r.median)} [${fmtRatio(r.min)}–${fmtRatio(r.max)}]` : ''} | ${reading} |`);
  }
  if (L[L.length - 1].startsWith('|---')) L.push('| (no pair measured) | | | | |');
  L.push('');
  L.push('### Targets');
  L.push('');
  L.push('| target | goal | measured | result |');
  L.push('|---|---|---|---|');
  for (const t of tg) L.push(`| ${t.target} | ${t.goal} | ${t.measured} | ${t.result} |`);
  const byReason = new Map(); // one line per distinct reason
  for (const r of all.rows) {
    if (r.status === 'ok' || !r.reason) continue;
    const k = `**${r.status}** — ${String(r.reason).replace(/\s+/g, ' ').slice(0, 300)}`;
    if (!byReason.has(k)) byReason.set(k, []);
    const what = `${r.scenario} / ${r.kind === 'peer' ? r.tool : r.label}`;
    if (!byReason.get(k).includes(what)) byReason.get(k).push(what);
  }
  if (byReason.size) {
    L.push('');
    L.push('### Not measured');
    L.push('');
    for (const [k, whats] of byReason) L.push(`- ${whats.join('; ')}: ${k}`);
  }
  return L.join('\n');
}

// ---------------------------------------------------------------- install peers
function installPeers() {
  fs.mkdirSync(PEERS_DIR, { recursive: true });
  const pj = path.join(PEERS_DIR, 'package.json');
  if (!fs.existsSync(pj)) fs.writeFileSync(pj, JSON.stringify({ name: 'mcpgw-bench-peers', private: true, description: 'benchmark peers (scratch, gitignored)' }, null, 2) + '\n');
  log(`npm install --prefix ${path.relative(REPO, PEERS_DIR)} ${DUCKDB_PKG}@${DUCKDB_VERSION}`);
  const r = spawnSync('npm', ['install', '--prefix', PEERS_DIR, '--no-audit', '--no-fund', '--save-exact', `${DUCKDB_PKG}@${DUCKDB_VERSION}`], { stdio: 'inherit', cwd: PEERS_DIR });
  if (r.status !== 0) die(1, 'npm install of the DuckDB peer failed');
  for (const [tool, pkg] of [['rg', 'ripgrep'], ['jq', 'jq']]) {
    if (spawnSync(tool, ['--version']).status !== 0) log(`${tool} is missing: install it from the OS packages (apt-get install -y ${pkg})`);
  }
  log('peers ready; now: npm run bench');
}

// ---------------------------------------------------------------- main
async function main() {
  const cfg = parseArgs(process.argv.slice(2));
  if (cfg.installPeers) { installPeers(); return 0; }
  cfg.node ??= Number(process.versions.node.split('.')[0]) >= 22 || !fs.existsSync(path.join(REPO, 'node_modules', '.bin', 'node'))
    ? process.execPath : path.join(REPO, 'node_modules', '.bin', 'node');
  const selected = new Set(cfg.only ?? NAMES.filter((n) => n !== 'context'));
  if (selected.has('context')) {
    // bytes, not time: its own data and options (see bench/context.mjs)
    if (selected.size > 1) die(2, 'the context scenario runs alone: npm run bench -- --only context [--records N]');
    const { runContextBench } = await import('./context.mjs');
    return runContextBench({ records: cfg.records, seed: cfg.seed, json: cfg.json, node: cfg.node, gateway: cfg.gateway });
  }
  if (selected.size === 1 && selected.has('sessions')) {
    // its own data and peer (rg): see bench/sessions.mjs
    const { runSessionsBench } = await import('./sessions.mjs');
    const res = await runSessionsBench(cfg);
    console.log(res.report);
    return 0;
  }
  const ctx = { cfg, selected, peers: detectPeers(cfg), files: [] };
  const present = Object.entries(ctx.peers).filter(([, p]) => p.version).map(([k]) => k);
  const missing = Object.entries(ctx.peers).filter(([, p]) => !p.version).map(([k, p]) => `${k} (${p.install})`);
  log(`peers: ${present.join(', ') || 'none'}${missing.length ? `; missing: ${missing.join(', ')}` : ''}; peak RSS via ${HAVE_TIME ? TIME_BIN + ' -f %M' : 'nothing (no GNU time)'}`);
  if (!present.length) die(1, 'none of the peers (wc, grep, rg, jq, DuckDB) is present: nothing to compare with');

  const gwNode = spawnSync(cfg.node, ['--version'], { encoding: 'utf8' }).stdout.trim();
  const rev = spawnSync('git', ['-C', REPO, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' });
  const dirty = spawnSync('git', ['-C', REPO, 'status', '--porcelain', '--', 'src', 'plugins', 'bin'], { encoding: 'utf8' }).stdout.trim();
  ctx.env = { date: new Date().toISOString().replace('T', ' ').slice(0, 16) + ' UTC', cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model?.trim() ?? '?',
    memGiB: (os.totalmem() / 2 ** 30).toFixed(0), kernel: `${os.type()} ${os.release()}`, loadStart: os.loadavg().map((x) => x.toFixed(2)).join(' '),
    harnessNode: process.version, gatewayNode: `Node ${gwNode}`, gitRev: rev.status === 0 ? `${rev.stdout.trim()}${dirty ? ' + uncommitted changes' : ''}` : 'no commit yet',
    peers: Object.fromEntries(Object.entries(ctx.peers).map(([k, p]) => [k, p.version])), peakRssMethod: HAVE_TIME ? 'GNU time %M (peers); /proc VmHWM (server)' : '/proc VmHWM (server) only' };

  // data (the http scenario alone needs only its small file)
  const t0 = performance.now();
  if ([...selected].some((n) => n !== 'http')) ctx.jsonl = ensureData(cfg, 'jsonl', { size: cfg.sizeBytes });
  if (selected.has('http')) {
    ctx.httpData = ensureData(cfg, 'jsonl', { records: HTTP_RECORDS });
    ctx.files.push(`for http: JSON Lines ${fmtBytes(ctx.httpData.meta.bytes)} (${fmtInt(ctx.httpData.meta.records)} records, ${fmtInt(ctx.httpData.meta.failed)} failed)`);
  }
  if (ctx.jsonl) ctx.files.push(`JSON Lines ${fmtBytes(ctx.jsonl.meta.bytes)} (${fmtInt(ctx.jsonl.meta.records)} records, ${fmtInt(ctx.jsonl.meta.failed)} failed, ${fmtInt(ctx.jsonl.meta.needles)} needles)`);
  if (selected.has('open-seq')) {
    ctx.seq = ensureData(cfg, 'json-seq', { records: ctx.jsonl.meta.records });
    ctx.files.push(`JSON-seq ${fmtBytes(ctx.seq.meta.bytes)}`);
  }
  if (selected.has('document')) {
    ctx.geojson = ensureData(cfg, 'geojson', { size: cfg.geojsonBytes });
    ctx.files.push(`GeoJSON document ${fmtBytes(ctx.geojson.meta.bytes)} (${fmtInt(ctx.geojson.meta.records)} features, ${fmtInt(ctx.geojson.meta.big_pop)} with pop > 10^6)`);
  }
  if (selected.has('open-array') || selected.has('document')) {
    ctx.array = ensureData(cfg, 'json', { records: Math.max(1, Math.round(ctx.jsonl.meta.records * 200 / 1024)) });
    ctx.files.push(`pretty array ${fmtBytes(ctx.array.meta.bytes)} (${fmtInt(ctx.array.meta.records)} records)`);
  }

  // is the gateway there at all?
  if (!fs.existsSync(cfg.gateway)) ctx.gatewayDown = `gateway not built: ${cfg.gateway} does not exist (cd ${REPO} && npx tsc -b)`;
  else {
    try { const gw = await Gateway.start(cfg); ctx.tools = [...gw.tools.keys()]; await gw.close(); log(`gateway tools: ${ctx.tools.join(', ')}`); }
    catch (e) { ctx.gatewayDown = e.message; }
  }
  if (ctx.gatewayDown) log(ctx.gatewayDown);

  const all = { rows: [], ratios: [] };
  let sessionsReport = null;
  for (const name of NAMES) {
    if (!selected.has(name)) continue;
    log(`scenario ${name}`);
    let res;
    if (name === 'cold-start') res = await scenarioCold(ctx);
    else if (name === 'get-record') res = await scenarioGetRecord(ctx);
    else if (name === 'memory') res = await scenarioMemory(ctx);
    else if (name === 'paging') res = await scenarioPaging(ctx);
    else if (name === 'sessions') {
      const { runSessionsBench } = await import('./sessions.mjs');
      const r = await runSessionsBench(cfg);
      sessionsReport = r.report;
      continue;
    }
    else if (name === 'http') {
      try {
        ctx.http = await benchHttp({ node: cfg.node, gateway: cfg.gateway, root: DATA_DIR, data: ctx.httpData, runs: cfg.quick ? 1 : Math.min(cfg.runs, 3), log, quick: cfg.quick });
      } catch (e) { ctx.http = { error: e.message }; }
      res = { rows: [], ratios: [] };
    }
    else if (name === 'count-only') res = await scenarioCountOnly(ctx);
    else if (name === 'predicate-case') res = await scenarioPredicateCase(ctx);
    else if (name === 'reopen') res = await scenarioReopen(ctx);
    else {
      const sc = buildScenario(ctx, name);
      res = await pairedScenario(ctx, sc);
      for (const g of sc.groups) { for (const op of g.ops) op.row.id = op.id; for (const p of g.peers) p.row.id = p.id; }
    }
    all.rows.push(...res.rows); all.ratios.push(...res.ratios);
  }
  ctx.env.loadEnd = os.loadavg().map((x) => x.toFixed(2)).join(' ');
  const tg = targets(ctx, all);
  console.log(markdown(ctx, all, tg) + (ctx.http ? '\n' + httpMarkdown(ctx.http, fmtMs, fmtMiB) : ''));
  if (sessionsReport) console.log('\n' + sessionsReport);
  if (cfg.save) {
    fs.mkdirSync(RESULTS_DIR, { recursive: true });
    const stamp = new Date().toISOString().replace(/:/g, '-').replace(/\..*/, '');
    const file = path.join(RESULTS_DIR, `${stamp}.json`);
    fs.writeFileSync(file, JSON.stringify({ env: ctx.env, args: { ...cfg }, data: { jsonl: ctx.jsonl?.meta, json_seq: ctx.seq?.meta, array: ctx.array?.meta },
      gateway_tools: ctx.tools ?? null, gateway_down: ctx.gatewayDown ?? null, rows: all.rows, ratios: all.ratios, targets: tg, http: ctx.http ?? null,
      wall_s: +((performance.now() - t0) / 1000).toFixed(1) }, null, 2) + '\n');
    log(`results: ${path.relative(REPO, file)} (${((performance.now() - t0) / 1000).toFixed(0)} s)`);
  }
  if (cfg.cpuProf) log(`CPU profiles of the gateway: ${path.relative(REPO, cfg.cpuProf)}/`);
  return ctx.gatewayDown ? 1 : 0;
}

const cleanup = () => { for (const g of liveGateways) for (const p of procTree(g.pid)) { try { process.kill(p, 'SIGKILL'); } catch { /* gone */ } } };
process.on('SIGINT', () => { cleanup(); process.exit(130); });
process.on('SIGTERM', () => { cleanup(); process.exit(143); });
main().then((code) => { cleanup(); process.exit(code); }, (e) => { console.error(e); cleanup(); process.exit(1); });
