#!/usr/bin/env node
// bench/regex-engines.mjs — the RE2 engines that install from npm, timed on our data.
//
//   node bench/regex-engines.mjs FILE.jsonl [FILE.jsonl …] [--runs 3]
//   node bench/regex-engines.mjs --emoji OUT.jsonl [--records 120000]    write the emoji-annotation data set
//
// Every member name and string value of every record (decoded, as the explorer's regex search sees them) is tested
// with each engine's unanchored test(); the figure is the median of --runs passes, with matches counted so that the
// engines can be seen to agree. Candidates are looked up in the project (re2js, a dependency) and in bench/.peers
// (MCPGW_BENCH_PEERS), where the others go:
//   npm install --prefix bench/.peers --no-save re2-wasm@1.0.2       # the WebAssembly build of RE2
//   npm install --prefix bench/.peers --no-save re2@1.27.1           # the native addon (compiles RE2 and Abseil)
// A missing candidate is reported and skipped. JavaScript's own RegExp is shown for reference only: it backtracks.

import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const PEERS = process.env.MCPGW_BENCH_PEERS || path.join(HERE, '.peers');
const projectRequire = createRequire(path.join(HERE, '..', 'package.json'));
const peerRequire = createRequire(path.join(PEERS, 'package.json'));

/** Emoji annotations in the style of Unicode CLDR, plus words in other scripts: `\bcat\b` must not hit catalog. */
function writeEmoji(out, records) {
  const base = [
    ['🐱', 'cat face', ['cat', 'face', 'pet']], ['🐈', 'cat', ['cat', 'pet']], ['🐈‍⬛', 'black cat', ['black', 'cat', 'unlucky']],
    ['😺', 'grinning cat', ['cat', 'face', 'grinning', 'mouth', 'open', 'smile']], ['🦁', 'lion', ['face', 'Leo', 'lion', 'zodiac']],
    ['📚', 'books', ['book', 'books', 'catalog', 'library']], ['🔗', 'link', ['concatenate', 'link', 'chain']],
    ['🐆', 'leopard', ['leopard', 'bobcat?', 'wildcat']], ['🧶', 'yarn', ['ball', 'crochet', 'knit', 'yarn']],
    ['🇫🇷', 'flag: France', ['flag', 'France']], ['👩🏽‍💻', 'woman technologist: medium skin tone', ['coder', 'developer', 'technologist', 'woman']],
    ['🤷', 'person shrugging', ['doubt', 'ignorance', 'indifference', 'shrug']], ['🎉', 'party popper', ['celebration', 'party', 'popper', 'tada']],
    ['✉️', 'envelope', ['e-mail', 'email', 'envelope', 'letter']], ['🆘', 'SOS button', ['help', 'SOS']], ['⚠️', 'warning', ['caution', 'warning', 'WARN']],
    ['❌', 'cross mark', ['error', 'cancel', 'mark', '×']], ['Σ', 'Greek capital sigma', ['ΣΊΣΥΦΟΣ', 'σίσυφος', 'ς']], ['K', 'Kelvin sign', ['kelvin', 'K']],
  ];
  const langs = ['chat', 'Katze', '猫', 'gato', 'кошка', 'γάτα', '고양이', 'ネコ', 'Straße', 'naïve café'];
  let x = 12345;
  const rnd = () => (x = (Math.imul(x, 1103515245) + 12345) >>> 0) / 4294967296;
  const fd = fs.openSync(out, 'w');
  let s = '';
  for (let i = 0; i < records; i++) {
    const [emoji, name, annotations] = base[i % base.length];
    const rec = {
      id: i, emoji, name, annotations, tts: `${name} ${langs[Math.floor(rnd() * langs.length)]}`,
      codepoints: [...emoji].map((c) => 'U+' + c.codePointAt(0).toString(16).toUpperCase()),
      note: `seen ${Math.floor(rnd() * 1000)} times by user${Math.floor(rnd() * 100)}@example${Math.floor(rnd() * 9)}`,
    };
    s += JSON.stringify(rec) + '\n';
    if (s.length > 1 << 20) { fs.writeSync(fd, s); s = ''; }
  }
  fs.writeSync(fd, s);
  fs.closeSync(fd);
}

