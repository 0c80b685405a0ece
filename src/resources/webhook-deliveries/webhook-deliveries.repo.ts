import type { Queryable, SqlValue } from '../../db/database.js';
import { forUpdateSkipLocked, inJsonArray } from '../../db/dialect.js';
import { eventsByIds } from '../events/live-events.repo.js';
import type { EventRow } from '../events/events.repo.js';
import type { WebhookEndpointRow } from '../webhook-endpoints/webhook-endpoints.repo.js';
import { fetchPage, type PageParams } from '../shared/pagination.js';

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
  manual_retry: boolean | number;
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
  if (db.dialect === 'postgres') {
    return db.transaction(async (tx) => {
      // Walk the (status, next_attempt_at) index in order and stop at `limit`. Without this, a
      // backlog that grew faster than the statistics (a burst, an outage caught up) is planned as
      // a bitmap scan and a sort of every due row at each claim: measured 8.4 ms instead of 1.7 ms
      // per claim with 10,000 due, and growing with the backlog.
      await tx.one("SELECT set_config('enable_bitmapscan', 'off', true), set_config('enable_seqscan', 'off', true)");
      return claimStatement(tx, claim);
    });
  }
  return claimStatement(db, claim);
}

function claimStatement(
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

const INSERT_ATTEMPTS =
  'INSERT INTO webhook_attempts (delivery_id, account_id, started_at, duration_ms, response_status, response_body, error, manual) VALUES ';

export async function insertAttempt(db: Queryable, attempt: AttemptRow): Promise<void> {
  await db.run(`${INSERT_ATTEMPTS}(?, ?, ?, ?, ?, ?, ?, ?)`, attemptValues(attempt));
}

function attemptValues(attempt: AttemptRow): SqlValue[] {
  return [
    attempt.delivery_id, attempt.account_id, attempt.started_at, attempt.duration_ms, attempt.response_status,
    attempt.response_body, attempt.error, attempt.manual,
  ];
}

/** A successful attempt of a leased delivery, as the worker records it. */
export interface SucceededAttempt {
  attempt: AttemptRow;
  delivery: { id: string; owner: string; eventId: string };
  responseStatus: number;
  completedAt: number;
}

/**
 * Records successful attempts in three statements however many there are: their attempt rows,
 * their deliveries marked succeeded (only those still leased to the one recording them, as
 * {@link finishAttempt} does), and their events' `pending_webhooks` counted down by the deliveries
 * that did end. `VALUES` columns are `column1…` on both engines; the casts type Postgres's parameters.
 */
export async function recordSucceededAttempts(tx: Queryable, rows: readonly SucceededAttempt[]): Promise<void> {
  if (rows.length === 0) return;
  await tx.run(INSERT_ATTEMPTS + rows.map(() => '(?, ?, ?, ?, ?, ?, ?, ?)').join(', '), rows.flatMap((row) => attemptValues(row.attempt)));
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
  await tx.run(
    `UPDATE events
     SET pending_webhooks = CASE WHEN pending_webhooks > v.column2 THEN pending_webhooks - v.column2 ELSE 0 END
     FROM (VALUES ${[...endedPerEvent].map(() => '(?, CAST(? AS INTEGER))').join(', ')}) AS v
     WHERE events.id = v.column1`,
    [...endedPerEvent].flat(),
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
         completed_at = ?, lease_owner = NULL, lease_until = NULL, manual_retry = ?
     WHERE id = ? AND lease_owner = ?`,
    [outcome.status, outcome.next_attempt_at, outcome.last_response_status, outcome.last_error, outcome.completed_at, false, delivery.id, delivery.owner],
  );
  return changed === 1;
}

export function findDelivery(db: Queryable, accountId: string, id: string): Promise<DeliveryRow | undefined> {
  return db.one<DeliveryRow>('SELECT * FROM webhook_deliveries WHERE account_id = ? AND id = ?', [accountId, id]);
}

export function listAttempts(db: Queryable, deliveryId: string): Promise<Array<AttemptRow & { seq: number }>> {
  return db.all('SELECT * FROM webhook_attempts WHERE delivery_id = ? ORDER BY seq', [deliveryId]);
}

export function listDeliveryRows(
  db: Queryable,
  accountId: string,
  filters: { status?: string; endpoint?: string; event?: string },
  page: PageParams,
) {
  const equal: Array<[string, string]> = [];
  if (filters.endpoint) equal.push(['endpoint_id', filters.endpoint]);
  if (filters.event) equal.push(['event_id', filters.event]);
  if (filters.status) equal.push(['status', filters.status]);
  return fetchPage<DeliveryRow>(db, { table: 'webhook_deliveries', accountId, filters: equal }, page);
}

/**
 * Makes a delivery due now for one manual attempt. A delivery that had ended counts again in its
 * event's `pending_webhooks`. Returns the updated row.
 */
export async function requeueDelivery(db: Queryable, delivery: DeliveryRow, nowMs: number): Promise<DeliveryRow> {
  if (delivery.status !== 'pending') {
    await db.run('UPDATE events SET pending_webhooks = pending_webhooks + 1 WHERE id = ?', [delivery.event_id]);
  }
  const [row] = await db.all<DeliveryRow>(
    `UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = ?, manual_retry = ?, completed_at = NULL
     WHERE id = ? RETURNING *`,
    [nowMs, true, delivery.id],
  );
  return row;
}

/** The deliveries of an endpoint in a status, created (unix seconds) within the range. */
export function deliveriesToReplay(
  db: Queryable,
  accountId: string,
  endpointId: string,
  status: 'failed' | 'succeeded',
  created: { gte?: number; lte?: number },
): Promise<DeliveryRow[]> {
  return db.all<DeliveryRow>(
    `SELECT * FROM webhook_deliveries
     WHERE account_id = ? AND endpoint_id = ? AND status = ? AND created >= ? AND created <= ? ORDER BY seq`,
    [accountId, endpointId, status, created.gte ?? 0, created.lte ?? Number.MAX_SAFE_INTEGER],
  );
}

/** The events and endpoints of a batch of claimed deliveries, by id. */
export interface DeliveryTargets {
  events: ReadonlyMap<string, EventRow>;
  endpoints: ReadonlyMap<string, WebhookEndpointRow>;
}

/**
 * Reads what a batch of claimed deliveries needs in two statements for the whole batch, instead
 * of two per delivery: on Postgres each statement is a round trip, and they were a third of a
 * delivery's. (Ids are random and unique, so no account filter is needed to find the right rows.)
 */
export async function loadDeliveryTargets(db: Queryable, deliveries: readonly DeliveryRow[]): Promise<DeliveryTargets> {
  if (deliveries.length === 0) return { events: new Map(), endpoints: new Map() };
  const eventIds = [...new Set(deliveries.map((d) => d.event_id))];
  const endpointIds = [...new Set(deliveries.map((d) => d.endpoint_id))];
  const [events, endpoints] = await Promise.all([
    eventsByIds(db, eventIds),
    db.all<WebhookEndpointRow>(`SELECT * FROM webhook_endpoints WHERE ${inJsonArray(db.dialect, 'id')}`, [
      JSON.stringify(endpointIds),
    ]),
  ]);
  return {
    events: new Map(events.map((row) => [row.id, row])),
    endpoints: new Map(endpoints.map((row) => [row.id, row])),
  };
}
