import type { Logger } from './logger.js';

/** How often a failure that goes on is logged again. */
export const OUTAGE_WARNING_INTERVAL_MS = 60_000;

/** The log of one thing that may fail repeatedly (a background job, a connection), see {@link createOutageLog}. */
export interface OutageLog {
  /**
   * Reports a failure: a warning for the first of an outage, then at most one a minute while it
   * lasts; `count` adds to a tally of what was lost meanwhile (say, entries dropped), in the next warning.
   */
  failed(err: unknown, count?: number): void;
  /** Reports success: if it had failed, one line saying it recovered and after how long. */
  succeeded(): void;
  /** Whether the last report was a failure. */
  readonly down: boolean;
}

/**
 * A log that says when `what` stops working, that it still does not (with how long and how many
 * failures) at most once per `intervalMs`, and when it works again, so that an outage of the
 * database is a few lines rather than one per retry.
 */
export function createOutageLog(logger: Logger, what: string, intervalMs = OUTAGE_WARNING_INTERVAL_MS): OutageLog {
  let since: number | undefined;
  let warnedAt = 0;
  let failures = 0;
  let lost = 0;
  return {
    failed(err, count) {
      const now = performance.now();
      failures += 1;
      lost += count ?? 0;
      const tally = lost > 0 ? { lost } : {};
      if (since === undefined) {
        since = warnedAt = now;
        logger.warn({ err, ...tally }, `${what} failed`);
      } else if (now - warnedAt >= intervalMs) {
        warnedAt = now;
        logger.warn({ err, downMs: Math.round(now - since), failures, ...tally }, `${what} still failing`);
      } else return;
      lost = 0;
    },
    succeeded() {
      if (since === undefined) return;
      logger.info({ downMs: Math.round(performance.now() - since), failures }, `${what} works again`);
      since = undefined;
      failures = 0;
      lost = 0;
    },
    get down() {
      return since !== undefined;
    },
  };
}
