import { createHash } from 'node:crypto';
import type { components } from '../../../generated/openapi.js';
import { parseMetadata } from '../shared/metadata.js';
import { parseJsonOrNull, type Address, type Shipping } from '../shared/shipping.js';
import type { CustomerRow } from './customers.repo.js';

export type Customer = components['schemas']['Customer'];
export type CustomerCreateParams = components['schemas']['CustomerCreateParams'];
export type CustomerReplaceParams = components['schemas']['CustomerReplaceParams'];
export type CustomerUpdateParams = components['schemas']['CustomerUpdateParams'];
export type DeletedCustomer = components['schemas']['DeletedCustomer'];

/** What `invoice_settings` holds beside its default payment method (stored as one JSON column). */
export type InvoiceExtras = Pick<Customer['invoice_settings'], 'custom_fields' | 'footer' | 'rendering_options'>;

export const NO_INVOICE_EXTRAS: InvoiceExtras = { custom_fields: null, footer: null, rendering_options: null };

/** A prefix of 8 capital hex digits, fixed by the customer's id (so unique to it in practice, and never stored). */
function invoicePrefixOf(id: string): string {
  return createHash('sha256').update(id).digest('hex').slice(0, 8).toUpperCase();
}

export function toCustomerResource(row: CustomerRow): Customer {
  return {
    id: row.id,
    object: 'customer',
    created: row.created,
    livemode: false,
    email: row.email,
    name: row.name,
    description: row.description,
    phone: row.phone,
    metadata: parseMetadata(row.metadata),
    invoice_settings: {
      ...(parseJsonOrNull<InvoiceExtras>(row.invoice_settings) ?? NO_INVOICE_EXTRAS),
      default_payment_method: row.default_payment_method_id,
    },
    address: parseJsonOrNull<Address>(row.address),
    balance: 0,
    currency: null,
    default_source: null,
    delinquent: false,
    discount: null,
    invoice_prefix: invoicePrefixOf(row.id),
    next_invoice_sequence: 1,
    preferred_locales: JSON.parse(row.preferred_locales) as string[],
    shipping: parseJsonOrNull<Shipping>(row.shipping),
    tax_exempt: row.tax_exempt,
    test_clock: null,
  };
}

/** What a deleted customer is answered as (by its delete, and by a retrieve afterwards). */
export function toDeletedCustomerResource(id: string): DeletedCustomer {
  return { id, object: 'customer', deleted: true };
}
