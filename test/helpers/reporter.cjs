// Mocha's spec reporter, closing with the plain line CI reads: "N passed, N failed[, N skipped]".
const Mocha = require('mocha');

class ClosingLineReporter extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    runner.once('end', () => {
      const { passes, failures, pending } = this.stats;
      process.stdout.write(`\n${passes} passed, ${failures} failed${pending ? `, ${pending} skipped` : ''}\n`);
    });
  }
}

module.exports = ClosingLineReporter;
