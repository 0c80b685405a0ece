import type { components } from '../../../generated/openapi.js';
import { parseMetadata } from '../shared/metadata.js';
import type { PaymentMethodRow } from './payment-methods.repo.js';

export type PaymentMethod = components['schemas']['PaymentMethod'];
export type BillingDetails = components['schemas']['BillingDetails'];
export type PaymentMethodCreateParams = components['schemas']['PaymentMethodCreateParams'];
export type PaymentMethodUpdateParams = components['schemas']['PaymentMethodUpdateParams'];
export type PaymentMethodAttachParams = components['schemas']['PaymentMethodAttachParams'];
export type PaymentMethodDetachParams = components['schemas']['PaymentMethodDetachParams'];

type CardCheck = components['schemas']['CardCheck'];
type CardBrand = components['schemas']['CardBrand'];

type PaymentMethodCard = components['schemas']['PaymentMethodCard'];

/** The card columns a payment method keeps, and a charge made with it copies. */
export type CardColumns = Pick<
  PaymentMethodRow,
  'card_brand' | 'card_last4' | 'card_exp_month' | 'card_exp_year' | 'card_fingerprint' | 'card_cvc_check'
>;

/** The billing details of a card given none. */
export const NO_BILLING_DETAILS: BillingDetails = { address: null, email: null, name: null, phone: null, tax_id: null };

/**
 * Billing details as kept (JSON): those written before `tax_id` existed lack it, so each field
 * missing from the text reads as not given.
 */
export function parseBillingDetails(json: string): BillingDetails {
  return { ...NO_BILLING_DETAILS, ...(JSON.parse(json) as Partial<BillingDetails>) };
}

/** A payment method's card as the API shows it (a charge's `payment_method_details.card` is made from it). */
export function toPaymentMethodCard(row: CardColumns): PaymentMethodCard {
  const brand = row.card_brand as CardBrand;
  return {
    brand,
    checks: { address_line1_check: null, address_postal_code_check: null, cvc_check: row.card_cvc_check as CardCheck },
    country: 'US',
    display_brand: brand,
    exp_month: row.card_exp_month,
    exp_year: row.card_exp_year,
    fingerprint: row.card_fingerprint,
    // Every test card is a US credit card that supports 3-D Secure, as the documented ones are.
    funding: 'credit',
    last4: row.card_last4,
    networks: { available: [brand], preferred: null },
    three_d_secure_usage: { supported: true },
    wallet: null,
  };
}

export function toPaymentMethodResource(row: Omit<PaymentMethodRow, 'seq'>): PaymentMethod {
  return {
    id: row.id,
    object: 'payment_method',
    created: row.created,
    livemode: false,
    billing_details: parseBillingDetails(row.billing_details),
    card: toPaymentMethodCard(row),
    customer: row.customer_id,
    customer_account: null,
    metadata: parseMetadata(row.metadata),
    type: 'card',
  };
}
