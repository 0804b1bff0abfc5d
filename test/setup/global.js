// Jest globalSetup: build the tree (build.js), then a temporary XDG_CACHE_HOME for the run (cache-home.js).
const build = require('./build');
const cacheHome = require('./cache-home');

module.exports = async function setup() {
  build();
  await cacheHome();
};
