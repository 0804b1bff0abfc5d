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

module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': ['@swc/jest', swc] },
  moduleNameMapper: { '^mcpgw/plugin-api$': '<rootDir>/src/plugin-api/index.ts' },
  testTimeout: 60000,
  // A temporary XDG_CACHE_HOME for the whole run (test/setup/cache-home.js): tests never write the user's cache.
  globalSetup: '<rootDir>/test/setup/cache-home.js',
  globalTeardown: '<rootDir>/test/setup/cache-home-teardown.js',
  // End-to-end tests spawn servers; two workers suit this 2-core machine.
  maxWorkers: 2,
};
