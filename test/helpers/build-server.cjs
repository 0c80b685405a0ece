// Builds the compiled server (dist/, as `npm start` runs it) once before a run, in mocha's main
// process: the tests that start server processes run it (server-entry.ts), since starting it
// through tsx costs each start about a second more CPU. The build only transpiles and is
// incremental: unchanged sources cost about a second. The fast run starts no servers and skips it.
const { execFileSync } = require('node:child_process');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '../..');

exports.mochaGlobalSetup = function buildServer() {
  if (process.env.TEST_FAST === '1') return;
  execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-b', 'tsconfig.build.json'], { cwd: ROOT, stdio: 'inherit' });
};
