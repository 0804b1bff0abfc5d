#!/usr/bin/env node
// Builds native/malloc-trim.c into dist/native/malloc-trim.node (Linux with glibc and a C compiler: `cc`, or $CC),
// against the Node-API headers of the Node that runs this script (the pinned Node 22 ships them in include/node).
// Optional: without a compiler or headers it says so on stderr and exits 0; the server then keeps glibc's free
// pages after a load (docs/decisions.md "Memory is given back at close"). npm runs it after `tsc -b` (build, prepare).
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const out = path.join(root, 'dist', 'native', 'malloc-trim.node');
const src = path.join(root, 'native', 'malloc-trim.c');
const skip = (why) => {
  process.stderr.write(`mcpgw: the allocator trim (dist/native/malloc-trim.node) is not built: ${why}. Everything works without it; a server keeps more memory after a load.\n`);
  process.exit(0);
};

if (process.platform !== 'linux') process.exit(0); // malloc_trim is glibc's
if (fs.existsSync(out) && fs.statSync(out).mtimeMs >= fs.statSync(src).mtimeMs) process.exit(0); // up to date
// Node's own distribution has them beside bin/; the `node` package copies the binary out, so its platform package too.
const pinned = path.join(root, 'node_modules', 'node', 'node_modules');
const candidates = [
  path.join(path.dirname(fs.realpathSync(process.execPath)), '..', 'include', 'node'),
  ...(fs.existsSync(pinned) ? fs.readdirSync(pinned).map((d) => path.join(pinned, d, 'include', 'node')) : []),
];
const include = candidates.find((d) => fs.existsSync(path.join(d, 'node_api.h')));
if (!include) skip(`no Node-API headers (looked in ${candidates.join(', ')})`);
fs.mkdirSync(path.dirname(out), { recursive: true });
const cc = process.env.CC || 'cc';
const tmp = `${out}.${process.pid}.tmp`;
const r = spawnSync(cc, ['-O2', '-shared', '-fPIC', '-fvisibility=hidden', '-I', include, '-o', tmp, src], { encoding: 'utf8' });
if (r.error || r.status !== 0) {
  fs.rmSync(tmp, { force: true });
  skip(r.error ? `no C compiler (${cc}: ${r.error.code})` : `${cc} failed: ${r.stderr.trim().split('\n')[0]}`);
}
fs.renameSync(tmp, out);
