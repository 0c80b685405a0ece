import { ApiError, notFound } from '../../domain/errors.js';
import type { RequestContext } from '../../operations/operations.js';
import type { Customer, CustomerCreateParams } from '../customers/customers.mapper.js';
import { createCustomer, forgetPaymentMethod, requireCustomer } from '../customers/customers.service.js';
import { recordEvent } from '../events/events.service.js';
import { toPaymentMethodResource } from '../payments/payment-methods.mapper.js';
import type {
  BillingDetails,
  PaymentMethod,
  PaymentMethodAttachParams,
  PaymentMethodCreateParams,
  PaymentMethodDetachParams,
  PaymentMethodUpdateParams,
} from '../payments/payment-methods.mapper.js';
import {
  attachToCustomer,
  insertCardPaymentMethod,
  NO_BILLING_DETAILS,
  resolvePaymentMethod,
  type UsablePaymentMethod,
} from '../payments/payment-methods.js';
import {
  findPaymentMethod,
  findPaymentMethodForUpdate,
  listPaymentMethodRows,
  updatePaymentMethodRow,
  type PaymentMethodChanges,
} from '../payments/payment-methods.repo.js';
import { findTestCardByNumber, findTestCardByReference, passesLuhn, type TestCard } from '../payments/test-sources.js';
import { updatedMetadata } from '../shared/metadata.js';
import { allParamsRead } from '../shared/params.js';
import { listOf, type PageParams } from '../shared/pagination.js';
import { readMayLag } from '../shared/replica-reads.js';
import { previousAttributes } from '../shared/updates.js';

type CardParams = NonNullable<PaymentMethodCreateParams['card']>;
/** `payment_method_data` of an intent: a payment method's fields, made at the intent's request. */
type PaymentMethodData = Omit<PaymentMethodCreateParams, 'card' | 'expand'> & { card?: CardParams };
type BillingDetailsParams = NonNullable<PaymentMethodCreateParams['billing_details']>;

/**
 * Creates a card from a test card number or a test token. The number is read here and nowhere
 * else: it is never stored, logged or echoed in an error, only its test card is kept.
 */
export async function createPaymentMethod(ctx: RequestContext, params: PaymentMethodCreateParams): Promise<PaymentMethod> {
  // `expand` is applied to the result by the handler.
  const { expand: _expand, ...data } = params;
  return toPaymentMethodResource(await paymentMethodFromData(ctx, data));
}

/**
 * A new payment method made of a payment method's fields: `POST /v1/payment_methods`, and an
 * intent's `payment_method_data` (whose fields are named `payment_method_data[…]` in errors then).
 */
export async function paymentMethodFromData(ctx: RequestContext, data: PaymentMethodData, prefix = ''): Promise<UsablePaymentMethod> {
  const { type: _card, card, billing_details, metadata, ...unread } = data;
  allParamsRead(unread);
  const { testCard, expMonth, expYear, cvcGiven } = withParamPrefix(prefix, () => readCard(card ?? {}));
  return insertCardPaymentMethod(ctx, testCard, {
    expMonth,
    expYear,
    cvcGiven,
    billingDetails: billingDetailsOf(NO_BILLING_DETAILS, billing_details),
    metadata,
  });
}

