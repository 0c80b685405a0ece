import { unixSeconds } from '../../domain/clock.js';
import { ApiError } from '../../domain/errors.js';
import { newId } from '../../domain/ids.js';
import type { Database } from '../../db/database.js';
import type { Clock } from '../../domain/clock.js';
import type { ServiceSettings } from '../../operations/operations.js';
import { previousAttributes } from '../shared/updates.js';
import { recordEvents, type EventContext, type EventRecord } from '../events/events.service.js';
import { initialMetadata } from '../shared/metadata.js';
import {
  captureChargeRow,
  findChargeForUpdate,
  findExpiredAuthorizations,
  releaseChargeRow,
  setStatementDescriptorFields,
  type ChargeRow,
} from './charges.repo.js';
import { statementDescriptors } from './statement-descriptors.js';
import { toCharge } from './charges.mapper.js';
import { sendReceiptIfDue } from './receipts.js';
import { insertRefund, type RefundRow } from './refunds.repo.js';
import { toRefundResource, type Refund } from './refunds.mapper.js';
import { findPaymentIntentForUpdate, updatePaymentIntentRow, type PaymentIntentRow } from './payment-intents.repo.js';
import { toPaymentIntentResource, type PaymentIntent } from './payment-intents.mapper.js';
import { originOf } from '../shared/public-origin.js';

type RefundReason = Refund['reason'];

/**
 * Captures `amount` of an intent's authorised charge (both locked, the intent in
 * `requires_capture`): the rest of the authorisation is released as a refund of the charge, and
 * the intent succeeds. Records `charge.captured`, `refund.created` for a release, and
 * `payment_intent.succeeded`.
 */
export async function captureAuthorization(
  ctx: EventContext,
  intent: PaymentIntentRow,
  charge: ChargeRow,
  amount: number,
): Promise<PaymentIntent> {
  if (charge.capture_before! <= unixSeconds(ctx.clock)) {
    throw new ApiError('charge_expired_for_capture', `The authorisation of charge ${charge.id} has expired; it can no longer be captured.`, {
      paymentIntent: toPaymentIntentResource(intent, originOf(ctx)),
    });
  }
  const captured = await sendReceiptIfDue(ctx, (await captureChargeRow(ctx.db, ctx.accountId, charge.id, amount))!);
  const released = charge.amount - amount;
  const refund = released > 0 ? await insertReleaseRefund(ctx, captured, released, null) : undefined;
  const succeeded = await updatePaymentIntentRow(ctx.db, ctx.accountId, intent.id, {
    status: 'succeeded',
    amount_capturable: 0,
    amount_received: amount,
  });
  const after = toPaymentIntentResource(succeeded, originOf(ctx));
  const events: EventRecord[] = [{ type: 'charge.captured', object: await toCharge(ctx.db, ctx.accountId, captured, originOf(ctx)) }];
  if (refund) events.push({ type: 'refund.created', object: toRefundResource(refund) });
  events.push({ type: 'payment_intent.succeeded', object: after });
  await recordEvents(ctx, events);
  return after;
}

/**
 * Releases a whole authorisation (its intent and charge locked, the intent in `requires_capture`):
 * the charge is refunded in full, uncaptured. Answers the charge and refund after the release, and
 * the events that tell of them (`refund.created`, then `charge.refunded`, or `charge.expired`).
 */
export async function releaseAuthorization(
  ctx: EventContext,
  charge: ChargeRow,
  cause: { expired: boolean; reason: RefundReason; metadata?: string },
): Promise<{ charge: ChargeRow; refund: RefundRow; events: EventRecord[] }> {
  const released = (await releaseChargeRow(ctx.db, ctx.accountId, charge.id))!;
  const refund = await insertReleaseRefund(ctx, released, charge.amount, cause.reason, cause.metadata);
  const chargeAfter = await toCharge(ctx.db, ctx.accountId, released, originOf(ctx));
  const events: EventRecord[] = [{ type: 'refund.created', object: toRefundResource(refund) }];
  events.push(
    cause.expired
      ? { type: 'charge.expired', object: chargeAfter }
      : {
          type: 'charge.refunded',
          object: chargeAfter,
          previousAttributes: previousAttributes(await toCharge(ctx.db, ctx.accountId, charge, originOf(ctx)), chargeAfter),
        },
  );
  return { charge: released, refund, events };
}

