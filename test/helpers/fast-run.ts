/**
 * `npm run test:fast` (`TEST_FAST=1`): the inner loop, SQLite only, in this process, no browser.
 * The helpers that reach beyond the process (Postgres, Redis, Chromium, child processes) skip their
 * suites under it; `fast-run-guard.ts` fails any test that starts a process without saying so.
 */
export const FAST_RUN = process.env.TEST_FAST === '1';

/**
 * In a `before` hook (or a test) that starts processes (servers, workers, the CLI, npm, tsc):
 * skips it in the fast run.
 */
export function requireProcesses(context: Mocha.Context): void {
  if (FAST_RUN) context.skip();
}
