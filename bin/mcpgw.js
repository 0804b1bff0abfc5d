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
cli.main(process.argv).then(
  (code) => {
    if (code !== 0) process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`mcpgw: ${err && err.stack ? err.stack : err}\n`);
    process.exitCode = 1;
  },
);
