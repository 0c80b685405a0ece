// `npm run test:fast`: the inner loop (see test/helpers/fast-run.ts). The settings of .mocharc.json,
// plus the flag that the helpers read, the guard against processes, and a file per core at a time
// (what remains is CPU-bound in this process).
process.env.TEST_FAST = '1';

module.exports = {
  'node-option': ['import=tsx'],
  extension: ['ts'],
  reporter: 'test/helpers/reporter.cjs',
  timeout: 20000,
  exit: true,
  parallel: true,
  jobs: 2,
  require: ['test/helpers/fast-run-guard.ts'],
};
