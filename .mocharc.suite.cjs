// `npm test`: the whole suite, both engines, in two workers (one file at a time each), the longest
// files first (test/helpers/file-order.cjs). Otherwise the settings of .mocharc.json, which
// `npx mocha <file>` uses.
const { testFilesLongestFirst } = require('./test/helpers/file-order.cjs');
const base = require('./.mocharc.json');

module.exports = { ...base, parallel: true, jobs: 2, spec: testFilesLongestFirst() };
