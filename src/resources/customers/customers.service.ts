import { unixSeconds } from '../../domain/clock.js';
import { ApiError, notFound } from '../../domain/errors.js';
import { newId } from '../../domain/ids.js';
import type { RequestContext } from '../../operations/operations.js';
import { recordEvent } from '../events/events.service.js';
import { findDeletedObject, insertDeletedObject } from '../shared/deleted-objects.repo.js';
import { initialMetadata, updatedMetadata } from '../shared/metadata.js';
import { allParamsRead } from '../shared/params.js';
import { listOf, type PageParams } from '../shared/pagination.js';
import { readMayLag } from '../shared/replica-reads.js';
import { storedJson, toAddress, toShipping } from '../shared/shipping.js';
import { previousAttributes } from '../shared/updates.js';
import {
  clearDefaultPaymentMethod,
  deleteCustomerRow,
  findCustomer,
  isPaymentMethodOf,
  insertCustomer,
  listCustomerRows,
  updateCustomerRow,
  type CustomerFields,
  type CustomerRow,
} from './customers.repo.js';
import {
  NO_INVOICE_EXTRAS,
  toCustomerResource,
  toDeletedCustomerResource,
  type Customer,
  type CustomerReplaceParams,
  type CustomerUpdateParams,
  type DeletedCustomer,
  type InvoiceExtras,
} from './customers.mapper.js';

type InvoiceSettingsParams = NonNullable<CustomerUpdateParams['invoice_settings']>;

/**
 * Creates a customer with the fields sent (`payment_method`, which attaches one to it, is the
 * payment methods' part: see payment-methods/customer-payment-method.ts).
 */
export async function createCustomer(ctx: RequestContext, params: CustomerReplaceParams): Promise<Customer> {
  const id = newId('customer');
  const row = await insertCustomer(ctx.db, {
    id,
    account_id: ctx.accountId,
    ...(await replacementFields(ctx, id, params)),
    created: unixSeconds(ctx.clock),
  });
  const customer = toCustomerResource(row);
  await recordEvent(ctx, 'customer.created', customer);
  return customer;
}

/** Loads a customer of this account, or throws 404 (another account's id included). */
export async function requireCustomer(ctx: RequestContext, id: string, param = 'id'): Promise<CustomerRow> {
  const row = await findCustomer(ctx.db, ctx.accountId, id);
  if (!row) throw notFound('customer', id, param);
  return row;
}

/** A customer of this account, or 404 (a deleted customer included: the GraphQL door has no deleted shape). */
export async function retrieveCustomer(ctx: RequestContext, id: string): Promise<Customer> {
  return toCustomerResource(await requireCustomer(ctx, id));
}

/**
 * `GET /v1/customers/{id}`: the customer, or once this account deleted it, the deleted customer
 * (`deleted: true`, from its tombstone); 404 for an id this account never had.
 */
export async function retrieveCustomerOrDeleted(ctx: RequestContext, id: string): Promise<Customer | DeletedCustomer> {
  const row = await findCustomer(ctx.db, ctx.accountId, id);
  if (row) return toCustomerResource(row);
  if (await findDeletedObject(ctx.db, ctx.accountId, 'customer', id)) return toDeletedCustomerResource(id);
  throw notFound('customer', id);
}

/** PUT: every field is replaced; what is left out becomes null. */
export function replaceCustomer(ctx: RequestContext, id: string, params: CustomerReplaceParams): Promise<Customer> {
  return writeUpdate(ctx, id, () => replacementFields(ctx, id, params));
}

/** PATCH (or POST to the object): only the fields sent change. */
export function updateCustomer(ctx: RequestContext, id: string, params: CustomerUpdateParams): Promise<Customer> {
  // `expand` is applied to the result by the handler.
  const {
    email,
    name,
    description,
    phone,
    metadata,
    invoice_settings,
    address,
    shipping,
    preferred_locales,
    tax_exempt,
    expand: _expand,
    ...unread
  } = params;
  allParamsRead(unread);
  const { default_payment_method, ...extras } = invoice_settings ?? {};
  return writeUpdate(ctx, id, async (current) => ({
    email: email === undefined ? current.email : email,
    name: name === undefined ? current.name : name,
    description: description === undefined ? current.description : description,
    phone: phone === undefined ? current.phone : phone,
    metadata: updatedMetadata(current.metadata, metadata),
    default_payment_method_id: await defaultPaymentMethod(ctx, id, default_payment_method, current.default_payment_method_id),
    address: storedJson(address, current.address, toAddress),
    shipping: storedJson(shipping, current.shipping, toShipping),
    preferred_locales: preferred_locales === undefined ? current.preferred_locales : JSON.stringify(preferred_locales ?? []),
    tax_exempt: tax_exempt === undefined ? current.tax_exempt : (tax_exempt ?? 'none'),
    invoice_settings: invoiceExtras(extras, current.invoice_settings),
  }));
}

/**
 * `invoice_settings` beyond its default payment method, as stored after a request: each field sent
 * replaces the stored one (null or empty unsets it); null when none is set.
 */
