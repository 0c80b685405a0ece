import type { components } from '../../../generated/openapi.js';
import type { ChargeRow } from './charges.repo.js';
import { toPaymentMethodCard } from './payment-methods.mapper.js';
import { testCardExpiry } from './test-sources.js';

type Charge = components['schemas']['Charge'];
type ChargeCard = Charge['payment_method_details']['card'];
type ChargeOutcome = components['schemas']['ChargeOutcome'];
type Eci = NonNullable<ChargeCard['electronic_commerce_indicator']>;

/** The charge columns its card and outcome are read from. */
export type ChargeDetailColumns = Pick<
  ChargeRow,
  | 'amount'
  | 'status'
  | 'created'
  | 'card_brand'
  | 'card_last4'
  | 'card_exp_month'
  | 'card_exp_year'
  | 'card_fingerprint'
  | 'card_cvc_check'
  | 'payment_method_id'
  | 'decline_code'
  | 'three_d_secure_authenticated'
>;

/** The ECI of a payment authenticated with 3-D Secure, by card network (EMV 3DS). */
const AUTHENTICATED_ECI: Record<string, Eci> = { visa: '05', mastercard: '02' };

/**
 * The card a charge was paid with: the payment method's card as it was at the payment (the same
 * mapping `GET /v1/payment_methods/{id}` uses), with what the payment itself added (the amount
 * authorised, 3-D Secure). No card network is reached, so its codes and ids are null.
 */
export function toChargeCard(row: ChargeDetailColumns): ChargeCard {
  const expiry = testCardExpiry(row.created);
  const card = toPaymentMethodCard({
    card_brand: row.card_brand,
    card_last4: row.card_last4,
    card_exp_month: row.card_exp_month ?? expiry.month,
    card_exp_year: row.card_exp_year ?? expiry.year,
    card_fingerprint: row.card_fingerprint ?? '',
    card_cvc_check: row.card_cvc_check,
  });
  const eci = row.three_d_secure_authenticated ? (AUTHENTICATED_ECI[card.brand] ?? null) : null;
  return {
    amount_authorized: row.status === 'succeeded' ? row.amount : null,
    authorization_code: null,
    brand: card.brand,
    // A token carries no checks: only a payment method was checked.
    checks: row.payment_method_id === null ? null : card.checks,
    country: card.country,
    electronic_commerce_indicator: eci,
    exp_month: card.exp_month,
    exp_year: card.exp_year,
    fingerprint: row.card_fingerprint,
    funding: card.funding,
    installments: null,
    last4: card.last4,
    mandate: null,
    network: card.networks.preferred ?? card.brand,
    network_transaction_id: null,
    // Debit regulation (Regulation II) does not cover credit cards, which every test card is.
    regulated_status: 'unregulated',
    three_d_secure:
      eci === null
        ? null
        : {
            authentication_flow: 'challenge',
            electronic_commerce_indicator: eci,
            exemption_indicator: null,
            result: 'authenticated',
            result_reason: null,
            transaction_id: null,
            version: '2.2.0',
          },
    transaction_link_id: null,
    wallet: card.wallet,
  };
}

/** Nothing beyond the network's answer: no issuer advice, no network codes, no risk evaluation. */
const UNADVISED = {
  advice_code: null,
  network_advice_code: null,
  network_decline_code: null,
  risk_level: 'normal',
} as const;

/**
 * What came of a charge, as the widely used payments API words it for its test cards: approved,
 * or declined by the issuer with the decline code as `reason`.
 */
export function toChargeOutcome(row: Pick<ChargeRow, 'status' | 'decline_code'>): ChargeOutcome {
  if (row.status === 'succeeded') {
    return {
      ...UNADVISED,
      network_status: 'approved_by_network',
      reason: null,
      seller_message: 'Payment complete.',
      type: 'authorized',
    };
  }
  const reason = row.decline_code;
  return {
    ...UNADVISED,
    network_status: 'declined_by_network',
    reason,
    seller_message:
      reason === null || reason === 'generic_decline'
        ? 'The bank did not return any further details with this decline.'
        : `The bank returned the decline code \`${reason}\`.`,
    type: 'issuer_declined',
  };
}
