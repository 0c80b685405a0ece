import type { components } from '../../../generated/openapi.js';
import type { EventRow } from './events.repo.js';

/** An event as the API shows it: the spec's union of every kind, told apart by `type`. */
export type Event = components['schemas']['Event'];
export type EventType = components['schemas']['EventType'];

/** What an event row stores as `data`: the object right after the change, and what changed. */
export interface StoredEventData {
  object: { id: string; object: string };
  previous_attributes?: Record<string, unknown>;
}

/**
 * The event of a row. Its `data` is what the service recorded for the row's type (recordEvents
 * takes each type's object), so the result is the union's member for that type; the suite checks
 * every event it sees against the spec's kinds.
 */
export function toEventResource(row: EventRow): Event {
  const event = {
    id: row.id,
    object: 'event',
    created: row.created,
    livemode: false,
    type: row.type as EventType,
    api_version: row.api_version,
    pending_webhooks: row.pending_webhooks,
    request: { id: row.request_id, idempotency_key: row.idempotency_key },
    data: JSON.parse(row.data) as StoredEventData,
  };
  return event as Event;
}
