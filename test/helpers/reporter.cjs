// Mocha's spec reporter, closing with the slowest test files (where the suite's time goes) and the
// plain line CI reads: "N passed, N failed[, N skipped]".
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const Mocha = require('mocha');

const SLOWEST_FILES_SHOWN = 8;

class ClosingLineReporter extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    const startedAt = Date.now();
    // A parallel run's workers (forked after this, so they inherit it) write each file's time here
    // (file-timing.cjs); a serial run leaves it empty and is timed by the suites' events below.
    const timingsFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'payments-test-timings-')), 'files.jsonl');
    process.env.TEST_FILE_TIMINGS = timingsFile;
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
      const timed = readTimings(timingsFile);
      fs.rmSync(path.dirname(timingsFile), { recursive: true, force: true });
      const slowest = [...(timed.size > 0 ? timed : fileMs)].sort((a, b) => b[1] - a[1]).slice(0, SLOWEST_FILES_SHOWN);
      if (slowest.length > 1) {
        process.stdout.write('\nSlowest files:\n');
        for (const [file, ms] of slowest) process.stdout.write(`  ${(ms / 1000).toFixed(1).padStart(6)} s  ${file}\n`);
      }
      process.stdout.write(`\nWall time: ${((Date.now() - startedAt) / 1000).toFixed(0)} s\n`);
      const { passes, failures, pending } = this.stats;
      process.stdout.write(`\n${passes} passed, ${failures} failed${pending ? `, ${pending} skipped` : ''}\n`);
    });
  }
}

/** The per-file times a parallel run's workers wrote, by path relative to the working directory. */
function readTimings(file) {
  const timed = new Map();
  if (!fs.existsSync(file)) return timed;
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    if (!line) continue;
    const { file: testFile, ms } = JSON.parse(line);
    timed.set(path.relative(process.cwd(), testFile), ms);
  }
  return timed;
}

module.exports = ClosingLineReporter;
