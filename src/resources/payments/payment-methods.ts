import { unixSeconds } from '../../domain/clock.js';
import { ApiError, notFound } from '../../domain/errors.js';
import { newId } from '../../domain/ids.js';
import type { RequestContext } from '../../operations/operations.js';
import { recordEvent } from '../events/events.service.js';
import { initialMetadata, type Metadata } from '../shared/metadata.js';
import { NO_BILLING_DETAILS, toPaymentMethodResource, type BillingDetails, type PaymentMethod } from './payment-methods.mapper.js';
import {
  attachPaymentMethodRow,
  findPaymentMethod,
  findPaymentMethodForUpdate,
  insertPaymentMethod,
  type PaymentMethodRow,
} from './payment-methods.repo.js';
import { cardFingerprint, findTestCardByReference, testCardExpiry, testCardNamed, type TestCard, type TestSource } from './test-sources.js';

/** A payment method's row as it is used by a payment (written or read; its `seq` is not needed). */
export type UsablePaymentMethod = Omit<PaymentMethodRow, 'seq'>;

/** What a new card's row needs beyond the test card. */
export interface NewCard {
  expMonth?: number;
  expYear?: number;
  /** Whether a CVC was given (checked: it passes, but for the incorrect-CVC card). */
  cvcGiven?: boolean;
  billingDetails?: BillingDetails;
  metadata?: Metadata;
}

/** Writes a new card payment method from a test card; the card number itself is never stored. */
export async function insertCardPaymentMethod(ctx: RequestContext, card: TestCard, fields: NewCard = {}): Promise<UsablePaymentMethod> {
  const now = unixSeconds(ctx.clock);
  const cvcCheck = !fields.cvcGiven ? 'unchecked' : card.decline?.code === 'incorrect_cvc' ? 'fail' : 'pass';
  return insertPaymentMethod(ctx.db, {
    id: newId('paymentMethod'),
    account_id: ctx.accountId,
    customer_id: null,
    test_card: card.name,
    card_brand: card.brand,
    card_last4: card.last4,
    card_fingerprint: cardFingerprint(card),
    card_exp_month: fields.expMonth ?? testCardExpiry(now).month,
    card_exp_year: fields.expYear ?? testCardExpiry(now).year,
    card_cvc_check: cvcCheck,
    billing_details: JSON.stringify(fields.billingDetails ?? NO_BILLING_DETAILS),
    metadata: initialMetadata(fields.metadata),
    off_session_ready: false,
    created: now,
  });
}

/** How payments with this payment method go (its test card). */
export function sourceOf(method: UsablePaymentMethod): TestCard {
  return testCardNamed(method.test_card);
}

/** Whether the payment method was set up (authenticated) for off-session payments. */
export function isOffSessionReady(method: UsablePaymentMethod): boolean {
  return Boolean(method.off_session_ready);
}

/**
 * The payment method an intent is given: a test name (`pm_card_visa`, `tok_visa`) makes a new one
 * from its card at each use, as the widely used payments API does; a saved one (`pm_…`) must be
 * the account's, and may be used for the intent's customer only when it is attached to one.
 */
export async function resolvePaymentMethod(
  ctx: RequestContext,
  reference: string,
  customerId: string | null,
  param = 'payment_method',
): Promise<UsablePaymentMethod> {
  const card = findTestCardByReference(reference);
  if (card) return insertCardPaymentMethod(ctx, card);
  if (reference.startsWith('pm_card_') || reference.startsWith('tok_')) {
    throw new ApiError('parameter_invalid', `No such PaymentMethod: '${reference}'`, { param });
  }
  const method = await findPaymentMethod(ctx.db, ctx.accountId, reference);
  if (!method) throw notFound('PaymentMethod', reference, param);
  assertUsableFor(method, customerId, param);
  return method;
}

/** Refuses a payment method attached to a customer other than the (payment or setup) intent's (400 naming `param`). */
export function assertUsableFor(method: UsablePaymentMethod, customerId: string | null, param = 'payment_method'): void {
  if (method.customer_id !== null && method.customer_id !== customerId) {
    throw new ApiError(
      'parameter_invalid',
      `The PaymentMethod '${method.id}' is attached to another customer than this intent's; pass its customer as \`customer\`.`,
      { param },
    );
  }
}

/**
 * Attaches a payment method to a customer, within the request's transaction, with
 * `payment_method.attached`. Attaching it to the customer it already has changes nothing; to
 * another is 400 `payment_method_unexpected_state`. The row is locked first (Postgres), and the
 * UPDATE holds the condition, so of two concurrent attaches to two customers exactly one wins.
 */
export async function attachToCustomer(ctx: RequestContext, id: string, customerId: string, param = 'id'): Promise<PaymentMethod> {
  const current = await findPaymentMethodForUpdate(ctx.db, ctx.accountId, id);
  if (!current) throw notFound('PaymentMethod', id, param);
  if (current.customer_id === customerId) return toPaymentMethodResource(current);
  const attached = current.customer_id === null ? await attachPaymentMethodRow(ctx.db, ctx.accountId, id, customerId) : undefined;
  if (!attached) {
    throw new ApiError(
      'payment_method_unexpected_state',
      'The payment method you provided has already been attached to a customer.',
      { param },
    );
  }
  const method = toPaymentMethodResource(attached);
  await recordEvent(ctx, 'payment_method.attached', method);
  return method;
}

/** The decline of an off-session payment whose card needs the customer to authenticate it (`authentication_required`). */
export const AUTHENTICATION_REQUIRED: NonNullable<TestSource['decline']> = {
  code: 'authentication_required',
  message:
    'Your card was declined. This transaction requires authentication: bring the customer back on session to authenticate the payment.',
};
