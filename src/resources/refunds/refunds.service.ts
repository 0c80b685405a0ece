import { unixSeconds } from '../../domain/clock.js';
import { ApiError, notFound } from '../../domain/errors.js';
import { newId } from '../../domain/ids.js';
import type { RequestContext } from '../../operations/operations.js';
import { toCharge } from '../payments/charges.mapper.js';
import { addRefundedAmount, findCharge, findChargeForUpdate, type ChargeRow } from '../payments/charges.repo.js';
import { recordEvent, recordEvents } from '../events/events.service.js';
import { releaseAuthorization } from '../payments/authorizations.js';
import { findPaymentIntentForUpdate, updatePaymentIntentRow, type PaymentIntentRow } from '../payments/payment-intents.repo.js';
import { toPaymentIntentResource } from '../payments/payment-intents.mapper.js';
import { requireLocked } from '../payments/payment-intents.transitions.js';
import { initialMetadata, updatedMetadata } from '../shared/metadata.js';
import { allParamsRead } from '../shared/params.js';
import { listOf, type PageParams } from '../shared/pagination.js';
import { readMayLag } from '../shared/replica-reads.js';
import { previousAttributes } from '../shared/updates.js';
import { findRefund, insertRefund, listRefundRows, updateRefundMetadata } from '../payments/refunds.repo.js';
import { toRefundResource, type Refund, type RefundCreateParams, type RefundUpdateParams } from '../payments/refunds.mapper.js';
import { originOf } from '../shared/public-origin.js';

/**
 * Refunds part or all of what is left of a succeeded charge, named by itself or by its payment
 * intent. The intent and then the charge are locked for the transaction (the one lock order of
 * every change of a payment), and `amount_refunded` only grows within `amount`, so concurrent
 * refunds can never return more than was paid. Refunding a charge that is only authorised
 * releases the authorisation in full and cancels its intent.
 */
export async function createRefund(ctx: RequestContext, params: RefundCreateParams): Promise<Refund> {
  // `expand` is applied to the result by the handler.
  const { charge: chargeId, payment_intent: intentId, amount: requested, reason, metadata, expand: _expand, ...unread } = params;
  allParamsRead(unread);
  const { intent, charge } = await lockPayment(ctx, chargeId, intentId);
  const param = intentId === undefined ? 'charge' : 'payment_intent';
  if (charge.status !== 'succeeded') {
    throw new ApiError('charge_not_refundable', `Charge ${charge.id} did not succeed, so it cannot be refunded.`, { param });
  }
  if (charge.capture_before !== null && intent) return releaseByRefund(ctx, intent, charge, params);
  const remaining = charge.amount - charge.amount_refunded;
  if (remaining === 0) {
    throw new ApiError('charge_already_refunded', `Charge ${charge.id} has already been refunded.`, { param });
  }
  const amount = requested ?? remaining;
  if (amount > remaining) {
    throw new ApiError('amount_too_large', `Refund amount (${amount}) is greater than unrefunded amount on charge (${remaining}).`, {
      param: 'amount',
    });
  }
  const before = await toCharge(ctx.db, ctx.accountId, charge, originOf(ctx));
  const updatedCharge = await addRefundedAmount(ctx.db, ctx.accountId, charge.id, amount);
  if (!updatedCharge) {
    throw new ApiError('amount_too_large', 'The charge was refunded concurrently; retry the request.', { param: 'amount' });
  }
  const refund = toRefundResource(
    await insertRefund(ctx.db, {
      id: newId('refund'),
      account_id: ctx.accountId,
      charge_id: charge.id,
      payment_intent_id: charge.payment_intent_id,
      customer_id: charge.customer_id,
      payment_method_id: charge.payment_method_id,
      amount,
      currency: charge.currency,
      reason: reason ?? null,
      status: 'succeeded',
      metadata: initialMetadata(metadata),
      created: unixSeconds(ctx.clock),
    }),
  );
  // `previous_attributes` holds only what changed: `refunded` only when this refund completed it.
  const chargeAfter = await toCharge(ctx.db, ctx.accountId, updatedCharge, originOf(ctx));
  await recordEvents(ctx, [
    { type: 'refund.created', object: refund },
    { type: 'charge.refunded', object: chargeAfter, previousAttributes: previousAttributes(before, chargeAfter) },
  ]);
  return refund;
}

