// `npm test`: the whole suite, both engines, in three workers (one file at a time each), the
// longest files first (test/helpers/file-order.cjs). Three on two cores: nearly half of a worker's
// time is spent waiting (processes starting, browsers, the database, real-time bounds), which a
// third worker fills (docs/performance.md has the figures). Otherwise the settings of
// .mocharc.json, which `npx mocha <file>` uses.
const { testFilesLongestFirst } = require('./test/helpers/file-order.cjs');
const base = require('./.mocharc.json');

module.exports = { ...base, parallel: true, jobs: 3, spec: testFilesLongestFirst() };
