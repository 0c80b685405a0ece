import { unixSeconds } from '../../domain/clock.js';
import { ApiError, notFound } from '../../domain/errors.js';
import type { RequestContext } from '../../operations/operations.js';
import { requireCustomer } from '../customers/customers.service.js';
import { recordEvent, recordEvents } from '../events/events.service.js';
import { updatedMetadata } from '../shared/metadata.js';
import { allParamsRead } from '../shared/params.js';
import { listOf, type PageParams } from '../shared/pagination.js';
import { readMayLag } from '../shared/replica-reads.js';
import { captureAuthorization, lockAuthorization, releaseAuthorization, withCaptureDescriptors } from '../payments/authorizations.js';
import { attemptPayment, makePayment, newIntent, storedPaymentMethodOptions, type PaymentOutcome } from '../payments/payment-attempts.js';
import { paymentMethodFromData } from '../payments/payment-method-data.js';
import { storedJson, toShipping } from '../shared/shipping.js';
import { toPaymentMethodResource } from '../payments/payment-methods.mapper.js';
import { resolvePaymentMethod, sourceOf, type UsablePaymentMethod } from '../payments/payment-methods.js';
import {
  findPaymentIntent,
  insertPaymentIntent,
  listPaymentIntentRows,
  updatePaymentIntentRow,
  type PaymentIntentChanges,
  type PaymentIntentRow,
  type PaymentIntentStatus,
} from '../payments/payment-intents.repo.js';
import {
  toPaymentIntentResource,
  type PaymentIntent,
  type PaymentIntentAuthenticateParams,
  type PaymentIntentCancelParams,
  type PaymentIntentCaptureParams,
  type PaymentIntentConfirmParams,
  type PaymentIntentCreateParams,
  type PaymentIntentUpdateParams,
} from '../payments/payment-intents.mapper.js';
import { assertCan, requireLocked } from '../payments/payment-intents.transitions.js';
import { assertClientSecret, openClientSecret } from '../payments/client-secrets.js';
import { PAYMENT_INTENT_CLIENT_SECRET } from '../shared/sealed-secrets.js';
import { originOf } from '../shared/public-origin.js';

/**
 * Creates an intent: `requires_payment_method`, or `requires_confirmation` with a payment method;
 * `confirm` confirms it at once (a decline is then an outcome, answered 402, with the intent kept).
 */
export async function createPaymentIntent(ctx: RequestContext, params: PaymentIntentCreateParams): Promise<PaymentOutcome> {
  // `expand` is applied to the result by the handler.
  const {
    amount,
    currency,
    customer,
    payment_method,
    capture_method,
    confirm,
    off_session,
    setup_future_usage,
    description,
    metadata,
    receipt_email,
    return_url,
    automatic_payment_methods,
    payment_method_types,
    confirmation_method,
    error_on_requires_action,
    payment_method_data,
    payment_method_options,
    shipping,
    statement_descriptor,
    statement_descriptor_suffix,
    // Asks the widely used API's client libraries to handle the action; `next_action` is this server's either way.
    use_stripe_sdk: _clientHandlesAction,
    expand: _expand,
    ...unread
  } = params;
  allParamsRead(unread);
  if (automatic_payment_methods?.enabled && payment_method_types !== undefined) {
    throw new ApiError('parameter_invalid', 'You may only specify one of these parameters: automatic_payment_methods, payment_method_types.', {
      param: 'automatic_payment_methods',
    });
  }
  if (confirm && payment_method === undefined && payment_method_data === undefined) {
    throw new ApiError('parameter_missing', 'A payment_method is required to confirm a PaymentIntent.', { param: 'payment_method' });
  }
  if (off_session && !confirm) {
    throw new ApiError('parameter_invalid', 'off_session can only be used with confirm=true.', { param: 'off_session' });
  }
  if (error_on_requires_action && !confirm) {
    throw new ApiError('parameter_invalid', 'error_on_requires_action can only be used with confirm=true.', { param: 'error_on_requires_action' });
  }
  if (customer) await requireCustomer(ctx, customer, 'customer');
  const method = await paymentMethodSent(ctx, payment_method, payment_method_data, customer ?? null);
  const row = await insertPaymentIntent(
    ctx.db,
    newIntent(ctx, {
      amount,
      currency,
      customer,
      payment_method: method?.id,
      capture_method,
      setup_future_usage,
      description,
      metadata,
      receipt_email,
      return_url,
      automatic_payment_methods,
      payment_method_types,
      confirmation_method,
      payment_method_options,
      shipping,
      statement_descriptor,
      statement_descriptor_suffix,
    }),
  );
  const intent = toPaymentIntentResource(row, originOf(ctx));
  await recordEvent(ctx, 'payment_intent.created', intent);
  if (!confirm || !method) return { intent };
  return attemptPayment(ctx, row, method, { offSession: off_session, errorOnRequiresAction: error_on_requires_action });
}

