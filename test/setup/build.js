// Builds the tree before the tests (`tsc -b`, incremental: cheap when nothing changed). Worker threads, the spawned CLI
// and the query plugins' entries run dist/, so without it a test file run alone after an edit would test old code.
// MCPGW_TEST_NO_BUILD=1 skips it (the npm scripts have just built).
const { spawnSync } = require('node:child_process');
const path = require('node:path');

module.exports = function build() {
  if (process.env.MCPGW_TEST_NO_BUILD === '1') return;
  const root = path.resolve(__dirname, '..', '..');
  const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const r = spawnSync(process.execPath, [tsc, '-b'], { cwd: root, encoding: 'utf8' });
  if (r.error) throw r.error;
  if (r.status !== 0) throw new Error(`tsc -b failed (exit ${r.status}); the tests would run a stale dist/:\n${r.stdout}${r.stderr}`);
  // the allocator trim (native/malloc-trim.c): built when a C compiler is present, a no-op when up to date
  const n = spawnSync(process.execPath, [path.join(root, 'scripts', 'build-native.mjs')], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'inherit', 'inherit'] });
  if (n.error) throw n.error;
};
