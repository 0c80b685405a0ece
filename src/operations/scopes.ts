import type { components } from '../../generated/openapi.js';
import { ApiError } from '../domain/errors.js';
import { publishableKeyRefusal } from './publishable-keys.js';

/** A scope of the spec: a resource and `read` or `write` (`charges:write`). */
export type Scope = components['schemas']['Scope'];

/**
 * What a credential may do: `all` (a secret key, the operator), `publishable` (a publishable key:
 * only the operations publishable-keys.ts allows, whatever their scope), or only the operations
 * whose scope it holds (a restricted key).
 */
export type Grant = 'all' | 'publishable' | ReadonlySet<Scope>;

/**
 * The one check of scopes, for every credential kind and both doors: REST and GraphQL operations
 * (through `runOperation`), GraphQL query fields and subscriptions. Throws 403
 * `insufficient_scope` naming the scope the credential lacks; `scope` undefined: nothing needed.
 */
export function assertGranted(grant: Grant, scope: Scope | undefined): void {
  if (grant === 'publishable') throw publishableKeyRefusal();
  if (scope === undefined || grant === 'all' || grant.has(scope)) return;
  // RFC 6750 §3.1: a bearer credential (an access token, an API key) is told which scope it lacks.
  const challenge = `Bearer error="insufficient_scope", scope="${scope}"`;
  throw new ApiError('insufficient_scope', `The credential used does not have the ${scope} scope that this request needs.`, {
    headers: { 'WWW-Authenticate': challenge },
  });
}
