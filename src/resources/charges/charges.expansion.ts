import type { components } from '../../../generated/openapi.js';
import { findCustomersByIds } from '../customers/customers.repo.js';
import { toCustomerResource } from '../customers/customers.mapper.js';
import type { ExpandableField, ExpandableFields } from '../shared/expansion.js';
import { findChargesByIds } from './charges.repo.js';
import { toChargeResource } from './charges.mapper.js';

type DeletedCustomer = components['schemas']['DeletedCustomer'];

/**
 * A charge's `customer`: the customer, or, once it has been deleted (its row is gone, the charge
 * keeps its id), the deleted customer `{id, object: 'customer', deleted: true}`, as the widely
 * used payments API expands it.
 */
const customerField: ExpandableField = {
  scope: 'customers:read',
  load: async (ctx, ids) => {
    const rows = await findCustomersByIds(ctx.db, ctx.accountId, ids);
    return new Map(rows.map((row) => [row.id, toCustomerResource(row)]));
  },
  missing: (id): DeletedCustomer => ({ id, object: 'customer', deleted: true }),
  fields: {},
};

/** What `expand` may name on a charge. */
export const chargeExpandableFields: ExpandableFields = { customer: customerField };

/** A field that holds a charge's id (a refund's `charge`), expandable to the charge and below it. */
export const chargeField: ExpandableField = {
  scope: 'charges:read',
  load: async (ctx, ids) => {
    const rows = await findChargesByIds(ctx.db, ctx.accountId, ids);
    return new Map(rows.map((row) => [row.id, toChargeResource(row)]));
  },
  fields: chargeExpandableFields,
};