/** The authorised charge of a locked intent in `requires_capture`, locked in turn (the one lock order). */
export async function lockAuthorization(ctx: EventContext, intent: PaymentIntentRow): Promise<ChargeRow> {
  const charge = intent.latest_charge_id ? await findChargeForUpdate(ctx.db, ctx.accountId, intent.latest_charge_id) : undefined;
  // An intent in requires_capture always holds its authorised charge; anything else is a broken invariant.
  if (!charge || charge.capture_before === null) throw new Error(`payment intent ${intent.id} holds no authorisation`);
  return charge;
}

/**
 * The authorised charge with the statement descriptors its capture is given (each one sent
 * replaces the charge's, and what the statement shows follows); as it is when none was sent.
 */
export async function withCaptureDescriptors(
  ctx: EventContext,
  charge: ChargeRow,
  sent: { statement_descriptor?: string; statement_descriptor_suffix?: string },
): Promise<ChargeRow> {
  if (sent.statement_descriptor === undefined && sent.statement_descriptor_suffix === undefined) return charge;
  const fields = await statementDescriptors(
    ctx.db,
    ctx.accountId,
    sent.statement_descriptor ?? charge.statement_descriptor,
    sent.statement_descriptor_suffix ?? charge.statement_descriptor_suffix,
  );
  return (await setStatementDescriptorFields(ctx.db, ctx.accountId, charge.id, fields))!;
}

function insertReleaseRefund(
  ctx: EventContext,
  charge: ChargeRow,
  amount: number,
  reason: RefundReason,
  metadata = initialMetadata(undefined),
): Promise<RefundRow> {
  return insertRefund(ctx.db, {
    id: newId('refund'),
    account_id: ctx.accountId,
    charge_id: charge.id,
    payment_intent_id: charge.payment_intent_id,
    customer_id: charge.customer_id,
    payment_method_id: charge.payment_method_id,
    amount,
    currency: charge.currency,
    reason,
    status: 'succeeded',
    metadata,
    created: unixSeconds(ctx.clock),
  });
}

/** How many expired authorisations one run of {@link expireAuthorizations} releases at most. */
const EXPIRY_BATCH = 100;

/**
 * The worker's expiry of authorisations not captured within 7 days: each is released (the charge
 * refunded uncaptured, `charge.expired`) and its intent canceled (`cancellation_reason`
 * `automatic`, `payment_intent.canceled`), one intent per transaction, so a request that captures
 * the same intent meanwhile either wins (and the expiry skips it) or waits and then fails.
 * Answers how many were expired; a run stops after a batch, and the next run goes on.
 */
export async function expireAuthorizations(db: Database, clock: Clock, settings: ServiceSettings): Promise<number> {
  const now = unixSeconds(clock);
  let expired = 0;
  for (const due of await findExpiredAuthorizations(db, now, EXPIRY_BATCH)) {
    if (!due.payment_intent_id) continue;
    const done = await db.transaction(async (tx) => {
      const ctx: EventContext = { accountId: due.account_id, db: tx, clock, settings, requestId: null, idempotencyKey: null };
      const intent = await findPaymentIntentForUpdate(tx, due.account_id, due.payment_intent_id!);
      if (!intent || intent.status !== 'requires_capture' || intent.latest_charge_id !== due.id) return false;
      const charge = await lockAuthorization(ctx, intent);
      // Captured or released meanwhile is caught above (the intent moved on); this is the deadline.
      if (charge.capture_before! > now) return false;
      const { events } = await releaseAuthorization(ctx, charge, { expired: true, reason: null });
      const canceled = await updatePaymentIntentRow(tx, due.account_id, intent.id, {
        status: 'canceled',
        amount_capturable: 0,
        canceled_at: now,
        cancellation_reason: 'automatic',
      });
      events.push({ type: 'payment_intent.canceled', object: toPaymentIntentResource(canceled, originOf(ctx)) });
      await recordEvents(ctx, events);
      return true;
    });
    if (done) expired++;
  }
  return expired;
}
