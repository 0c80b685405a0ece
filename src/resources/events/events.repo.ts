import type { Queryable, SqlValue } from '../../db/database.js';
import { announcedInsert, inJsonArray } from '../../db/dialect.js';
import { encodeEventNotice } from './event-notification.js';
import { fetchPage, type PageParams } from '../shared/pagination.js';
import { listedAt, retainedAt, type RetentionCutoff } from './events.retention.js';

export interface EventRow {
  seq: number;
  id: string;
  account_id: string;
  type: string;
  api_version: string;
  request_id: string | null;
  idempotency_key: string | null;
  data: string;
  /** The id of `data.object` (NULL on events recorded before it was kept). */
  object_id: string | null;
  pending_webhooks: number;
  created: number;
}

const EVENT_COLUMNS = '(id, account_id, type, api_version, request_id, idempotency_key, data, object_id, pending_webhooks, created)';
const EVENT_VALUES = '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)';

/**
 * Inserts a change's events (in order, so their `seq` follows it) and, in the same statement,
 * announces them to live subscribers in every process (delivered when, and only if, the
 * transaction commits; see src/resources/events/event-notification.ts). Pipelined in a transaction.
 */
export async function insertEvents(db: Queryable, rows: readonly Omit<EventRow, 'seq'>[]): Promise<void> {
  const values = new Array<string>(rows.length).fill(EVENT_VALUES).join(', ');
  const params = rows.flatMap((row) => [
    row.id,
    row.account_id,
    row.type,
    row.api_version,
    row.request_id,
    row.idempotency_key,
    row.data,
    row.object_id,
    row.pending_webhooks,
    row.created,
  ]);
  const notices = rows.map((row) => encodeEventNotice({ accountId: row.account_id, eventId: row.id, type: row.type }));
  const announced = announcedInsert(db.dialect, `INSERT INTO events ${EVENT_COLUMNS} VALUES ${values}`, params, notices);
  await db.write(announced.sql, announced.params);
}

/** An event by id, if the API still shows it at `cutoff` (see {@link retainedAt}). */
export function findEvent(db: Queryable, accountId: string, id: string, cutoff: RetentionCutoff): Promise<EventRow | undefined> {
  const retained = retainedAt('events', cutoff);
  return db.one<EventRow>(`SELECT * FROM events WHERE account_id = ? AND id = ? AND ${retained.sql}`, [accountId, id, ...retained.params]);
}

/** The events about some objects (an object's timeline), oldest first, at most `limit`. */
export function findEventsOfObjects(
  db: Queryable,
  accountId: string,
  objectIds: readonly string[],
  limit: number,
): Promise<EventRow[]> {
  return db.all<EventRow>(
    `SELECT * FROM events WHERE account_id = ? AND ${inJsonArray(db.dialect, 'object_id')} ORDER BY seq ASC LIMIT ?`,
    [accountId, JSON.stringify(objectIds), limit],
  );
}

const DELIVERY_OF_EVENT = 'SELECT 1 FROM webhook_deliveries d WHERE d.account_id = events.account_id AND d.event_id = events.id';

/**
 * The events the API lists at `cutoff` (see {@link listedAt} and {@link retainedAt}), optionally of some types only (none at all for an
 * empty list), about one object, and optionally by the fate of their webhooks: `false`
 * keeps the events with a delivery that failed for good (the failed-webhooks view), `true` those
 * whose deliveries all succeeded.
 */
export function listEventRows(
  db: Queryable,
  accountId: string,
  filters: { types?: readonly string[]; objectId?: string; deliverySuccess?: boolean },
  page: PageParams,
  cutoff: RetentionCutoff,
) {
  const types = [...new Set(filters.types ?? [])];
  // One type is an equality, which seeks on `(account_id, type, seq)`; several are one parameter
  // (a JSON array), so that every number of types is the same prepared statement.
  // The failed-webhooks view shows the old events its failures keep; other lists, the retention period.
  const conditions: Array<{ sql: string; params: SqlValue[] }> = [
    filters.deliverySuccess === false ? retainedAt('events', cutoff) : listedAt(db, 'events', cutoff),
  ];
  if (types.length > 1) conditions.push({ sql: inJsonArray(db.dialect, 'type'), params: [JSON.stringify(types)] });
  if (filters.types?.length === 0) conditions.push({ sql: '1 = 0', params: [] });
  const equal: Array<[string, string]> = types.length === 1 ? [['type', types[0]]] : [];
  if (filters.objectId !== undefined) equal.push(['object_id', filters.objectId]);
  if (filters.deliverySuccess !== undefined) {
    conditions.push(
      filters.deliverySuccess
        ? { sql: `EXISTS (${DELIVERY_OF_EVENT}) AND NOT EXISTS (${DELIVERY_OF_EVENT} AND d.status <> 'succeeded')`, params: [] }
        : { sql: `EXISTS (${DELIVERY_OF_EVENT} AND d.status = 'failed')`, params: [] },
    );
  }
  return fetchPage<EventRow>(
    db,
    { table: 'events', accountId, filters: equal, conditions },
    page,
  );
}
