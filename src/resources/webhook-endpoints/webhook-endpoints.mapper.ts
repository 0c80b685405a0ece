import type { components } from '../../../generated/openapi.js';
import { parseMetadata } from '../shared/metadata.js';
import type { WebhookEndpointRow } from './webhook-endpoints.repo.js';

export type WebhookEndpoint = components['schemas']['WebhookEndpoint'];
export type WebhookEndpointWithSecret = components['schemas']['WebhookEndpointWithSecret'];
export type WebhookEndpointCreateParams = components['schemas']['WebhookEndpointCreateParams'];
export type WebhookEndpointUpdateParams = components['schemas']['WebhookEndpointUpdateParams'];
export type WebhookSecretRotateParams = components['schemas']['WebhookSecretRotateParams'];
export type EnabledEvents = components['schemas']['EnabledEvents'];

/** The endpoint as the API shows it, without its secret. */
export function toWebhookEndpointResource(row: WebhookEndpointRow): WebhookEndpoint {
  return {
    id: row.id,
    object: 'webhook_endpoint',
    created: row.created,
    livemode: false,
    url: row.url,
    description: row.description,
    enabled_events: JSON.parse(row.enabled_events) as EnabledEvents,
    status: row.status,
    metadata: parseMetadata(row.metadata),
  };
}

/**
 * The endpoint with its signing secret (`secret`, as generated: the row holds it sealed), which only
 * the answers to create and rotate_secret show.
 */
export function toWebhookEndpointWithSecret(row: WebhookEndpointRow, secret: string): WebhookEndpointWithSecret {
  return { ...toWebhookEndpointResource(row), secret };
}