/**
 * The payment method an intent is given: `payment_method` (a saved one, or a test name that makes
 * one), or one made of `payment_method_data`; never both. Undefined when neither was sent.
 */
async function paymentMethodSent(
  ctx: RequestContext,
  reference: string | undefined,
  data: PaymentIntentCreateParams['payment_method_data'],
  customerId: string | null,
): Promise<UsablePaymentMethod | undefined> {
  if (reference !== undefined && data !== undefined) {
    throw new ApiError('parameter_invalid', 'You may only specify one of these parameters: payment_method, payment_method_data.', {
      param: 'payment_method_data',
    });
  }
  if (data !== undefined) return paymentMethodFromData(ctx, data, 'payment_method_data');
  return reference === undefined ? undefined : resolvePaymentMethod(ctx, reference, customerId);
}

/** The intent; with the publishable key, only with its `client_secret` (see assertClientSecret). */
export async function retrievePaymentIntent(
  ctx: RequestContext,
  id: string,
  query: { client_secret?: string; expand?: string[] } = {},
): Promise<PaymentIntent> {
  const row = await findPaymentIntent(ctx.db, ctx.accountId, id);
  if (!row) throw notFound('payment_intent', id);
  assertClientSecretOf(ctx, row, query, 'query');
  return toPaymentIntentResource(row, originOf(ctx));
}

function assertClientSecretOf(ctx: RequestContext, row: PaymentIntentRow, sent: { client_secret?: string; expand?: string[] }, where: 'query' | 'body') {
  const secret = openClientSecret(ctx.secrets, PAYMENT_INTENT_CLIENT_SECRET, row.id, row.client_secret);
  assertClientSecret(ctx, { name: 'payment_intent', id: row.id, secret }, sent, where);
}

export async function listPaymentIntents(
  ctx: RequestContext,
  query: PageParams & { customer?: string; status?: PaymentIntentStatus; statuses?: readonly PaymentIntentStatus[] },
) {
  const statuses = query.statuses ?? (query.status ? [query.status] : undefined);
  const page = await readMayLag(ctx, (db) => listPaymentIntentRows(db, ctx.accountId, { customer: query.customer, statuses }, query));
  return listOf('/v1/payment_intents', page, (row) => toPaymentIntentResource(row, originOf(ctx)));
}

/**
 * Changes an intent that is not final: `description` and `metadata` at any time, what it pays
 * (amount, currency, customer, payment method, capture method) only before confirmation. Setting
 * a payment method on an intent without one makes it `requires_confirmation`.
 */
export async function updatePaymentIntent(ctx: RequestContext, id: string, params: PaymentIntentUpdateParams): Promise<PaymentIntent> {
  // `expand` is applied to the result by the handler.
  const {
    amount,
    currency,
    customer,
    payment_method,
    capture_method,
    setup_future_usage,
    description,
    metadata,
    receipt_email,
    payment_method_data,
    payment_method_options,
    payment_method_types,
    shipping,
    statement_descriptor,
    statement_descriptor_suffix,
    expand: _expand,
    ...unread
  } =
    params;
  allParamsRead(unread);
  const row = await requireLocked(ctx, id);
  assertCan(ctx, row, 'update');
  const changes: PaymentIntentChanges = { metadata: updatedMetadata(row.metadata, metadata) };
  if (description !== undefined) changes.description = description;
  if (receipt_email !== undefined) changes.receipt_email = receipt_email;
  if (shipping !== undefined) changes.shipping = storedJson(shipping, row.shipping, toShipping);
  if (statement_descriptor !== undefined) changes.statement_descriptor = statement_descriptor;
  if (statement_descriptor_suffix !== undefined) changes.statement_descriptor_suffix = statement_descriptor_suffix;
  const payment = {
    amount,
    currency: currency?.toLowerCase(),
    customer_id: customer,
    payment_method,
    capture_method,
    setup_future_usage,
    payment_method_types: payment_method_types && JSON.stringify(payment_method_types),
    payment_method_options: payment_method_options && storedPaymentMethodOptions(payment_method_options, row.payment_method_options),
  };
  const paymentChanges: PaymentIntentChanges = Object.fromEntries(Object.entries(payment).filter(([, value]) => value !== undefined));
  if (Object.keys(paymentChanges).length > 0 || payment_method_data !== undefined) {
    assertCan(ctx, row, 'change the payment of');
    if (customer !== undefined) await requireCustomer(ctx, customer, 'customer');
    const method = await paymentMethodSent(ctx, payment_method, payment_method_data, customer ?? row.customer_id);
    if (method) paymentChanges.payment_method = method.id;
    Object.assign(changes, paymentChanges);
    if (method && row.status === 'requires_payment_method') changes.status = 'requires_confirmation';
  }
  return toPaymentIntentResource(await updatePaymentIntentRow(ctx.db, ctx.accountId, id, changes), originOf(ctx));
}

