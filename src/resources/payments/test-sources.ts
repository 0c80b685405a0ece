import type { components } from '../../../generated/openapi.js';
import type { DeclineCode } from '../../domain/errors.js';

type CardBrand = components['schemas']['CardBrand'];

/** What a test payment source or payment method stands for, as the well-known test cards do. */
export interface TestSource {
  brand: CardBrand;
  last4: string;
  /** Set when the card is declined. */
  decline?: { code: DeclineCode; message: string };
  /** Set when the customer must authenticate the payment (3-D Secure) before it is made. */
  requiresAction?: true;
}

const VISA: TestSource = { brand: 'visa', last4: '4242' };
const MASTERCARD: TestSource = { brand: 'mastercard', last4: '4444' };
const DECLINED: TestSource = {
  brand: 'visa',
  last4: '0002',
  decline: { code: 'generic_decline', message: 'Your card was declined.' },
};
const INSUFFICIENT_FUNDS: TestSource = {
  brand: 'visa',
  last4: '9995',
  decline: { code: 'insufficient_funds', message: 'Your card has insufficient funds.' },
};
const AUTHENTICATION_REQUIRED: TestSource = { brand: 'visa', last4: '3184', requiresAction: true };

/** The test tokens (`source` of a charge) and test payment methods (`payment_method` of an intent). */
const SOURCES: Record<string, TestSource> = {
  tok_visa: VISA,
  tok_mastercard: MASTERCARD,
  tok_chargeDeclined: DECLINED,
  tok_chargeDeclinedInsufficientFunds: INSUFFICIENT_FUNDS,
  pm_card_visa: VISA,
  pm_card_mastercard: MASTERCARD,
  pm_card_chargeDeclined: DECLINED,
  pm_card_chargeDeclinedInsufficientFunds: INSUFFICIENT_FUNDS,
  pm_card_authenticationRequired: AUTHENTICATION_REQUIRED,
};

/** The test source or payment method with this name, or undefined for an unknown one. */
export function findTestSource(token: string): TestSource | undefined {
  return Object.hasOwn(SOURCES, token) ? SOURCES[token] : undefined;
}
