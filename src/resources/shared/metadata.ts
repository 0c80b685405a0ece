import { ApiError } from '../../domain/errors.js';

/** A metadata map: string keys to string values. */
export type Metadata = Record<string, string>;

/** The spec's `Metadata` allows 50 keys; the schema bounds one request, this bounds what is stored. */
const MAX_KEYS = 50;

/** Reads the stored JSON text of a metadata column. */
export function parseMetadata(text: string): Metadata {
  return JSON.parse(text) as Metadata;
}

/** The metadata of a new or replaced object: keys with empty values are left out. */
export function initialMetadata(input: Metadata | undefined): string {
  return JSON.stringify(mergeMetadata({}, input));
}

/**
 * An update: each key sent is set, and a key sent with an empty string is removed. Throws 400
 * naming `metadata` when the result would hold more keys than an object may have (each request
 * within the limit could otherwise add up past it, and the object could no longer be answered).
 */
export function mergeMetadata(current: Metadata, patch: Metadata | undefined): Metadata {
  const next: Metadata = { ...current };
  for (const [key, value] of Object.entries(patch ?? {})) {
    if (value === '') delete next[key];
    // Defined, not assigned: a key named `__proto__` is kept as data and never touches the prototype.
    else Object.defineProperty(next, key, { value, enumerable: true, writable: true, configurable: true });
  }
  const keys = Object.keys(next).length;
  if (keys > MAX_KEYS) {
    throw new ApiError(
      'parameter_invalid',
      `Invalid metadata: an object can have at most ${MAX_KEYS} metadata keys; this update would leave ${keys}. Unset some with an empty value.`,
      { param: 'metadata' },
    );
  }
  return next;
}

/** The stored metadata after an update: `current` is the column's JSON text. */
export function updatedMetadata(current: string, patch: Metadata | undefined): string {
  return JSON.stringify(mergeMetadata(parseMetadata(current), patch));
}
