import { unixSeconds } from '../../domain/clock.js';
import { cardErrorBody, type CardErrorBody, type DeclineCode } from '../../domain/errors.js';
import { newId } from '../../domain/ids.js';
import type { RequestContext } from '../../operations/operations.js';
import { recordEvent, recordEvents, type EventRecord } from '../events/events.service.js';
import { initialMetadata } from '../shared/metadata.js';
import { storedJson, toShipping } from '../shared/shipping.js';
import { PAYMENT_INTENT_CLIENT_SECRET } from '../shared/sealed-secrets.js';
import { newClientSecret } from './client-secrets.js';
import { insertCharge } from './charges.repo.js';
import { toCharge, type Charge } from './charges.mapper.js';
import { testCardExpiry, type TestSource } from './test-sources.js';
import { newReceiptToken, queueReceiptMail, receiptDue, receiptNumberOf } from './receipts.js';
import { toPaymentMethodResource } from './payment-methods.mapper.js';
import { updatePaymentMethodRow, type PaymentMethodRow } from './payment-methods.repo.js';
import {
  attachToCustomer,
  AUTHENTICATION_REQUIRED,
  isOffSessionReady,
  sourceOf,
  type UsablePaymentMethod,
} from './payment-methods.js';
import { updatePaymentIntentRow, type PaymentIntentChanges, type PaymentIntentRow } from './payment-intents.repo.js';
import {
  cardCaptureMethod,
  toPaymentIntentResource,
  type PaymentError,
  type PaymentIntent,
  type PaymentIntentCreateParams,
  type PaymentMethodOptionsParams,
} from './payment-intents.mapper.js';
import { statementDescriptors } from './statement-descriptors.js';
import { originOf } from '../shared/public-origin.js';

/** How long an authorisation may be captured: 7 days, as card networks hold them. */
export const AUTHORIZATION_SECONDS = 7 * 24 * 60 * 60;

/** An intent after a payment attempt; `decline` when the payment method was declined (answered 402). */
export interface PaymentOutcome {
  intent: PaymentIntent;
  /** The charge the attempt made, when it got as far as making one. */
  charge?: Charge;
  decline?: { code: DeclineCode; message: string; chargeId: string; errorCode?: CardErrorBody['code'] };
}

/** The outcome of a payment made (not waiting on the customer): it always holds its charge. */
export type PaymentMade = PaymentOutcome & { charge: Charge };

/**
 * A new intent's row, not yet written: `requires_payment_method`, or `requires_confirmation` with a
 * payment method; captured automatically unless `capture_method` says `manual`.
 */
export function newIntent(
  ctx: RequestContext,
  fields: Pick<
    PaymentIntentCreateParams,
    | 'amount'
    | 'currency'
    | 'customer'
    | 'payment_method'
    | 'capture_method'
    | 'setup_future_usage'
    | 'description'
    | 'metadata'
    | 'receipt_email'
    | 'return_url'
    | 'automatic_payment_methods'
    | 'payment_method_types'
    | 'payment_method_options'
    | 'shipping'
    | 'statement_descriptor'
    | 'statement_descriptor_suffix'
  > &
    Partial<Pick<PaymentIntentCreateParams, 'confirmation_method'>>,
): Omit<PaymentIntentRow, 'seq'> {
  const automatic = fields.automatic_payment_methods;
  const id = newId('paymentIntent');
  return {
    id,
    account_id: ctx.accountId,
    customer_id: fields.customer ?? null,
    amount: fields.amount,
    amount_capturable: 0,
    amount_received: 0,
    currency: fields.currency.toLowerCase(),
    capture_method: fields.capture_method ?? 'automatic',
    status: fields.payment_method === undefined ? 'requires_payment_method' : 'requires_confirmation',
    payment_method: fields.payment_method ?? null,
    latest_charge_id: null,
    last_payment_error: null,
    description: fields.description ?? null,
    metadata: initialMetadata(fields.metadata),
    canceled_at: null,
    cancellation_reason: null,
    setup_future_usage: fields.setup_future_usage ?? null,
    created: unixSeconds(ctx.clock),
    receipt_email: fields.receipt_email ?? null,
    client_secret: newClientSecret(ctx.secrets, PAYMENT_INTENT_CLIENT_SECRET, id).sealed,
    return_url: fields.return_url ?? null,
    automatic_payment_methods: automatic
      ? JSON.stringify(automatic.enabled ? { enabled: true, allow_redirects: automatic.allow_redirects ?? 'always' } : { enabled: false })
      : null,
    payment_method_types: JSON.stringify(fields.payment_method_types ?? ['card']),
    confirmation_method: fields.confirmation_method ?? 'automatic',
    authenticated_payment_method: null,
    payment_method_options: storedPaymentMethodOptions(fields.payment_method_options, null),
    shipping: storedJson(fields.shipping, null, toShipping),
    statement_descriptor: fields.statement_descriptor ?? null,
    statement_descriptor_suffix: fields.statement_descriptor_suffix ?? null,
  };
}