/** Runs `read`, naming the parameter of a refusal within `prefix` (`payment_method_data[card][number]`). */
function withParamPrefix<T>(prefix: string, read: () => T): T {
  try {
    return read();
  } catch (error) {
    const param = error instanceof ApiError ? error.details.param : undefined;
    if (prefix && param) {
      const [head, ...rest] = param.split('[');
      throw new ApiError((error as ApiError).code, (error as ApiError).message, {
        param: `${prefix}[${head}]${rest.length ? `[${rest.join('[')}` : ''}`,
      });
    }
    throw error;
  }
}

/**
 * `POST /v1/customers` with `payment_method`: the customer, then that payment method attached to
 * it (`payment_method.attached`, as `POST /v1/payment_methods/{id}/attach` does), in one
 * transaction. A test name (`pm_card_visa`) makes the payment method. It is not made the default.
 */
export async function createCustomerWithPaymentMethod(ctx: RequestContext, params: CustomerCreateParams): Promise<Customer> {
  const { payment_method, ...fields } = params;
  const customer = await createCustomer(ctx, fields);
  if (payment_method !== undefined) {
    const made = findTestCardByReference(payment_method) ? await resolvePaymentMethod(ctx, payment_method, null) : undefined;
    await attachToCustomer(ctx, made?.id ?? payment_method, customer.id, 'payment_method');
  }
  return customer;
}

/** The test card of `card[number]` (with its expiry) or `card[token]`, or 400 naming the field at fault. */
function readCard(card: CardParams): { testCard: TestCard; expMonth?: number; expYear?: number; cvcGiven: boolean } {
  const { number, exp_month, exp_year, cvc, token, ...unread } = card;
  allParamsRead(unread);
  if (token !== undefined) {
    if (number !== undefined) throw new ApiError('parameter_invalid', 'Pass either card[number] or card[token], not both.', { param: 'card[token]' });
    const testCard = findTestCardByReference(token);
    if (!testCard) throw new ApiError('parameter_invalid', `No such token: '${token}'`, { param: 'card[token]' });
    return { testCard, cvcGiven: false };
  }
  if (number === undefined) throw new ApiError('parameter_missing', 'Missing required param: card[number].', { param: 'card[number]' });
  if (exp_month === undefined) throw new ApiError('parameter_missing', 'Missing required param: card[exp_month].', { param: 'card[exp_month]' });
  if (exp_year === undefined) throw new ApiError('parameter_missing', 'Missing required param: card[exp_year].', { param: 'card[exp_year]' });
  if (!passesLuhn(number)) throw new ApiError('parameter_invalid', 'Your card number is incorrect.', { param: 'card[number]' });
  const testCard = findTestCardByNumber(number);
  if (!testCard) {
    throw new ApiError(
      'parameter_invalid',
      'Real card numbers are never accepted: this API runs in test mode only. Use a test card number (such as 4242424242424242) or a test token (tok_visa).',
      { param: 'card[number]' },
    );
  }
  return { testCard, expMonth: exp_month, expYear: exp_year, cvcGiven: cvc !== undefined };
}

/** Billing details with what was sent applied: each field sent replaces, null or empty unsets. */
function billingDetailsOf(current: BillingDetails, sent: BillingDetailsParams | undefined): BillingDetails {
  if (sent === undefined) return current;
  const { address, email, name, phone, ...unread } = sent;
  allParamsRead(unread);
  const text = (value: string | null | undefined, was: string | null) => (value === undefined ? was : value === '' ? null : value);
  const addressOf = () => {
    if (address === undefined) return current.address;
    const was = current.address ?? { city: null, country: null, line1: null, line2: null, postal_code: null, state: null };
    return {
      city: text(address.city, was.city),
      country: text(address.country, was.country),
      line1: text(address.line1, was.line1),
      line2: text(address.line2, was.line2),
      postal_code: text(address.postal_code, was.postal_code),
      state: text(address.state, was.state),
    };
  };
  return { address: addressOf(), email: text(email, current.email), name: text(name, current.name), phone: text(phone, current.phone) };
}

export async function retrievePaymentMethod(ctx: RequestContext, id: string): Promise<PaymentMethod> {
  const row = await findPaymentMethod(ctx.db, ctx.accountId, id);
  if (!row) throw notFound('PaymentMethod', id);
  return toPaymentMethodResource(row);
}

/** A customer's payment method: 404 unless it is attached to that customer. */
export async function retrieveCustomerPaymentMethod(ctx: RequestContext, customerId: string, id: string): Promise<PaymentMethod> {
  await requireCustomer(ctx, customerId);
  const row = await findPaymentMethod(ctx.db, ctx.accountId, id);
  if (!row || row.customer_id !== customerId) throw notFound('PaymentMethod', id, 'payment_method');
  return toPaymentMethodResource(row);
}

/** `billing_details`, `metadata` and the card's expiry; `payment_method.updated` lists what changed. */
export async function updatePaymentMethod(ctx: RequestContext, id: string, params: PaymentMethodUpdateParams): Promise<PaymentMethod> {
  // `expand` is applied to the result by the handler.
  const { billing_details, card, metadata, expand: _expand, ...unread } = params;
  allParamsRead(unread);
  const { exp_month, exp_year, ...unreadCard } = card ?? {};
  allParamsRead(unreadCard);
  const current = await findPaymentMethodForUpdate(ctx.db, ctx.accountId, id);
  if (!current) throw notFound('PaymentMethod', id);
  const before = toPaymentMethodResource(current);
  const changes: PaymentMethodChanges = {
    billing_details: JSON.stringify(billingDetailsOf(before.billing_details, billing_details)),
    metadata: updatedMetadata(current.metadata, metadata),
    card_exp_month: exp_month,
    card_exp_year: exp_year,
  };
  const after = toPaymentMethodResource(await updatePaymentMethodRow(ctx.db, ctx.accountId, id, changes));
  const changed = previousAttributes(before, after);
  if (Object.keys(changed).length > 0) await recordEvent(ctx, 'payment_method.updated', after, changed);
  return after;
}

/** Attaches the payment method to a customer (see attachToCustomer for the race between two). */
export async function attachPaymentMethod(ctx: RequestContext, id: string, params: PaymentMethodAttachParams): Promise<PaymentMethod> {
  // `expand` is applied to the result by the handler.
  const { customer, expand: _expand, ...unread } = params;
  allParamsRead(unread);
  await requireCustomer(ctx, customer, 'customer');
  return attachToCustomer(ctx, id, customer);
}

/** Detaches the payment method from its customer, which no longer has it as its default. */
export async function detachPaymentMethod(ctx: RequestContext, id: string, params: PaymentMethodDetachParams): Promise<PaymentMethod> {
  // `expand` is applied to the result by the handler.
  const { expand: _expand, ...unread } = params;
  allParamsRead(unread);
  const current = await findPaymentMethodForUpdate(ctx.db, ctx.accountId, id);
  if (!current) throw notFound('PaymentMethod', id);
  const customerId = current.customer_id;
  if (customerId === null) {
    throw new ApiError(
      'payment_method_unexpected_state',
      'The payment method you provided is not attached to a customer so detachment is impossible.',
      { param: 'id' },
    );
  }
  const detached = toPaymentMethodResource(await updatePaymentMethodRow(ctx.db, ctx.accountId, id, { customer_id: null }));
  await recordEvent(ctx, 'payment_method.detached', detached, { customer: customerId });
  await forgetPaymentMethod(ctx, customerId, id);
  return detached;
}

export async function listPaymentMethods(ctx: RequestContext, query: PageParams & { customer?: string }) {
  const page = await readMayLag(ctx, (db) => listPaymentMethodRows(db, ctx.accountId, query.customer, query));
  return listOf('/v1/payment_methods', page, toPaymentMethodResource);
}

/** `GET /v1/customers/{id}/payment_methods`: 404 for an unknown customer. */
export async function listCustomerPaymentMethods(ctx: RequestContext, customerId: string, query: PageParams) {
  await requireCustomer(ctx, customerId);
  const page = await readMayLag(ctx, (db) => listPaymentMethodRows(db, ctx.accountId, customerId, query));
  return listOf(`/v1/customers/${customerId}/payment_methods`, page, toPaymentMethodResource);
}
