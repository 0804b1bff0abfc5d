// bench/context.mjs — what mcpgw costs an assistant's context, in bytes: `npm run bench -- --only context
// [--records 200000] [--seed 42] [--json]` (also `node bench/context.mjs …`).
//
// Bytes, not time: nothing here depends on the machine's load. Two figures:
//   tools/list   the tools array of the explore and reader bundles (a server with no profile offers both) as
//                compact JSON, whole and as a model is sent it (name + description + inputSchema only), per bundle,
//                and the longest description;
//   workflow     an assistant's exploration of an unknown file — open → schema → keys → 5 samples → rare-term search →
//                that record → one value — over generated event records (bench/gen.mjs), bytes per step, in five
//                runs: the defaults; the economy options an assistant can pass (record_format "compact"); the
//                profile setting resultText "summary"; both; and both with what the descriptions point to for
//                smaller answers (get_schema depth 1, samples projected with fields). A step's bytes are those of its text block plus
//                its structuredContent as compact JSON (what a client holds; JSON-RPC's own escaping aside); the
//                text block alone is what a client that shows only text passes to the model.
// The answers each run gives (record count, keys, top-level schema, sampled indexes and records — the projected
// members in the last run —, the search's matches, the record, the value) are compared: the runs must agree, else the
// script says which step differs and exits 1.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { generate, NEEDLE } from './gen.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(HERE, '..');
const log = (s) => process.stderr.write(`[context] ${s}\n`);
const utf8 = (s) => Buffer.byteLength(s, 'utf8');
const jsonBytes = (v) => utf8(JSON.stringify(v) ?? 'null');
const EXPLORE = ['list_files', 'open_file', 'close_file', 'get_file_info', 'get_record', 'get_record_count', 'search', 'aggregate',
  'get_value_at_path', 'extract_keys', 'sample_records', 'get_schema', 'get_outline'];
const READER = ['json_open', 'json_read', 'json_close'];

/** The tools/list figures of a tools array (as the client received it). */
export function toolsListBytes(tools) {
  const pick = (names) => tools.filter((t) => names.includes(t.name));
  const model = (t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema });
  const sum = (list, f) => list.reduce((n, t) => n + jsonBytes(f(t)), 0);
  const both = pick([...EXPLORE, ...READER]);
  const longest = both.reduce((a, t) => (utf8(t.description ?? '') > utf8(a.description ?? '') ? t : a), both[0] ?? {});
  return {
    whole: jsonBytes(both),
    model: jsonBytes(both.map(model)),
    explore: { whole: jsonBytes(pick(EXPLORE)), model: sum(pick(EXPLORE), model) },
    reader: { whole: jsonBytes(pick(READER)), model: sum(pick(READER), model) },
    outputSchemas: sum(both, (t) => t.outputSchema ?? null),
    longestDescription: { tool: longest.name, bytes: utf8(longest.description ?? '') },
    tools: both.length,
  };
}

/** Bytes of one tool result: its text block(s) and its structuredContent as compact JSON. */
export function resultBytes(result) {
  const text = (result.content ?? []).filter((c) => c.type === 'text').reduce((n, c) => n + utf8(c.text), 0);
  const structured = result.structuredContent === undefined ? 0 : jsonBytes(result.structuredContent);
  return { text, structured, total: text + structured };
}

/** The members the economy run keeps of each sample (sample_records `fields`). */
export const SAMPLE_FIELDS = ['id', 'ts', 'level', 'status', 'msg'];

/**
 * The exploration workflow on one open connection. `call(name, args)` returns the CallToolResult; `compact` passes
 * record_format "compact" where a tool takes it; `economy` also uses what the descriptions point to for a smaller
 * answer: the schema's top level only (get_schema depth 1) and samples projected to SAMPLE_FIELDS. Returns each
 * step's bytes and the answers to compare.
 */
