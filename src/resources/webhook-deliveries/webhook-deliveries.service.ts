import { notFound } from '../../domain/errors.js';
import type { RequestContext } from '../../operations/operations.js';
import {
  deliveriesToReplay,
  findDelivery,
  listAttempts,
  listDeliveryRows,
  requeueDelivery,
} from './webhook-deliveries.repo.js';
import { findWebhookEndpoint } from '../webhook-endpoints/webhook-endpoints.repo.js';
import { listOf, type PageParams } from '../shared/pagination.js';
import { requestCutoff } from '../events/events.retention.js';
import { readMayLag } from '../shared/replica-reads.js';
import { allParamsRead } from '../shared/params.js';
import {
  toWebhookDeliveryResource,
  type WebhookDelivery,
  type WebhookReplayParams,
  type WebhookRetryParams,
} from './webhook-deliveries.mapper.js';

export async function listWebhookDeliveries(
  ctx: RequestContext,
  query: PageParams & { status?: string; endpoint?: string; event?: string },
) {
  const page = await readMayLag(ctx, (db) => listDeliveryRows(db, ctx.accountId, query, query, requestCutoff(ctx)));
  return listOf('/v1/webhook_deliveries', page, (row) => toWebhookDeliveryResource(row));
}

export async function retrieveWebhookDelivery(ctx: RequestContext, id: string): Promise<WebhookDelivery> {
  const row = await findDelivery(ctx.db, ctx.accountId, id, requestCutoff(ctx));
  if (!row) throw notFound('webhook delivery', id);
  return toWebhookDeliveryResource(row, await listAttempts(ctx.db, row.id));
}

/** Manual replay of one delivery: one more attempt, due now, recorded as manual. */
export async function retryWebhookDelivery(ctx: RequestContext, id: string, params: WebhookRetryParams): Promise<WebhookDelivery> {
  const { ...unread } = params;
  allParamsRead(unread);
  const row = await findDelivery(ctx.db, ctx.accountId, id, requestCutoff(ctx));
  if (!row) throw notFound('webhook delivery', id);
  return toWebhookDeliveryResource(await requeueDelivery(ctx.db, row, ctx.clock.nowMs()));
}

/** Bulk replay: every delivery of the endpoint in the range and status, or only their count. */
export async function replayWebhookEndpoint(ctx: RequestContext, endpointId: string, params: WebhookReplayParams) {
  const { created, status, dry_run: dryRun = false, ...unread } = params;
  allParamsRead(unread);
  if (!(await findWebhookEndpoint(ctx.db, ctx.accountId, endpointId))) throw notFound('webhook endpoint', endpointId);
  const deliveries = await deliveriesToReplay(ctx.db, ctx.accountId, endpointId, status ?? 'failed', created ?? {}, requestCutoff(ctx));
  if (!dryRun) {
    const nowMs = ctx.clock.nowMs();
    for (const delivery of deliveries) await requeueDelivery(ctx.db, delivery, nowMs);
  }
  return { object: 'webhook_replay' as const, count: deliveries.length, dry_run: dryRun };
}
