import { unixSeconds } from '../../domain/clock.js';
import { ApiError, notFound, type DeclineCode } from '../../domain/errors.js';
import { newId } from '../../domain/ids.js';
import type { RequestContext } from '../../operations/operations.js';
import { requireCustomer } from '../customers/customers.service.js';
import { recordEvent, recordEvents } from '../events/events.service.js';
import { initialMetadata, updatedMetadata } from '../shared/metadata.js';
import { allParamsRead } from '../shared/params.js';
import { listOf, type PageParams } from '../shared/pagination.js';
import { previousAttributes } from '../shared/updates.js';
import { findCharge, insertCharge, listChargeRows, updateChargeDetails, type ChargeRow } from './charges.repo.js';
import {
  toChargeResource,
  toPaymentIntent,
  type Charge,
  type ChargeCreateParams,
  type ChargeUpdateParams,
} from './charges.mapper.js';
import { findTestSource } from './test-sources.js';

/** A charge as created: succeeded, or recorded as failed with why the card was declined. */
export interface ChargeOutcome {
  charge: Charge;
  decline?: { code: DeclineCode; message: string };
}

/**
 * Charges a test source. A declined card is not an exception here: the failed charge is recorded
 * (with `charge.failed`) and committed, and the caller answers 402.
 */
export async function createCharge(ctx: RequestContext, params: ChargeCreateParams): Promise<ChargeOutcome> {
  // `expand` is applied to the result by the handler.
  const { amount, currency, source: token, customer, description, metadata, expand: _expand, ...unread } = params;
  allParamsRead(unread);
  const source = findTestSource(token);
  if (!source) throw new ApiError('parameter_invalid', `No such token: '${token}'`, { param: 'source' });
  if (customer) await requireCustomer(ctx, customer, 'customer');
  const row = await insertCharge(ctx.db, {
    id: newId('charge'),
    account_id: ctx.accountId,
    customer_id: customer ?? null,
    amount,
    amount_refunded: 0,
    currency: currency.toLowerCase(),
    description: description ?? null,
    metadata: initialMetadata(metadata),
    status: source.decline ? 'failed' : 'succeeded',
    failure_code: source.decline ? 'card_declined' : null,
    failure_message: source.decline?.message ?? null,
    card_brand: source.brand,
    card_last4: source.last4,
    created: unixSeconds(ctx.clock),
  });
  const charge = toChargeResource(row);
  if (source.decline) {
    await recordEvent(ctx, 'charge.failed', charge);
    return { charge, decline: source.decline };
  }
  await recordEvents(ctx, [
    { type: 'charge.succeeded', object: charge },
    { type: 'payment_intent.succeeded', object: toPaymentIntent(row, newId('paymentIntent')) },
  ]);
  return { charge };
}

export async function requireCharge(ctx: RequestContext, id: string, param = 'id'): Promise<ChargeRow> {
  const row = await findCharge(ctx.db, ctx.accountId, id);
  if (!row) throw notFound('charge', id, param);
  return row;
}

export async function retrieveCharge(ctx: RequestContext, id: string): Promise<Charge> {
  return toChargeResource(await requireCharge(ctx, id));
}

/** Only `description` and `metadata` can change; `charge.updated` lists what did. */
export async function updateCharge(ctx: RequestContext, id: string, params: ChargeUpdateParams): Promise<Charge> {
  // `expand` is applied to the result by the handler.
  const { description, metadata, expand: _expand, ...unread } = params;
  allParamsRead(unread);
  const current = await requireCharge(ctx, id);
  const updated = await updateChargeDetails(ctx.db, ctx.accountId, id, {
    description: description === undefined ? current.description : description,
    metadata: updatedMetadata(current.metadata, metadata),
  });
  if (!updated) throw notFound('charge', id);
  const after = toChargeResource(updated);
  const changed = previousAttributes(toChargeResource(current), after);
  if (Object.keys(changed).length > 0) await recordEvent(ctx, 'charge.updated', after, changed);
  return after;
}

export async function listCharges(
  ctx: RequestContext,
  query: PageParams & { customer?: string; statuses?: readonly ChargeRow['status'][] },
) {
  const page = await listChargeRows(ctx.db, ctx.accountId, query.customer, query, query.statuses);
  return listOf('/v1/charges', page, toChargeResource);
}

/** `GET /v1/customers/{id}/charges`: 404 when the customer is not this account's. */
export async function listChargesOfCustomer(ctx: RequestContext, customerId: string, query: PageParams) {
  await requireCustomer(ctx, customerId);
  const page = await listChargeRows(ctx.db, ctx.accountId, customerId, query);
  return listOf(`/v1/customers/${customerId}/charges`, page, toChargeResource);
}
