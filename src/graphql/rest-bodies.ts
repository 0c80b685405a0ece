import { toRestEnum } from './enums.js';

/**
 * How the fields of a GraphQL input are named in the REST body (`paymentMethod` is
 * `payment_method`), and which of them, by REST name, hold an enum value to spell as REST does.
 */
export interface RestFields {
  renames?: Readonly<Record<string, string>>;
  enums?: readonly string[];
  /** Input objects within the input, by REST name: how each is written in the body (its own names and enums). */
  objects?: Readonly<Record<string, RestFields>>;
}

/** An address input as REST's `AddressParams`. */
export const ADDRESS_FIELDS: RestFields = { renames: { postalCode: 'postal_code' } };

/** A shipping input as REST's `ShippingParams`. */
export const SHIPPING_FIELDS: RestFields = { renames: { trackingNumber: 'tracking_number' }, objects: { address: ADDRESS_FIELDS } };

/**
 * A GraphQL input object as a REST body: explicit nulls are kept (they unset, or REST refuses them
 * naming the parameter), absent fields are left out, names and enum values are REST's.
 */
export function restBody(input: object, fields: RestFields = {}): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(input)) {
    if (value === undefined) continue;
    const restName = fields.renames?.[name] ?? name;
    const nested = fields.objects?.[restName];
    if (nested && value !== null && typeof value === 'object' && !Array.isArray(value)) body[restName] = restBody(value as object, nested);
    else body[restName] = typeof value === 'string' && fields.enums?.includes(restName) ? toRestEnum(value) : value;
  }
  return body;
}
