/**
 * What a charge shows of how it was paid, as the widely used payments API shows it: the card as
 * its payment method showed it, and the outcome its test card gives. Tests compare whole objects
 * with these, so a field gained or lost is noticed.
 */

/** A payment method's card (or the part of it a test knows), as the API shows it. */
interface PaymentMethodCardFields {
  brand: string;
  exp_month: number;
  exp_year: number;
  last4: string;
  fingerprint: string;
  checks?: {
    address_line1_check: string | null;
    address_postal_code_check: string | null;
    cvc_check: string | null;
  };
  amount_authorized: number | null;
}

/** A charge's `payment_method_details.card` made with this card, without 3-D Secure. */
export function documentedCard(card: PaymentMethodCardFields): Record<string, unknown> {
  return {
    amount_authorized: card.amount_authorized,
    authorization_code: null,
    brand: card.brand,
    checks: card.checks ?? null,
    country: 'US',
    electronic_commerce_indicator: null,
    exp_month: card.exp_month,
    exp_year: card.exp_year,
    fingerprint: card.fingerprint,
    funding: 'credit',
    installments: null,
    last4: card.last4,
    mandate: null,
    network: card.brand,
    network_transaction_id: null,
    regulated_status: 'unregulated',
    three_d_secure: null,
    transaction_link_id: null,
    wallet: null,
  };
}

const UNADVISED = {
  advice_code: null,
  network_advice_code: null,
  network_decline_code: null,
  risk_level: 'normal',
};

/** The outcome of a paid charge. */
export const APPROVED = {
  ...UNADVISED,
  network_status: 'approved_by_network',
  reason: null,
  seller_message: 'Payment complete.',
  type: 'authorized',
};

/** The outcome of a charge the issuer declined with this decline code. */
export function declined(reason: string, sellerMessage: string): Record<string, unknown> {
  return {
    ...UNADVISED,
    network_status: 'declined_by_network',
    reason,
    seller_message: sellerMessage,
    type: 'issuer_declined',
  };
}