export async function runWorkflow(call, file, { compact = false, economy = false, needle = NEEDLE } = {}) {
  const steps = [];
  const step = async (label, name, args) => {
    const result = await call(name, args);
    if (result.isError) throw new Error(`${label}: ${name} failed: ${result.content?.[0]?.text?.slice(0, 300)}`);
    const sc = result.structuredContent ?? JSON.parse(result.content[0].text);
    steps.push({ label, tool: name, args, ...resultBytes(result) });
    return sc;
  };
  const fmt = compact ? { record_format: 'compact' } : {};
  const opened = await step('open', 'open_file', { path: file });
  const handle = opened.handle;
  const schema = await step('schema', 'get_schema', { handle, ...(economy ? { depth: 1 } : {}) });
  const keys = await step('keys', 'extract_keys', { handle });
  const samples = await step('5 samples', 'sample_records', { handle, count: 5, ...fmt, ...(economy ? { fields: SAMPLE_FIELDS } : {}) });
  const found = await step('rare-term search', 'search', { handle, query: needle });
  const index = found.matches[0]?.record_index ?? 0;
  const record = await step('record', 'get_record', { handle, index, ...fmt });
  const value = await step('value', 'get_value_at_path', { handle, index, path: 'user.address.city' });
  const recordValue = (r) => (typeof r === 'string' ? JSON.parse(r) : r);
  const answers = {
    open: { record_count: opened.record_count, file_type: opened.file_type },
    schema: { properties: Object.keys(schema.schema?.properties ?? {}), required: schema.schema?.required },
    keys: { keys: keys.keys, counts: Object.fromEntries(keys.keys.map((k) => [k, keys.key_counts?.[k] ?? keys.records_sampled])) },
    samples: samples.records.map((r) => ({ index: r.index, record: recordValue(r.record) })),
    search: { total: found.total_matches, matches: found.matches.map((m) => [m.record_index, m.match_path]) },
    record: recordValue(record.record),
    value: { value: value.value, value_type: value.value_type },
  };
  return { steps, answers, total: steps.reduce((n, s) => n + s.total, 0), text: steps.reduce((n, s) => n + s.text, 0) };
}

/** The first difference between two answers objects, or null; `projected`: b's samples hold only SAMPLE_FIELDS. */
function differs(a, b, projected = false) {
  const pick = (r) => Object.fromEntries(SAMPLE_FIELDS.filter((k) => k in r).map((k) => [k, r[k]]));
  const mine = projected ? { ...a, samples: a.samples.map((s) => ({ index: s.index, record: pick(s.record) })) } : a;
  for (const k of Object.keys(mine)) if (JSON.stringify(mine[k]) !== JSON.stringify(b[k])) return k;
  return null;
}

async function connect(node, gateway, root, configFile) {
  const { Client } = await import('@modelcontextprotocol/client');
  const { StdioClientTransport } = await import('@modelcontextprotocol/client/stdio');
  const transport = new StdioClientTransport({
    command: node, args: [gateway, 'serve', '--root', root, ...(configFile ? ['--config', configFile] : [])],
    // the persistent index cache goes to the scenario's temporary folder, removed at the end
    stderr: 'pipe', cwd: REPO, env: { PATH: process.env.PATH ?? '', XDG_CACHE_HOME: path.join(root, '.cache') },
  });
  let stderr = '';
  transport.stderr?.on('data', (b) => { stderr = (stderr + b).slice(-2000); });
  const client = new Client({ name: 'mcpgw-bench-context', version: '1.0.0' });
  try {
    await client.connect(transport);
  } catch (e) {
    throw new Error(`the gateway did not start: ${e.message} ${stderr}`);
  }
  return { client, call: (name, args) => client.callTool({ name, arguments: args }), close: () => client.close() };
}

function parseArgs(argv) {
  const o = { records: 200_000, seed: 42, json: false, node: process.execPath, gateway: path.join(REPO, 'bin', 'mcpgw.js') };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const val = () => argv[++i];
    if (a === '--records') o.records = Number(val());
    else if (a === '--seed') o.seed = Number(val());
    else if (a === '--json') o.json = true;
    else if (a === '--gateway') o.gateway = path.resolve(val());
    else if (a === '--node') o.node = path.resolve(val());
    else throw new Error(`unknown option ${a}`);
  }
  return o;
}

const pad = (s, n) => String(s).padEnd(n);
const num = (n) => n.toLocaleString('en-US');

