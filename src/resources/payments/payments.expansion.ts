import type { components } from '../../../generated/openapi.js';
import { findCustomersByIds } from '../customers/customers.repo.js';
import { customerExpandableFields } from '../customers/customers.expansion.js';
import { toCustomerResource } from '../customers/customers.mapper.js';
import type { ExpandableField, ExpandableFields } from '../shared/expansion.js';
import { findPaymentIntentsByIds } from './payment-intents.repo.js';
import { toPaymentIntentResource } from './payment-intents.mapper.js';
import { toCharges } from './charges.mapper.js';
import { findChargesByIds } from './charges.repo.js';
import { findPaymentMethodsByIds } from './payment-methods.repo.js';
import { toPaymentMethodResource } from './payment-methods.mapper.js';
import { originOf } from '../shared/public-origin.js';

type DeletedCustomer = components['schemas']['DeletedCustomer'];

/**
 * A `customer` field: the customer, or, once it has been deleted (its row is gone, the charge
 * keeps its id), the deleted customer `{id, object: 'customer', deleted: true}`, as the widely
 * used payments API expands it.
 */
export const customerField: ExpandableField = {
  scope: 'customers:read',
  load: async (ctx, ids) => {
    const rows = await findCustomersByIds(ctx.db, ctx.accountId, ids);
    return new Map(rows.map((row) => [row.id, toCustomerResource(row)]));
  },
  missing: (id): DeletedCustomer => ({ id, object: 'customer', deleted: true }),
  fields: customerExpandableFields,
};

// A charge expands to its intent and an intent to its latest charge: the two tables refer to each
// other, so the charge's fields are filled in once both fields exist (expansion stops at 4 levels).
const chargeFields: Record<string, ExpandableField> = {};

/** A field that holds a charge's id (a refund's `charge`, an intent's `latest_charge`), expandable to the charge and below it. */
export const chargeField: ExpandableField = {
  scope: 'charges:read',
  load: async (ctx, ids) => {
    const rows = await findChargesByIds(ctx.db, ctx.accountId, ids);
    const charges = await toCharges(ctx.db, ctx.accountId, rows, originOf(ctx));
    return new Map(charges.map((charge) => [charge.id, charge]));
  },
  fields: chargeFields,
};

/** What `expand` may name on a payment method. */
export const paymentMethodExpandableFields: ExpandableFields = { customer: customerField };

/** A field that holds a payment method's id (an intent's `payment_method`, a refund's). */
export const paymentMethodField: ExpandableField = {
  scope: 'payment_methods:read',
  load: async (ctx, ids) => {
    const rows = await findPaymentMethodsByIds(ctx.db, ctx.accountId, ids);
    return new Map(rows.map((row) => [row.id, toPaymentMethodResource(row)]));
  },
  fields: paymentMethodExpandableFields,
};

// Customers sit below payments, so their expandable fields are an open table that payments fills.
Object.assign(customerExpandableFields, { invoice_settings: { nested: { default_payment_method: paymentMethodField } } });

/** What `expand` may name on a payment intent. */
export const paymentIntentExpandableFields: ExpandableFields = {
  customer: customerField,
  latest_charge: chargeField,
  payment_method: paymentMethodField,
};

/** A field that holds a payment intent's id (a charge's `payment_intent`). */
const paymentIntentField: ExpandableField = {
  scope: 'payment_intents:read',
  load: async (ctx, ids) => {
    const rows = await findPaymentIntentsByIds(ctx.db, ctx.accountId, ids);
    return new Map(rows.map((row) => [row.id, toPaymentIntentResource(row, originOf(ctx))]));
  },
  fields: paymentIntentExpandableFields,
};

Object.assign(chargeFields, { customer: customerField, payment_intent: paymentIntentField });

/** What `expand` may name on a charge. */
export const chargeExpandableFields: ExpandableFields = chargeFields;

/** What `expand` may name on a setup intent. */
export const setupIntentExpandableFields: ExpandableFields = {
  customer: customerField,
  payment_method: paymentMethodField,
};
