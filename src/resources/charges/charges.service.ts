import { ApiError, notFound } from '../../domain/errors.js';
import type { RequestContext } from '../../operations/operations.js';
import { requireCustomer } from '../customers/customers.service.js';
import { recordEvent } from '../events/events.service.js';
import { captureAuthorization, withCaptureDescriptors } from '../payments/authorizations.js';
import { makePayment, newIntent, type PaymentMade } from '../payments/payment-attempts.js';
import { insertPaymentIntent, type PaymentIntentRow } from '../payments/payment-intents.repo.js';
import { toPaymentIntentResource } from '../payments/payment-intents.mapper.js';
import { requireLocked } from '../payments/payment-intents.transitions.js';
import { updatedMetadata } from '../shared/metadata.js';
import { allParamsRead } from '../shared/params.js';
import { listOf, type PageParams } from '../shared/pagination.js';
import { readMayLag } from '../shared/replica-reads.js';
import { storedJson, toShipping } from '../shared/shipping.js';
import { previousAttributes } from '../shared/updates.js';
import {
  findCharge,
  findChargeForUpdate,
  listChargeRows,
  setReceiptFields,
  updateChargeDetails,
  type ChargeRow,
} from '../payments/charges.repo.js';
import { queueReceiptMail, receiptDue, receiptNumberOf } from '../payments/receipts.js';
import { setRefundsCustomer } from '../payments/refunds.repo.js';
import {
  toCharge,
  toCharges,
  type Charge,
  type ChargeCaptureParams,
  type ChargeCreateParams,
  type ChargeUpdateParams,
} from '../payments/charges.mapper.js';
import { cardFingerprint, findTestSource } from '../payments/test-sources.js';
import { originOf } from '../shared/public-origin.js';

/**
 * Charges a test source, as a payment intent made and confirmed in one step (the charge belongs
 * to it): captured at once, or only authorised with `capture=false`. A declined card is not an
 * exception here: the failed charge is recorded (with `charge.failed`) and committed, and the
 * caller answers 402 (see declineBody).
 */
export async function createCharge(ctx: RequestContext, params: ChargeCreateParams): Promise<PaymentMade> {
  // `expand` is applied to the result by the handler.
  const {
    amount,
    currency,
    source: token,
    customer,
    capture,
    description,
    metadata,
    receipt_email,
    shipping,
    statement_descriptor,
    statement_descriptor_suffix,
    expand: _expand,
    ...unread
  } = params;
  allParamsRead(unread);
  const source = findTestSource(token);
  // A charge cannot wait for the customer to authenticate: cards that ask for it are not tokens here.
  if (!source || source.requiresAction || source.requiresSetupForOffSession) throw new ApiError('parameter_invalid', `No such token: '${token}'`, { param: 'source' });
  if (customer) await requireCustomer(ctx, customer, 'customer');
  const intent = newIntent(ctx, {
    amount,
    currency,
    customer,
    payment_method: token,
    capture_method: capture === false ? 'manual' : 'automatic',
    description,
    metadata,
    receipt_email,
    shipping,
    statement_descriptor,
    statement_descriptor_suffix,
  });
  // The charge carries what it was made with, as it always has; its intent the same. The intent is
  // created and confirmed in this one request: it is written once, in the state the payment left it.
  return makePayment(ctx, intent, token, source, {
    metadata: intent.metadata,
    precedingEvents: [{ type: 'payment_intent.created', object: toPaymentIntentResource(intent, originOf(ctx)) }],
    writeIntent: (changes) => insertPaymentIntent(ctx.db, { ...intent, ...changes }),
    cardFingerprint: cardFingerprint(source),
  });
}

export async function requireCharge(ctx: RequestContext, id: string, param = 'id'): Promise<ChargeRow> {
  const row = await findCharge(ctx.db, ctx.accountId, id);
  if (!row) throw notFound('charge', id, param);
  return row;
}

export async function retrieveCharge(ctx: RequestContext, id: string): Promise<Charge> {
  return toCharge(ctx.db, ctx.accountId, await requireCharge(ctx, id), originOf(ctx));
}

/**
 * Only `description`, `metadata`, `receipt_email` and `shipping` can change, and `customer` while
 * the charge has none; `charge.updated` lists what did. An address given for a paid and captured
 * charge sends its receipt (again) to that address.
 */
export async function updateCharge(ctx: RequestContext, id: string, params: ChargeUpdateParams): Promise<Charge> {
  // `expand` is applied to the result by the handler.
  const { customer, description, metadata, receipt_email, shipping, expand: _expand, ...unread } = params;
  allParamsRead(unread);
  const current = await requireCharge(ctx, id);
  if (customer !== undefined) await requireNewCustomer(ctx, current, customer);
  const fields = {
    customer_id: customer ?? null,
    description: description === undefined ? current.description : description,
    metadata: updatedMetadata(current.metadata, metadata),
    receipt_email: receipt_email === undefined ? current.receipt_email : receipt_email,
    receipt_number: current.receipt_number,
    shipping: storedJson(shipping, current.shipping, toShipping),
  };
  const resend = typeof receipt_email === 'string' && receiptDue({ ...current, receipt_email });
  if (resend) fields.receipt_number = receiptNumberOf(current);
  const updated = await updateChargeDetails(ctx.db, ctx.accountId, id, fields);
  if (!updated) throw notFound('charge', id);
  // Another update set a customer first: this one is refused whole (its transaction rolls back).
  if (customer !== undefined && updated.customer_id !== customer) throw customerAlreadySet(updated, customer);
  // The refunds of the charge show its customer, set now.
  if (current.customer_id === null && updated.customer_id !== null) {
    await setRefundsCustomer(ctx.db, ctx.accountId, id, updated.customer_id);
  }
  if (resend) await queueReceiptMail(ctx.db, ctx.clock, updated);
  const [before, after] = await toCharges(ctx.db, ctx.accountId, [current, updated], originOf(ctx));
  const changed = previousAttributes(before, after);
  if (Object.keys(changed).length > 0) await recordEvent(ctx, 'charge.updated', after, changed);
  return after;
}