/** The stored JSON of `payment_method_options` after a request (`current` when not sent; an empty capture method unsets it). */
export function storedPaymentMethodOptions(sent: PaymentMethodOptionsParams | undefined, current: string | null): string | null {
  if (sent === undefined || sent.card === undefined) return current;
  return sent.card.capture_method === 'manual' ? JSON.stringify({ card: { capture_method: 'manual' } }) : null;
}

/**
 * Whether a payment with this card needs the customer to authenticate it: always for a card that
 * asks for it on every payment; for one that asks on setup only, unless the payment is off-session
 * and the card was set up for that.
 */
function needsAuthentication(source: TestSource, method: UsablePaymentMethod, offSession: boolean): boolean {
  if (source.requiresAction) return true;
  return source.requiresSetupForOffSession === true && !(offSession && isOffSessionReady(method));
}

/** How a confirmation is made. */
export interface AttemptOptions {
  /** The customer is away (`off_session`): a card that needs authentication fails at once. */
  offSession?: boolean;
  /** `error_on_requires_action`: a card that needs authentication fails at once, as off-session. */
  errorOnRequiresAction?: boolean;
}

/**
 * Confirms an intent with a payment method: a card that needs authentication waits in
 * `requires_action` on session, and off-session (`offSession`, the customer is away) or with
 * `errorOnRequiresAction` fails at once with `authentication_required`; otherwise the payment is
 * made. A payment method the customer already authenticated for this intent (a manual
 * confirmation after the authentication) is not asked again.
 */
export async function attemptPayment(
  ctx: RequestContext,
  row: Omit<PaymentIntentRow, 'seq'>,
  method: UsablePaymentMethod,
  { offSession = false, errorOnRequiresAction = false }: AttemptOptions = {},
): Promise<PaymentOutcome> {
  const source = sourceOf(method);
  if (row.authenticated_payment_method === method.id) {
    const { requiresAction: _always, requiresSetupForOffSession: _onSetup, ...authenticated } = source;
    return makePayment(ctx, row, method.id, authenticated, { paymentMethod: method, authenticated: true });
  }
  if (!needsAuthentication(source, method, offSession)) return makePayment(ctx, row, method.id, source, { paymentMethod: method });
  if (offSession || errorOnRequiresAction) {
    // The customer is not there to authenticate: the attempt is declined as the card networks do.
    const declined = { ...source, decline: AUTHENTICATION_REQUIRED, errorCode: 'authentication_required' as const };
    return makePayment(ctx, row, method.id, declined, { paymentMethod: method });
  }
  const waiting = await updatePaymentIntentRow(ctx.db, ctx.accountId, row.id, {
    status: 'requires_action',
    payment_method: method.id,
    last_payment_error: null,
  });
  const intent = toPaymentIntentResource(waiting, originOf(ctx));
  await recordEvent(ctx, 'payment_intent.requires_action', intent);
  return { intent };
}

/** How a payment is made beyond the intent and its method (what `POST /v1/charges` needs). */
export interface PaymentOptions {
  /** The charge's metadata; default none. */
  metadata?: string;
  /** Events recorded just before the payment's, in the same statement (the intent's creation). */
  precedingEvents?: EventRecord[];
  /**
   * Writes the intent's new state; default: updates its row. An intent made and paid in one
   * request (`POST /v1/charges`) is inserted in its final state instead: one statement fewer.
   */
  writeIntent?: (changes: PaymentIntentChanges) => Promise<Omit<PaymentIntentRow, 'seq'>>;
  /** The saved payment method paid with (absent for a charge made from a token). */
  paymentMethod?: UsablePaymentMethod;
  /** Whether the customer authenticated this payment (3-D Secure): it sets the card up for off-session use. */
  authenticated?: boolean;
  /** The fingerprint of a token's test card (a payment method carries its own). */
  cardFingerprint?: string;
}

/**
 * What a charge keeps of the payment method paid with: its id, card (expiry, fingerprint, CVC
 * check) and billing details; a token's expiry for a charge made from a token.
 */
function chargeCard(method: Omit<PaymentMethodRow, 'seq'> | undefined, tokenFingerprint: string | undefined, now: number) {
  const expiry = testCardExpiry(now);
  return {
    payment_method_id: method?.id ?? null,
    card_exp_month: method?.card_exp_month ?? expiry.month,
    card_exp_year: method?.card_exp_year ?? expiry.year,
    card_fingerprint: method?.card_fingerprint ?? tokenFingerprint ?? null,
    card_cvc_check: method?.card_cvc_check ?? null,
    billing_details: method?.billing_details ?? null,
  };
}

/**
 * Makes the payment (`processing`, within this transaction): a charge is recorded either way. A
 * declined method leaves the intent in `requires_payment_method` with `last_payment_error`; a
 * successful one captures at once (`automatic`) or holds the amount for 7 days (`manual`).
 */
