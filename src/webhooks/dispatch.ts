import type { Database, Queryable } from '../db/database.js';
import type { Clock } from '../domain/clock.js';
import { toBoolean } from '../db/dialect.js';
import type { Logger } from '../logging/logger.js';
import { toEventResource } from '../resources/events/events.mapper.js';
import type { WebhookEndpointRow } from '../resources/webhook-endpoints/webhook-endpoints.repo.js';
import { finishAttempt, insertAttempt, recordSucceededAttempts, type DeliveryRow, type DeliveryTargets } from '../resources/webhook-deliveries/webhook-deliveries.repo.js';
import { nextRetryDelayMs, parseRetryAfter } from './retry-policy.js';
import type { FailureNotifier } from './failure-notices.js';
import type { Sender } from './sender.js';
import type { TransactionBatcher } from './transaction-batcher.js';
import { signatureHeaders } from './signing.js';

export interface DispatchDeps {
  db: Database;
  clock: Clock;
  logger: Logger;
  send: Sender;
  retryScheduleSeconds: readonly number[];
  /** Disable an endpoint whose attempts have all failed for this long (default 5 days). */
  disableAfterMs?: number;
  notifyFailure?: FailureNotifier;
  /** Records outcomes several to a transaction (the worker's); without it, one transaction each. */
  outcomes?: TransactionBatcher;
  /** Told of every HTTP attempt as soon as it ends, before it is recorded (metrics); must not throw. */
  observeAttempt?: AttemptObserver;
}

/** What an HTTP attempt came to: a 2xx, another status, or no response at all (refused, timed out, unreachable). */
export type AttemptOutcome = 'succeeded' | 'failed' | 'no_response';

export type AttemptObserver = (outcome: AttemptOutcome, durationMs: number) => void;

type Outcome = Parameters<typeof finishAttempt>[2];

/**
 * Makes one attempt of a leased delivery, given its event and endpoint as read for its batch
 * (`loadDeliveryTargets`): signs the event afresh, POSTs it, records the attempt
 * and decides what comes next (done, retry later, or failed for good).
 */
