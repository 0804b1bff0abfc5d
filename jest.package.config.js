/**
 * The package tests, `npm run test:package` (CI runs it after `npm test`): `npm pack` this repository and the fixture
 * plugins, `npm install` the tarballs into a scratch project, run the installed CLI. They need the npm registry or a
 * warm npm cache for the packages' registry dependencies, so `npm test` leaves them out (test/setup/jest-project.js).
 */
const { project, run, PACKAGE_TESTS } = require('./test/setup/jest-project');

module.exports = {
  ...run,
  ...project('package', ['<rootDir>/test'], { testMatch: PACKAGE_TESTS, testPathIgnorePatterns: ['/node_modules/'] }),
  maxWorkers: 1,
};