/** The charge to refund (by its id, or as its intent's latest charge) and its intent, both locked. */
async function lockPayment(
  ctx: RequestContext,
  chargeId: string | undefined,
  intentId: string | undefined,
): Promise<{ intent?: PaymentIntentRow; charge: ChargeRow }> {
  if (intentId !== undefined) {
    const intent = await requireLocked(ctx, intentId, 'payment_intent');
    // Both named: the charge must be the intent's (its latest, the one that can have succeeded).
    if (chargeId !== undefined && chargeId !== intent.latest_charge_id) {
      throw new ApiError('parameter_invalid', `Charge ${chargeId} is not the charge of PaymentIntent ${intentId}.`, {
        param: 'payment_intent',
      });
    }
    const charge = intent.latest_charge_id ? await findChargeForUpdate(ctx.db, ctx.accountId, intent.latest_charge_id) : undefined;
    if (!charge) {
      throw new ApiError('charge_not_refundable', `PaymentIntent ${intentId} has no charge to refund.`, { param: 'payment_intent' });
    }
    return { intent, charge };
  }
  if (chargeId === undefined) {
    throw new ApiError('parameter_missing', 'Name the charge to refund, or its payment_intent.', { param: 'charge' });
  }
  const unlocked = await findCharge(ctx.db, ctx.accountId, chargeId);
  if (!unlocked) throw notFound('charge', chargeId, 'charge');
  const intent = unlocked.payment_intent_id
    ? await findPaymentIntentForUpdate(ctx.db, ctx.accountId, unlocked.payment_intent_id)
    : undefined;
  return { intent, charge: (await findChargeForUpdate(ctx.db, ctx.accountId, chargeId))! };
}

/**
 * A refund of a charge that is only authorised: it releases the whole authorisation (a smaller
 * `amount` is refused) and cancels the intent, with the refund's reason when it gave one.
 */
async function releaseByRefund(ctx: RequestContext, intent: PaymentIntentRow, charge: ChargeRow, params: RefundCreateParams): Promise<Refund> {
  if (params.amount !== undefined && params.amount !== charge.amount) {
    throw new ApiError(
      'parameter_invalid',
      `Charge ${charge.id} is only authorised: a refund releases all of it (${charge.amount}), not part.`,
      { param: 'amount' },
    );
  }
  const reason = params.reason ?? null;
  const { refund, events } = await releaseAuthorization(ctx, charge, {
    expired: false,
    reason,
    metadata: initialMetadata(params.metadata),
  });
  const canceled = await updatePaymentIntentRow(ctx.db, ctx.accountId, intent.id, {
    status: 'canceled',
    amount_capturable: 0,
    canceled_at: unixSeconds(ctx.clock),
    cancellation_reason: reason,
  });
  await recordEvents(ctx, [...events, { type: 'payment_intent.canceled', object: toPaymentIntentResource(canceled, originOf(ctx)) }]);
  return toRefundResource(refund);
}

export async function retrieveRefund(ctx: RequestContext, id: string): Promise<Refund> {
  const row = await findRefund(ctx.db, ctx.accountId, id);
  if (!row) throw notFound('refund', id);
  return toRefundResource(row);
}

/** Only `metadata` can change (each key sent is set; an empty value removes it); `refund.updated` lists what did. */
export async function updateRefund(ctx: RequestContext, id: string, params: RefundUpdateParams): Promise<Refund> {
  // `expand` is applied to the result by the handler.
  const { metadata, expand: _expand, ...unread } = params;
  allParamsRead(unread);
  const current = await findRefund(ctx.db, ctx.accountId, id);
  if (!current) throw notFound('refund', id);
  const updated = await updateRefundMetadata(ctx.db, ctx.accountId, id, updatedMetadata(current.metadata, metadata));
  if (!updated) throw notFound('refund', id);
  const [before, after] = [toRefundResource(current), toRefundResource(updated)];
  // As the widely used payments API does, only a change is an event: the same metadata again is none.
  const changed = previousAttributes(before, after);
  if (Object.keys(changed).length > 0) await recordEvent(ctx, 'refund.updated', after, changed);
  return after;
}

export async function listRefunds(ctx: RequestContext, query: PageParams & { charge?: string; payment_intent?: string }) {
  const page = await readMayLag(ctx, (db) => listRefundRows(db, ctx.accountId, { charge: query.charge, paymentIntent: query.payment_intent }, query));
  return listOf('/v1/refunds', page, toRefundResource);
}

/** `GET /v1/charges/{id}/refunds`: 404 when the charge is not this account's. */
export async function listRefundsOfCharge(ctx: RequestContext, chargeId: string, query: PageParams) {
  const page = await readMayLag(ctx, async (db) => {
    if (!(await findCharge(db, ctx.accountId, chargeId))) throw notFound('charge', chargeId);
    return listRefundRows(db, ctx.accountId, { charge: chargeId }, query);
  });
  return listOf(`/v1/charges/${chargeId}/refunds`, page, toRefundResource);
}