export async function makePayment(
  ctx: RequestContext,
  row: Omit<PaymentIntentRow, 'seq'>,
  method: string,
  source: TestSource & { errorCode?: CardErrorBody['code'] },
  options: PaymentOptions = {},
): Promise<PaymentMade> {
  const preceding = options.precedingEvents ?? [];
  const writeIntent = options.writeIntent ?? ((changes) => updatePaymentIntentRow(ctx.db, ctx.accountId, row.id, changes));
  const now = unixSeconds(ctx.clock);
  const declined = source.decline;
  const automatic = cardCaptureMethod(row) === 'automatic';
  // A paid charge has a receipt page at once; its e-mail goes once the amount is captured.
  const receiptNow = !declined && automatic && row.receipt_email !== null;
  const chargeRow = await insertCharge(ctx.db, {
    id: newId('charge'),
    account_id: ctx.accountId,
    customer_id: row.customer_id,
    amount: row.amount,
    amount_refunded: 0,
    currency: row.currency,
    description: row.description,
    metadata: options.metadata ?? initialMetadata(undefined),
    status: declined ? 'failed' : 'succeeded',
    failure_code: declined ? (source.errorCode ?? 'card_declined') : null,
    failure_message: declined?.message ?? null,
    decline_code: declined?.code ?? null,
    three_d_secure_authenticated: options.authenticated === true,
    card_brand: source.brand,
    card_last4: source.last4,
    created: now,
    payment_intent_id: row.id,
    amount_captured: !declined && automatic ? row.amount : 0,
    capture_before: !declined && !automatic ? now + AUTHORIZATION_SECONDS : null,
    receipt_email: row.receipt_email,
    receipt_number: receiptNow ? receiptNumberOf({ receipt_number: null }) : null,
    receipt_token: declined ? null : newReceiptToken(),
    ...(await statementDescriptors(ctx.db, ctx.accountId, row.statement_descriptor, row.statement_descriptor_suffix)),
    shipping: row.shipping,
    ...chargeCard(options.paymentMethod, options.cardFingerprint, now),
  });
  if (receiptDue(chargeRow)) await queueReceiptMail(ctx.db, ctx.clock, chargeRow);
  const charge = await toCharge(ctx.db, ctx.accountId, chargeRow, originOf(ctx));
  if (declined) {
    const error: PaymentError = {
      type: 'card_error',
      code: source.errorCode ?? 'card_declined',
      decline_code: declined.code,
      message: declined.message,
      charge: chargeRow.id,
    };
    if (options.paymentMethod) error.payment_method = toPaymentMethodResource(options.paymentMethod);
    const failed = await writeIntent({
      status: 'requires_payment_method',
      payment_method: null,
      latest_charge_id: chargeRow.id,
      last_payment_error: JSON.stringify(error),
    });
    const intent = toPaymentIntentResource(failed, originOf(ctx));
    await recordEvents(ctx, [
      ...preceding,
      { type: 'charge.failed', object: charge },
      { type: 'payment_intent.payment_failed', object: intent },
    ]);
    const decline = { code: declined.code, message: declined.message, chargeId: chargeRow.id, errorCode: source.errorCode };
    return { intent, charge, decline };
  }
  const paid = await writeIntent({
    status: automatic ? 'succeeded' : 'requires_capture',
    payment_method: method,
    latest_charge_id: chargeRow.id,
    last_payment_error: null,
    amount_capturable: automatic ? 0 : row.amount,
    amount_received: automatic ? row.amount : 0,
  });
  const intent = toPaymentIntentResource(paid, originOf(ctx));
  await recordEvents(ctx, [
    ...preceding,
    { type: 'charge.succeeded', object: charge },
    automatic
      ? { type: 'payment_intent.succeeded', object: intent }
      : { type: 'payment_intent.amount_capturable_updated', object: intent },
  ]);
  if (options.paymentMethod && row.setup_future_usage) await saveForFutureUsage(ctx, row, options.paymentMethod, options.authenticated);
  return { intent, charge };
}

/**
 * `setup_future_usage` after a successful payment: the payment method is attached to the intent's
 * customer (if it has one), and a payment the customer authenticated for `off_session` use sets the
 * card up for off-session payments.
 */
async function saveForFutureUsage(
  ctx: RequestContext,
  row: Omit<PaymentIntentRow, 'seq'>,
  method: UsablePaymentMethod,
  authenticated = false,
): Promise<void> {
  if (authenticated && row.setup_future_usage === 'off_session' && !isOffSessionReady(method)) {
    await updatePaymentMethodRow(ctx.db, ctx.accountId, method.id, { off_session_ready: true });
  }
  if (row.customer_id !== null) await attachToCustomer(ctx, method.id, row.customer_id, 'payment_method');
}

/**
 * The 402 body a declined payment answers with, whichever operation made it (a charge, an
 * intent's creation or confirmation): the failed charge and the intent as it now is.
 */
export function declineBody(outcome: Required<Pick<PaymentOutcome, 'intent' | 'decline'>>, requestId: string): CardErrorBody {
  const { decline, intent } = outcome;
  return cardErrorBody(
    { code: decline.errorCode, declineCode: decline.code, message: decline.message, charge: decline.chargeId, paymentIntent: intent },
    requestId,
  );
}
