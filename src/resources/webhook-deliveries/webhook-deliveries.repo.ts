import type { Queryable } from '../../db/database.js';
import { forUpdateSkipLocked, inJsonArray, preferringIndexScans } from '../../db/dialect.js';
import { eventsByIds } from '../events/live-events.repo.js';
import type { EventRow } from '../events/events.repo.js';
import type { WebhookEndpointRow } from '../webhook-endpoints/webhook-endpoints.repo.js';
import { fetchPage, type PageParams } from '../shared/pagination.js';
import { listedAt, retainedAt, type RetentionCutoff } from '../events/events.retention.js';

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
  /** Set by a manual retry or replay: the next attempt is recorded as manual. */
  manual_retry: boolean;
  created: number;
  completed_at: number | null;
}

export interface AttemptRow {
  delivery_id: string;
  account_id: string;
  /** The delivery's `created` (its event's): the month partition the attempt lives in on Postgres. */
  delivery_created: number;
  started_at: number;
  duration_ms: number;
  response_status: number | null;
  response_body: string | null;
  error: string | null;
  manual: boolean;
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
  // Walk the (status, next_attempt_at) index in order and stop at `limit`. Otherwise a backlog
  // that grew faster than the statistics (a burst, an outage caught up) is planned on Postgres as
  // a bitmap scan and a sort of every due row at each claim: measured 8.4 ms instead of 1.7 ms per
  // claim with 10,000 due, and growing with the backlog.
  return preferringIndexScans(db, (q) => claimStatement(q, claim));
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

/** A delivery by id, if the API still shows its event at `cutoff` (see {@link retainedAt}). */
export function findDelivery(db: Queryable, accountId: string, id: string, cutoff: RetentionCutoff): Promise<DeliveryRow | undefined> {
  const retained = retainedAt('webhook_deliveries', cutoff);
  return db.one<DeliveryRow>(`SELECT * FROM webhook_deliveries WHERE account_id = ? AND id = ? AND ${retained.sql}`, [
    accountId,
    id,
    ...retained.params,
  ]);
}

export function listAttempts(db: Queryable, deliveryId: string): Promise<Array<AttemptRow & { seq: number }>> {
  return db.all('SELECT * FROM webhook_attempts WHERE delivery_id = ? ORDER BY seq', [deliveryId]);
}

/**
 * What a deliveries list shows at `cutoff`: of one event, or pending or failed (the views of what is
 * under way or to replay), those whose event is retained, kept ones included; otherwise those of the
 * retention period (see {@link listedAt}).
 */
function listedDeliveries(db: Queryable, filters: { status?: string; event?: string }, cutoff: RetentionCutoff) {
  const fewOrKept = filters.event !== undefined || filters.status === 'pending' || filters.status === 'failed';
  return fewOrKept ? retainedAt('webhook_deliveries', cutoff) : listedAt(db, 'webhook_deliveries', cutoff);
}

/** The deliveries a list shows at `cutoff` (see `listedDeliveries`), newest first, by endpoint, event and status. */
export function listDeliveryRows(
  db: Queryable,
  accountId: string,
  filters: { status?: string; endpoint?: string; event?: string },
  page: PageParams,
  cutoff: RetentionCutoff,
) {
  const equal: Array<[string, string]> = [];
  if (filters.endpoint) equal.push(['endpoint_id', filters.endpoint]);
  if (filters.event) equal.push(['event_id', filters.event]);
  if (filters.status) equal.push(['status', filters.status]);
  return fetchPage<DeliveryRow>(
    db,
    { table: 'webhook_deliveries', accountId, filters: equal, conditions: [listedDeliveries(db, filters, cutoff)] },
    page,
  );
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

/** The deliveries of an endpoint in a status, created (unix seconds) within the range, whose events the API still shows at `cutoff`. */
export function deliveriesToReplay(
  db: Queryable,
  accountId: string,
  endpointId: string,
  status: 'failed' | 'succeeded',
  created: { gte?: number; lte?: number },
  cutoff: RetentionCutoff,
): Promise<DeliveryRow[]> {
  const retained = retainedAt('webhook_deliveries', cutoff);
  return db.all<DeliveryRow>(
    `SELECT * FROM webhook_deliveries
     WHERE account_id = ? AND endpoint_id = ? AND status = ? AND created >= ? AND created <= ? AND ${retained.sql} ORDER BY seq`,
    [accountId, endpointId, status, created.gte ?? 0, created.lte ?? Number.MAX_SAFE_INTEGER, ...retained.params],
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
