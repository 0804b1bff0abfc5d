#!/usr/bin/env node
/**
 * A synthetic AI-coding session history of our own, for the sessions bench: N sessions across the six sources
 * (Claude Code, Codex, Copilot CLI, Gemini CLI, Qwen Code, Kimi), each in its tool's layout under `OUT/<source>/`,
 * about SIZE bytes in all. Deterministic (sfc32 seeded by splitmix32; no clock, no Math.random): the same seed, size
 * and count give byte-identical files. Session sizes vary (log-normal); most bytes are tool results (file contents,
 * command output), as in real histories. Exactly one session holds the rare term `RARE_TERM` (in a user message).
 *
 *   node bench/gen-sessions.mjs --out DIR [--sessions 2000] [--size 1GiB] [--seed 7] [--text bag|zipf]
 *
 * Writes `DIR/meta.json`: {sessions, bytes, files, rare: {path, line}, projects, bySource}.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';

export const RARE_TERM = 'zanzibarquux';

function splitmix32(a) {
  return () => {
    a |= 0; a = (a + 0x9e3779b9) | 0;
    let t = a ^ (a >>> 16); t = Math.imul(t, 0x21f0aaad);
    t ^= t >>> 15; t = Math.imul(t, 0x735a2d97);
    return ((t ^ (t >>> 15)) >>> 0);
  };
}

export function rng(seed) {
  const s = splitmix32(seed);
  let a = s(), b = s(), c = s(), d = s();
  return () => {
    a >>>= 0; b >>>= 0; c >>>= 0; d >>>= 0;
    let t = (a + b) | 0;
    a = b ^ (b >>> 9); b = (c + (c << 3)) | 0; c = (c << 21) | (c >>> 11);
    d = (d + 1) | 0; t = (t + d) | 0; c = (c + t) | 0;
    return (t >>> 0) / 4294967296;
  };
}

const WORDS = ('the a to of and in that is for it with as on be this are was by at or from have not but an they which one you were all we there can when your more if will about up out so what their time into has other than then like its now only some could make also these two first way over new our any after use how work even because most want good through well much before need must where find right long back still same here both each off also server client request response error handler cache memory socket connection timeout retry queue worker thread process file path config option flag test build deploy pipeline branch commit merge review function method class module import export type interface value object array string number boolean null index query table column row database schema migration transaction lock token session user login password auth header cookie route page view component state render event listener callback promise async await loop stack heap leak latency throughput metric log trace span alert dashboard container image volume network proxy gateway certificate key secret vault backup restore snapshot release version upgrade dependency package install script command shell terminal output input stream buffer chunk parse serialize encode decode compress hash sort filter map reduce batch job schedule cron timezone date time format locale translation message email notification webhook payment invoice order customer account refund currency report export csv json yaml toml xml markdown html css layout theme dark mode toggle button form field validation').split(/\s+/);

const PROMPTS = [
  'Why does the {a} fail when the {b} is empty?', 'Add a {a} option to the {b} command.', 'The {a} is slow on large {b} files, can you speed it up?',
  'Write tests for the {a} {b}.', 'Refactor the {a} so the {b} is easier to read.', 'Explain how the {a} talks to the {b}.',
  'Fix the flaky {a} test in the {b} module.', 'Rename {a} to {b} everywhere.', 'The {a} leaks {b} after a few hours.',
];

/**
 * Text style. `bag` (the default, the sessions bench's figures): words drawn evenly from WORDS, so every technical
 * word is in most entries. `zipf` (the recall and first-call benches): each session has a topic of 10 words of WORDS
 * (30% of its words), the rest drawn from the 50,000 most frequent English words with Zipf's law (p ∝ 1/rank: the
 * frequency ranks of the word list shipped with the plugin), so that a content word is rare, as in real text.
 */
let style = 'bag';
let topic = WORDS;
let zipf = null;

function zipfTable() {
  if (zipf) return zipf;
  const list = fs.readFileSync(path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'plugins', 'tools-sessions', 'vectors', 'glove-100d-50000.words'), 'utf8').split('\n');
  const kept = [];
  const cdf = [];
  let total = 0;
  list.forEach((w, rank) => { if (/^[a-z]+$/.test(w)) { total += 1 / (rank + 1); kept.push(w); cdf.push(total); } });
  zipf = { words: kept, cdf: Float64Array.from(cdf, (c) => c / total) };
  return zipf;
}

