/**
 * When to try a failed delivery again: an exponential schedule spanning about three days
 * (5 s, 1 m, 5 m, 30 m, 2 h, 5 h, 10 h, 14 h, 20 h, 20 h), each delay with ±20% jitter so that
 * an endpoint coming back is not hit by every retry at once.
 */
export const DEFAULT_RETRY_SCHEDULE_SECONDS = [5, 60, 300, 1800, 7200, 18_000, 36_000, 50_400, 72_000, 72_000];

/** The longest `Retry-After` honoured; a longer one is cut to this. */
const MAX_RETRY_AFTER_MS = 24 * 3600 * 1000;

/**
 * The delay before the next attempt after `failedAttempts` failures, or undefined when the
 * schedule is exhausted. A `Retry-After` from the endpoint is honoured when it asks for longer.
 */
export function nextRetryDelayMs(
  scheduleSeconds: readonly number[],
  failedAttempts: number,
  retryAfterMs?: number,
  random: () => number = Math.random,
): number | undefined {
  if (failedAttempts > scheduleSeconds.length) return undefined;
  const base = scheduleSeconds[failedAttempts - 1] * 1000;
  const jittered = base * (0.8 + 0.4 * random());
  return Math.round(Math.max(jittered, Math.min(retryAfterMs ?? 0, MAX_RETRY_AFTER_MS)));
}

/** `Retry-After` as milliseconds: delta-seconds or an HTTP date. */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs);
}
