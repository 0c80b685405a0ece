import type { components } from '../../../generated/openapi.js';
import type { Queryable } from '../../db/database.js';
import { parseMetadata } from '../shared/metadata.js';
import { parseJsonOrNull, type Shipping } from '../shared/shipping.js';
import type { ChargeRow } from './charges.repo.js';
import { firstRefundsOfCharges, type RefundRow } from './refunds.repo.js';
import { toRefundResource } from './refunds.mapper.js';
import { receiptUrl } from './receipts.js';
import { toChargeCard, toChargeOutcome } from './charge-details.js';
import { NO_BILLING_DETAILS, parseBillingDetails } from './payment-methods.mapper.js';

export type Charge = components['schemas']['Charge'];
export type ChargeCreateParams = components['schemas']['ChargeCreateParams'];
export type ChargeUpdateParams = components['schemas']['ChargeUpdateParams'];
export type ChargeCaptureParams = components['schemas']['ChargeCaptureParams'];
/** The card a charge was made with, as its `payment_method_details` show it. */
export type ChargeCard = Charge['payment_method_details']['card'];
/** What came of a charge, as its `outcome` shows it. */
export type ChargeOutcome = Charge['outcome'];

/** A charge's first page of refunds (newest first), as its `refunds` list shows them. */
interface ChargeRefundsPage {
  rows: RefundRow[];
  hasMore: boolean;
}

/** The page of a charge that has no refunds: nothing to read for most charges. */
const NO_REFUNDS: ChargeRefundsPage = { rows: [], hasMore: false };

/** The fields of features this server does not offer (Connect, Radar, balances, sources): always null. */
const NOT_OFFERED = {
  application: null,
  application_fee: null,
  application_fee_amount: null,
  balance_transaction: null,
  failure_balance_transaction: null,
  fraud_details: {},
  on_behalf_of: null,
  review: null,
  source: null,
  source_transfer: null,
  transfer_data: null,
  transfer_group: null,
} as const satisfies Partial<Charge>;

/** How many refunds a charge's `refunds` list embeds; the rest are at its `url`. */
const EMBEDDED_REFUNDS = 10;

/**
 * Charges as the API shows them, with their first refunds. Only a charge with something refunded
 * (or released) can have refunds, so most pages (and every charge just made) cost no statement,
 * and the others one statement for the whole page.
 */
export async function toCharges(
  db: Queryable,
  accountId: string,
  rows: readonly Omit<ChargeRow, 'seq'>[],
  origin: string,
): Promise<Charge[]> {
  const refunded = rows.filter((row) => row.amount_refunded > 0).map((row) => row.id);
  const pages = refunded.length === 0 ? [] : await firstRefundsOfCharges(db, accountId, refunded, EMBEDDED_REFUNDS);
  const refundsOf = new Map(refunded.map((id, i) => [id, pages[i]]));
  return rows.map((row) => toChargeResource(row, refundsOf.get(row.id) ?? NO_REFUNDS, origin));
}

/** One charge as the API shows it (see {@link toCharges}). */
export async function toCharge(db: Queryable, accountId: string, row: Omit<ChargeRow, 'seq'>, origin: string): Promise<Charge> {
  return (await toCharges(db, accountId, [row], origin))[0];
}

function toChargeResource(row: Omit<ChargeRow, 'seq'>, refunds: ChargeRefundsPage, origin: string): Charge {
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
    payment_method_details: { type: 'card', card: toChargeCard(row) },
    payment_method: row.payment_method_id,
    outcome: toChargeOutcome(row),
    // A charge made from a token carries none.
    billing_details: row.billing_details === null ? NO_BILLING_DETAILS : parseBillingDetails(row.billing_details),
    // This server has no disputes.
    disputed: false,
    receipt_email: row.receipt_email,
    receipt_number: row.receipt_number,
    receipt_url: row.receipt_token === null ? null : receiptUrl(origin, row.id, row.receipt_token),
    calculated_statement_descriptor: row.calculated_statement_descriptor,
    shipping: parseJsonOrNull<Shipping>(row.shipping),
    statement_descriptor: row.statement_descriptor,
    statement_descriptor_suffix: row.statement_descriptor_suffix,
    ...NOT_OFFERED,
  };
}
