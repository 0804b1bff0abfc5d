// bench/context.mjs — what mcpgw costs an assistant's context, in bytes: `npm run bench -- --only context
// [--records 200000] [--seed 42] [--json]` (also `node bench/context.mjs …`; `--gateway OTHER/bin/mcpgw.js` measures
// another checkout, e.g. main before a change).
//
// Bytes, not time: nothing here depends on the machine's load. Two figures:
//   tools/list   the tools array of the explore and reader bundles (a server with no profile offers both) as
//                compact JSON, whole; and what a model is sent of it: per tool its name, its description and its
//                inputSchema as compact JSON, summed ("declarations"); per bundle, and the longest description;
//   workflow     an assistant's exploration of an unknown file — open → schema → keys → 5 samples → rare-term search →
//                that record → one value — over generated event records (bench/gen.mjs), bytes per step as each client
//                family's model sees them (src/kernel/server/client-families.ts; docs/tools.md "Client families"):
//                  structured  structuredContent as compact JSON (Claude Code: the text block is dropped)
//                  both        the text block and structuredContent (Copilot CLI: the model reads both)
//                  text        the text block (opencode, and any client whose name is not known)
//                one connection per family, each with its client's clientInfo.name, so `resultText: auto` (the
//                default) answers it as it would that client; then the explicit settings `full` and `summary`.
// The answers each run gives (record count, keys, schema, sampled indexes and records, the search's matches, the
// record, the value) are compared: the runs must agree, else the script says which step differs and exits 1.

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
  // what a model is sent of a tool: its name and description as text, its input schema as compact JSON
  const declared = (list) => list.reduce((n, t) => n + utf8(t.name) + utf8(t.description ?? '') + jsonBytes(t.inputSchema), 0);
  const both = pick([...EXPLORE, ...READER]);
  const longest = both.reduce((a, t) => (utf8(t.description ?? '') > utf8(a.description ?? '') ? t : a), both[0] ?? {});
  return {
    whole: jsonBytes(both),
    model: jsonBytes(both.map(model)),
    declarations: declared(both),
    explore: { whole: jsonBytes(pick(EXPLORE)), model: sum(pick(EXPLORE), model), declarations: declared(pick(EXPLORE)) },
    reader: { whole: jsonBytes(pick(READER)), model: sum(pick(READER), model), declarations: declared(pick(READER)) },
    outputSchemas: sum(both, (t) => t.outputSchema ?? null),
    longestDescription: { tool: longest.name, bytes: utf8(longest.description ?? '') },
    tools: both.length,
  };
}

/**
 * Bytes of one tool result: its text block(s), its structuredContent as compact JSON, and what each client family's
 * model is sent of it (structured: structuredContent, else the text; both: the two; text: the text, else the
 * structuredContent when the text is empty).
 */
export function resultBytes(result) {
  const text = (result.content ?? []).filter((c) => c.type === 'text').reduce((n, c) => n + utf8(c.text), 0);
  const structured = result.structuredContent === undefined ? 0 : jsonBytes(result.structuredContent);
  return {
    text, structured, total: text + structured,
    seen: { structured: structured || text, both: text + structured, text: text || structured },
  };
}

/** The client families and the clientInfo.name each run sends (docs/tools.md "Client families"). */
export const FAMILIES = [
  { family: 'structured', client: 'claude-code' },
  { family: 'both', client: 'github-copilot-developer' },
  { family: 'text', client: 'opencode' },
  { family: 'text', client: 'mcpgw-bench-context', note: 'a name not in the table' },
];

/**
 * The exploration workflow on one open connection with each tool's defaults. `call(name, args)` returns the
 * CallToolResult. Returns each step's bytes (resultBytes) and the answers to compare.
 */
export async function runWorkflow(call, file, { needle = NEEDLE } = {}) {
  const steps = [];
  const step = async (label, name, args) => {
    const result = await call(name, args);
    if (result.isError) throw new Error(`${label}: ${name} failed: ${result.content?.[0]?.text?.slice(0, 300)}`);
    const sc = result.structuredContent ?? JSON.parse(result.content[0].text);
    steps.push({ label, tool: name, args, ...resultBytes(result) });
    return sc;
  };
  const opened = await step('open', 'open_file', { path: file });
  const handle = opened.handle;
  const schema = await step('schema', 'get_schema', { handle });
  const keys = await step('keys', 'extract_keys', { handle });
  const samples = await step('5 samples', 'sample_records', { handle, count: 5 });
  const found = await step('rare-term search', 'search', { handle, query: needle });
  const index = found.matches[0]?.record_index ?? 0;
  const record = await step('record', 'get_record', { handle, index });
  const value = await step('value', 'get_value_at_path', { handle, index, path: 'user.address.city' });
  const recordValue = (r) => (typeof r === 'string' ? JSON.parse(r) : r);
  const answers = {
    open: { record_count: opened.record_count, file_type: opened.file_type },
    schema: schema.schema,
    keys: { keys: keys.keys, counts: Object.fromEntries(keys.keys.map((k) => [k, keys.key_counts?.[k] ?? keys.records_sampled])) },
    samples: samples.records.map((r) => ({ index: r.index, record: recordValue(r.record) })),
    search: { total: found.total_matches, matches: found.matches.map((m) => [m.record_index, m.match_path]) },
    record: { index: record.index, record: recordValue(record.record) },
    value: { value: value.value, value_type: value.value_type },
  };
  const sum = (f) => steps.reduce((n, s) => n + f(s), 0);
  return {
    steps, answers, total: sum((s) => s.total), text: sum((s) => s.text), structured: sum((s) => s.structured),
    seen: { structured: sum((s) => s.seen.structured), both: sum((s) => s.seen.both), text: sum((s) => s.seen.text) },
  };
}

