import type { Queryable } from '../db/database.js';

/** A receipt e-mail of the outbox (`receipt_mails`), as the worker claims it. */
export interface ReceiptMailRow {
  seq: number;
  account_id: string;
  charge_id: string;
  email: string;
  status: 'pending' | 'sent' | 'logged' | 'failed';
  attempts: number;
  next_attempt_at: number;
  lease_until: number | null;
  last_error: string | null;
  created: number;
  sent_at: number | null;
}

/**
 * Claims up to `limit` due receipt e-mails until `leaseUntil`: each is taken by one conditional
 * UPDATE, so of several workers exactly one gets it, on either engine; a worker that dies holding
 * one lets its lease run out, and the mail is claimed again.
 */
export async function claimDueReceiptMails(db: Queryable, nowMs: number, leaseUntil: number, limit: number): Promise<ReceiptMailRow[]> {
  const due = await db.all<ReceiptMailRow>(
    `SELECT * FROM receipt_mails WHERE status = 'pending' AND next_attempt_at <= ? AND (lease_until IS NULL OR lease_until <= ?)
     ORDER BY next_attempt_at LIMIT ?`,
    [nowMs, nowMs, limit],
  );
  const claimed: ReceiptMailRow[] = [];
  for (const mail of due) {
    const taken = await db.run(
      `UPDATE receipt_mails SET lease_until = ?, attempts = attempts + 1
       WHERE seq = ? AND status = 'pending' AND (lease_until IS NULL OR lease_until <= ?)`,
      [leaseUntil, mail.seq, nowMs],
    );
    if (taken === 1) claimed.push({ ...mail, attempts: mail.attempts + 1, lease_until: leaseUntil });
  }
  return claimed;
}

/** The mail went out (`sent`), or was written to the log for want of SMTP_URL (`logged`). */
export async function completeReceiptMail(db: Queryable, seq: number, status: 'sent' | 'logged', nowMs: number): Promise<void> {
  await db.run('UPDATE receipt_mails SET status = ?, sent_at = ?, lease_until = NULL, last_error = NULL WHERE seq = ?', [status, nowMs, seq]);
}

/** Sending failed: tried again at `retryAt`, or `failed` for good when there is none. */
export async function failReceiptMail(db: Queryable, seq: number, error: string, retryAt: number | undefined): Promise<void> {
  await db.run(
    `UPDATE receipt_mails SET status = ?, next_attempt_at = COALESCE(?, next_attempt_at), lease_until = NULL, last_error = ? WHERE seq = ?`,
    [retryAt === undefined ? 'failed' : 'pending', retryAt ?? null, error.slice(0, 500), seq],
  );
}

/** Forgets the receipt e-mails done with (sent, logged or failed) that were queued before `beforeMs`. */
export async function purgeReceiptMails(db: Queryable, beforeMs: number): Promise<void> {
  await db.run("DELETE FROM receipt_mails WHERE status <> 'pending' AND created < ?", [beforeMs]);
}
