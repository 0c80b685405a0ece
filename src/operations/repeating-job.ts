/**
 * The one way background work repeats (purges, expiry, retention). Guarantees: never two runs of a
 * job at once (the next is scheduled when the last ends); a run that fails is logged (its first
 * failure at once, then at most once a minute while it goes on failing, and its recovery) and the
 * next run is scheduled all the same, sooner than usual so that the job resumes soon after the
 * database answers again; `stop()` schedules nothing more and resolves once a run under way ends.
 */
import type { Logger } from '../logging/logger.js';
import { createOutageLog } from '../logging/outage-log.js';

/** After a failed run, the next one waits at most this long. */
const RETRY_AFTER_FAILURE_MS = 5_000;

/** What a run is told: whether the job is stopping (a long run should end early then). */
export interface JobRun {
  readonly stopping: boolean;
}

export interface RepeatingJobOptions {
  /** What the job does, for its log lines ("event retention"). */
  name: string;
  logger: Logger;
  /** The wait between the end of one run and the start of the next. */
  intervalMs: number;
  /** Run at once, rather than after the first interval. */
  runAtStart?: boolean;
  /** The wait after a failed run (default: the interval, at most 5 s). */
  retryAfterFailureMs?: number;
}

export interface RepeatingJob {
  /** Schedules no more runs; resolves once the run under way, if any, has ended. */
  stop(): Promise<void>;
}

/** Starts `run` as a repeating job (see the module's guarantees). */
export function startRepeatingJob(options: RepeatingJobOptions, run: (job: JobRun) => Promise<void>): RepeatingJob {
  const { intervalMs, logger } = options;
  const retryMs = options.retryAfterFailureMs ?? Math.min(intervalMs, RETRY_AFTER_FAILURE_MS);
  const outage = createOutageLog(logger, options.name);
  const state = { stopping: false };
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();

  const schedule = (ms: number) => {
    if (!state.stopping) timer = setTimeout(runOnce, ms).unref();
  };
  function runOnce(): void {
    timer = undefined;
    running = Promise.resolve()
      .then(() => run(state))
      .then(
        () => {
          outage.succeeded();
          schedule(intervalMs);
        },
        (err: unknown) => {
          outage.failed(err);
          schedule(retryMs);
        },
      );
  }

  if (options.runAtStart) runOnce();
  else schedule(intervalMs);
  return {
    async stop() {
      state.stopping = true;
      clearTimeout(timer);
      await running;
    },
  };
}
