// `npm run test:fast`: the inner loop (see test/helpers/fast-run.ts). The settings of .mocharc.json,
// plus the flag that the helpers read, the guard against processes, and a file per core at a time
// (what remains is CPU-bound in this process).
process.env.TEST_FAST = '1';
// A closed port: a test that reaches for Postgres or Redis outside the helpers that skip fails at once.
process.env.TEST_POSTGRES_URL = 'postgres://postgres@127.0.0.1:1/test';
process.env.TEST_REDIS_URL = 'redis://127.0.0.1:1';

module.exports = {
  'node-option': ['import=tsx'],
  extension: ['ts'],
  reporter: 'test/helpers/reporter.cjs',
  timeout: 20000,
  exit: true,
  parallel: true,
  jobs: 2,
  require: ['test/helpers/file-timing.cjs', 'test/helpers/fast-run-guard.ts'],
};
