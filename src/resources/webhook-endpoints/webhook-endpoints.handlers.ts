import { ok, type Handlers, type Preflights } from '../../operations/operations.js';
import * as endpoints from './webhook-endpoints.service.js';

export const webhookEndpointHandlers = {
  listWebhookEndpoints: async ({ query, ctx }) => ok(await endpoints.listWebhookEndpoints(ctx, query)),
  createWebhookEndpoint: async ({ body, ctx }) => ok(await endpoints.createWebhookEndpoint(ctx, body)),
  retrieveWebhookEndpoint: async ({ path, ctx }) => ok(await endpoints.retrieveWebhookEndpoint(ctx, path.id)),
  updateWebhookEndpoint: async ({ path, body, ctx }) => ok(await endpoints.updateWebhookEndpoint(ctx, path.id, body)),
  updateWebhookEndpointByPost: async ({ path, body, ctx }) =>
    ok(await endpoints.updateWebhookEndpoint(ctx, path.id, body)),
  deleteWebhookEndpoint: async ({ path, ctx }) => ok(await endpoints.deleteWebhookEndpoint(ctx, path.id)),
  rotateWebhookEndpointSecret: async ({ path, body, ctx }) =>
    ok(await endpoints.rotateWebhookEndpointSecret(ctx, path.id, body)),
} satisfies Pick<
  Handlers,
  | 'listWebhookEndpoints'
  | 'createWebhookEndpoint'
  | 'retrieveWebhookEndpoint'
  | 'updateWebhookEndpoint'
  | 'updateWebhookEndpointByPost'
  | 'deleteWebhookEndpoint'
  | 'rotateWebhookEndpointSecret'
>;

/** A new or changed URL is checked, DNS included, before the write transaction opens. */
export const webhookEndpointPreflights = {
  createWebhookEndpoint: ({ body, ctx }) => endpoints.assertDeliverableUrl(ctx, body.url),
  updateWebhookEndpoint: async ({ body, ctx }) => {
    if (body.url !== undefined) await endpoints.assertDeliverableUrl(ctx, body.url);
  },
  updateWebhookEndpointByPost: async ({ body, ctx }) => {
    if (body.url !== undefined) await endpoints.assertDeliverableUrl(ctx, body.url);
  },
} satisfies Preflights;
