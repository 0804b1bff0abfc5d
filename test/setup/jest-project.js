// The settings every jest project shares (jest.config.js, jest.package.config.js, jest.stress.config.js): one place for
// the transform, the module names, the per-file setup and the timeout. Jest 30 with @swc/jest: TypeScript with
// decorator metadata (tsyringe), compiled to CommonJS.
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..', '..');

const swc = {
  jsc: {
    parser: { syntax: 'typescript', decorators: true },
    transform: { legacyDecorator: true, decoratorMetadata: true },
    target: 'es2022',
  },
  module: { type: 'commonjs' },
  sourceMaps: 'inline',
};

/** The package tests (`npm run test:package`): every other configuration leaves them out, so `npm test` needs no network. */
const PACKAGE_TESTS = require('./package-tests');

const TEST_TIMEOUT = 60000;

/** One project: `roots` and `testMatch` say which tests are its; `more` overrides the shared settings. */
function project(displayName, roots, more = {}) {
  return {
    displayName,
    rootDir: ROOT,
    roots,
    testEnvironment: 'node',
    testMatch: ['**/*.test.ts'],
    testPathIgnorePatterns: ['/node_modules/', '/dist/', ...PACKAGE_TESTS.map((p) => p.replace(/\./g, '\\.') + '$')],
    transform: { '^.+\\.ts$': ['@swc/jest', swc] },
    moduleNameMapper: { '^mcpgw/plugin-api$': '<rootDir>/src/plugin-api/index.ts', '^mcpgw/plugin-kit$': '<rootDir>/src/plugin-kit/index.ts' },
    testTimeout: TEST_TIMEOUT,
    // Tests that import a built-in plugin's modules directly bind its toolkit as its register() would.
    setupFiles: ['<rootDir>/test/setup/bind-toolkits.ts'],
    ...more,
  };
}

/**
 * The options of a run (jest reads them from the top level only, never from a project): test/setup/global.js builds
 * the tree (`tsc -b`, incremental: about a second when nothing changed), so the worker threads and the spawned CLI,
 * which run dist/, run the code in the tree even when one test file is run alone; then a temporary XDG_CACHE_HOME for
 * the whole run (test/setup/cache-home.js): tests never write the user's cache. Jest runs each global setup module
 * once per run, however many projects run.
 */
const run = {
  rootDir: ROOT,
  globalSetup: '<rootDir>/test/setup/global.js',
  globalTeardown: '<rootDir>/test/setup/cache-home-teardown.js',
  testTimeout: TEST_TIMEOUT,
  // End-to-end tests spawn servers; two workers suit this 2-core machine.
  maxWorkers: 2,
};

module.exports = { project, run, PACKAGE_TESTS };
