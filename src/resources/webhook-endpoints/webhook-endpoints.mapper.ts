import type { components } from '../../../generated/openapi.js';
import { parseMetadata } from '../shared/metadata.js';
import type { WebhookEndpointRow } from './webhook-endpoints.repo.js';

export type WebhookEndpoint = components['schemas']['WebhookEndpoint'];
export type WebhookEndpointCreateParams = components['schemas']['WebhookEndpointCreateParams'];
export type WebhookEndpointUpdateParams = components['schemas']['WebhookEndpointUpdateParams'];
export type WebhookSecretRotateParams = components['schemas']['WebhookSecretRotateParams'];
export type EnabledEvents = components['schemas']['EnabledEvents'];

/** The endpoint as the API shows it; the secret only when `withSecret` (create and rotate). */
export function toWebhookEndpointResource(row: WebhookEndpointRow, withSecret = false): WebhookEndpoint {
  const endpoint: WebhookEndpoint = {
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
  if (withSecret) endpoint.secret = row.secret;
  return endpoint;
}
