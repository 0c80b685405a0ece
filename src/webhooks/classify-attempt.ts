import { nextRetryDelayMs, parseRetryAfter } from './retry-policy.js';
import type { SendResult } from './sender.js';

/** What an HTTP attempt came to: a 2xx, another status, or no response at all (refused, timed out, unreachable). */
export type AttemptOutcome = 'succeeded' | 'failed' | 'no_response';

/**
 * What an attempt leads to:
 * - `succeeded`: the endpoint answered 2xx; the delivery is done;
 * - `retry`: another status, or no response at all (refused, timed out, unreachable): the delivery
 *   is tried again in `delayMs`, which honours a `Retry-After` asking for longer than the schedule;
 * - `give_up`: the same, once the retry schedule is exhausted: the delivery has failed for good;
 * - `disable_endpoint`: 410 Gone, the consumer saying the endpoint is gone for good: it is disabled
 *   and the delivery fails, however many retries were left.
 * `responseStatus` and `error` are what the delivery shows as its last response.
 */
export type AttemptVerdict = { responseStatus: number | null; error: string | null } & (
  | { kind: 'succeeded'; responseStatus: number; error: null }
  | { kind: 'retry'; delayMs: number }
  | { kind: 'give_up' }
  | { kind: 'disable_endpoint' }
);

/** Where the delivery stands when one of its attempts ends. */
export interface RetryState {
  /** The delivery's attempts, this one included. */
  attempts: number;
  scheduleSeconds: readonly number[];
  /** When the attempt started; an HTTP-date `Retry-After` counts from it. */
  nowMs: number;
  /** The source of the schedule's jitter (Math.random by default). */
  random?: () => number;
}

/** Decides what follows an attempt from what it produced; pure, but for the jitter's randomness. */
export function classifyAttempt(result: Pick<SendResult, 'status' | 'retryAfter' | 'error'>, retry: RetryState): AttemptVerdict {
  if (result.status !== undefined && isSuccess(result.status)) {
    return { kind: 'succeeded', responseStatus: result.status, error: null };
  }
  const responseStatus = result.status ?? null;
  const error = result.error ?? `HTTP ${result.status}`;
  if (result.status === 410) return { kind: 'disable_endpoint', responseStatus, error };
  const retryAfterMs = parseRetryAfter(result.retryAfter, retry.nowMs);
  const delayMs = nextRetryDelayMs(retry.scheduleSeconds, retry.attempts, retryAfterMs, retry.random);
  if (delayMs === undefined) return { kind: 'give_up', responseStatus, error };
  return { kind: 'retry', delayMs, responseStatus, error };
}

/** The attempt as the metrics count it. */
export function attemptOutcomeOf(result: Pick<SendResult, 'status'>): AttemptOutcome {
  if (result.status === undefined) return 'no_response';
  return isSuccess(result.status) ? 'succeeded' : 'failed';
}

function isSuccess(status: number): boolean {
  return status >= 200 && status < 300;
}
