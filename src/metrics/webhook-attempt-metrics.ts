import { Counter, Histogram, type Registry } from 'prom-client';
import type { AttemptOutcome } from '../webhooks/classify-attempt.js';
import type { AttemptObserver } from '../webhooks/dispatch.js';

const OUTCOMES: readonly AttemptOutcome[] = ['succeeded', 'failed', 'no_response'];

/** Upper bounds in seconds, up to the sender's 15 s total timeout. */
const ATTEMPT_DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15];

/**
 * `webhook_delivery_attempts_total{outcome}` and `webhook_delivery_attempt_duration_seconds{outcome}`
 * of this process's worker, as the observer the worker's dispatcher calls after every attempt.
 * Every outcome starts at zero, so that a rate of failures is defined before the first one.
 */
export function createWebhookAttemptMetrics(registry: Registry): AttemptObserver {
  const attempts = new Counter({
    name: 'webhook_delivery_attempts_total',
    help: 'Webhook delivery attempts made by this process, by outcome: succeeded (2xx), failed (another status), no_response.',
    labelNames: ['outcome'],
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'webhook_delivery_attempt_duration_seconds',
    help: 'Time from sending a webhook to its response (or to the error), by outcome.',
    labelNames: ['outcome'],
    buckets: ATTEMPT_DURATION_BUCKETS,
    registers: [registry],
  });
  for (const outcome of OUTCOMES) {
    attempts.inc({ outcome }, 0);
    duration.zero({ outcome });
  }
  return (outcome, durationMs) => {
    attempts.inc({ outcome });
    duration.observe({ outcome }, durationMs / 1000);
  };
}
