import { unixSeconds } from '../../domain/clock.js';
import { notFound } from '../../domain/errors.js';
import { newId } from '../../domain/ids.js';
import { enqueueDeliveries, readSubscriptions } from '../webhook-deliveries/outbox.js';
import type { RequestContext } from '../../operations/operations.js';
import { listOf, type PageParams } from '../shared/pagination.js';
import { findEvent, insertEvents, listEventRows } from './events.repo.js';
import { toEventResource, type Event, type EventType } from './events.mapper.js';

/** The API version stamped on every event. */
export const API_VERSION = '2026-11-01';

/** One event a change records: its type, the object as it is now, and for updates what changed. */
export interface EventRecord {
  type: EventType;
  object: { id: string; object: string };
  previousAttributes?: object;
}

/**
 * Records an event for a change, with its webhook deliveries (the outbox), on the same connection
 * (so in the same transaction) as the change itself: an event exists if and only if its change
 * was committed, and so do its deliveries.
 */
export function recordEvent(
  ctx: RequestContext,
  type: EventType,
  object: EventRecord['object'],
  previousAttributes?: object,
): Promise<void> {
  return recordEvents(ctx, [{ type, object, previousAttributes }]);
}

/**
 * Records the events of one change, in order, as {@link recordEvent} does; the subscribed endpoints
 * are read once and the events inserted in one statement, whatever their number.
 */
export async function recordEvents(ctx: RequestContext, events: readonly EventRecord[]): Promise<void> {
  const subscribers = await readSubscriptions(ctx.db, ctx.accountId);
  const created = unixSeconds(ctx.clock);
  const recorded = events.map(({ type, object, previousAttributes }) => {
    const data: Event['data'] = previousAttributes
      ? { object, previous_attributes: previousAttributes as Record<string, unknown> }
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

export async function retrieveEvent(ctx: RequestContext, id: string): Promise<Event> {
  const row = await findEvent(ctx.db, ctx.accountId, id);
  if (!row) throw notFound('event', id);
  return toEventResource(row);
}

export async function listEvents(ctx: RequestContext, query: PageParams & { type?: EventType; delivery_success?: boolean }) {
  const page = await listEventRows(ctx.db, ctx.accountId, { type: query.type, deliverySuccess: query.delivery_success }, query);
  return listOf('/v1/events', page, toEventResource);
}