function word(r) {
  if (style === 'bag') return WORDS[Math.floor(r() * WORDS.length)];
  if (r() < 0.3) return topic[Math.floor(r() * topic.length)];
  const { words: list, cdf } = zipfTable();
  const x = r();
  let lo = 0, hi = cdf.length - 1;
  while (lo < hi) { const mid = (lo + hi) >>> 1; if (cdf[mid] < x) lo = mid + 1; else hi = mid; }
  return list[lo];
}

function words(r, n) {
  let s = '';
  for (let i = 0; i < n; i++) s += (i ? ' ' : '') + word(r);
  return s;
}

function prompt(r) {
  const pool = style === 'bag' ? WORDS : topic;
  return PROMPTS[Math.floor(r() * PROMPTS.length)].replace('{a}', pool[Math.floor(r() * pool.length)]).replace('{b}', pool[Math.floor(r() * pool.length)]);
}

/** Lines of file-like text for a tool result, about `bytes` long. */
function fileText(r, bytes) {
  const lines = [];
  let n = 0;
  while (n < bytes) {
    const l = `${'  '.repeat(Math.floor(r() * 3))}${words(r, 4 + Math.floor(r() * 10))};`;
    lines.push(l);
    n += l.length + 1;
  }
  return lines.join('\n');
}

