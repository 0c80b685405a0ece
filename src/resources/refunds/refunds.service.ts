import { unixSeconds } from '../../domain/clock.js';
import { ApiError, notFound } from '../../domain/errors.js';
import { newId } from '../../domain/ids.js';
import type { RequestContext } from '../../operations/operations.js';
import { addRefundedAmount, findChargeForUpdate } from '../charges/charges.repo.js';
import { toChargeResource } from '../charges/charges.mapper.js';
import { recordEvents } from '../events/events.service.js';
import { initialMetadata } from '../shared/metadata.js';
import { allParamsRead } from '../shared/params.js';
import { listOf, type PageParams } from '../shared/pagination.js';
import { previousAttributes } from '../shared/updates.js';
import { findRefund, insertRefund, listRefundRows } from './refunds.repo.js';
import { toRefundResource, type Refund, type RefundCreateParams } from './refunds.mapper.js';

/**
 * Refunds part or all of what is left of a succeeded charge. The charge row is locked for the
 * transaction and its `amount_refunded` only grows within `amount`, so concurrent refunds can
 * never return more than was paid.
 */
export async function createRefund(ctx: RequestContext, params: RefundCreateParams): Promise<Refund> {
  // `expand` is applied to the result by the handler.
  const { charge: chargeId, amount: requested, reason, metadata, expand: _expand, ...unread } = params;
  allParamsRead(unread);
  const charge = await findChargeForUpdate(ctx.db, ctx.accountId, chargeId);
  if (!charge) throw notFound('charge', chargeId, 'charge');
  if (charge.status !== 'succeeded') {
    throw new ApiError('charge_not_refundable', `Charge ${charge.id} did not succeed, so it cannot be refunded.`, {
      param: 'charge',
    });
  }
  const remaining = charge.amount - charge.amount_refunded;
  if (remaining === 0) {
    throw new ApiError('charge_already_refunded', `Charge ${charge.id} has already been refunded.`, { param: 'charge' });
  }
  const amount = requested ?? remaining;
  if (amount > remaining) {
    throw new ApiError('amount_too_large', `Refund amount (${amount}) is greater than unrefunded amount on charge (${remaining}).`, {
      param: 'amount',
    });
  }
  const updatedCharge = await addRefundedAmount(ctx.db, ctx.accountId, charge.id, amount);
  if (!updatedCharge) {
    throw new ApiError('amount_too_large', 'The charge was refunded concurrently; retry the request.', { param: 'amount' });
  }
  const refund = toRefundResource(
    await insertRefund(ctx.db, {
      id: newId('refund'),
      account_id: ctx.accountId,
      charge_id: charge.id,
      amount,
      currency: charge.currency,
      reason: reason ?? null,
      status: 'succeeded',
      metadata: initialMetadata(metadata),
      created: unixSeconds(ctx.clock),
    }),
  );
  // `previous_attributes` holds only what changed: `refunded` only when this refund completed it.
  const chargeAfter = toChargeResource(updatedCharge);
  await recordEvents(ctx, [
    { type: 'refund.created', object: refund },
    { type: 'charge.refunded', object: chargeAfter, previousAttributes: previousAttributes(toChargeResource(charge), chargeAfter) },
  ]);
  return refund;
}

export async function retrieveRefund(ctx: RequestContext, id: string): Promise<Refund> {
  const row = await findRefund(ctx.db, ctx.accountId, id);
  if (!row) throw notFound('refund', id);
  return toRefundResource(row);
}

export async function listRefunds(ctx: RequestContext, query: PageParams & { charge?: string }) {
  const page = await listRefundRows(ctx.db, ctx.accountId, query.charge, query);
  return listOf('/v1/refunds', page, toRefundResource);
}
