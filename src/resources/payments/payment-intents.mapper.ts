import type { components } from '../../../generated/openapi.js';
import { parseMetadata } from '../shared/metadata.js';
import type { PaymentIntentRow } from './payment-intents.repo.js';

export type PaymentIntent = components['schemas']['PaymentIntent'];
export type PaymentError = components['schemas']['PaymentError'];
export type PaymentIntentCreateParams = components['schemas']['PaymentIntentCreateParams'];
export type PaymentIntentUpdateParams = components['schemas']['PaymentIntentUpdateParams'];
export type PaymentIntentConfirmParams = components['schemas']['PaymentIntentConfirmParams'];
export type PaymentIntentCaptureParams = components['schemas']['PaymentIntentCaptureParams'];
export type PaymentIntentCancelParams = components['schemas']['PaymentIntentCancelParams'];
export type PaymentIntentAuthenticateParams = components['schemas']['PaymentIntentAuthenticateParams'];

/** The test helper that completes (or fails) an intent's customer action. */
export function authenticationPath(id: string): string {
  return `/v1/test_helpers/payment_intents/${id}/authenticate`;
}

export function toPaymentIntentResource(row: Omit<PaymentIntentRow, 'seq'>): PaymentIntent {
  return {
    id: row.id,
    object: 'payment_intent',
    created: row.created,
    livemode: false,
    amount: row.amount,
    amount_capturable: row.amount_capturable,
    amount_received: row.amount_received,
    canceled_at: row.canceled_at,
    cancellation_reason: row.cancellation_reason as PaymentIntent['cancellation_reason'],
    capture_method: row.capture_method,
    currency: row.currency,
    customer: row.customer_id,
    description: row.description,
    last_payment_error: row.last_payment_error === null ? null : (JSON.parse(row.last_payment_error) as PaymentError),
    latest_charge: row.latest_charge_id,
    metadata: parseMetadata(row.metadata),
    next_action:
      row.status === 'requires_action' ? { type: 'authenticate', authenticate: { url: authenticationPath(row.id) } } : null,
    payment_method: row.payment_method,
    setup_future_usage: row.setup_future_usage,
    status: row.status,
  };
}