function load(req, name) {
  try { return req(name); } catch { return null; }
}

function engines() {
  const out = {};
  const re2js = load(projectRequire, 're2js');
  if (re2js) {
    const { RE2JS } = re2js;
    out[`re2js ${projectRequire('./package.json').dependencies.re2js}`] = (p, ci) => { const r = RE2JS.compile(p, ci ? RE2JS.CASE_INSENSITIVE : 0); return (s) => r.test(s); };
  }
  const wasm = load(peerRequire, 're2-wasm');
  if (wasm) out['re2-wasm'] = (p, ci) => { const r = new wasm.RE2(p, ci ? 'iu' : 'u'); return (s) => r.test(s); };
  else console.error('re2-wasm: not installed (npm install --prefix bench/.peers --no-save re2-wasm@1.0.2)');
  const native = load(peerRequire, 're2');
  if (native) out['re2 (native)'] = (p, ci) => { const r = new native(p, ci ? 'iu' : 'u'); return (s) => r.test(s); };
  else console.error('re2 (native): not installed or not built for this Node (npm install --prefix bench/.peers --no-save re2@1.27.1)');
  out['RegExp (reference)'] = (p, ci) => { const r = new RegExp(p.replace('\\p{Greek}', '\\p{Script=Greek}'), ci ? 'iu' : 'u'); return (s) => r.test(s); };
  return out;
}

const PATTERNS = [['\\bcat\\b', false], ['\\d{3}', false], ['\\w+@\\w+', false], ['error|warn', true], ['NEEDLE-7f3a', false], ['[a-z]+ing\\b', false], ['\\p{Greek}+', false]];

function measure(file, runs) {
  const strings = [];
  const walk = (v) => {
    if (typeof v === 'string') strings.push(v);
    else if (v && typeof v === 'object') for (const k of Object.keys(v)) { if (!Array.isArray(v)) strings.push(k); walk(v[k]); }
  };
  let records = 0;
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) if (line) { walk(JSON.parse(line)); records++; }
  const chars = strings.reduce((a, s) => a + s.length, 0);
  console.log(`\n${path.basename(file)}: ${records} records, ${strings.length} strings, ${(chars / 1e6).toFixed(1)} M UTF-16 units; load ${fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}\n`);
  const all = engines();
  const names = Object.keys(all);
  console.log(`| pattern | ${names.join(' | ')} |`);
  console.log(`|---|${names.map(() => '---').join('|')}|`);
  for (const [p, ci] of PATTERNS) {
    const cells = [];
    for (const name of names) {
      const test = all[name](p, ci);
      const times = [];
      let hits = 0;
      for (let r = 0; r < runs; r++) {
        hits = 0;
        const t0 = performance.now();
        for (let i = 0; i < strings.length; i++) if (test(strings[i])) hits++;
        times.push(performance.now() - t0);
      }
      const ms = times.sort((a, b) => a - b)[times.length >> 1];
      cells.push(`${ms.toFixed(0)} ms (${hits})`);
    }
    console.log(`| \`${ci ? '(?i)' : ''}${p}\` | ${cells.join(' | ')} |`);
  }
  const cells = [];
  for (const name of names) {
    if (name.startsWith('RegExp')) { cells.push('exponential (not run)'); continue; }
    const test = all[name]('(a+)+$', false);
    const t0 = performance.now();
    const hit = test('a'.repeat(100_000) + '!');
    cells.push(`${(performance.now() - t0).toFixed(1)} ms (${hit})`);
  }
  console.log(`| \`(a+)+$\` on 100,000 a + ! | ${cells.join(' | ')} |`);
}

const argv = process.argv.slice(2);
const opt = (name, dflt) => { const i = argv.indexOf(name); return i === -1 ? dflt : argv.splice(i, 2)[1]; };
const runs = Number(opt('--runs', 3));
const emoji = opt('--emoji', null);
const n = Number(opt('--records', 120000));
if (emoji) writeEmoji(emoji, n);
else if (argv.length === 0) { console.error('usage: node bench/regex-engines.mjs FILE.jsonl … [--runs 3] | --emoji OUT.jsonl [--records N]'); process.exit(2); }
else for (const f of argv) measure(f, runs);
