// Jest globalSetup: every test run gets a temporary XDG_CACHE_HOME, so no test, in-process or in a spawned server
// (the helpers pass it on), ever writes into the user's real cache folder (the persistent index cache, the sessions
// bundle's indexes). Workers start after this and inherit it; globalTeardown removes it.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

module.exports = async function setup() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-test-cache-'));
  process.env.XDG_CACHE_HOME = dir;
  process.env.MCPGW_TEST_CACHE_HOME = dir;
};