/** Confirms an intent with its payment method, or the one sent (see attemptPayment). */
export async function confirmPaymentIntent(ctx: RequestContext, id: string, params: PaymentIntentConfirmParams): Promise<PaymentOutcome> {
  // `expand` is applied to the result by the handler.
  const {
    payment_method,
    capture_method,
    off_session,
    setup_future_usage,
    receipt_email,
    return_url,
    client_secret,
    error_on_requires_action,
    payment_method_data,
    payment_method_options,
    payment_method_types,
    shipping,
    use_stripe_sdk: _clientHandlesAction,
    expand,
    ...unread
  } = params;
  allParamsRead(unread);
  let row = await requireLocked(ctx, id);
  assertClientSecretOf(ctx, row, { client_secret, expand }, 'body');
  if (ctx.grant === 'publishable' && capture_method !== undefined) {
    throw new ApiError('parameter_invalid', 'A publishable key cannot set capture_method; use a secret key.', { param: 'capture_method' });
  }
  if (ctx.grant === 'publishable' && row.confirmation_method === 'manual') {
    throw new ApiError(
      'parameter_invalid',
      'This PaymentIntent has confirmation_method=manual: it can be confirmed only with a secret key, from your server.',
      { param: 'client_secret' },
    );
  }
  assertCan(ctx, row, 'confirm');
  const sent = await paymentMethodSent(ctx, payment_method, payment_method_data, row.customer_id);
  const reference = sent?.id ?? row.payment_method;
  if (reference === null) {
    throw new ApiError('parameter_missing', 'A payment_method is required to confirm this PaymentIntent.', { param: 'payment_method' });
  }
  const method = sent ?? (await resolvePaymentMethod(ctx, reference, row.customer_id));
  const changes: PaymentIntentChanges = {};
  if (capture_method !== undefined && capture_method !== row.capture_method) changes.capture_method = capture_method;
  if (setup_future_usage !== undefined && setup_future_usage !== row.setup_future_usage) changes.setup_future_usage = setup_future_usage;
  if (receipt_email !== undefined) changes.receipt_email = receipt_email;
  if (return_url !== undefined && return_url !== row.return_url) changes.return_url = return_url;
  if (payment_method_types !== undefined) changes.payment_method_types = JSON.stringify(payment_method_types);
  if (payment_method_options !== undefined) changes.payment_method_options = storedPaymentMethodOptions(payment_method_options, row.payment_method_options);
  if (shipping !== undefined) changes.shipping = storedJson(shipping, row.shipping, toShipping);
  if (Object.keys(changes).length > 0) row = await updatePaymentIntentRow(ctx.db, ctx.accountId, id, changes);
  return attemptPayment(ctx, row, method, { offSession: off_session, errorOnRequiresAction: error_on_requires_action });
}

