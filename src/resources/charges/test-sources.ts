import type { components } from '../../../generated/openapi.js';
import type { DeclineCode } from '../../domain/errors.js';

type CardBrand = components['schemas']['CardBrand'];

/** What a test payment source stands for, as the well-known test cards do. */
export interface TestSource {
  brand: CardBrand;
  last4: string;
  /** Set when the card is declined. */
  decline?: { code: DeclineCode; message: string };
}

const SOURCES: Record<string, TestSource> = {
  tok_visa: { brand: 'visa', last4: '4242' },
  tok_mastercard: { brand: 'mastercard', last4: '4444' },
  tok_chargeDeclined: {
    brand: 'visa',
    last4: '0002',
    decline: { code: 'generic_decline', message: 'Your card was declined.' },
  },
  tok_chargeDeclinedInsufficientFunds: {
    brand: 'visa',
    last4: '9995',
    decline: { code: 'insufficient_funds', message: 'Your card has insufficient funds.' },
  },
};

/** The test source with this token, or undefined for an unknown token. */
export function findTestSource(token: string): TestSource | undefined {
  return Object.hasOwn(SOURCES, token) ? SOURCES[token] : undefined;
}
