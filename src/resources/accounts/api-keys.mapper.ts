import type { components } from '../../../generated/openapi.js';
import type { Scope } from '../../operations/scopes.js';
import type { ApiKeyRow } from './accounts.repo.js';

export type ApiKey = components['schemas']['ApiKey'];

/** The prefix of a key of each kind: a secret key holds every scope, a restricted key only its own. */
export function keyPrefix(scopes: readonly Scope[] | null): 'sk_test_' | 'rk_test_' {
  return scopes === null ? 'sk_test_' : 'rk_test_';
}

/** A key as the API shows it: never the key itself, only its prefix and last four characters. */
export function toApiKeyResource(row: ApiKeyRow): ApiKey {
  const scopes = row.scopes === null ? null : (JSON.parse(row.scopes) as Scope[]);
  const publishable = row.publishable_key !== null;
  return {
    id: row.id,
    object: 'api_key',
    type: publishable ? 'publishable' : scopes === null ? 'secret' : 'restricted',
    ...(publishable ? { key: row.publishable_key! } : {}),
    redacted: `${publishable ? 'pk_test_' : keyPrefix(scopes)}…${row.last4}`,
    scopes,
    created: Number(row.created),
    revoked: row.revoked === null ? null : Number(row.revoked),
    expires: row.expires === null ? null : Number(row.expires),
    last_used: row.last_used === null ? null : Number(row.last_used),
  };
}
