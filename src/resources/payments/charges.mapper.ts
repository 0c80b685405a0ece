import type { components } from '../../../generated/openapi.js';
import type { RefundRow } from './refunds.repo.js';
import { toRefundResource } from './refunds.mapper.js';
import { parseMetadata } from '../shared/metadata.js';
import type { ChargeRow } from './charges.repo.js';

export type Charge = components['schemas']['Charge'];
export type ChargeCreateParams = components['schemas']['ChargeCreateParams'];
export type ChargeUpdateParams = components['schemas']['ChargeUpdateParams'];
export type ChargeCaptureParams = components['schemas']['ChargeCaptureParams'];

/** A charge's first page of refunds (newest first), as its `refunds` list shows them. */
export interface ChargeRefundsPage {
  rows: RefundRow[];
  hasMore: boolean;
}

/** The page of a charge that has no refunds: nothing to read for most charges. */
export const NO_REFUNDS: ChargeRefundsPage = { rows: [], hasMore: false };

/** How many refunds a charge's `refunds` list embeds; the rest are at its `url`. */
export const EMBEDDED_REFUNDS = 10;

export function toChargeResource(row: Omit<ChargeRow, 'seq'>, refunds: ChargeRefundsPage): Charge {
  return {
    id: row.id,
    object: 'charge',
    created: row.created,
    livemode: false,
    amount: row.amount,
    amount_captured: row.amount_captured,
    amount_refunded: row.amount_refunded,
    captured: row.amount_captured > 0,
    currency: row.currency,
    customer: row.customer_id,
    description: row.description,
    metadata: parseMetadata(row.metadata),
    paid: row.status === 'succeeded',
    payment_intent: row.payment_intent_id,
    refunded: row.status === 'succeeded' && row.amount_refunded === row.amount,
    refunds: {
      object: 'list',
      data: refunds.rows.map(toRefundResource),
      has_more: refunds.hasMore,
      url: `/v1/charges/${row.id}/refunds`,
    },
    status: row.status,
    failure_code: row.failure_code,
    failure_message: row.failure_message,
    payment_method_details: {
      type: 'card',
      card: { brand: row.card_brand as Charge['payment_method_details']['card']['brand'], last4: row.card_last4 },
    },
  };
}
