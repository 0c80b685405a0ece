import type { webhooks } from '../../../generated/openapi.js';
import { unixSeconds } from '../../domain/clock.js';
import { notFound } from '../../domain/errors.js';
import { newId } from '../../domain/ids.js';
import { enqueueDeliveries, readSubscriptions } from './outbox.js';
import type { RequestContext } from '../../operations/operations.js';
import { listOf, type PageParams } from '../shared/pagination.js';
import { readMayLag } from '../shared/replica-reads.js';
import { findEvent, insertEvents, listEventRows } from './events.repo.js';
import { DEFAULT_EVENT_RETENTION_DAYS, requestCutoff } from './events.retention.js';
import { toEventResource, type Event, type EventType, type StoredEventData } from './events.mapper.js';

/** The API version stamped on every event. */
export const API_VERSION = '2026-11-01';

/**
 * The event the spec's `webhooks:` section says is delivered for an event type (an `EventType`
 * without a webhook there does not compile).
 */
type WebhookEvent<T extends EventType> = webhooks[T]['post']['requestBody']['content']['application/json'];

/** The `data` of an event type, as the spec types it. */
type EventData<T extends EventType> = WebhookEvent<T>['data'];

/**
 * The object an event of each type carries (`data.object`), as the spec's schema for it: what
 * {@link recordEvent} must be given for that type (e.g. `Charge` for `charge.succeeded`,
 * `PaymentIntent` for `payment_intent.succeeded`).
 */
export type EventObjects = { [T in EventType]: EventData<T>['object'] };

/** `previous_attributes` for the types whose schema has it (`*.updated`, `charge.refunded`); `never` for the rest. */
export type PreviousAttributes<T extends EventType> = 'previous_attributes' extends keyof EventData<T>
  ? EventData<T> extends { previous_attributes?: infer P }
    ? P
    : never
  : never;

/** One event a change records: its type, the object as it is now, and for updates what changed. */
export type EventRecord<T extends EventType = EventType> = {
  [K in T]: { type: K; object: EventObjects[K]; previousAttributes?: PreviousAttributes<K> };
}[T];

/**
 * What recording an event needs: a request's context, or the worker's for a change it makes itself
 * (an expired authorisation), which has no request (`request.id` null on its events).
 */
export type EventContext = Pick<RequestContext, 'accountId' | 'db' | 'clock' | 'idempotencyKey' | 'settings'> & {
  requestId: string | null;
};

/**
 * Records an event for a change, with its webhook deliveries (the outbox), on the same connection
 * (so in the same transaction) as the change itself: an event exists if and only if its change
 * was committed, and so do its deliveries.
 */
export function recordEvent<T extends EventType>(
  ctx: EventContext,
  type: T,
  object: EventObjects[T],
  previousAttributes?: PreviousAttributes<T>,
): Promise<void> {
  return recordEvents<T>(ctx, [{ type, object, previousAttributes }]);
}

/**
 * Records the events of one change, in order, as {@link recordEvent} does; the subscribed endpoints
 * are read once and the events inserted in one statement, whatever their number.
 */
export async function recordEvents<T extends EventType>(
  ctx: EventContext,
  events: readonly EventRecord<T>[],
): Promise<void> {
  const subscribers = await readSubscriptions(ctx.db, ctx.accountId);
  const created = unixSeconds(ctx.clock);
  const recorded = events.map(({ type, object, previousAttributes }) => {
    const data: StoredEventData = previousAttributes
      ? { object, previous_attributes: previousAttributes }
      : { object };
    const endpointIds = subscribers(type);
    const row = {
      id: newId('event'),
      account_id: ctx.accountId,
      type,
      api_version: API_VERSION,
      request_id: ctx.requestId,
      idempotency_key: ctx.idempotencyKey,
      data: JSON.stringify(data),
      object_id: object.id,
      pending_webhooks: endpointIds.length,
      created,
    };
    return { row, endpointIds };
  });
  // Live subscribers in every process learn of them when (and only if) this transaction commits.
  await insertEvents(ctx.db, recorded.map(({ row }) => row));
  const nowMs = ctx.clock.nowMs();
  for (const { row, endpointIds } of recorded) {
    await enqueueDeliveries(ctx.db, { id: row.id, accountId: ctx.accountId, created }, endpointIds, nowMs);
  }
}

/**
 * An event by id. A missing one is the usual `resource_missing` 404, whose message says how long
 * events are kept: an id that existed may simply have passed its retention.
 */
export async function retrieveEvent(ctx: RequestContext, id: string): Promise<Event> {
  // On the replica; one it has not replayed yet is read again on the primary (a webhook consumer
  // retrieves the event it was just sent).
  const row = await readMayLag(ctx, async (db) => {
    const found = await findEvent(db, ctx.accountId, id, requestCutoff(ctx));
    if (!found) {
      const days = ctx.settings.eventRetentionDays ?? DEFAULT_EVENT_RETENTION_DAYS;
      throw notFound('event', id, 'id', `events are retrievable for ${days} days.`);
    }
    return found;
  });
  return toEventResource(row);
}

/**
 * A page of events, of one `type` or of some `types` (both: each must hold), about one object
 * (`object_id`: a payment intent's timeline), and by the fate of their webhooks (`delivery_success`).
 */
export async function listEvents(
  ctx: RequestContext,
  query: PageParams & { type?: EventType; types?: EventType[]; object_id?: string; delivery_success?: boolean },
) {
  let types = query.types ?? (query.type === undefined ? undefined : [query.type]);
  if (query.type !== undefined && query.types !== undefined) types = query.types.includes(query.type) ? [query.type] : [];
  const filters = { types, objectId: query.object_id, deliverySuccess: query.delivery_success };
  const page = await readMayLag(ctx, (db) => listEventRows(db, ctx.accountId, filters, query, requestCutoff(ctx)));
  return listOf('/v1/events', page, toEventResource);
}
