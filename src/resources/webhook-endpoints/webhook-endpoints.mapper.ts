import type { components } from '../../../generated/openapi.js';
import { parseMetadata } from '../shared/metadata.js';
import type { WebhookEndpointRow } from './webhook-endpoints.repo.js';

export type WebhookEndpoint = components['schemas']['WebhookEndpoint'];
export type WebhookEndpointWithSecret = components['schemas']['WebhookEndpointWithSecret'];
export type WebhookEndpointCreateParams = components['schemas']['WebhookEndpointCreateParams'];
export type WebhookEndpointUpdateParams = components['schemas']['WebhookEndpointUpdateParams'];
export type WebhookSecretRotateParams = components['schemas']['WebhookSecretRotateParams'];
export type EnabledEvents = components['schemas']['EnabledEvents'];
export type SignatureHeaderAliases = components['schemas']['SignatureHeaderAliases'];

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
    signature_header_aliases: parseSignatureHeaderAliases(row.signature_header_aliases),
    api_version: row.api_version,
    application: null,
  };
}

/** The stored `signature_header_aliases` (a JSON array, or null for the server's default). */
export function parseSignatureHeaderAliases(stored: string | null): SignatureHeaderAliases {
  return stored === null ? null : (JSON.parse(stored) as NonNullable<SignatureHeaderAliases>);
}

/** `signature_header_aliases` as stored. */
export function serializeSignatureHeaderAliases(aliases: SignatureHeaderAliases): string | null {
  return aliases === null ? null : JSON.stringify(aliases);
}

/**
 * The endpoint with its signing secret (`secret`, as generated: the row holds it sealed), which only
 * the answers to create and rotate_secret show.
 */
export function toWebhookEndpointWithSecret(row: WebhookEndpointRow, secret: string): WebhookEndpointWithSecret {
  return { ...toWebhookEndpointResource(row), secret };
}