/** The first step whose answers differ, or null. */
function differs(a, b) {
  for (const k of Object.keys(a)) if (JSON.stringify(a[k]) !== JSON.stringify(b[k])) return k;
  return null;
}

async function connect(node, gateway, root, configFile, clientName = 'mcpgw-bench-context') {
  const { Client } = await import('@modelcontextprotocol/client');
  const { StdioClientTransport } = await import('@modelcontextprotocol/client/stdio');
  const transport = new StdioClientTransport({
    command: node, args: [gateway, 'serve', '--root', root, ...(configFile ? ['--config', configFile] : [])],
    // the persistent index cache goes to the scenario's temporary folder, removed at the end
    stderr: 'pipe', cwd: REPO, env: { PATH: process.env.PATH ?? '', XDG_CACHE_HOME: path.join(root, '.cache') },
  });
  let stderr = '';
  transport.stderr?.on('data', (b) => { stderr = (stderr + b).slice(-2000); });
  const client = new Client({ name: clientName, version: '1.0.0' });
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
    const setting = (resultText) => {
      const file = path.join(dir, `${resultText}.mcpgwrc.json`);
      fs.writeFileSync(file, JSON.stringify({ profiles: { default: { bundles: ['explore', 'reader'], resultText } } }));
      return file;
    };
    const runs = [
      ...FAMILIES.map((f) => ({ name: `${f.family} (${f.client})`, family: f.family, client: f.client, config: null })),
      { name: 'resultText full, both copies', family: 'both', client: 'mcpgw-bench-context', config: setting('full') },
      { name: 'resultText summary, both copies', family: 'both', client: 'mcpgw-bench-context', config: setting('summary') },
    ];
    let tools = null;
    const out = [];
    for (const run of runs) {
      let gw = null;
      try {
        gw = await connect(cfg.node, cfg.gateway, dir, run.config, run.client);
        if (!tools) tools = toolsListBytes((await gw.client.listTools()).tools);
        out.push({ ...run, ...(await runWorkflow(gw.call, file)) });
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
      const k = differs(base.answers, r.answers);
      if (k) disagree = `${r.name} answers "${k}" differently from ${base.name}`;
    }
    const report = { date: new Date().toISOString(), records: meta.records, bytes: meta.bytes, needles: meta.needles, tools,
      runs: out.map((r) => ({ name: r.name, family: r.family, client: r.client, error: r.error, seen: r.seen?.[r.family], text: r.text, structured: r.structured,
        steps: r.steps?.map((s) => ({ label: s.label, tool: s.tool, text: s.text, structured: s.structured, seen: s.seen[r.family] })) })), disagree };
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
  lines.push('| tools/list | whole | declarations (name + description + inputSchema) |', '|---|---:|---:|');
  lines.push(`| explore (${EXPLORE.length} tools) | ${num(t.explore.whole)} | ${num(t.explore.declarations)} |`);
  lines.push(`| reader (${READER.length} tools) | ${num(t.reader.whole)} | ${num(t.reader.declarations)} |`);
  lines.push(`| both | ${num(t.whole)} | ${num(t.declarations)} |`, '');
  lines.push(`outputSchemas: ${num(t.outputSchemas)} bytes; longest description: ${t.longestDescription.tool}, ${num(t.longestDescription.bytes)} bytes; the declarations as one JSON array: ${num(t.model)} bytes.`, '');
  const ok = r.runs.filter((x) => !x.error);
  lines.push('Model-visible bytes per step (each run: its family\'s copy; the text block\'s bytes in brackets):', '');
  lines.push(`| step | ${ok.map((x) => x.name).join(' | ')} |`, `|---|${ok.map(() => '---:').join('|')}|`);
  const labels = ok[0].steps.map((s) => s.label);
  for (const [i, label] of labels.entries()) {
    lines.push(`| ${label} (${ok[0].steps[i].tool}) | ${ok.map((x) => `${num(x.steps[i].seen)} (${num(x.steps[i].text)})`).join(' | ')} |`);
  }
  lines.push(`| **workflow** | ${ok.map((x) => `**${num(x.seen)}** (${num(x.text)}; one copy ${num(x.structured)})`).join(' | ')} |`, '');
  for (const x of r.runs.filter((y) => y.error)) lines.push(`${x.name}: not measured (${x.error.slice(0, 200)})`, '');
  lines.push(r.disagree ? `ANSWERS DIFFER: ${r.disagree}` : 'Every run gave the same answers.');
  return lines.join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  runContextBench(parseArgs(process.argv.slice(2))).then((code) => process.exit(code), (e) => { console.error(e); process.exit(1); });
}
