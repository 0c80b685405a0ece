/**
 * Receipts of charges: the address of a charge's receipt page, the receipt's number, and the
 * receipt e-mail, queued in the charge's transaction (an outbox row, `receipt_mails`) and sent by
 * the worker once committed (src/receipts/receipt-mailer.ts), so that a request never waits on
 * the mail relay and a mail is never sent for a change that was rolled back.
 */
import { randomInt } from 'node:crypto';
import type { Queryable } from '../../db/database.js';
import type { Clock } from '../../domain/clock.js';
import { randomBase62 } from '../../domain/ids.js';
import { setReceiptFields, type ChargeRow } from './charges.repo.js';

/** The secret part of a receipt page's address: about 167 random bits, stored with the charge. */
export function newReceiptToken(): string {
  return `rcpt_${randomBase62(28)}`;
}

/** The receipt page of a charge, an absolute URL on the server's public origin (src/public-origin.ts). */
export function receiptUrl(origin: string, chargeId: string, token: string): string {
  return `${origin}/receipts/${chargeId}/${token}`;
}

/** A receipt's number, `NNNN-NNNN`, as the widely used payments API prints them. */
function newReceiptNumber(): string {
  const digits = String(randomInt(0, 100_000_000)).padStart(8, '0');
  return `${digits.slice(0, 4)}-${digits.slice(4)}`;
}

/** Whether a charge's receipt is e-mailed now: it is paid and captured, and has an address. */
export function receiptDue(row: Pick<ChargeRow, 'status' | 'amount_captured' | 'receipt_email'>): boolean {
  return row.status === 'succeeded' && row.amount_captured > 0 && row.receipt_email !== null;
}

/** The number a receipt about to be sent carries: the charge's own once it has one (a resend keeps it). */
export function receiptNumberOf(row: Pick<ChargeRow, 'receipt_number'>): string {
  return row.receipt_number ?? newReceiptNumber();
}

/** Queues the e-mail of a charge's receipt to its `receipt_email` (the charge already carries its number). */
export async function queueReceiptMail(db: Queryable, clock: Clock, charge: Omit<ChargeRow, 'seq'>): Promise<void> {
  const now = clock.nowMs();
  await db.write(
    `INSERT INTO receipt_mails (account_id, charge_id, email, status, attempts, next_attempt_at, created)
     VALUES (?, ?, ?, 'pending', 0, ?, ?)`,
    [charge.account_id, charge.id, charge.receipt_email, now, now],
  );
}

/**
 * Gives a paid, captured charge with a `receipt_email` its receipt number and queues the e-mail,
 * in the caller's transaction; answers the charge as it now is (unchanged when no receipt is due).
 */
export async function sendReceiptIfDue(
  ctx: { db: Queryable; clock: Clock; accountId: string },
  charge: ChargeRow,
): Promise<ChargeRow> {
  if (!receiptDue(charge)) return charge;
  const numbered = (await setReceiptFields(ctx.db, ctx.accountId, charge.id, {
    receipt_email: charge.receipt_email,
    receipt_number: receiptNumberOf(charge),
  }))!;
  await queueReceiptMail(ctx.db, ctx.clock, numbered);
  return numbered;
}
