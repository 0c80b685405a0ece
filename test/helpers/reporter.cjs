// Mocha's spec reporter, closing with the slowest test files and, in a parallel run, where the
// workers' time went (CPU of the tests, CPU of the processes they started, waiting), then the plain
// line CI reads: "N passed, N failed[, N skipped]".
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const Mocha = require('mocha');
const { keepDurations } = require('./file-order.cjs');

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
      if (timed.size > 0) {
        writeTimeSpent(timed);
        keepDurations([...timed.values()].map(({ file, ...figures }) => [file, figures]));
      }
      else writeSlowest([...fileMs].map(([file, ms]) => ({ file, ms })));
      process.stdout.write(`\nWall time: ${((Date.now() - startedAt) / 1000).toFixed(0)} s\n`);
      const { passes, failures, pending } = this.stats;
      process.stdout.write(`\n${passes} passed, ${failures} failed${pending ? `, ${pending} skipped` : ''}\n`);
    });
  }
}

/** The per-file figures a parallel run's workers wrote (file-timing.cjs), by path relative to the working directory. */
function readTimings(file) {
  const timed = new Map();
  if (!fs.existsSync(file)) return timed;
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    if (!line) continue;
    const figures = JSON.parse(line);
    const relative = path.relative(process.cwd(), figures.file);
    timed.set(relative, { ...figures, file: relative });
  }
  return timed;
}

const seconds = (ms) => `${(ms / 1000).toFixed(1).padStart(6)} s`;

/** The slowest files by wall time (with the split of their time when the workers measured it). */
function writeSlowest(files) {
  const slowest = files.sort((a, b) => b.ms - a.ms).slice(0, SLOWEST_FILES_SHOWN);
  if (slowest.length < 2) return;
  const split = slowest[0].ownCpuMs !== undefined;
  process.stdout.write(`\nSlowest files:${split ? '   wall  (test CPU, started processes\' CPU, processes started)' : ''}\n`);
  for (const { file, ms, ownCpuMs, childrenCpuMs, processStarts } of slowest) {
    const detail = split ? `  (${seconds(ownCpuMs).trim()}, ${seconds(childrenCpuMs).trim()}, ${processStarts})` : '';
    process.stdout.write(`  ${seconds(ms)}  ${file}${detail}\n`);
  }
}

/**
 * The slowest files, then the workers' time summed over all files: CPU spent in the test processes,
 * CPU of the processes the tests started (servers, clusters, the CLI, shells), and the rest, spent
 * waiting (timers, processes starting, the database).
 */
function writeTimeSpent(timed) {
  const files = [...timed.values()];
  writeSlowest(files);
  const sum = (field) => files.reduce((total, figures) => total + (figures[field] ?? 0), 0);
  const wall = sum('ms');
  const own = sum('ownCpuMs');
  const children = sum('childrenCpuMs');
  const waiting = Math.max(0, wall - own - children);
  const share = (ms) => `${Math.round((100 * ms) / Math.max(wall, 1))}%`;
  process.stdout.write(`\nWorkers' time, summed over ${files.length} files: ${seconds(wall).trim()}\n`);
  process.stdout.write(`  ${seconds(own)}  ${share(own).padStart(4)}  CPU in the test processes\n`);
  process.stdout.write(`  ${seconds(children)}  ${share(children).padStart(4)}  CPU of the ${sum('processStarts')} processes they started\n`);
  process.stdout.write(`  ${seconds(waiting)}  ${share(waiting).padStart(4)}  waiting (timers, starting processes, the database)\n`);
}

module.exports = ClosingLineReporter;
