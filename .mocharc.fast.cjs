// `npm run test:fast`: the inner loop (see test/helpers/fast-run.ts). The settings of .mocharc.json,
// plus the flag that the helpers read, the guard against processes, and three files at a time on two
// cores: a fifth of the workers' time is spent waiting (real-time bounds, slow clients), which a
// third worker fills (84 s against 91 s with two, 2026-11-27).
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
  jobs: 3,
  require: ['test/helpers/file-timing.cjs', 'test/helpers/fast-run-guard.ts'],
};
