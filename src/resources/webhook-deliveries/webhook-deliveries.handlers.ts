import { ok, type Handlers } from '../../operations/operations.js';
import * as deliveries from './webhook-deliveries.service.js';

export const webhookDeliveryHandlers = {
  listWebhookDeliveries: async ({ query, ctx }) => ok(await deliveries.listWebhookDeliveries(ctx, query)),
  retrieveWebhookDelivery: async ({ path, ctx }) => ok(await deliveries.retrieveWebhookDelivery(ctx, path.id)),
  retryWebhookDelivery: async ({ path, body, ctx }) => ok(await deliveries.retryWebhookDelivery(ctx, path.id, body)),
  replayWebhookEndpoint: async ({ path, body, ctx }) => ok(await deliveries.replayWebhookEndpoint(ctx, path.id, body)),
} satisfies Pick<
  Handlers,
  'listWebhookDeliveries' | 'retrieveWebhookDelivery' | 'retryWebhookDelivery' | 'replayWebhookEndpoint'
>;
