import { formatMoney } from '../pages/html-text.js';
import { timingSafeEqual } from 'node:crypto';
import type { Queryable } from '../db/database.js';
import { findChargeOfReceipt, type ChargeRow } from '../resources/payments/charges.repo.js';
import { findRefundsOfCharges } from '../resources/payments/refunds.repo.js';

/** A charge's receipt as a person reads it, in the page and in the e-mail alike. */
export interface ReceiptView {
  chargeId: string;
  /** The name of the account that was paid. */
  merchant: string;
  receiptNumber: string | null;
  /** `$20.00`: the amount in the currency's own units. */
  amount: string;
  currency: string;
  /** `Visa •••• 4242`. */
  card: string;
  /** The day it was paid, in UTC (`November 27, 2026`). */
  date: string;
  status: string;
  /** Newest first. */
  refunds: Array<{ amount: string; date: string }>;
  /** What was refunded in all, when something was. */
  refunded: string | null;
}

/**
 * The receipt of `chargeId` when `token` is its receipt token, else undefined: a charge that does
 * not exist, a failed one (no receipt), and a wrong token are told apart by nobody. The token is
 * compared in constant time, so its answer's timing says nothing of how much of it was right.
 */
export async function loadReceipt(db: Queryable, chargeId: string, token: string): Promise<ReceiptView | undefined> {
  const charge = await findChargeOfReceipt(db, chargeId);
  if (!charge?.receipt_token || !sameToken(charge.receipt_token, token)) return undefined;
  return receiptOf(db, charge);
}

/** The receipt of a charge that has one (its e-mail is composed from this too). */
export async function receiptOf(db: Queryable, charge: ChargeRow): Promise<ReceiptView> {
  const [account, refunds] = await Promise.all([
    db.one<{ name: string }>('SELECT name FROM accounts WHERE id = ?', [charge.account_id]),
    charge.amount_refunded > 0 ? findRefundsOfCharges(db, charge.account_id, [charge.id]) : [],
  ]);
  return {
    chargeId: charge.id,
    merchant: account?.name ?? '',
    receiptNumber: charge.receipt_number,
    amount: formatMoney(charge.amount, charge.currency),
    currency: charge.currency.toUpperCase(),
    card: `${cardBrand(charge.card_brand)} •••• ${charge.card_last4}`,
    date: formatDate(charge.created),
    status: statusOf(charge),
    refunds: refunds.map((refund) => ({ amount: formatMoney(refund.amount, refund.currency), date: formatDate(refund.created) })),
    refunded: charge.amount_refunded > 0 ? formatMoney(charge.amount_refunded, charge.currency) : null,
  };
}

function sameToken(stored: string, given: string): boolean {
  const a = Buffer.from(stored);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

function statusOf(charge: ChargeRow): string {
  if (charge.amount_captured === 0) return charge.amount_refunded === charge.amount ? 'Released, not charged' : 'Authorised';
  if (charge.amount_refunded === charge.amount) return 'Refunded';
  return charge.amount_refunded > 0 ? 'Partially refunded' : 'Paid';
}

const BRANDS: Record<string, string> = { visa: 'Visa', mastercard: 'Mastercard', amex: 'American Express' };

function cardBrand(brand: string): string {
  return BRANDS[brand] ?? brand.charAt(0).toUpperCase() + brand.slice(1);
}

const DATE = new Intl.DateTimeFormat('en-US', { dateStyle: 'long', timeZone: 'UTC' });

function formatDate(unixSeconds: number): string {
  return DATE.format(new Date(unixSeconds * 1000));
}
