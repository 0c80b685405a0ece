/**
 * The record stage of an attempt: in one transaction (shared with other attempts' when the worker
 * batches them), the attempt's row, the endpoint's health, and the delivery's new state: done, due
 * again later (reschedule), or failed for good (give up). The transaction may run twice (the batch
 * it was in rolled back), so it writes only through its `tx` and returns what it did.
 */
import type { Database, Queryable } from '../db/database.js';
import type { Clock } from '../domain/clock.js';
import type { AttemptRow } from '../resources/webhook-deliveries/webhook-deliveries.repo.js';
import type { WebhookEndpointRow } from '../resources/webhook-endpoints/webhook-endpoints.repo.js';
import {
  completeDelivery,
  disableEndpoint,
  endFailingRun,
  insertAttempt,
  noteFailingRun,
  recordSucceededAttempts,
  rescheduleDelivery,
  type LeasedDelivery,
} from './attempts.repo.js';
import type { AttemptVerdict } from './classify-attempt.js';
import type { TransactionBatcher } from './transaction-batcher.js';

/** Why an attempt disabled its endpoint: it answered 410 Gone, or every attempt had failed for `disableAfterMs`. */
export type DisabledBecause = 'gone' | 'failing';

export interface RecordDeps {
  db: Database;
  clock: Clock;
  /** Records outcomes several to a transaction (the worker's); without it, one transaction each. */
  outcomes?: TransactionBatcher;
  /** Disable an endpoint whose attempts have all failed for this long (default 5 days). */
  disableAfterMs?: number;
}

/** An attempt that has ended, and what it leads to. */
export interface EndedAttempt {
  delivery: LeasedDelivery;
  /** As read with the delivery's batch. */
  endpoint: WebhookEndpointRow;
  attempt: AttemptRow;
  verdict: AttemptVerdict;
}

/** What recording an attempt came to. */
export interface Recorded {
  /** The delivery failed for good. */
  gaveUp: boolean;
  /** Set when this attempt disabled the endpoint (not when another one had already). */
  disabled?: DisabledBecause;
}

const DEFAULT_DISABLE_AFTER_MS = 5 * 24 * 3600 * 1000;

/** Records an ended attempt and the state it leaves its delivery and endpoint in. */
export async function recordAttempt(deps: RecordDeps, ended: EndedAttempt): Promise<Recorded> {
  const { delivery, endpoint, attempt, verdict } = ended;
  // The usual case, written in bulk with the other successes of the worker's batch.
  if (verdict.kind === 'succeeded' && deps.outcomes && endpoint.failing_since == null) {
    const completedAt = deps.clock.nowMs();
    await deps.outcomes.write(recordSucceededAttempts, { attempt, delivery, responseStatus: verdict.responseStatus, completedAt });
    return { gaveUp: false };
  }
  const record = async (tx: Queryable): Promise<Recorded> => {
    await insertAttempt(tx, attempt);
    const disabled = await updateEndpointHealth(tx, ended, deps.disableAfterMs ?? DEFAULT_DISABLE_AFTER_MS);
    const gaveUp = await rescheduleOrGiveUp(tx, ended, deps.clock);
    return { gaveUp, disabled };
  };
  return deps.outcomes ? deps.outcomes.run(record) : deps.db.transaction(record);
}

/**
 * Keeps the endpoint's run of failures: a success ends it, a failure starts it or, once it has
 * lasted `disableAfterMs`, disables the endpoint; a 410 Gone disables it at once.
 */
async function updateEndpointHealth(
  tx: Queryable,
  ended: EndedAttempt,
  disableAfterMs: number,
): Promise<DisabledBecause | undefined> {
  const { endpoint, attempt, verdict } = ended;
  if (verdict.kind === 'succeeded') {
    // Read with the endpoint, so the usual case (no run of failures) costs no statement.
    if (endpoint.failing_since != null) await endFailingRun(tx, endpoint.id);
    return undefined;
  }
  // Only the attempt that disables it says so: others in flight to the same endpoint may end alike.
  if (verdict.kind === 'disable_endpoint') return (await disableEndpoint(tx, endpoint.id)) ? 'gone' : undefined;
  const since = await noteFailingRun(tx, endpoint.id, attempt.started_at);
  if (since === undefined || attempt.started_at - since < disableAfterMs) return undefined;
  return (await disableEndpoint(tx, endpoint.id)) ? 'failing' : undefined;
}

/**
 * Reschedule or give up: the delivery pending until its next attempt, or ended (succeeded, or
 * failed for good). True when it gave up.
 */
async function rescheduleOrGiveUp(tx: Queryable, ended: EndedAttempt, clock: Clock): Promise<boolean> {
  const { delivery, attempt, verdict } = ended;
  const last = { last_response_status: verdict.responseStatus, last_error: verdict.error };
  if (verdict.kind === 'retry') {
    await rescheduleDelivery(tx, delivery, attempt.started_at + verdict.delayMs, last);
    return false;
  }
  const status = verdict.kind === 'succeeded' ? 'succeeded' : 'failed';
  await completeDelivery(tx, delivery, { status, ...last }, clock.nowMs());
  return status === 'failed';
}
