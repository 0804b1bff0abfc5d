/** Jest 30 with @swc/jest: TypeScript with decorator metadata (tsyringe), compiled to CommonJS. */
const swc = {
  jsc: {
    parser: { syntax: 'typescript', decorators: true },
    transform: { legacyDecorator: true, decoratorMetadata: true },
    target: 'es2022',
  },
  module: { type: 'commonjs' },
  sourceMaps: 'inline',
};

/** The package tests (`npm run test:package`, jest.package.config.js): `npm test` leaves them out and needs no network. */
const PACKAGE_TESTS = require('./test/setup/package-tests');

module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/', ...PACKAGE_TESTS.map((p) => p.replace(/\./g, '\\.') + '$')],
  transform: { '^.+\\.ts$': ['@swc/jest', swc] },
  moduleNameMapper: { '^mcpgw/plugin-api$': '<rootDir>/src/plugin-api/index.ts', '^mcpgw/plugin-kit$': '<rootDir>/src/plugin-kit/index.ts' },
  testTimeout: 60000,
  // Tests that import a built-in plugin's modules directly bind its toolkit as its register() would.
  setupFiles: ['<rootDir>/test/setup/bind-toolkits.ts'],
  // test/setup/global.js: builds the tree (`tsc -b`, incremental: about a second when nothing changed), so the worker
  // threads and the spawned CLI, which run dist/, run the code in the tree even when one test file is run alone; then a
  // temporary XDG_CACHE_HOME for the whole run (test/setup/cache-home.js): tests never write the user's cache.
  globalSetup: '<rootDir>/test/setup/global.js',
  globalTeardown: '<rootDir>/test/setup/cache-home-teardown.js',
  // End-to-end tests spawn servers; two workers suit this 2-core machine.
  maxWorkers: 2,
};
