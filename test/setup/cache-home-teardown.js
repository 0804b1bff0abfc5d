// Jest globalTeardown: removes the run's temporary XDG_CACHE_HOME (see cache-home.js).
const fs = require('node:fs');

module.exports = async function teardown() {
  const dir = process.env.MCPGW_TEST_CACHE_HOME;
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
};
