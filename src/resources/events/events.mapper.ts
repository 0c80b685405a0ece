import type { components } from '../../../generated/openapi.js';
import type { EventRow } from './events.repo.js';

export type Event = components['schemas']['Event'];
export type EventType = components['schemas']['EventType'];

export function toEventResource(row: EventRow): Event {
  return {
    id: row.id,
    object: 'event',
    created: row.created,
    livemode: false,
    type: row.type as EventType,
    api_version: row.api_version,
    pending_webhooks: row.pending_webhooks,
    request: { id: row.request_id, idempotency_key: row.idempotency_key },
    data: JSON.parse(row.data) as Event['data'],
  };
}
