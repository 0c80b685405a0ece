export { createClient, type ClientCredentialOptions, type ClientOptions, type PaymentsClient } from './client.js';
export { TokenRequestError, type ClientCredentials, type SigningKey } from './credentials.js';
export { autoPaginate, PaymentsError, type PageFetcher } from './pagination.js';
export * from './generated/payments.js';
export { verifyWebhook, WebhookSignatureError, type VerifyOptions } from './webhooks.js';
export { createWebhookHandler, memorySeenEventStore, type SeenEventStore, type WebhookHandlerOptions } from './webhook-handler.js';
