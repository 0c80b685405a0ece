import type { components } from '../../../generated/openapi.js';
import type { Scope } from '../../operations/scopes.js';
import type { SigningKeyRow } from './signing-keys.repo.js';

export type SigningKey = components['schemas']['SigningKey'];

/** A signing key as the API shows it: never its secret. */
export function toSigningKeyResource(row: SigningKeyRow): SigningKey {
  return {
    id: row.id,
    object: 'signing_key',
    algorithm: 'hmac-sha256',
    scopes: row.scopes === null ? null : (JSON.parse(row.scopes) as Scope[]),
    created: Number(row.created),
    revoked: row.revoked === null ? null : Number(row.revoked),
  };
}