/** Runs the scenario and prints its report; `options` as parseArgs gives them (run.mjs passes its own). Returns the exit code. */
export async function runContextBench(options) {
  const cfg = { ...parseArgs([]), ...Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined && v !== null)) };
  const dir = fs.mkdtempSync(path.join(process.env.MCPGW_BENCH_DATA || os.tmpdir(), 'mcpgw-context-'));
  try {
    const file = 'events.jsonl';
    log(`generating ${num(cfg.records)} records (seed ${cfg.seed}) into ${dir}`);
    const meta = generate({ format: 'jsonl', seed: cfg.seed, records: cfg.records, out: path.join(dir, file) });
    const summaryConfig = path.join(dir, 'summary.mcpgwrc.json');
    fs.writeFileSync(summaryConfig, JSON.stringify({ profiles: { default: { bundles: ['explore', 'reader'], resultText: 'summary' } } }));
    const runs = [
      { name: 'defaults', compact: false, config: null },
      { name: 'record_format compact', compact: true, config: null },
      { name: 'resultText summary', compact: false, config: summaryConfig },
      { name: 'compact + summary', compact: true, config: summaryConfig },
      { name: 'economy: + depth 1, fields', compact: true, economy: true, config: summaryConfig },
    ];
    let tools = null;
    const out = [];
    for (const run of runs) {
      let gw = null;
      try {
        gw = await connect(cfg.node, cfg.gateway, dir, run.config);
        if (!tools) tools = toolsListBytes((await gw.client.listTools()).tools);
        const offered = (await gw.client.listTools()).tools;
        const compact = run.compact && offered.find((t) => t.name === 'get_record')?.inputSchema?.properties?.record_format !== undefined;
        out.push({ ...run, compact, ...(await runWorkflow(gw.call, file, { compact, economy: run.economy })) });
      } catch (e) {
        if (!run.config) throw e;
        out.push({ ...run, error: e.message });
        log(`${run.name}: ${e.message.slice(0, 300)}`);
      } finally {
        await gw?.close();
      }
    }
    const base = out[0];
    let disagree = null;
    for (const r of out.slice(1)) {
      if (r.error) continue;
      const k = differs(base.answers, r.answers, r.economy);
      if (k) disagree = `${r.name} answers "${k}" differently from the defaults`;
    }
    const report = { date: new Date().toISOString(), load: os.loadavg().map((x) => x.toFixed(2)).join(' '), records: meta.records, bytes: meta.bytes, needles: meta.needles, tools,
      runs: out.map((r) => ({ name: r.name, compact: r.compact, error: r.error, total: r.total, text: r.text, steps: r.steps?.map((s) => ({ label: s.label, tool: s.tool, text: s.text, structured: s.structured, total: s.total })) })), disagree };
    if (cfg.json) console.log(JSON.stringify(report, null, 2));
    else console.log(markdown(report));
    return disagree ? 1 : 0;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function markdown(r) {
  const t = r.tools;
  const lines = [];
  lines.push(`## Context bytes (${r.date.slice(0, 16).replace('T', ' ')} UTC; ${num(r.records)} records, ${(r.bytes / 1e6).toFixed(1)} MB JSON Lines)`, '');
  lines.push('| tools/list | whole | name + description + inputSchema |', '|---|---:|---:|');
  lines.push(`| explore (${EXPLORE.length} tools) | ${num(t.explore.whole)} | ${num(t.explore.model)} |`);
  lines.push(`| reader (${READER.length} tools) | ${num(t.reader.whole)} | ${num(t.reader.model)} |`);
  lines.push(`| both | ${num(t.whole)} | ${num(t.model)} |`, '');
  lines.push(`outputSchemas: ${num(t.outputSchemas)} bytes; longest description: ${t.longestDescription.tool}, ${num(t.longestDescription.bytes)} bytes.`, '');
  const ok = r.runs.filter((x) => !x.error);
  lines.push(`| step | ${ok.map((x) => x.name).join(' | ')} |`, `|---|${ok.map(() => '---:').join('|')}|`);
  const labels = ok[0].steps.map((s) => s.label);
  for (const [i, label] of labels.entries()) {
    lines.push(`| ${label} (${ok[0].steps[i].tool}) | ${ok.map((x) => `${num(x.steps[i].total)} (text ${num(x.steps[i].text)})`).join(' | ')} |`);
  }
  lines.push(`| **workflow** | ${ok.map((x) => `**${num(x.total)}** (text ${num(x.text)}; ${(x.total / ok[0].total).toFixed(2)}×)`).join(' | ')} |`, '');
  for (const x of r.runs.filter((y) => y.error)) lines.push(`${x.name}: not measured (${x.error.slice(0, 200)})`, '');
  lines.push(r.disagree ? `ANSWERS DIFFER: ${r.disagree}` : 'Every run gave the same answers.');
  return lines.join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  runContextBench(parseArgs(process.argv.slice(2))).then((code) => process.exit(code), (e) => { console.error(e); process.exit(1); });
}