const uuid = (r) => {
  const h = () => Math.floor(r() * 0x100000000).toString(16).padStart(8, '0');
  const x = h() + h() + h() + h();
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-4${x.slice(13, 16)}-a${x.slice(17, 20)}-${x.slice(20, 32)}`;
};

const iso = (ms) => new Date(ms).toISOString();

/** One session's records as JSON Lines (or a Gemini document) of about `bytes`. */
function session(source, r, ctx) {
  const { cwd, id, bytes, rare, start } = ctx;
  if (style === 'zipf') topic = Array.from({ length: 10 }, () => WORDS[Math.floor(r() * WORDS.length)]);
  let t = start;
  const out = [];
  let size = 0;
  let turn = 0;
  const push = (o) => { const s = JSON.stringify(o); out.push(s); size += s.length + 1; };
  const gemini = [];
  const meta = () => {
    if (source === 'codex') push({ timestamp: iso(t), type: 'session_meta', payload: { id, timestamp: iso(t), cwd, originator: 'codex_cli_rs', cli_version: '0.46.0', git: { branch: 'main' } } });
    if (source === 'copilot') push({ type: 'session.start', data: { sessionId: id, context: { cwd, branch: 'main' }, selectedModel: 'gpt-5' }, id: 'e0', timestamp: iso(t), parentId: null });
  };
  meta();
  while (size < bytes) {
    turn++;
    t += 1000 + Math.floor(r() * 60000);
    const userText = turn === 3 && rare ? `${prompt(r)} The ${RARE_TERM} adapter is involved.` : `${prompt(r)} ${words(r, 10 + Math.floor(r() * 40))}.`;
    const reply = `${words(r, 20 + Math.floor(r() * 80))}.\n\n${words(r, 15 + Math.floor(r() * 60))}.`;
    const result = fileText(r, 500 + Math.floor(Math.exp(r() * 9)));
    const callId = `call_${turn}_${Math.floor(r() * 1e9)}`;
    const usage = { input_tokens: 10 + Math.floor(r() * 500), output_tokens: 50 + Math.floor(r() * 800), cache_read_input_tokens: Math.floor(r() * 20000), cache_creation_input_tokens: Math.floor(r() * 3000) };
    if (source === 'claude') {
      const base = { parentUuid: null, isSidechain: false, userType: 'external', cwd, sessionId: id, version: '2.0.14', gitBranch: 'main' };
      push({ ...base, type: 'user', uuid: uuid(r), timestamp: iso(t), message: { role: 'user', content: userText } });
      const mid = `msg_${turn}_${id.slice(0, 8)}`, rid = `req_${turn}`;
      const m = (block) => ({ ...base, type: 'assistant', uuid: uuid(r), timestamp: iso(t + 2000), requestId: rid, message: { id: mid, role: 'assistant', model: 'claude-sonnet-4-5', content: [block], usage } });
      push(m({ type: 'text', text: reply }));
      push(m({ type: 'tool_use', id: callId, name: 'Read', input: { file_path: `${cwd}/src/${WORDS[turn % WORDS.length]}.ts` } }));
      push({ ...base, type: 'user', uuid: uuid(r), timestamp: iso(t + 3000), message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: callId, content: result }] } });
    } else if (source === 'codex') {
      push({ timestamp: iso(t), type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: userText }] } });
      push({ timestamp: iso(t + 2000), type: 'response_item', payload: { type: 'function_call', name: 'shell', arguments: JSON.stringify({ command: ['rg', '-n', WORDS[turn % WORDS.length]] }), call_id: callId } });
      push({ timestamp: iso(t + 3000), type: 'response_item', payload: { type: 'function_call_output', call_id: callId, output: JSON.stringify({ output: result, metadata: { exit_code: 0 } }) } });
      push({ timestamp: iso(t + 4000), type: 'response_item', payload: { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: reply }] } });
      push({ timestamp: iso(t + 4000), type: 'event_msg', payload: { type: 'token_count', info: { total_token_usage: { input_tokens: turn * 1000, output_tokens: turn * 100 }, last_token_usage: { input_tokens: usage.input_tokens + 100, cached_input_tokens: 100, output_tokens: usage.output_tokens } } } });
    } else if (source === 'copilot') {
      push({ type: 'user.message', data: { content: userText }, id: `e${turn}a`, timestamp: iso(t), parentId: null });
      push({ type: 'assistant.message', data: { content: reply, toolRequests: [{ toolCallId: callId, name: 'bash', arguments: { command: `cat src/${WORDS[turn % WORDS.length]}.ts` } }] }, id: `e${turn}b`, timestamp: iso(t + 2000), parentId: null });
      push({ type: 'tool.execution_complete', data: { toolCallId: callId, success: true, result: { content: result } }, id: `e${turn}c`, timestamp: iso(t + 3000), parentId: null });
      push({ type: 'assistant.usage', data: { model: 'gpt-5', inputTokens: usage.input_tokens, outputTokens: usage.output_tokens, cacheReadTokens: 0, cacheWriteTokens: 0, requestId: `r${turn}` }, id: `e${turn}d`, timestamp: iso(t + 3000), parentId: null });
    } else if (source === 'qwen') {
      const base = { sessionId: id, cwd, version: '0.0.14', gitBranch: 'main', parentUuid: null };
      push({ ...base, uuid: uuid(r), timestamp: iso(t), type: 'user', message: { role: 'user', parts: [{ text: userText }] } });
      push({ ...base, uuid: uuid(r), timestamp: iso(t + 2000), type: 'assistant', model: 'qwen3-coder-plus', message: { role: 'model', parts: [{ text: reply }, { functionCall: { id: callId, name: 'read_file', args: { path: 'src/x.ts' } } }] }, usageMetadata: { promptTokenCount: usage.input_tokens, candidatesTokenCount: usage.output_tokens, cachedContentTokenCount: 0 } });
      push({ ...base, uuid: uuid(r), timestamp: iso(t + 3000), type: 'tool_result', message: { role: 'user', parts: [{ functionResponse: { id: callId, name: 'read_file', response: { output: result } } }] } });
    } else if (source === 'kimi') {
      push({ role: 'user', content: userText });
      push({ role: 'assistant', content: [{ type: 'text', text: reply }], tool_calls: [{ type: 'function', id: callId, function: { name: 'ReadFile', arguments: JSON.stringify({ path: 'src/x.py' }) } }] });
      push({ role: 'tool', content: [{ type: 'text', text: result }], tool_call_id: callId });
      push({ role: '_usage', token_count: turn * 1000 });
    } else if (source === 'gemini') {
      const msg = { id: `m${turn}a`, timestamp: iso(t), type: 'user', content: userText };
      const ans = { id: `m${turn}b`, timestamp: iso(t + 2000), type: 'gemini', content: reply, model: 'gemini-2.5-pro', tokens: { input: usage.input_tokens, output: usage.output_tokens, cached: 0, thoughts: 0, tool: 0, total: 0 },
        toolCalls: [{ id: callId, name: 'read_file', args: { absolute_path: `${cwd}/a.ts` }, result: [{ functionResponse: { id: callId, name: 'read_file', response: { output: result } } }], status: 'success' }] };
      gemini.push(msg, ans);
      size += JSON.stringify(msg).length + JSON.stringify(ans).length + 10;
    }
  }
  if (source === 'gemini') return JSON.stringify({ sessionId: id, projectHash: createHash('sha256').update(cwd).digest('hex'), startTime: iso(start), lastUpdated: iso(t), messages: gemini }, null, 1) + '\n';
  return out.join('\n') + '\n';
}

const SOURCES = [['claude', 0.4], ['codex', 0.15], ['copilot', 0.125], ['gemini', 0.1], ['qwen', 0.125], ['kimi', 0.1]];

export function generate({ out, sessions = 2000, size = 2 ** 30, seed = 7, text = 'bag' }) {
  style = text;
  topic = WORDS;
  const r = rng(seed);
  fs.rmSync(out, { recursive: true, force: true });
  const meta = { sessions, bytes: 0, files: 0, rare: null, projects: 0, bySource: {}, seed };
  // log-normal sizes scaled to the total
  const weights = Array.from({ length: sessions }, () => Math.exp((r() + r() + r() - 1.5) * 1.6));
  const sum = weights.reduce((a, b) => a + b, 0);
  const rareAt = Math.floor(sessions * 0.37);
  let k = 0;
  const projectsRoot = path.join(out, 'projects');
  const kimiDirs = [];
  for (const [source, share] of SOURCES) {
    const n = source === 'kimi' ? sessions - k : Math.round(sessions * share);
    const nProjects = Math.max(2, Math.round(n / 25));
    meta.bySource[source] = n;
    meta.projects += nProjects;
    for (let i = 0; i < n; i++, k++) {
      const project = `${source}-proj-${i % nProjects}`;
      const cwd = path.join(projectsRoot, project);
      fs.mkdirSync(cwd, { recursive: true });
      const id = uuid(r);
      const bytes = Math.max(2000, Math.round((weights[k] / sum) * size));
      const start = Date.UTC(2025, 0, 1) + k * 3_600_000;
      const text = session(source, r, { cwd, id, bytes, rare: k === rareAt, start });
      const enc = cwd.replace(/[/.]/g, '-');
      let file;
      if (source === 'claude') file = path.join(out, 'claude', 'projects', enc, `${id}.jsonl`);
      else if (source === 'codex') file = path.join(out, 'codex', 'sessions', '2025', String(1 + (i % 12)).padStart(2, '0'), String(1 + (i % 28)).padStart(2, '0'), `rollout-2025-01-01T00-00-00-${id}.jsonl`);
      else if (source === 'copilot') file = path.join(out, 'copilot', 'session-state', id, 'events.jsonl');
      else if (source === 'gemini') {
        const dir = path.join(out, 'gemini', 'tmp', createHash('sha256').update(cwd).digest('hex'));
        fs.mkdirSync(dir, { recursive: true });
        fs.writeFileSync(path.join(dir, '.project_root'), cwd);
        file = path.join(dir, 'chats', `session-${id.slice(0, 8)}.json`);
      } else if (source === 'qwen') file = path.join(out, 'qwen', 'projects', enc, 'chats', `${id}.jsonl`);
      else {
        file = path.join(out, 'kimi', 'sessions', createHash('md5').update(cwd).digest('hex'), id, 'context.jsonl');
        kimiDirs.push(cwd);
      }
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, text);
      const mtime = new Date(start + 86_400_000);
      fs.utimesSync(file, mtime, mtime);
      meta.bytes += Buffer.byteLength(text);
      meta.files++;
      if (k === rareAt) meta.rare = { path: file, source };
    }
  }
  fs.mkdirSync(path.join(out, 'kimi'), { recursive: true });
  fs.writeFileSync(path.join(out, 'kimi', 'kimi.json'), JSON.stringify({ work_dirs: [...new Set(kimiDirs)].map((p) => ({ path: p })) }));
  fs.writeFileSync(path.join(out, 'meta.json'), JSON.stringify(meta, null, 2));
  return meta;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const opt = (n, d) => { const i = args.indexOf(`--${n}`); return i === -1 ? d : args[i + 1]; };
  const size = opt('size', '1GiB');
  const bytes = /^(\d+(?:\.\d+)?)\s*(GiB|MiB|MB|GB)?$/i.exec(size);
  const mult = { gib: 2 ** 30, mib: 2 ** 20, mb: 1e6, gb: 1e9 }[(bytes?.[2] ?? 'b').toLowerCase()] ?? 1;
  const meta = generate({ out: path.resolve(opt('out', 'bench/.data/sessions')), sessions: Number(opt('sessions', '2000')), size: Number(bytes?.[1] ?? 0) * mult, seed: Number(opt('seed', '7')), text: opt('text', 'bag') });
  process.stderr.write(`wrote ${meta.files} sessions, ${(meta.bytes / 2 ** 20).toFixed(0)} MiB\n`);
}
