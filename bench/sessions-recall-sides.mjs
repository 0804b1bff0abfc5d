#!/usr/bin/env node
/**
 * Where each recall target ranks on each side of semantic_search separately, read straight from an index that
 * `node bench/sessions-recall.mjs --keep DIR` built: the target's best entry among all entries by vector (best-paragraph
 * cosine, common component removed) and by BM25, and how many entries and vectors the target has in the index. Tells a
 * ranking fault (both sides rank a target high, the answer does not) from a side's weakness.
 *
 *   node bench/sessions-recall-sides.mjs DIR [--tuning 1|2|3]
 *
 * One JSON line per query on stdout (rank 0: not matched by that side).
 */
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
// The plugin's `mcpgw/plugin-api` and `mcpgw/plugin-kit` are this build's (as the kernel's loader resolves them).
const Module = require('node:module');
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  if (request === 'mcpgw/plugin-api' || request === 'mcpgw/plugin-kit') return path.join(REPO, 'dist', request.slice('mcpgw/'.length), 'index.js');
  return resolve.call(this, request, ...rest);
};
const D = path.join(REPO, 'plugins', 'tools-sessions', 'dist', 'semantic');
// the engine toolkit the plugin's register() would bind (context.toolkit)
require(path.join(REPO, 'plugins', 'tools-sessions', 'dist', 'toolkit.js')).bindToolkit(require(path.join(REPO, 'dist', 'engine', 'toolkit.js')).engineToolkit);
const { IndexStore } = require(path.join(D, 'store.js'));
const { SemanticEngine } = require(path.join(D, 'engine.js'));
const { gloveSifEmbedder } = require(path.join(D, 'glove.js'));
const { contentWords } = require(path.join(D, 'tokens.js'));
const { removeComponent, normalize, bestCosines } = require(path.join(D, 'rank.js'));

const args = process.argv.slice(2);
const dir = path.resolve(args[0] ?? '');
let { queries } = JSON.parse(fs.readFileSync(path.join(dir, 'recall.json'), 'utf8'));
const ti = args.indexOf('--tuning');
if (ti !== -1) {
  const set = JSON.parse(fs.readFileSync(path.join(REPO, 'bench', 'sessions-recall-tuning.json'), 'utf8'))[args[ti + 1]];
  queries = queries.map((q) => ({ ...q, query: set[q.project] })).filter((q) => q.query);
}
const store = new IndexStore(path.join(dir, 'cache', 'mcpgw'), gloveSifEmbedder.name, gloveSifEmbedder.dimensions);
const engine = new SemanticEngine(store, gloveSifEmbedder);
const L = engine.load();
const bySessionId = new Map(store.sessions().map((s) => [s.sessionId, s]));
const E = L.entryId.length;
process.stderr.write(`${bySessionId.size} sessions, ${E} entries with vectors, ${L.packed.count} paragraph vectors\n`);
for (const q of queries) {
  const s = bySessionId.get(q.sessionId);
  if (!s) { process.stdout.write(JSON.stringify({ project: q.project, indexed: false }) + '\n'); continue; }
  const mine = [];
  for (let k = 0; k < E; k++) if (L.entrySession[k] === s.id) mine.push(k);
  const [raw] = await gloveSifEmbedder.embed([q.query]);
  const qv = removeComponent(raw, L.u);
  normalize(qv);
  const best = new Float32Array(E).fill(-Infinity);
  bestCosines(L.packed, L.factors, qv, L.rowEntry, best, new Int32Array(E).fill(-1));
  const top = Math.max(...mine.map((k) => best[k]));
  let vectorRank = 1;
  for (let k = 0; k < E; k++) if (best[k] > top) vectorRank++;
  const ids = new Set(mine.map((k) => L.entryId[k]));
  const lexical = store.lexical([...new Set(contentWords(q.query))], 1e6);
  process.stdout.write(JSON.stringify({ project: q.project, entries: s.entries, withVectors: mine.length, vectorRank, cosine: +top.toFixed(3), lexicalRank: lexical.findIndex((id) => ids.has(id)) + 1, lexicalMatches: lexical.length }) + '\n');
}
store.close();
