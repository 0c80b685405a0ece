import type { Queryable } from '../../db/database.js';
import { newId } from '../../domain/ids.js';

/** Which of an account's enabled endpoints an event type goes to (`*` subscribes to all). */
export type Subscriptions = (type: string) => string[];

/**
 * The account's enabled endpoints and what each subscribes to, read in one statement however many
 * events a change records.
 */
export async function readSubscriptions(db: Queryable, accountId: string): Promise<Subscriptions> {
  const endpoints = (
    await db.all<{ id: string; enabled_events: string }>(
      "SELECT id, enabled_events FROM webhook_endpoints WHERE account_id = ? AND status = 'enabled'",
      [accountId],
    )
  ).map((endpoint) => ({ id: endpoint.id, events: JSON.parse(endpoint.enabled_events) as string[] }));
  return (type) =>
    endpoints.filter((endpoint) => endpoint.events.includes('*') || endpoint.events.includes(type)).map((endpoint) => endpoint.id);
}

/**
 * The transactional outbox: one pending delivery per subscribed endpoint, written on the same
 * connection (so in the same transaction) as the event. If the process dies right after the
 * commit, the worker still finds them; a request never waits on delivery.
 */
export async function enqueueDeliveries(
  db: Queryable,
  event: { id: string; accountId: string; created: number },
  endpointIds: readonly string[],
  nowMs: number,
): Promise<void> {
  for (const endpointId of endpointIds) {
    await insertDelivery(db, {
      id: newId('webhookDelivery'),
      account_id: event.accountId,
      event_id: event.id,
      endpoint_id: endpointId,
      next_attempt_at: nowMs,
      created: event.created,
    });
  }
}

/** Inserts a pending delivery (pipelined in a transaction). */
async function insertDelivery(
  db: Queryable,
  row: { id: string; account_id: string; event_id: string; endpoint_id: string; next_attempt_at: number; created: number },
): Promise<void> {
  await db.write(
    `INSERT INTO webhook_deliveries (id, account_id, event_id, endpoint_id, status, attempts, next_attempt_at, created)
     VALUES (?, ?, ?, ?, 'pending', 0, ?, ?)`,
    [row.id, row.account_id, row.event_id, row.endpoint_id, row.next_attempt_at, row.created],
  );
}
