// The package tests: they `npm pack` this repository and `npm install` the tarballs into a scratch project, so they
// need the npm registry (or a warm npm cache). `npm run test:package` runs them (jest.package.config.js); `npm test`
// leaves them out (jest.config.js) and needs no network.
module.exports = [
  '<rootDir>/test/e2e/third-party.test.ts',
  '<rootDir>/test/e2e/third-party-walkthrough.test.ts',
  '<rootDir>/test/e2e/jmespath-package.test.ts',
  '<rootDir>/test/e2e/example-csv.test.ts',
  '<rootDir>/test/e2e/plugin-new-package.test.ts',
];
