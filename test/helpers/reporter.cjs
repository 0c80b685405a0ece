// Mocha's spec reporter, closing with the slowest test files (where the suite's time goes) and the
// plain line CI reads: "N passed, N failed[, N skipped]".
const path = require('node:path');
const Mocha = require('mocha');

const SLOWEST_FILES_SHOWN = 8;

class ClosingLineReporter extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    /** Wall time per test file, summed over its top-level suites (one per engine). */
    const fileMs = new Map();
    const started = new Map();
    runner.on('suite', (suite) => {
      if (suite.file && suite.parent?.root) started.set(suite, Date.now());
    });
    runner.on('suite end', (suite) => {
      const start = started.get(suite);
      if (start === undefined) return;
      const file = path.relative(process.cwd(), suite.file);
      fileMs.set(file, (fileMs.get(file) ?? 0) + Date.now() - start);
    });
    runner.once('end', () => {
      const slowest = [...fileMs].sort((a, b) => b[1] - a[1]).slice(0, SLOWEST_FILES_SHOWN);
      if (slowest.length > 1) {
        process.stdout.write('\nSlowest files:\n');
        for (const [file, ms] of slowest) process.stdout.write(`  ${(ms / 1000).toFixed(1).padStart(6)} s  ${file}\n`);
      }
      const { passes, failures, pending } = this.stats;
      process.stdout.write(`\n${passes} passed, ${failures} failed${pending ? `, ${pending} skipped` : ''}\n`);
    });
  }
}

module.exports = ClosingLineReporter;
