import type { components } from '../../../generated/openapi.js';
import { parseMetadata } from '../shared/metadata.js';
import type { RefundRow } from './refunds.repo.js';

export type Refund = components['schemas']['Refund'];
export type RefundCreateParams = components['schemas']['RefundCreateParams'];
export type RefundUpdateParams = components['schemas']['RefundUpdateParams'];

export function toRefundResource(row: RefundRow): Refund {
  return {
    id: row.id,
    object: 'refund',
    created: row.created,
    livemode: false,
    amount: row.amount,
    charge: row.charge_id,
    currency: row.currency,
    customer: row.customer_id,
    customer_account: null,
    payment_intent: row.payment_intent_id,
    payment_method: row.payment_method_id,
    reason: row.reason as Refund['reason'],
    status: row.status,
    metadata: parseMetadata(row.metadata),
    balance_transaction: null,
    receipt_number: null,
    source_transfer_reversal: null,
    transfer_reversal: null,
  };
}