/** The customer may be set on a charge that has none (or given again, unchanged), and must be the account's. */
async function requireNewCustomer(ctx: RequestContext, charge: ChargeRow, customer: string): Promise<void> {
  if (charge.customer_id !== null && charge.customer_id !== customer) throw customerAlreadySet(charge, customer);
  await requireCustomer(ctx, customer, 'customer');
}

const customerAlreadySet = (charge: ChargeRow, customer: string) =>
  new ApiError(
    'parameter_invalid',
    `Charge ${charge.id} already belongs to customer ${charge.customer_id}; a charge's customer can be set only while it has none (not to ${customer}).`,
    { param: 'customer' },
  );

/**
 * Captures `amount` (default: all) of a charge made with `capture=false`, as capturing its intent
 * does. A captured charge is 400 `charge_already_captured`; a released one (refunded, canceled or
 * expired) `charge_expired_for_capture` when it expired and `charge_already_refunded` otherwise.
 */
export async function captureCharge(ctx: RequestContext, id: string, params: ChargeCaptureParams): Promise<Charge> {
  // `expand` is applied to the result by the handler.
  const { amount, receipt_email, statement_descriptor, statement_descriptor_suffix, expand: _expand, ...unread } = params;
  allParamsRead(unread);
  const unlocked = await requireCharge(ctx, id);
  if (unlocked.payment_intent_id === null) {
    // Made before payment intents existed: captured when it succeeded.
    throw new ApiError('charge_already_captured', `Charge ${id} has already been captured.`);
  }
  // The intent, then the charge, locked (the one lock order): a concurrent capture or release is
  // seen as done, whichever came first.
  const intent = await requireLocked(ctx, unlocked.payment_intent_id);
  let charge = (await findChargeForUpdate(ctx.db, ctx.accountId, id))!;
  if (charge.amount_captured > 0) throw new ApiError('charge_already_captured', `Charge ${id} has already been captured.`);
  if (intent.status !== 'requires_capture' || intent.latest_charge_id !== charge.id) throw notCapturable(ctx, charge, intent);
  const toCapture = amount ?? intent.amount_capturable;
  if (toCapture > intent.amount_capturable) {
    throw new ApiError('amount_too_large', `The amount to capture (${toCapture}) is greater than the amount authorised (${intent.amount_capturable}).`, {
      param: 'amount',
    });
  }
  if (receipt_email !== undefined) {
    // The receipt the capture sends goes here (it overrides the charge's address).
    charge = (await setReceiptFields(ctx.db, ctx.accountId, id, { receipt_email, receipt_number: charge.receipt_number }))!;
  }
  charge = await withCaptureDescriptors(ctx, charge, { statement_descriptor, statement_descriptor_suffix });
  await captureAuthorization(ctx, intent, charge, toCapture);
  return retrieveCharge(ctx, id);
}

/** Why a charge that is not its intent's live authorisation cannot be captured. */
function notCapturable(ctx: RequestContext, charge: ChargeRow, intent: PaymentIntentRow): ApiError {
  if (charge.status === 'succeeded' && charge.amount_refunded === charge.amount) {
    return intent.cancellation_reason === 'automatic' && intent.latest_charge_id === charge.id
      ? new ApiError('charge_expired_for_capture', `The authorisation of charge ${charge.id} has expired; it can no longer be captured.`, {
          paymentIntent: toPaymentIntentResource(intent, originOf(ctx)),
        })
      : new ApiError('charge_already_refunded', `Charge ${charge.id} was refunded uncaptured; it can no longer be captured.`);
  }
  return new ApiError('payment_intent_unexpected_state', `Charge ${charge.id} did not succeed, so it cannot be captured.`, {
    paymentIntent: toPaymentIntentResource(intent, originOf(ctx)),
  });
}

export async function listCharges(
  ctx: RequestContext,
  query: PageParams & {
    customer?: string;
    payment_intent?: string;
    status?: ChargeRow['status'];
    statuses?: readonly ChargeRow['status'][];
  },
) {
  const statuses = query.statuses ?? (query.status ? [query.status] : undefined);
  return readMayLag(ctx, async (db) => {
    const page = await listChargeRows(db, ctx.accountId, { customer: query.customer, paymentIntent: query.payment_intent }, query, statuses);
    return { ...listOf('/v1/charges', page, (row) => row), data: await toCharges(db, ctx.accountId, page.rows, originOf(ctx)) };
  });
}

/** `GET /v1/customers/{id}/charges`: 404 when the customer is not this account's. */
export async function listChargesOfCustomer(ctx: RequestContext, customerId: string, query: PageParams) {
  return readMayLag(ctx, async (db) => {
    await requireCustomer({ ...ctx, db }, customerId);
    const page = await listChargeRows(db, ctx.accountId, { customer: customerId }, query);
    return { ...listOf(`/v1/customers/${customerId}/charges`, page, (row) => row), data: await toCharges(db, ctx.accountId, page.rows, originOf(ctx)) };
  });
}
