/** The slow cases (attack files of tens to hundreds of MB built in the test; the HTTP load test), one at a time: `npm run test:stress`, also run by CI. */
const { project, run } = require('./test/setup/jest-project');

module.exports = {
  ...run,
  ...project('stress', ['<rootDir>/test/stress'], { testMatch: ['**/*.stress.ts'], testTimeout: 600000 }),
  testTimeout: 600000,
  maxWorkers: 1,
};
