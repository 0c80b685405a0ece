import type { Queryable } from '../db/database.js';
import { forUpdateSkipLocked } from '../db/dialect.js';

export interface DeliveryRow {
  seq: number;
  id: string;
  account_id: string;
  event_id: string;
  endpoint_id: string;
  status: 'pending' | 'succeeded' | 'failed';
  attempts: number;
  next_attempt_at: number;
  lease_owner: string | null;
  lease_until: number | null;
  last_response_status: number | null;
  last_error: string | null;
  created: number;
  completed_at: number | null;
}

export interface AttemptRow {
  delivery_id: string;
  account_id: string;
  started_at: number;
  duration_ms: number;
  response_status: number | null;
  response_body: string | null;
  error: string | null;
  manual: boolean;
}

export async function insertDelivery(
  db: Queryable,
  row: Pick<DeliveryRow, 'id' | 'account_id' | 'event_id' | 'endpoint_id' | 'next_attempt_at' | 'created'>,
): Promise<void> {
  await db.run(
    `INSERT INTO webhook_deliveries (id, account_id, event_id, endpoint_id, status, attempts, next_attempt_at, created)
     VALUES (?, ?, ?, ?, 'pending', 0, ?, ?)`,
    [row.id, row.account_id, row.event_id, row.endpoint_id, row.next_attempt_at, row.created],
  );
}

/**
 * Leases up to `limit` due deliveries to `owner` until `leaseUntil`, in one statement: on
 * Postgres concurrent workers skip each other's locked rows; on SQLite the statement is atomic.
 * A delivery whose lease has run out (its worker died) is due again.
 */
export function claimDueDeliveries(
  db: Queryable,
  claim: { owner: string; nowMs: number; leaseUntil: number; limit: number },
): Promise<DeliveryRow[]> {
  return db.all<DeliveryRow>(
    `UPDATE webhook_deliveries SET lease_owner = ?, lease_until = ?
     WHERE id IN (
       SELECT id FROM webhook_deliveries
       WHERE status = 'pending' AND next_attempt_at <= ? AND (lease_until IS NULL OR lease_until < ?)
       ORDER BY next_attempt_at LIMIT ?${forUpdateSkipLocked(db.dialect)}
     ) RETURNING *`,
    [claim.owner, claim.leaseUntil, claim.nowMs, claim.nowMs, claim.limit],
  );
}

export async function insertAttempt(db: Queryable, attempt: AttemptRow): Promise<void> {
  await db.run(
    `INSERT INTO webhook_attempts (delivery_id, account_id, started_at, duration_ms, response_status, response_body, error, manual)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    [
      attempt.delivery_id, attempt.account_id, attempt.started_at, attempt.duration_ms, attempt.response_status,
      attempt.response_body, attempt.error, attempt.manual,
    ],
  );
}

/** Records the outcome of the leased attempt; false when the lease was lost meanwhile. */
export async function finishAttempt(
  db: Queryable,
  delivery: { id: string; owner: string },
  outcome: Pick<DeliveryRow, 'status' | 'next_attempt_at' | 'last_response_status' | 'last_error' | 'completed_at'>,
): Promise<boolean> {
  const changed = await db.run(
    `UPDATE webhook_deliveries
     SET status = ?, attempts = attempts + 1, next_attempt_at = ?, last_response_status = ?, last_error = ?,
         completed_at = ?, lease_owner = NULL, lease_until = NULL
     WHERE id = ? AND lease_owner = ?`,
    [outcome.status, outcome.next_attempt_at, outcome.last_response_status, outcome.last_error, outcome.completed_at, delivery.id, delivery.owner],
  );
  return changed === 1;
}