function invoiceExtras(sent: Omit<InvoiceSettingsParams, 'default_payment_method'>, stored: string | null): string | null {
  const { custom_fields, footer, rendering_options, ...unread } = sent;
  allParamsRead(unread);
  const current = stored === null ? NO_INVOICE_EXTRAS : (JSON.parse(stored) as InvoiceExtras);
  const next: InvoiceExtras = {
    custom_fields: custom_fields === undefined ? current.custom_fields : Array.isArray(custom_fields) ? custom_fields : null,
    footer: footer === undefined ? current.footer : footer || null,
    rendering_options:
      rendering_options === undefined
        ? current.rendering_options
        : typeof rendering_options === 'object' && rendering_options !== null
          ? { amount_tax_display: rendering_options.amount_tax_display || null, template: rendering_options.template ?? null }
          : null,
  };
  return Object.values(next).every((value) => value === null) ? null : JSON.stringify(next);
}

/**
 * `invoice_settings.default_payment_method` as sent (`current` when not sent; null or empty
 * unsets it): a payment method attached to this customer, or 400 naming the field.
 */
async function defaultPaymentMethod(
  ctx: RequestContext,
  customerId: string,
  id: InvoiceSettingsParams['default_payment_method'],
  current: string | null,
): Promise<string | null> {
  if (id === undefined) return current;
  if (id === null || id === '') return null;
  if (!(await isPaymentMethodOf(ctx.db, ctx.accountId, customerId, id))) {
    throw new ApiError(
      'parameter_invalid',
      `The customer does not have a payment method with the ID ${id}. The payment method must be attached to the customer.`,
      { param: 'invoice_settings[default_payment_method]' },
    );
  }
  return id;
}

/**
 * A payment method was detached from the customer: it is no longer its default (recorded as
 * `customer.updated` when it was). Called in the detach's transaction.
 */
export async function forgetPaymentMethod(ctx: RequestContext, customerId: string, paymentMethodId: string): Promise<void> {
  const before = await findCustomer(ctx.db, ctx.accountId, customerId);
  const after = await clearDefaultPaymentMethod(ctx.db, ctx.accountId, customerId, paymentMethodId);
  if (!before || !after) return;
  await recordEvent(ctx, 'customer.updated', toCustomerResource(after), {
    invoice_settings: { default_payment_method: paymentMethodId },
  });
}

/**
 * Deletes a customer and leaves its tombstone in the same transaction, so that a retrieve answers
 * `deleted: true` from the moment the deletion is visible; updating or deleting it again is a 404.
 */
export async function deleteCustomer(ctx: RequestContext, id: string): Promise<DeletedCustomer> {
  const existing = await requireCustomer(ctx, id);
  // Of two concurrent deletes, only the one whose DELETE removed the row goes on to the tombstone.
  if (!(await deleteCustomerRow(ctx.db, ctx.accountId, id))) throw notFound('customer', id);
  await insertDeletedObject(ctx.db, { id, account_id: ctx.accountId, object: 'customer', deleted: unixSeconds(ctx.clock) });
  await recordEvent(ctx, 'customer.deleted', toCustomerResource(existing));
  return toDeletedCustomerResource(id);
}

export async function listCustomers(ctx: RequestContext, query: PageParams & { email?: string }) {
  const page = await readMayLag(ctx, (db) => listCustomerRows(db, ctx.accountId, query.email, query));
  return listOf('/v1/customers', page, toCustomerResource);
}

async function replacementFields(ctx: RequestContext, id: string, params: CustomerReplaceParams): Promise<CustomerFields> {
  // `expand` is applied to the result by the handler.
  const {
    email,
    name,
    description,
    phone,
    metadata,
    invoice_settings,
    address,
    shipping,
    preferred_locales,
    tax_exempt,
    expand: _expand,
    ...unread
  } = params;
  allParamsRead(unread);
  const { default_payment_method, ...extras } = invoice_settings ?? {};
  return {
    email: email ?? null,
    name: name ?? null,
    description: description ?? null,
    phone: phone ?? null,
    metadata: initialMetadata(metadata),
    default_payment_method_id: await defaultPaymentMethod(ctx, id, default_payment_method ?? null, null),
    address: storedJson(address ?? null, null, toAddress),
    shipping: storedJson(shipping ?? null, null, toShipping),
    preferred_locales: JSON.stringify(preferred_locales ?? []),
    tax_exempt: tax_exempt ?? 'none',
    invoice_settings: invoiceExtras(extras, null),
  };
}

async function writeUpdate(
  ctx: RequestContext,
  id: string,
  fieldsFrom: (current: CustomerRow) => Promise<CustomerFields>,
): Promise<Customer> {
  const current = await requireCustomer(ctx, id);
  const updated = await updateCustomerRow(ctx.db, ctx.accountId, id, await fieldsFrom(current));
  if (!updated) throw notFound('customer', id);
  const before = toCustomerResource(current);
  const after = toCustomerResource(updated);
  const changed = previousAttributes(before, after);
  // Of `invoice_settings`, only the settings that changed, as the widely used payments API shows them.
  if (changed.invoice_settings) changed.invoice_settings = previousAttributes(before.invoice_settings, after.invoice_settings) as Customer['invoice_settings'];
  if (Object.keys(changed).length > 0) await recordEvent(ctx, 'customer.updated', after, changed);
  return after;
}
