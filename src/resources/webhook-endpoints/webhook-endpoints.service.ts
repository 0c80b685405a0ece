import { unixSeconds } from '../../domain/clock.js';
import { ApiError, notFound } from '../../domain/errors.js';
import { newId, randomBase62 } from '../../domain/ids.js';
import type { RequestContext } from '../../operations/operations.js';
import { registrationLookup } from './registration-lookup.js';
import { checkWebhookUrl } from './ssrf.js';
import { initialMetadata, updatedMetadata } from '../shared/metadata.js';
import { allParamsRead } from '../shared/params.js';
import { listOf, type PageParams } from '../shared/pagination.js';
import { readMayLag } from '../shared/replica-reads.js';
import { placeOf, WEBHOOK_PREVIOUS_SECRET, WEBHOOK_SECRET } from '../shared/sealed-secrets.js';
import {
  deleteWebhookEndpointRow,
  findWebhookEndpoint,
  insertWebhookEndpoint,
  listWebhookEndpointRows,
  rotateSecretRow,
  updateWebhookEndpointRow,
  type WebhookEndpointRow,
} from './webhook-endpoints.repo.js';
import {
  serializeSignatureHeaderAliases,
  toWebhookEndpointResource,
  toWebhookEndpointWithSecret,
  type EnabledEvents,
  type WebhookEndpoint,
  type WebhookEndpointCreateParams,
  type WebhookEndpointUpdateParams,
  type WebhookEndpointWithSecret,
  type WebhookSecretRotateParams,
} from './webhook-endpoints.mapper.js';

/** How long an old secret keeps signing after a rotation, unless the request says otherwise. */
const DEFAULT_SECRET_OVERLAP_SECONDS = 86_400;

/** A new signing secret, `whsec_` and 32 random base62 characters. */
export function generateWebhookSecret(): string {
  return `whsec_${randomBase62(32)}`;
}

export async function createWebhookEndpoint(
  ctx: RequestContext,
  params: WebhookEndpointCreateParams,
): Promise<WebhookEndpointWithSecret> {
  const { url, enabled_events, description, metadata, signature_header_aliases, api_version, ...unread } = params;
  allParamsRead(unread);
  const id = newId('webhookEndpoint');
  const secret = generateWebhookSecret();
  const row = await insertWebhookEndpoint(ctx.db, {
    id,
    account_id: ctx.accountId,
    url,
    description: description ?? null,
    enabled_events: serializeEvents(enabled_events),
    status: 'enabled',
    metadata: initialMetadata(metadata),
    signature_header_aliases: serializeSignatureHeaderAliases(signature_header_aliases ?? null),
    secret: ctx.secrets.seal(secret, placeOf(WEBHOOK_SECRET, id)),
    previous_secret: null,
    previous_secret_expires_at: null,
    api_version: api_version ?? null,
    created: unixSeconds(ctx.clock),
  });
  return toWebhookEndpointWithSecret(row, secret);
}

async function requireEndpoint(ctx: RequestContext, id: string): Promise<WebhookEndpointRow> {
  const row = await findWebhookEndpoint(ctx.db, ctx.accountId, id);
  if (!row) throw notFound('webhook endpoint', id);
  return row;
}

export async function retrieveWebhookEndpoint(ctx: RequestContext, id: string): Promise<WebhookEndpoint> {
  return toWebhookEndpointResource(await requireEndpoint(ctx, id));
}

export async function updateWebhookEndpoint(
  ctx: RequestContext,
  id: string,
  params: WebhookEndpointUpdateParams,
): Promise<WebhookEndpoint> {
  const { url, enabled_events, description, disabled, metadata, signature_header_aliases, ...unread } = params;
  allParamsRead(unread);
  const current = await requireEndpoint(ctx, id);
  const updated = await updateWebhookEndpointRow(ctx.db, ctx.accountId, id, {
    url: url ?? current.url,
    description: description === undefined ? current.description : description,
    enabled_events: enabled_events ? serializeEvents(enabled_events) : current.enabled_events,
    status: disabled === undefined ? current.status : disabled ? 'disabled' : 'enabled',
    metadata: updatedMetadata(current.metadata, metadata),
    signature_header_aliases:
      signature_header_aliases === undefined ? current.signature_header_aliases : serializeSignatureHeaderAliases(signature_header_aliases),
  });
  if (!updated) throw notFound('webhook endpoint', id);
  return toWebhookEndpointResource(updated);
}

/**
 * Issues a new secret. The old one keeps signing for `expires_in` seconds, so that a consumer can
 * deploy the new secret while deliveries still verify with the old one.
 */
export async function rotateWebhookEndpointSecret(
  ctx: RequestContext,
  id: string,
  params: WebhookSecretRotateParams,
): Promise<WebhookEndpointWithSecret> {
  const { expires_in: expiresIn = DEFAULT_SECRET_OVERLAP_SECONDS, ...unread } = params;
  allParamsRead(unread);
  const current = await requireEndpoint(ctx, id);
  const secret = generateWebhookSecret();
  // Sealed values are bound to their column: the old secret is sealed again as the previous one.
  const previous = expiresIn > 0 ? ctx.secrets.open(current.secret, placeOf(WEBHOOK_SECRET, id)) : null;
  const rotated = await rotateSecretRow(ctx.db, ctx.accountId, id, {
    secret: ctx.secrets.seal(secret, placeOf(WEBHOOK_SECRET, id)),
    previous_secret: previous === null ? null : ctx.secrets.seal(previous, placeOf(WEBHOOK_PREVIOUS_SECRET, id)),
    previous_secret_expires_at: expiresIn > 0 ? ctx.clock.nowMs() + expiresIn * 1000 : null,
  });
  if (!rotated) throw notFound('webhook endpoint', id);
  return toWebhookEndpointWithSecret(rotated, secret);
}

export async function deleteWebhookEndpoint(ctx: RequestContext, id: string) {
  if (!(await deleteWebhookEndpointRow(ctx.db, ctx.accountId, id))) throw notFound('webhook endpoint', id);
  return { id, object: 'webhook_endpoint' as const, deleted: true as const };
}

export async function listWebhookEndpoints(ctx: RequestContext, query: PageParams) {
  const page = await readMayLag(ctx, (db) => listWebhookEndpointRows(db, ctx.accountId, query));
  return listOf('/v1/webhook_endpoints', page, toWebhookEndpointResource);
}

/**
 * Refuses a URL on loopback or private space, as written or as its name resolves now (see
 * ssrf.ts), asking DNS through registration's own resolver (registration-lookup.ts). It may wait
 * on DNS, so the handlers run it before the transaction (`Preflight`).
 */
export async function assertDeliverableUrl(ctx: Pick<RequestContext, 'settings'>, url: string): Promise<void> {
  const { webhookAllowPrivateNetworks, webhookDnsServers } = ctx.settings;
  const problem = await checkWebhookUrl(url, webhookAllowPrivateNetworks, registrationLookup(webhookDnsServers));
  if (problem) throw new ApiError('parameter_invalid', `Invalid url: the webhook URL ${problem}.`, { param: 'url' });
}

/** `*` stands for every event type and cannot be combined with named ones. */
function serializeEvents(events: EnabledEvents): string {
  if (events.includes('*') && events.length > 1) {
    throw new ApiError('parameter_invalid', "Invalid enabled_events: '*' cannot be combined with event types.", {
      param: 'enabled_events',
    });
  }
  return JSON.stringify(events);
}
