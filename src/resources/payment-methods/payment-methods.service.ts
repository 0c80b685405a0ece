import { ApiError, notFound } from '../../domain/errors.js';
import type { RequestContext } from '../../operations/operations.js';
import type { Customer, CustomerCreateParams, CustomerReplaceParams } from '../customers/customers.mapper.js';
import { createCustomer, forgetPaymentMethod, requireCustomer } from '../customers/customers.service.js';
import { recordEvent } from '../events/events.service.js';
import { toPaymentMethodResource } from '../payments/payment-methods.mapper.js';
import type {
  PaymentMethod,
  PaymentMethodAttachParams,
  PaymentMethodCreateParams,
  PaymentMethodDetachParams,
  PaymentMethodUpdateParams,
} from '../payments/payment-methods.mapper.js';
import { attachToCustomer, resolvePaymentMethod } from '../payments/payment-methods.js';
import { billingDetailsOf, paymentMethodFromData } from '../payments/payment-method-data.js';
import {
  findPaymentMethod,
  findPaymentMethodForUpdate,
  listPaymentMethodRows,
  updatePaymentMethodRow,
  type PaymentMethodChanges,
} from '../payments/payment-methods.repo.js';
import { findTestCardByReference } from '../payments/test-sources.js';
import { updatedMetadata } from '../shared/metadata.js';
import { allParamsRead } from '../shared/params.js';
import { listOf, type PageParams } from '../shared/pagination.js';
import { readMayLag } from '../shared/replica-reads.js';
import { previousAttributes } from '../shared/updates.js';


/**
 * Creates a card from a test card number or a test token (also with the publishable key, as a
 * browser does). The number is read here and nowhere else: it is never stored, logged or echoed in
 * an error, only its test card is kept.
 */
export async function createPaymentMethod(ctx: RequestContext, params: PaymentMethodCreateParams): Promise<PaymentMethod> {
  // `expand` is applied to the result by the handler.
  const { expand, ...data } = params;
  // A browser's publishable key makes the card and nothing more: expansion would read the account's objects.
  if (ctx.grant === 'publishable' && expand && expand.length > 0) {
    throw new ApiError('parameter_invalid', 'A publishable key cannot expand fields; use a secret key.', { param: 'expand' });
  }
  return toPaymentMethodResource(await paymentMethodFromData(ctx, data));
}

/**
 * `POST /v1/customers` with `payment_method`: the customer, then that payment method attached to
 * it (`payment_method.attached`, as `POST /v1/payment_methods/{id}/attach` does), in one
 * transaction. A test name (`pm_card_visa`) makes the payment method. It is not made the default.
 */
export async function createCustomerWithPaymentMethod(ctx: RequestContext, params: CustomerCreateParams): Promise<Customer> {
  const { payment_method, ...fields } = params;
  // The rest is what createCustomer reads: a property only the create schema has must be read here.
  allParamsRead<Omit<typeof fields, keyof CustomerReplaceParams>>({});
  const customer = await createCustomer(ctx, fields);
  if (payment_method !== undefined) {
    const made = findTestCardByReference(payment_method) ? await resolvePaymentMethod(ctx, payment_method, null) : undefined;
    await attachToCustomer(ctx, made?.id ?? payment_method, customer.id, 'payment_method');
  }
  return customer;
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
