// `npm run test:fast`: the inner loop (see test/helpers/fast-run.ts). The settings of .mocharc.json,
// plus the flag that the helpers read and the guard against processes.
process.env.TEST_FAST = '1';

module.exports = {
  'node-option': ['import=tsx'],
  extension: ['ts'],
  reporter: 'test/helpers/reporter.cjs',
  timeout: 20000,
  exit: true,
  require: ['test/helpers/fast-run-guard.ts'],
};
