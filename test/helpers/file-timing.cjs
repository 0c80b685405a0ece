// Root hooks that time each test file in a parallel run (`mocha --parallel`), where a worker runs one
// file at a time but the reporter hears of the file only once it has finished, so its own clock
// cannot tell a file's duration. Each worker appends `{"file", "ms"}` lines to the file named by
// TEST_FILE_TIMINGS, which the reporter (reporter.cjs) sets and reads at the end. In a serial run
// (no MOCHA_WORKER_ID) these hooks are not installed and the reporter times files itself.
const fs = require('node:fs');

const timingsFile = process.env.TEST_FILE_TIMINGS;
let startedAt = 0;

exports.mochaHooks =
  process.env.MOCHA_WORKER_ID === undefined || !timingsFile
    ? {}
    : {
        beforeAll() {
          startedAt = Date.now();
        },
        afterAll() {
          const file = this.test?.parent?.suites?.find((suite) => suite.file)?.file;
          if (file) fs.appendFileSync(timingsFile, `${JSON.stringify({ file, ms: Date.now() - startedAt })}\n`);
        },
      };
