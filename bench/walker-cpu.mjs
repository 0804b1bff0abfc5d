#!/usr/bin/env node
// The JSON walker's readers, in process, as CPU time: this checkout's build against another's (--base), alternated run
// by run in one process, so that the ratio of each run compares the two builds on the same machine state.
//
//   node bench/gen.mjs --format jsonl --size 100MB --out /tmp/ev.jsonl
//   node bench/gen.mjs --format geojson --size 100MB --out /tmp/geo.json
//   node bench/gen.mjs --format json --size 100MB --out /tmp/arr.json
//   node bench/walker-cpu.mjs --base ../other-checkout --jsonl /tmp/ev.jsonl --geojson /tmp/geo.json --array /tmp/arr.json [--runs 7] [--only tokens,span]
//
// Both checkouts must be built (npx tsc -b). Readers timed: the structural scanner (the JSON format's index pass and
// lazy nodes) over the GeoJSON document and the pretty array; on-demand member reads (`status`, `latency_ms`) and the
// aggregate's record check with its member walk (`status`, `user.address.city`) over each JSON Lines record; on each
// record's text, the explorer's token walk and path span, the parse checks (member names, nesting depth) and the
// layout of the record re-indented. Prints medians of CPU ms per build and the median of the per-run ratios.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createRequire } from 'node:module';

const args = process.argv.slice(2);
const opt = (name, dflt) => { const i = args.indexOf(name); return i === -1 ? dflt : args[i + 1]; };
const HERE = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const roots = { base: path.resolve(opt('--base', '')), head: HERE };
const runs = Number(opt('--runs', '5'));
const jsonl = fs.readFileSync(opt('--jsonl'));
const geo = fs.readFileSync(opt('--geojson'));
const arr = fs.readFileSync(opt('--array'));

// record extents and texts of the JSON Lines file (the same for both builds)
const starts = [], ends = [];
for (let s = 0; s < jsonl.length;) {
  let e = jsonl.indexOf(0x0a, s);
  if (e === -1) e = jsonl.length;
  if (e > s) { starts.push(s); ends.push(e); }
  s = e + 1;
}
const texts = starts.slice(0, 60000).map((s, k) => jsonl.toString('utf8', s, ends[k]));

// A plugin's `mcpgw/plugin-api` and `mcpgw/plugin-kit` are its own build's (as the kernel's loader resolves them).
const Module = createRequire(import.meta.url)('node:module');
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, parent, ...rest) {
  if ((request === 'mcpgw/plugin-api' || request === 'mcpgw/plugin-kit') && parent?.filename) {
    const root = Object.values(roots).find((r) => parent.filename.startsWith(r + path.sep));
    if (root) return path.join(root, 'dist', request.slice('mcpgw/'.length), 'index.js');
  }
  return resolve.call(this, request, parent, ...rest);
};

function load(root) {
  const req = createRequire(path.join(root, 'package.json'));
  const d = (p) => req(path.join(root, 'dist', p));
  return {
    scan: d('engine/records/json-scan.js'),
    members: d('engine/scan/members.js'),
    extract: d('engine/aggregate/extract.js'),
    parse: d('engine/records/parse.js'),
    layout: d('engine/records/json-layout.js'),
    explore: explore(root, req),
  };
}

/** The explorer's scan module of `root`'s build; from plugin API 3 on, its toolkit bound to the engine's as register() binds it. */
function explore(root, req) {
  const dist = path.join(root, 'plugins', 'tools-explore', 'dist');
  if (fs.existsSync(path.join(dist, 'toolkit.js'))) req(path.join(dist, 'toolkit.js')).bindToolkit(req(path.join(root, 'dist', 'engine', 'toolkit.js')).engineToolkit);
  return req(path.join(dist, 'json', 'scan.js'));
}

const CHUNK = 4 << 20;
const work = {
  scanner(m) {
    let n = 0;
    for (const doc of [geo, arr]) {
      const sc = new m.scan.JsonStructureScanner({ captureDepth: 2, onChild: () => { n++; } });
      for (let off = 0; off < doc.length; off += CHUNK) {
        const part = doc.subarray(off, Math.min(doc.length, off + CHUNK));
        sc.feed(part, part.length, off);
      }
      sc.finish(doc.length);
    }
    return n;
  },
  members(m) {
    const names = ['status', 'latency_ms'];
    const occ = new m.members.Occurrences();
    let n = 0;
    for (let k = 0; k < starts.length; k++) if (m.members.readMembers(jsonl, starts[k], ends[k], names, 64, occ)?.status === 'failed') n++;
    return n;
  },
  aggregate(m) {
    const plan = m.extract.slotPlan([['status'], ['user', 'address', 'city']], 64);
    const atoms = m.extract.newAtoms(2);
    let n = 0;
    for (let k = 0; k < starts.length; k++) {
      if (m.extract.readRecord(jsonl, starts[k], ends[k], plan) !== m.extract.OK) continue;
      m.extract.atomsOfRecord(jsonl, starts[k], ends[k], plan, atoms, JSON.parse);
      if (atoms.texts[0] === '"failed"') n++;
    }
    return n;
  },
  tokens(m) {
    let n = 0;
    for (const t of texts) m.explore.forEachToken(t, () => { n++; });
    return n;
  },
  span(m) {
    let n = 0;
    const city = ['user', 'address', 'city'];
    for (const t of texts) { const sp = m.explore.spanAt(t, city); if ('end' in sp) n += sp.end - sp.start; }
    return n;
  },
  checks(m) {
    let n = 0;
    for (const t of texts) n += m.parse.countMemberNames(t) + m.parse.nestingDepth(t, 64);
    return n;
  },
  layout(m) {
    let n = 0;
    for (const t of texts) n += m.layout.layoutJsonPage(t, { indent: '  ', maxBytes: 1 << 20 }).text.length;
    return n;
  },
};

const only = opt('--only', '');
if (only) for (const w of Object.keys(work)) if (!only.split(',').includes(w)) delete work[w];
const builds = { base: load(roots.base), head: load(roots.head) };
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
const times = {};
for (const w of Object.keys(work)) times[w] = { base: [], head: [] };
for (let r = -1; r < runs; r++) {
  const order = r % 2 === 0 ? ['base', 'head'] : ['head', 'base'];
  for (const w of Object.keys(work)) {
    const answers = {};
    for (const b of order) {
      const t0 = cpu();
      answers[b] = work[w](builds[b]);
      const ms = cpu() - t0;
      if (r >= 0) times[w][b].push(ms); // run -1 warms up
    }
    if (answers.base !== answers.head) throw new Error(`${w}: the builds disagree (${answers.base} against ${answers.head})`);
  }
}
const median = (a) => { const s = [...a].sort((x, y) => x - y); return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2; };
console.log(`| reader | base ms (median) | head ms (median) | head ÷ base, median of runs [min–max] |`);
console.log(`|---|---:|---:|---:|`);
for (const w of Object.keys(work)) {
  const ratios = times[w].head.map((h, k) => h / times[w].base[k]);
  console.log(`| ${w} | ${median(times[w].base).toFixed(0)} | ${median(times[w].head).toFixed(0)} | ${median(ratios).toFixed(3)} [${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}] |`);
}
