/**
 * The SDK's Node entry, `@payments-api/sdk/node`: receiving webhooks, which needs `node:crypto`
 * (a synchronous HMAC) and `node:http`. Kept apart so that the main entry stays fetch-only and its
 * types compile without `@types/node`.
 */
export { verifyWebhook, WebhookSignatureError, type VerifyOptions } from './webhooks.js';
export {
  createWebhookHandler,
  memorySeenEventStore,
  type SeenEventStore,
  type WebhookHandlerOptions,
} from './webhook-handler.js';
export type { PaymentsEvent, PaymentsEventOf, PaymentsEventType } from './generated/events.js';
