#!/usr/bin/env node
// bench/profile-top.mjs — where the time goes in a V8 .cpuprofile (from `npm run bench -- --cpu-prof`):
// self time and total time per function, biggest first.
//   node bench/profile-top.mjs bench/results/profiles/<date>/CPU.*.cpuprofile [--top 25]
import fs from 'node:fs';
import path from 'node:path';

const args = process.argv.slice(2);
const ti = args.indexOf('--top');
const top = ti >= 0 ? Number(args.splice(ti, 2)[1]) : 25;
if (!args.length) { console.error('usage: node bench/profile-top.mjs FILE.cpuprofile… [--top N]'); process.exit(2); }

for (const file of args) {
  const prof = JSON.parse(fs.readFileSync(file, 'utf8'));
  const byId = new Map(prof.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const self = new Map();
  const dts = prof.timeDeltas ?? [];
  for (let i = 0; i < prof.samples.length; i++) self.set(prof.samples[i], (self.get(prof.samples[i]) ?? 0) + (dts[i] ?? 0));
  const key = (n) => {
    const f = n.callFrame;
    const where = f.url ? `${path.basename(f.url)}:${f.lineNumber + 1}` : '';
    return `${f.functionName || '(anonymous)'} ${where}`.trim();
  };
  const selfBy = new Map(), totalBy = new Map();
  let all = 0;
  for (const [id, us] of self) {
    all += us;
    const k = key(byId.get(id));
    selfBy.set(k, (selfBy.get(k) ?? 0) + us);
    const seen = new Set();
    for (let p = id; p != null; p = parent.get(p)) { // each function once per stack
      const pk = key(byId.get(p));
      if (!seen.has(pk)) { seen.add(pk); totalBy.set(pk, (totalBy.get(pk) ?? 0) + us); }
    }
  }
  const ms = (us) => (us / 1000).toFixed(1).padStart(9);
  const pc = (us) => `${((100 * us) / all).toFixed(1)}%`.padStart(6);
  console.log(`\n${file}: ${(all / 1000).toFixed(0)} ms sampled`);
  console.log('  self ms   self%  function');
  for (const [k, us] of [...selfBy].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${ms(us)} ${pc(us)}  ${k}`);
  console.log(' total ms  total%  function');
  for (const [k, us] of [...totalBy].sort((a, b) => b[1] - a[1]).filter(([k]) => !/^\((root|program|idle)\)/.test(k)).slice(0, top)) console.log(`${ms(us)} ${pc(us)}  ${k}`);
}
