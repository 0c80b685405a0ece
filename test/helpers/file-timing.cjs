// Root hooks that time each test file in a parallel run (`mocha --parallel`), where a worker runs one
// file at a time but the reporter hears of the file only once it has finished, so its own clock
// cannot tell a file's duration. Each worker appends one JSON line per file to the file named by
// TEST_FILE_TIMINGS, which the reporter (reporter.cjs) sets and reads at the end: the file's wall
// time, the CPU time of the worker itself and of the processes it started (once they have exited),
// and how many processes it started. What is left of the wall time was spent waiting: on timers,
// on processes still starting, on the database. In a serial run (no MOCHA_WORKER_ID) these hooks
// are not installed and the reporter times files itself.
const childProcess = require('node:child_process');
const fs = require('node:fs');
const { syncBuiltinESMExports } = require('node:module');
const { promisify } = require('node:util');

const timingsFile = process.env.TEST_FILE_TIMINGS;
const CLOCK_TICKS_PER_SECOND = 100;

let processStarts = 0;
let startedAt;

/** CPU milliseconds of this process's exited children (Linux: /proc/self/stat's cutime + cstime). */
function exitedChildrenCpuMs() {
  try {
    // The command name (field 2) is in parentheses and may hold spaces: count from after it.
    const fields = fs.readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[13]) + Number(fields[14])) * 1000) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

function countingStarts(start) {
  return function (...args) {
    processStarts += 1;
    return start.apply(this, args);
  };
}

/** Counts every process this worker starts, whichever way it is started. */
function countProcessStarts() {
  for (const name of ['spawn', 'spawnSync', 'execFile', 'execFileSync', 'exec', 'execSync', 'fork']) {
    const original = childProcess[name];
    const counted = countingStarts(original);
    // promisify(execFile) resolves with { stdout, stderr } through the original's own promise form.
    if (original[promisify.custom]) counted[promisify.custom] = countingStarts(original[promisify.custom]);
    childProcess[name] = counted;
  }
  // The named ESM exports (`import { spawn } from 'node:child_process'`) follow the CommonJS ones only after this.
  syncBuiltinESMExports();
}

function snapshot() {
  const cpu = process.cpuUsage();
  return { at: Date.now(), ownCpuMs: (cpu.user + cpu.system) / 1000, childrenCpuMs: exitedChildrenCpuMs(), starts: processStarts };
}

const installed = process.env.MOCHA_WORKER_ID !== undefined && Boolean(timingsFile);
if (installed) countProcessStarts();

exports.mochaHooks = installed
  ? {
      beforeAll() {
        startedAt = snapshot();
      },
      afterAll() {
        const file = this.test?.parent?.suites?.find((suite) => suite.file)?.file;
        if (!file) return;
        const now = snapshot();
        const line = {
          file,
          ms: now.at - startedAt.at,
          ownCpuMs: Math.round(now.ownCpuMs - startedAt.ownCpuMs),
          childrenCpuMs: Math.round(now.childrenCpuMs - startedAt.childrenCpuMs),
          processStarts: now.starts - startedAt.starts,
        };
        fs.appendFileSync(timingsFile, `${JSON.stringify(line)}\n`);
      },
    }
  : {};
