import type { components } from '../../../generated/openapi.js';
import { parseMetadata } from '../shared/metadata.js';
import type { ChargeRow } from './charges.repo.js';

export type Charge = components['schemas']['Charge'];
export type ChargeCreateParams = components['schemas']['ChargeCreateParams'];
export type ChargeUpdateParams = components['schemas']['ChargeUpdateParams'];
export type PaymentIntent = components['schemas']['PaymentIntent'];

export function toChargeResource(row: ChargeRow): Charge {
  return {
    id: row.id,
    object: 'charge',
    created: row.created,
    livemode: false,
    amount: row.amount,
    amount_refunded: row.amount_refunded,
    currency: row.currency,
    customer: row.customer_id,
    description: row.description,
    metadata: parseMetadata(row.metadata),
    paid: row.status === 'succeeded',
    refunded: row.status === 'succeeded' && row.amount_refunded === row.amount,
    status: row.status,
    failure_code: row.failure_code,
    failure_message: row.failure_message,
    payment_method_details: {
      type: 'card',
      card: { brand: row.card_brand as Charge['payment_method_details']['card']['brand'], last4: row.card_last4 },
    },
  };
}

/**
 * The payment a succeeded charge completes, as `payment_intent.succeeded` carries it. Payment
 * intents are not stored (no endpoint serves them), so the caller gives each one a new id.
 */
export function toPaymentIntent(row: ChargeRow, id: string): PaymentIntent {
  return {
    id,
    object: 'payment_intent',
    amount: row.amount,
    currency: row.currency,
    customer: row.customer_id,
    latest_charge: row.id,
    status: 'succeeded',
  };
}
