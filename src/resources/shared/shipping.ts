import type { components } from '../../../generated/openapi.js';
import { allParamsRead } from './params.js';

export type Address = components['schemas']['Address'];
export type Shipping = components['schemas']['Shipping'];
type AddressParams = components['schemas']['AddressParams'];
type ShippingParams = components['schemas']['ShippingParams'] | components['schemas']['CustomerShippingParams'];

/** An address as sent, as stored and shown: every field present, null when not sent or empty. */
export function toAddress(params: AddressParams): Address {
  const { city, country, line1, line2, postal_code, state, ...unread } = params;
  allParamsRead(unread);
  const text = (value: string | undefined) => (value === undefined || value === '' ? null : value);
  return {
    city: text(city),
    country: text(country),
    line1: text(line1),
    line2: text(line2),
    postal_code: text(postal_code),
    state: text(state),
  };
}

/** Shipping details as sent (a customer's have no carrier or tracking number), as stored and shown. */
export function toShipping(params: ShippingParams): Shipping {
  const { address, name, phone, ...rest } = params;
  const { carrier, tracking_number } = rest as { carrier?: string; tracking_number?: string };
  return {
    address: toAddress(address),
    carrier: carrier || null,
    name,
    phone: phone || null,
    tracking_number: tracking_number || null,
  };
}

/**
 * The stored JSON of a nullable object field after a request: `current` when not sent, null when
 * unset (null), else the object made of what was sent.
 */
export function storedJson<P, T>(sent: P | null | undefined, current: string | null, make: (params: P) => T): string | null {
  if (sent === undefined) return current;
  if (sent === null) return null;
  return JSON.stringify(make(sent));
}

/** Reads a stored JSON column that may be null. */
export function parseJsonOrNull<T>(text: string | null): T | null {
  return text === null ? null : (JSON.parse(text) as T);
}
