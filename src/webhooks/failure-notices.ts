import nodemailer from 'nodemailer';
import type { Queryable } from '../db/database.js';
import { isUniqueViolation } from '../db/dialect.js';
import type { Logger } from '../logging/logger.js';
import type { DisabledBecause } from './record-attempt.js';

/**
 * Tells an account's owner that deliveries to one of its endpoints failed for good, or that the
 * endpoint was disabled (`disabled` says why).
 */
export type FailureNotifier = (
  db: Queryable,
  failure: { accountId: string; endpointId: string; endpointUrl: string; nowMs: number; disabled?: DisabledBecause },
) => Promise<void>;

/**
 * Failure notices by e-mail (nodemailer over `SMTP_URL`), or in the log without one. At most one
 * per endpoint per UTC day: the day's row is claimed first, and given back if sending fails.
 */
export function createFailureNotifier(options: { smtpUrl?: string; from: string; logger: Logger }): FailureNotifier {
  const transport = options.smtpUrl ? nodemailer.createTransport(options.smtpUrl) : undefined;
  return async (db, failure) => {
    const day = new Date(failure.nowMs).toISOString().slice(0, 10);
    // A disabled endpoint is always told about; failures at most once a day.
    if (!failure.disabled && !(await claimDay(db, failure.endpointId, day))) return;
    const owner = await db.one<{ email: string }>('SELECT email FROM accounts WHERE id = ?', [failure.accountId]);
    const failed = await db.all<{ type: string; n: number }>(
      `SELECT e.type AS type, COUNT(*) AS n FROM webhook_deliveries d JOIN events e ON e.id = d.event_id
       WHERE d.endpoint_id = ? AND d.status = 'failed' AND d.completed_at >= ? GROUP BY e.type ORDER BY e.type`,
      [failure.endpointId, failure.nowMs - 24 * 3600 * 1000],
    );
    const message = composeNotice(failure.endpointId, failure.endpointUrl, failed, failure.disabled);
    if (!transport || !owner) {
      options.logger.warn({ endpoint: failure.endpointId, to: owner?.email }, message.text);
      return;
    }
    try {
      await transport.sendMail({ from: options.from, to: owner.email, ...message });
    } catch (error) {
      options.logger.error({ err: error, endpoint: failure.endpointId }, 'failure notice could not be sent');
      if (!failure.disabled) {
        await db.run('DELETE FROM webhook_failure_notices WHERE endpoint_id = ? AND day = ?', [failure.endpointId, day]);
      }
    }
  };
}

async function claimDay(db: Queryable, endpointId: string, day: string): Promise<boolean> {
  try {
    const inserted = await db.run(
      'INSERT INTO webhook_failure_notices (endpoint_id, day) VALUES (?, ?) ON CONFLICT (endpoint_id, day) DO NOTHING',
      [endpointId, day],
    );
    return inserted === 1;
  } catch (error) {
    if (isUniqueViolation(error)) return false;
    throw error;
  }
}

/** Why an endpoint was disabled, as the notice says it. */
const DISABLED_BECAUSE: Record<DisabledBecause, string> = {
  gone: 'It answered 410 Gone, saying it is gone for good',
  failing: 'Every attempt to reach it has failed for days',
};

function composeNotice(endpointId: string, url: string, failed: Array<{ type: string; n: number }>, disabled?: DisabledBecause) {
  const total = failed.reduce((sum, row) => sum + Number(row.n), 0);
  const lines = failed.map((row) => `  ${row.type}: ${row.n}`).join('\n');
  const disabledNote = disabled
    ? `${DISABLED_BECAUSE[disabled]}, so it has been disabled: no more events are sent to it. ` +
      `Enable it again with POST /v1/webhook_endpoints/${endpointId} disabled=false.\n\n`
    : '';
  return {
    subject: disabled ? `Webhook endpoint ${url} was disabled` : `Webhook deliveries to ${url} are failing`,
    text:
      disabledNote +
      `${total} webhook deliveries to your endpoint ${endpointId} (${url}) failed after every retry in the last 24 hours:\n\n` +
      `${lines}\n\n` +
      `See them with GET /v1/webhook_deliveries?status=failed&endpoint=${endpointId}, ` +
      `then send them again with POST /v1/webhook_endpoints/${endpointId}/replay ` +
      `(or one at a time with POST /v1/webhook_deliveries/{id}/retry).\n`,
  };
}
