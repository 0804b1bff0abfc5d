/**
 * `npm test`: one jest project per area, so one area runs alone (`npx jest --selectProjects tools-sessions`):
 * the kernel, the engine, the plugin API and kit (test/kernel, test/engine, test/plugin-kit), each built-in plugin
 * (plugins/NAME/test, the project named after the folder), the end-to-end tests across plugins through the real
 * server and CLI (test/e2e), the conformance suites (test/conformance) and the repository's own checks (test/*.test.ts:
 * the architecture rules, the shared data). The shared settings are in test/setup/jest-project.js.
 */
const fs = require('node:fs');
const path = require('node:path');
const { project, run } = require('./test/setup/jest-project');

const PLUGINS = fs.readdirSync(path.join(__dirname, 'plugins')).filter((p) => fs.existsSync(path.join(__dirname, 'plugins', p, 'test')));

module.exports = {
  ...run,
  projects: [
    project('kernel', ['<rootDir>/test/kernel']),
    project('engine', ['<rootDir>/test/engine']),
    project('plugin-kit', ['<rootDir>/test/plugin-kit']),
    ...PLUGINS.map((p) => project(p, [`<rootDir>/plugins/${p}/test`])),
    project('e2e', ['<rootDir>/test/e2e']),
    project('conformance', ['<rootDir>/test/conformance']),
    project('repo', ['<rootDir>/test'], { testMatch: ['<rootDir>/test/*.test.ts'] }),
  ],
};
