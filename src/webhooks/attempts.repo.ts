/**
 * What the worker writes when an attempt ends: the attempt's row, its delivery's new state (only
 * while the worker still holds the delivery's lease), the event's count of pending deliveries, and
 * the endpoint's run of failures. The API reads these through the deliveries and endpoints repos.
 */
import type { Queryable, SqlValue } from '../db/database.js';
import type { AttemptRow, DeliveryRow } from '../resources/webhook-deliveries/webhook-deliveries.repo.js';

/** A delivery as its worker names it: leased to `owner`, for the event `eventId`. */
export interface LeasedDelivery {
  id: string;
  owner: string;
  eventId: string;
}

/** How a delivery ended, as it shows it. */
export interface DeliveryEnd extends Pick<DeliveryRow, 'last_response_status' | 'last_error'> {
  status: 'succeeded' | 'failed';
}

const INSERT_ATTEMPTS =
  'INSERT INTO webhook_attempts (delivery_id, account_id, delivery_created, started_at, duration_ms, response_status, response_body, error, manual) VALUES ';

export async function insertAttempt(db: Queryable, attempt: AttemptRow): Promise<void> {
  await db.run(`${INSERT_ATTEMPTS}(?, ?, ?, ?, ?, ?, ?, ?, ?)`, attemptValues(attempt));
}

function attemptValues(attempt: AttemptRow): SqlValue[] {
  return [
    attempt.delivery_id, attempt.account_id, attempt.delivery_created, attempt.started_at, attempt.duration_ms, attempt.response_status,
    attempt.response_body, attempt.error, attempt.manual,
  ];
}

/** A successful attempt of a leased delivery, as the worker records it. */
export interface SucceededAttempt {
  attempt: AttemptRow;
  delivery: LeasedDelivery;
  responseStatus: number;
  completedAt: number;
}

/**
 * Records successful attempts in three statements however many there are: their attempt rows,
 * their deliveries marked succeeded (only those still leased to the one recording them, as
 * {@link rescheduleDelivery} does), and their events' `pending_webhooks` counted down by the deliveries
 * that did end. `VALUES` columns are `column1…` on both engines; the casts type Postgres's parameters.
 */
export async function recordSucceededAttempts(tx: Queryable, rows: readonly SucceededAttempt[]): Promise<void> {
  if (rows.length === 0) return;
  // Pipelined with the UPDATE after it: two round trips for the three statements.
  await tx.write(INSERT_ATTEMPTS + rows.map(() => '(?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', '), rows.flatMap((row) => attemptValues(row.attempt)));
  const finished = await tx.all<{ event_id: string }>(
    `UPDATE webhook_deliveries
     SET status = 'succeeded', attempts = attempts + 1, next_attempt_at = v.column3, last_response_status = v.column4,
         last_error = NULL, completed_at = v.column3, lease_owner = NULL, lease_until = NULL, manual_retry = ?
     FROM (VALUES ${rows.map(() => '(?, ?, CAST(? AS BIGINT), CAST(? AS INTEGER))').join(', ')}) AS v
     WHERE webhook_deliveries.id = v.column1 AND webhook_deliveries.lease_owner = v.column2
     RETURNING webhook_deliveries.event_id`,
    [false, ...rows.flatMap((row) => [row.delivery.id, row.delivery.owner, row.completedAt, row.responseStatus])],
  );
  const endedPerEvent = new Map<string, number>();
  for (const { event_id } of finished) endedPerEvent.set(event_id, (endedPerEvent.get(event_id) ?? 0) + 1);
  if (endedPerEvent.size === 0) return;
  await tx.write(
    `UPDATE events
     SET pending_webhooks = CASE WHEN pending_webhooks > v.column2 THEN pending_webhooks - v.column2 ELSE 0 END
     FROM (VALUES ${[...endedPerEvent].map(() => '(?, CAST(? AS INTEGER))').join(', ')}) AS v
     WHERE events.id = v.column1`,
    [...endedPerEvent].flat(),
  );
}

/** Counts one more attempt of the leased delivery and sets its new state; false when the lease was lost meanwhile. */
async function finishAttempt(
  db: Queryable,
  delivery: LeasedDelivery,
  outcome: Pick<DeliveryRow, 'status' | 'next_attempt_at' | 'last_response_status' | 'last_error' | 'completed_at'>,
): Promise<boolean> {
  const changed = await db.run(
    `UPDATE webhook_deliveries
     SET status = ?, attempts = attempts + 1, next_attempt_at = ?, last_response_status = ?, last_error = ?,
         completed_at = ?, lease_owner = NULL, lease_until = NULL, manual_retry = ?
     WHERE id = ? AND lease_owner = ?`,
    [outcome.status, outcome.next_attempt_at, outcome.last_response_status, outcome.last_error, outcome.completed_at, false, delivery.id, delivery.owner],
  );
  return changed === 1;
}

/** Leaves the leased delivery pending, due again at `nextAttemptAt`, after a failed attempt. */
export async function rescheduleDelivery(
  db: Queryable,
  delivery: LeasedDelivery,
  nextAttemptAt: number,
  last: Pick<DeliveryRow, 'last_response_status' | 'last_error'>,
): Promise<void> {
  await finishAttempt(db, delivery, { status: 'pending', next_attempt_at: nextAttemptAt, completed_at: null, ...last });
}

/** Ends the leased delivery (succeeded or failed) at `nowMs` and counts it off its event's `pending_webhooks`. */
export async function completeDelivery(db: Queryable, delivery: LeasedDelivery, end: DeliveryEnd, nowMs: number): Promise<void> {
  if (await finishAttempt(db, delivery, { ...end, next_attempt_at: nowMs, completed_at: nowMs })) {
    await db.write('UPDATE events SET pending_webhooks = pending_webhooks - 1 WHERE id = ? AND pending_webhooks > 0', [
      delivery.eventId,
    ]);
  }
}

/**
 * Notes that the endpoint is failing from `nowMs`, unless a run of failures had already begun.
 * Returns when the run began (unix ms), or undefined if the endpoint was deleted meanwhile.
 */
export async function noteFailingRun(db: Queryable, endpointId: string, nowMs: number): Promise<number | undefined> {
  await db.write('UPDATE webhook_endpoints SET failing_since = ? WHERE id = ? AND failing_since IS NULL', [nowMs, endpointId]);
  const row = await db.one<{ failing_since: number }>('SELECT failing_since FROM webhook_endpoints WHERE id = ?', [endpointId]);
  return row === undefined ? undefined : Number(row.failing_since);
}

/** Ends the endpoint's run of failures (an attempt succeeded). */
export async function endFailingRun(db: Queryable, endpointId: string): Promise<void> {
  await db.run('UPDATE webhook_endpoints SET failing_since = NULL WHERE id = ?', [endpointId]);
}

/**
 * Disables the endpoint: no delivery is enqueued for it, nor attempted, until its owner enables it
 * again. False when it was disabled already (by another attempt in flight, say).
 */
export async function disableEndpoint(db: Queryable, endpointId: string): Promise<boolean> {
  const changed = await db.run("UPDATE webhook_endpoints SET status = 'disabled' WHERE id = ? AND status <> 'disabled'", [endpointId]);
  return changed === 1;
}
