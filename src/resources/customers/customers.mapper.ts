import type { components } from '../../../generated/openapi.js';
import { parseMetadata } from '../shared/metadata.js';
import type { CustomerRow } from './customers.repo.js';

export type Customer = components['schemas']['Customer'];
export type CustomerCreateParams = components['schemas']['CustomerCreateParams'];
export type CustomerUpdateParams = components['schemas']['CustomerUpdateParams'];
export type DeletedCustomer = components['schemas']['DeletedCustomer'];

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
    invoice_settings: { default_payment_method: row.default_payment_method_id },
  };
}

/** What a deleted customer is answered as (by its delete, and by a retrieve afterwards). */
export function toDeletedCustomerResource(id: string): DeletedCustomer {
  return { id, object: 'customer', deleted: true };
}
