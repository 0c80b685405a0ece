import { createHash } from 'node:crypto';
import type { components } from '../../../generated/openapi.js';
import type { DeclineCode } from '../../domain/errors.js';

type CardBrand = components['schemas']['CardBrand'];

/** What a test card stands for, as the well-known test cards do: how a payment with it goes. */
export interface TestSource {
  brand: CardBrand;
  last4: string;
  /** Set when the card is declined. */
  decline?: { code: DeclineCode; message: string };
  /** Set when the customer must authenticate every payment (3-D Secure) before it is made. */
  requiresAction?: true;
  /**
   * Set when the customer must authenticate on session, and off-session only until the card was
   * set up for off-session payments (the payment method's `off_session_ready`).
   */
  requiresSetupForOffSession?: true;
}

/** A test card: its number, and the name its tokens and test payment methods share (`visa`). */
export interface TestCard extends TestSource {
  name: string;
  number: string;
}

const decline = (code: DeclineCode, message: string) => ({ decline: { code, message } });

/** The test cards, by name (`tok_<name>`, `pm_card_<name>`), as the widely used payments API documents them. */
const CARDS: readonly TestCard[] = [
  { name: 'visa', number: '4242424242424242', brand: 'visa', last4: '4242' },
  { name: 'mastercard', number: '5555555555554444', brand: 'mastercard', last4: '4444' },
  { name: 'chargeDeclined', number: '4000000000000002', brand: 'visa', last4: '0002', ...decline('generic_decline', 'Your card was declined.') },
  {
    name: 'chargeDeclinedInsufficientFunds',
    number: '4000000000009995',
    brand: 'visa',
    last4: '9995',
    ...decline('insufficient_funds', 'Your card has insufficient funds.'),
  },
  { name: 'chargeDeclinedLostCard', number: '4000000000009987', brand: 'visa', last4: '9987', ...decline('lost_card', 'Your card was declined.') },
  { name: 'chargeDeclinedExpiredCard', number: '4000000000000069', brand: 'visa', last4: '0069', ...decline('expired_card', 'Your card has expired.') },
  {
    name: 'chargeDeclinedIncorrectCvc',
    number: '4000000000000127',
    brand: 'visa',
    last4: '0127',
    ...decline('incorrect_cvc', "Your card's security code is incorrect."),
  },
  { name: 'authenticationRequired', number: '4000002760003184', brand: 'visa', last4: '3184', requiresAction: true },
  {
    name: 'authenticationRequiredSetupForOffSession',
    number: '4000002500003155',
    brand: 'visa',
    last4: '3155',
    requiresSetupForOffSession: true,
  },
];

const BY_NAME = new Map(CARDS.map((card) => [card.name, card]));
const BY_NUMBER = new Map(CARDS.map((card) => [card.number, card]));

/** The test card a test token (`tok_visa`) or test payment method (`pm_card_visa`) names, if any. */
export function findTestCardByReference(reference: string): TestCard | undefined {
  const name = reference.startsWith('tok_') ? reference.slice(4) : reference.startsWith('pm_card_') ? reference.slice(8) : undefined;
  return name === undefined ? undefined : BY_NAME.get(name);
}

/**
 * The expiry a test name or token stands for, at `now` (unix seconds): a card valid for years to
 * come, as the documented ones are.
 */
export function testCardExpiry(now: number): { month: number; year: number } {
  return { month: 12, year: new Date(now * 1000).getUTCFullYear() + 3 };
}

/** The test card of this name (a payment method's `test_card`). */
export function testCardNamed(name: string): TestCard {
  const card = BY_NAME.get(name);
  if (!card) throw new Error(`unknown test card ${name}`);
  return card;
}

/** The test card with this number, or undefined (a real card number among them). */
export function findTestCardByNumber(number: string): TestCard | undefined {
  return BY_NUMBER.get(number);
}

/** The test source a token or test payment method names (what `POST /v1/charges` takes), or undefined. */
export function findTestSource(token: string): TestCard | undefined {
  return findTestCardByReference(token);
}

/** Whether a card number passes the Luhn check (ISO/IEC 7812-1), as every real card number does. */
export function passesLuhn(number: string): boolean {
  let sum = 0;
  for (let i = 0; i < number.length; i++) {
    let digit = number.charCodeAt(number.length - 1 - i) - 48;
    if (i % 2 === 1) digit = digit * 2 > 9 ? digit * 2 - 9 : digit * 2;
    sum += digit;
  }
  return sum % 10 === 0;
}

/**
 * The card's fingerprint: the same for every payment method made from one card number, and not the
 * number (nor a way back to it: only test numbers are ever accepted, and they are public).
 */
export function cardFingerprint(card: TestCard): string {
  return createHash('sha256').update(`card-fingerprint:${card.number}`).digest('base64url').replace(/[-_]/g, '').slice(0, 16);
}
