/**
 * Sends the receipt e-mails queued in `receipt_mails` (resources/payments/receipts.ts), from the
 * worker, after their charge's transaction committed: a request never waits on the mail relay, and
 * no mail tells of a payment that was rolled back. Over nodemailer to `SMTP_URL`; without it each
 * receipt is written to the log instead, as the webhook failure notices are. A mail that fails is
 * logged and tried again (1 min, 5 min, 30 min, 2 h), then given up as `failed`; a worker that dies
 * while sending lets its lease lapse, so a receipt may, rarely, arrive twice, never not at all.
 */
import nodemailer from 'nodemailer';
import type { Queryable } from '../db/database.js';
import type { Clock } from '../domain/clock.js';
import type { Logger } from '../logging/logger.js';
import { findChargeOfReceipt } from '../resources/payments/charges.repo.js';
import { receiptUrl } from '../resources/payments/receipts.js';
import { claimDueReceiptMails, completeReceiptMail, failReceiptMail, type ReceiptMailRow } from './receipt-mails.repo.js';
import { receiptOf, type ReceiptView } from './receipt-view.js';

/** Waits before the second, third, … attempt at a receipt e-mail; after the last, it has failed. */
const RETRY_DELAYS_MS = [60_000, 5 * 60_000, 30 * 60_000, 2 * 3_600_000];

/** How long a worker holds a receipt e-mail while sending it. */
const LEASE_MS = 60_000;

/** How many receipt e-mails one run sends at most; the next run goes on. */
const BATCH = 20;

export interface ReceiptMailerOptions {
  db: Queryable;
  clock: Clock;
  logger: Logger;
  /** `SMTP_URL`; unset: receipts are logged. */
  smtpUrl?: string;
  /** `MAIL_FROM`. */
  from: string;
  /** `PUBLIC_URL`: the origin the receipt links in the e-mails point at. */
  publicUrl: string;
}

/** One run of the receipt mailer: sends the due receipts and answers how many it handled. */
export type ReceiptMailer = () => Promise<number>;

export function createReceiptMailer(options: ReceiptMailerOptions): ReceiptMailer {
  const { db, clock, logger } = options;
  const transport = options.smtpUrl ? nodemailer.createTransport(options.smtpUrl) : undefined;
  const origin = options.publicUrl.replace(/\/+$/, '');
  return async () => {
    const now = clock.nowMs();
    const mails = await claimDueReceiptMails(db, now, now + LEASE_MS, BATCH);
    for (const mail of mails) await deliver(mail);
    return mails.length;
  };

  async function deliver(mail: ReceiptMailRow): Promise<void> {
    const charge = await findChargeOfReceipt(db, mail.charge_id);
    if (!charge?.receipt_token) {
      await failReceiptMail(db, mail.seq, 'the charge has no receipt', undefined);
      return;
    }
    const message = composeReceipt(await receiptOf(db, charge), receiptUrl(origin, charge.id, charge.receipt_token));
    if (!transport) {
      logger.warn({ charge: charge.id, to: mail.email }, message.text);
      await completeReceiptMail(db, mail.seq, 'logged', clock.nowMs());
      return;
    }
    try {
      await transport.sendMail({ from: options.from, to: mail.email, ...message });
      await completeReceiptMail(db, mail.seq, 'sent', clock.nowMs());
    } catch (error) {
      const delay = RETRY_DELAYS_MS[mail.attempts - 1];
      logger.error({ err: error, charge: charge.id, attempts: mail.attempts, willRetry: delay !== undefined }, 'receipt e-mail could not be sent');
      await failReceiptMail(db, mail.seq, String((error as Error).message ?? error), delay === undefined ? undefined : clock.nowMs() + delay);
    }
  }
}

/** The receipt as an e-mail: what was paid, how and when, and the link to the page (kept up to date). */
export function composeReceipt(view: ReceiptView, url: string): { subject: string; text: string } {
  const number = view.receiptNumber ? ` #${view.receiptNumber}` : '';
  const refunds = view.refunds.map((refund) => `  Refunded ${refund.amount} on ${refund.date}\n`).join('');
  return {
    subject: `Your receipt from ${view.merchant}${number}`,
    text:
      `Receipt from ${view.merchant}${number}\n\n` +
      `  Amount paid: ${view.amount} ${view.currency}\n` +
      `  Date: ${view.date}\n` +
      `  Paid with: ${view.card}\n` +
      `  Status: ${view.status}\n` +
      refunds +
      `\nSee this receipt, kept up to date with any refund, at:\n${url}\n\n` +
      `Payment reference: ${view.chargeId}\n`,
  };
}