export async function dispatchDelivery(
  deps: DispatchDeps,
  delivery: DeliveryRow,
  owner: string,
  targets: DeliveryTargets,
  /** Called once the HTTP request is over (or was not made), before the outcome is recorded. */
  onRequestEnded?: () => void,
): Promise<void> {
  const { db, clock } = deps;
  const manual = toBoolean(delivery.manual_retry);
  // Both belong to the delivery's account: deliveries are written with their event's and endpoint's.
  const event = targets.events.get(delivery.event_id);
  const endpoint = targets.endpoints.get(delivery.endpoint_id);
  if (!event || !endpoint || endpoint.status === 'disabled') {
    const reason = !event ? 'event no longer exists' : !endpoint ? 'endpoint was deleted' : 'endpoint is disabled';
    await complete(deps, delivery, owner, { status: 'failed', last_response_status: null, last_error: reason });
    return;
  }
  const body = JSON.stringify(toEventResource(event));
  const nowMs = clock.nowMs();
  const headers = signatureHeaders(body, event.id, validSecrets(endpoint, nowMs), Math.floor(nowMs / 1000));
  const result = await deps.send(endpoint.url, body, headers);
  onRequestEnded?.();
  const succeeded = result.status !== undefined && result.status >= 200 && result.status < 300;
  const error = result.error ?? (succeeded ? null : `HTTP ${result.status}`);
  deps.observeAttempt?.(succeeded ? 'succeeded' : result.status === undefined ? 'no_response' : 'failed', result.durationMs);

  const attempt = {
    delivery_id: delivery.id,
    account_id: delivery.account_id,
    started_at: nowMs,
    duration_ms: result.durationMs,
    response_status: result.status ?? null,
    response_body: result.body || null,
    error: result.error ?? null,
    manual,
  };
  // The usual case, written in bulk with the other successes of the worker's batch.
  if (succeeded && deps.outcomes && endpoint.failing_since == null) {
    const completedAt = clock.nowMs();
    return deps.outcomes.write(recordSucceededAttempts, {
      attempt,
      delivery: { id: delivery.id, owner, eventId: delivery.event_id },
      responseStatus: result.status!,
      completedAt,
    });
  }

  let disabled = false;
  // Recorded together with other attempts' outcomes when the worker batches them.
  const inTransaction = <T>(work: (tx: Queryable) => Promise<T>) => (deps.outcomes ? deps.outcomes.run(work) : db.transaction(work));
  const failedForGood = await inTransaction(async (tx) => {
    await insertAttempt(tx, attempt);
    if (succeeded) {
      // Ends a run of failures (read with the endpoint, so the usual case costs no statement).
      if (endpoint.failing_since != null) {
        await tx.run('UPDATE webhook_endpoints SET failing_since = NULL WHERE id = ?', [endpoint.id]);
      }
      await complete({ db: tx, clock }, delivery, owner, { status: 'succeeded', last_response_status: result.status!, last_error: null });
      return false;
    }
    if (result.status === 410) {
      // 410 Gone: the consumer says the endpoint is gone for good.
      await tx.run("UPDATE webhook_endpoints SET status = 'disabled' WHERE id = ?", [endpoint.id]);
    } else if (await failingTooLong(tx, endpoint.id, nowMs, deps.disableAfterMs ?? DEFAULT_DISABLE_AFTER_MS)) {
      await tx.run("UPDATE webhook_endpoints SET status = 'disabled' WHERE id = ?", [endpoint.id]);
      disabled = true;
    }
    const delay =
      result.status === 410
        ? undefined
        : nextRetryDelayMs(deps.retryScheduleSeconds, delivery.attempts + 1, parseRetryAfter(result.retryAfter, nowMs));
    if (delay === undefined) {
      await complete({ db: tx, clock }, delivery, owner, { status: 'failed', last_response_status: result.status ?? null, last_error: error });
      deps.logger.warn({ delivery: delivery.id, endpoint: endpoint.id, error }, 'webhook delivery failed for good');
      return true;
    }
    await finishAttempt(tx, { id: delivery.id, owner }, {
      status: 'pending',
      next_attempt_at: nowMs + delay,
      last_response_status: result.status ?? null,
      last_error: error,
      completed_at: null,
    });
    return false;
  });
  const failure = { accountId: delivery.account_id, endpointId: endpoint.id, endpointUrl: endpoint.url, nowMs };
  if (disabled) deps.logger.warn({ endpoint: endpoint.id }, 'webhook endpoint disabled after failing continuously');
  if ((failedForGood || disabled) && deps.notifyFailure) await deps.notifyFailure(db, { ...failure, disabled });
}

const DEFAULT_DISABLE_AFTER_MS = 5 * 24 * 3600 * 1000;

/** Notes the start of a run of failures; true once the run has lasted `disableAfterMs`. */
async function failingTooLong(tx: Queryable, endpointId: string, nowMs: number, disableAfterMs: number): Promise<boolean> {
  await tx.run('UPDATE webhook_endpoints SET failing_since = ? WHERE id = ? AND failing_since IS NULL', [nowMs, endpointId]);
  const row = await tx.one<{ failing_since: number }>('SELECT failing_since FROM webhook_endpoints WHERE id = ?', [endpointId]);
  return row !== undefined && nowMs - Number(row.failing_since) >= disableAfterMs;
}

/** Ends a delivery (succeeded or failed) and counts it off the event's `pending_webhooks`. */
async function complete(
  deps: { db: Queryable; clock: Clock },
  delivery: DeliveryRow,
  owner: string,
  outcome: Pick<Outcome, 'status' | 'last_response_status' | 'last_error'>,
): Promise<void> {
  const nowMs = deps.clock.nowMs();
  const finished = await finishAttempt(deps.db, { id: delivery.id, owner }, { ...outcome, next_attempt_at: nowMs, completed_at: nowMs });
  if (finished) {
    await deps.db.run('UPDATE events SET pending_webhooks = pending_webhooks - 1 WHERE id = ? AND pending_webhooks > 0', [
      delivery.event_id,
    ]);
  }
}

/** The current secret, and the previous one while its rotation overlap lasts. */
function validSecrets(endpoint: WebhookEndpointRow, nowMs: number): string[] {
  const secrets = [endpoint.secret];
  if (endpoint.previous_secret && Number(endpoint.previous_secret_expires_at) > nowMs) secrets.push(endpoint.previous_secret);
  return secrets;
}
