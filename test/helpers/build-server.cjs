// Builds the server's bundles (dist/, as `npm start` runs them: scripts/build.mjs) once before a
// run, in mocha's main process: the tests that start server and CLI processes run them
// (server-entry.ts), since starting through tsx costs each start about a second more CPU. The
// build only transpiles and bundles, in about a second. The fast run starts no servers and skips it.
const { execFileSync } = require('node:child_process');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '../..');

exports.mochaGlobalSetup = function buildServer() {
  if (process.env.TEST_FAST === '1') return;
  execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: ROOT, stdio: 'inherit' });
};
