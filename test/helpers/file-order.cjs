// The order in which `npm test` hands test files to its workers: longest first, so that the run
// does not end with one worker busy on a long file while the others are idle. A file's length is
// its wall time in the last parallel run on this checkout (the reporter keeps them, reporter.cjs),
// else in a run recorded in the repository (test/file-seconds.json, for a fresh clone: CI); a
// file timed by neither (a new file) goes first, then by its folder, the folders whose files start
// processes first, and then by size.
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '../..');
/**
 * Where the reporter keeps each file's figures of the last parallel run that timed it: wall time
 * (`ms`), the test process's CPU, its started processes' CPU and how many it started.
 */
const DURATIONS_FILE = path.join(ROOT, 'node_modules/.cache/payments-api/test-durations.json');
/** Folders whose files start servers, clusters, the CLI or a browser: these take longest. */
const SLOW_FOLDERS = ['startup', 'cli', 'faults', 'webhooks', 'pages', 'contract', 'docs'];

/**
 * Seconds per file of one whole run, committed: refresh it from a run on a quiet machine with
 * `node -e "require('./test/helpers/file-order.cjs').recordDurations()"` when files were added or
 * grew.
 */
const RECORDED_FILE = path.join(ROOT, 'test/file-seconds.json');

function readJson(file) {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return {};
  }
}

function readDurations() {
  return readJson(DURATIONS_FILE);
}

/** This checkout's durations, over the recorded ones for the files this checkout has not timed. */
function knownDurations() {
  const recorded = Object.entries(readJson(RECORDED_FILE)).map(([file, s]) => [file, { ms: s * 1000 }]);
  return { ...Object.fromEntries(recorded), ...readDurations() };
}

/** Writes this checkout's last durations, in whole seconds, as the recorded ones. */
function recordDurations() {
  const durations = readDurations();
  const seconds = Object.fromEntries(
    Object.keys(durations)
      .filter((file) => fs.existsSync(path.join(ROOT, file)))
      .sort()
      .map((file) => [file, Math.round(durations[file].ms / 1000)]),
  );
  fs.writeFileSync(RECORDED_FILE, `${JSON.stringify(seconds, null, 1)}\n`);
}

/** Every test file under test/, longest first (paths relative to the project's root). */
function testFilesLongestFirst() {
  const durations = knownDurations();
  const files = fs
    .readdirSync(path.join(ROOT, 'test'), { recursive: true })
    .filter((file) => file.endsWith('.test.ts'))
    .map((file) => path.join('test', file));
  const folderRank = (file) => {
    const rank = SLOW_FOLDERS.indexOf(file.split(path.sep)[1]);
    return rank === -1 ? SLOW_FOLDERS.length : rank;
  };
  const size = (file) => fs.statSync(path.join(ROOT, file)).size;
  return files.sort((a, b) => {
    const [timedA, timedB] = [durations[a]?.ms, durations[b]?.ms];
    if (timedA !== undefined && timedB !== undefined) return timedB - timedA;
    // Untimed files go first: a new file may be long, and what is known fills in behind it.
    if (timedA !== undefined || timedB !== undefined) return timedA === undefined ? -1 : 1;
    return folderRank(a) - folderRank(b) || size(b) - size(a);
  });
}

/** Keeps each file's figures of a parallel run (`file` → `{ ms, … }`), for the next run's order and for reading. */
function keepDurations(durationsByFile) {
  try {
    const kept = { ...readDurations(), ...Object.fromEntries(durationsByFile) };
    fs.mkdirSync(path.dirname(DURATIONS_FILE), { recursive: true });
    fs.writeFileSync(DURATIONS_FILE, JSON.stringify(kept, null, 1));
  } catch {
    // A read-only checkout: the next run orders by folder and size.
  }
}

module.exports = { testFilesLongestFirst, keepDurations, recordDurations };
