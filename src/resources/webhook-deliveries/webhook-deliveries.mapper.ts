import type { components } from '../../../generated/openapi.js';
import type { AttemptRow, DeliveryRow } from './webhook-deliveries.repo.js';

export type WebhookDelivery = components['schemas']['WebhookDelivery'];
export type WebhookAttempt = components['schemas']['WebhookAttempt'];
export type WebhookReplayParams = components['schemas']['WebhookReplayParams'];
export type WebhookRetryParams = components['schemas']['WebhookRetryParams'];

export function toWebhookDeliveryResource(row: DeliveryRow, attempts?: AttemptRow[]): WebhookDelivery {
  const delivery: WebhookDelivery = {
    id: row.id,
    object: 'webhook_delivery',
    created: row.created,
    livemode: false,
    event: row.event_id,
    endpoint: row.endpoint_id,
    status: row.status,
    attempt_count: row.attempts,
    last_response_status: row.last_response_status,
    last_error: row.last_error,
    next_attempt_at: row.status === 'pending' ? Math.ceil(Number(row.next_attempt_at) / 1000) : null,
  };
  if (attempts) delivery.attempts = attempts.map(toWebhookAttemptResource);
  return delivery;
}

function toWebhookAttemptResource(row: AttemptRow): WebhookAttempt {
  return {
    created: Number(row.started_at),
    duration_ms: row.duration_ms,
    response_status: row.response_status,
    response_body: row.response_body,
    error: row.error,
    manual: row.manual,
  };
}