/** Captures `amount_to_capture` (default: all) of an authorised intent; the rest is released. */
export async function capturePaymentIntent(ctx: RequestContext, id: string, params: PaymentIntentCaptureParams): Promise<PaymentIntent> {
  // `expand` is applied to the result by the handler.
  const { amount_to_capture, metadata, statement_descriptor, statement_descriptor_suffix, expand: _expand, ...unread } = params;
  allParamsRead(unread);
  let row = await requireLocked(ctx, id);
  assertCan(ctx, row, 'capture');
  const amount = amount_to_capture ?? row.amount_capturable;
  if (amount > row.amount_capturable) {
    throw new ApiError(
      'amount_too_large',
      `The amount to capture (${amount}) is greater than the amount capturable (${row.amount_capturable}).`,
      { param: 'amount_to_capture' },
    );
  }
  const descriptors = { statement_descriptor, statement_descriptor_suffix };
  if (metadata !== undefined || statement_descriptor !== undefined || statement_descriptor_suffix !== undefined) {
    // What the capture is given is the intent's from now on (its metadata updated as an update does).
    const changes: PaymentIntentChanges = { metadata: updatedMetadata(row.metadata, metadata) };
    if (statement_descriptor !== undefined) changes.statement_descriptor = statement_descriptor;
    if (statement_descriptor_suffix !== undefined) changes.statement_descriptor_suffix = statement_descriptor_suffix;
    row = await updatePaymentIntentRow(ctx.db, ctx.accountId, id, changes);
  }
  const charge = await withCaptureDescriptors(ctx, await lockAuthorization(ctx, row), descriptors);
  return captureAuthorization(ctx, row, charge, amount);
}

/** Cancels an intent that is not final; an authorisation it holds is released in full. */
export async function cancelPaymentIntent(ctx: RequestContext, id: string, params: PaymentIntentCancelParams): Promise<PaymentIntent> {
  // `expand` is applied to the result by the handler.
  const { cancellation_reason, expand: _expand, ...unread } = params;
  allParamsRead(unread);
  const row = await requireLocked(ctx, id);
  assertCan(ctx, row, 'cancel');
  // A refund's reasons are a subset of a cancellation's: the release refund carries it when it can.
  const refundReason = cancellation_reason === 'abandoned' ? null : (cancellation_reason ?? null);
  const release =
    row.status === 'requires_capture'
      ? await releaseAuthorization(ctx, await lockAuthorization(ctx, row), { expired: false, reason: refundReason })
      : undefined;
  const canceled = await updatePaymentIntentRow(ctx.db, ctx.accountId, id, {
    status: 'canceled',
    amount_capturable: 0,
    canceled_at: unixSeconds(ctx.clock),
    cancellation_reason: cancellation_reason ?? null,
  });
  const intent = toPaymentIntentResource(canceled, originOf(ctx));
  await recordEvents(ctx, [...(release?.events ?? []), { type: 'payment_intent.canceled', object: intent }]);
  return intent;
}

/**
 * The test helper standing in for the customer's authentication of an intent in `requires_action`:
 * `succeeded` makes the payment; `failed` returns the intent to `requires_payment_method`.
 */
export async function authenticatePaymentIntent(
  ctx: RequestContext,
  id: string,
  params: PaymentIntentAuthenticateParams,
): Promise<PaymentIntent> {
  // `expand` is applied to the result by the handler.
  const { outcome, expand: _expand, ...unread } = params;
  allParamsRead(unread);
  const row = await requireLocked(ctx, id);
  assertCan(ctx, row, 'authenticate');
  const method: UsablePaymentMethod = await resolvePaymentMethod(ctx, row.payment_method!, row.customer_id);
  if (outcome !== 'failed' && row.confirmation_method === 'manual') {
    // Authenticated: a manual confirmation waits for the server to confirm again, which pays unasked.
    return toPaymentIntentResource(
      await updatePaymentIntentRow(ctx.db, ctx.accountId, id, { status: 'requires_confirmation', authenticated_payment_method: method.id }),
      originOf(ctx),
    );
  }
  if (outcome !== 'failed') {
    // Authenticated: the payment goes on as any other (it cannot be declined by these test cards).
    const { requiresAction: _always, requiresSetupForOffSession: _onSetup, ...source } = sourceOf(method);
    return (await makePayment(ctx, row, method.id, source, { paymentMethod: method, authenticated: true })).intent;
  }
  const failed = await updatePaymentIntentRow(ctx.db, ctx.accountId, id, {
    status: 'requires_payment_method',
    payment_method: null,
    last_payment_error: JSON.stringify({
      type: 'card_error',
      code: 'payment_intent_authentication_failure',
      message: 'The provided payment method has failed authentication. Provide a new payment method to attempt this payment again.',
      payment_method: toPaymentMethodResource(method),
    }),
  });
  const intent = toPaymentIntentResource(failed, originOf(ctx));
  await recordEvent(ctx, 'payment_intent.payment_failed', intent);
  return intent;
}
