import type { components } from '../../../generated/openapi.js';
import type { Scope } from '../../operations/scopes.js';
import type { OAuthClientRow } from './oauth-clients.repo.js';

export type OAuthClient = components['schemas']['OAuthClient'];

/** A client as the API shows it: never its secret, which only the answer that created it holds. */
export function toOAuthClientResource(row: Pick<OAuthClientRow, 'id' | 'name' | 'scopes' | 'created'>): OAuthClient {
  return {
    id: row.id,
    object: 'oauth_client',
    name: row.name,
    scopes: row.scopes === null ? null : (JSON.parse(row.scopes) as Scope[]),
    created: Number(row.created),
  };
}
