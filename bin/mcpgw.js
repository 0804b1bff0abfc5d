#!/usr/bin/env node
'use strict';
// Checked before anything else loads: mcpgw relies on Node >= 22 (JSON.rawJSON, reviver source text).
const major = Number(process.versions.node.split('.')[0]);
if (major < 22) {
  process.stderr.write(
    `mcpgw needs Node.js 22 or newer; this is Node ${process.version}.\n` +
      'Inside the repository, run it through npm (npx mcpgw …, npm test), which uses the pinned Node 22.\n',
  );
  process.exit(1);
}
// `serve` on Linux restarts itself once (same process, same stdio: execve) with glibc's allocator told to give memory
// back: freeing a multi-megabyte buffer otherwise raises the threshold under which allocations come from the heap,
// where freed memory stays resident, and every thread gets an arena of its own. Values set by the user are kept.
// V8's young generation is capped at 4 MiB semi-spaces (V8's default grows them to 16 MiB): a scan that parses records
// otherwise left ~14 MiB more resident for good, and was no faster (docs/decisions.md "Memory is given back at close").
// They start at their cap (V8's default start is 1 MiB): loading the modules took 13 scavenges, and the start's CPU
// fell ~8% (starting at 2 MiB saved as much but moved scavenges into the first calls).
if (process.platform === 'linux' && process.argv[2] === 'serve' && !process.env.MCPGW_ALLOCATOR && typeof process.execve === 'function') {
  const env = { ...process.env, MCPGW_ALLOCATOR: 'tuned' };
  env.MALLOC_MMAP_THRESHOLD_ ??= '131072';
  env.MALLOC_TRIM_THRESHOLD_ ??= '1048576';
  env.MALLOC_ARENA_MAX ??= '2';
  const given = [...process.execArgv, ...String(process.env.NODE_OPTIONS ?? '').split(/\s+/)];
  const v8 = given.some((a) => /^--(max|min)[-_]semi[-_]space[-_]size/.test(a)) ? [] : ['--min-semi-space-size=4', '--max-semi-space-size=4'];
  try {
    process.execve(process.execPath, [process.execPath, ...v8, ...process.execArgv, ...process.argv.slice(1)], env);
  } catch {
    // not allowed here: serve as is
  }
}
// V8's compile cache (Node >= 22.1): the compiled code of mcpgw, its plugins and its dependencies is kept on disk
// (Node's default folder under the system temp folder, keyed by each file's content and the Node version), so a start
// after the first compiles nothing again. NODE_DISABLE_COMPILE_CACHE=1 turns it off.
try {
  require('node:module').enableCompileCache?.();
} catch {
  // no cache: compile as usual
}
let cli;
try {
  cli = require('../dist/cli/main.js');
} catch (err) {
  if (err && err.code === 'MODULE_NOT_FOUND' && String(err.message).includes('dist/cli/main.js')) {
    process.stderr.write('mcpgw is not built yet: run `npm run build` (npm ci builds it too).\n');
    process.exit(1);
  }
  throw err;
}
// A reader that stops early (`mcpgw plugins | head -1`) closes the pipe: the output it did not want is not an error.
// `serve` keeps its own handling (its stdout is the protocol channel).
if (process.argv[2] !== 'serve') {
  process.stdout.on('error', (err) => {
    if (err && err.code === 'EPIPE') process.exit(0);
    throw err;
  });
}
cli.main(process.argv).then(
  (code) => {
    if (code !== 0) process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`mcpgw: ${err && err.stack ? err.stack : err}\n`);
    process.exitCode = 1;
  },
);
