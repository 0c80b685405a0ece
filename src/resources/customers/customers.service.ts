import { unixSeconds } from '../../domain/clock.js';
import { notFound } from '../../domain/errors.js';
import { newId } from '../../domain/ids.js';
import type { RequestContext } from '../../operations/operations.js';
import { recordEvent } from '../events/events.service.js';
import { findDeletedObject, insertDeletedObject } from '../shared/deleted-objects.repo.js';
import { initialMetadata, updatedMetadata } from '../shared/metadata.js';
import { allParamsRead } from '../shared/params.js';
import { listOf, type PageParams } from '../shared/pagination.js';
import { readMayLag } from '../shared/replica-reads.js';
import { previousAttributes } from '../shared/updates.js';
import {
  deleteCustomerRow,
  findCustomer,
  insertCustomer,
  listCustomerRows,
  updateCustomerRow,
  type CustomerFields,
  type CustomerRow,
} from './customers.repo.js';
import {
  toCustomerResource,
  toDeletedCustomerResource,
  type Customer,
  type CustomerCreateParams,
  type CustomerUpdateParams,
  type DeletedCustomer,
} from './customers.mapper.js';

export async function createCustomer(ctx: RequestContext, params: CustomerCreateParams): Promise<Customer> {
  const row = await insertCustomer(ctx.db, {
    id: newId('customer'),
    account_id: ctx.accountId,
    ...replacementFields(params),
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
export function replaceCustomer(ctx: RequestContext, id: string, params: CustomerCreateParams): Promise<Customer> {
  return writeUpdate(ctx, id, () => replacementFields(params));
}

/** PATCH (or POST to the object): only the fields sent change. */
export function updateCustomer(ctx: RequestContext, id: string, params: CustomerUpdateParams): Promise<Customer> {
  const { email, name, description, phone, metadata, ...unread } = params;
  allParamsRead(unread);
  return writeUpdate(ctx, id, (current) => ({
    email: email === undefined ? current.email : email,
    name: name === undefined ? current.name : name,
    description: description === undefined ? current.description : description,
    phone: phone === undefined ? current.phone : phone,
    metadata: updatedMetadata(current.metadata, metadata),
  }));
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

function replacementFields(params: CustomerCreateParams): CustomerFields {
  const { email, name, description, phone, metadata, ...unread } = params;
  allParamsRead(unread);
  return {
    email: email ?? null,
    name: name ?? null,
    description: description ?? null,
    phone: phone ?? null,
    metadata: initialMetadata(metadata),
  };
}

async function writeUpdate(
  ctx: RequestContext,
  id: string,
  fieldsFrom: (current: CustomerRow) => CustomerFields,
): Promise<Customer> {
  const current = await requireCustomer(ctx, id);
  const updated = await updateCustomerRow(ctx.db, ctx.accountId, id, fieldsFrom(current));
  if (!updated) throw notFound('customer', id);
  const before = toCustomerResource(current);
  const after = toCustomerResource(updated);
  const changed = previousAttributes(before, after);
  if (Object.keys(changed).length > 0) await recordEvent(ctx, 'customer.updated', after, changed);
  return after;
}
