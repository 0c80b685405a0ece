import { SignJWT } from 'jose';
import type { components } from '../../../generated/openapi.js';
import { unixSeconds } from '../../domain/clock.js';
import { randomBase62 } from '../../domain/ids.js';
import type { RequestContext } from '../../operations/operations.js';
import type { Scope } from '../../operations/scopes.js';
import { secretMatches } from './client-secrets.js';
import { OAuthError } from './oauth-error.js';
import { findOAuthClient } from './oauth-clients.repo.js';
import { allScopes, isScope, scopeNames, scopeText } from './oauth-scopes.js';
import { tokenSettingsOf } from './token-settings.js';
import { currentSigningKey, publishedKeys, TOKEN_ALGORITHM } from './token-signing-keys.js';

export type AccessTokenRequest = components['schemas']['AccessTokenRequest'];
export type AccessToken = components['schemas']['AccessToken'];
export type Jwks = components['schemas']['Jwks'];

/** The `typ` of this server's tokens: a JWT access token (RFC 9068 §2.1). */
export const ACCESS_TOKEN_TYPE = 'at+jwt';

/**
 * The client credentials grant (RFC 6749 §4.4): the client authenticates (its id and secret, in
 * the form; the REST door hands HTTP Basic credentials over the same way), then gets a JWT holding
 * the scopes it asked for, or all of its own. Refusals are `OAuthError`s, in the order RFC 6749
 * implies: who the client is, then what it asks.
 */
export async function grantAccessToken(ctx: RequestContext, request: AccessTokenRequest): Promise<AccessToken> {
  // Other parameters are ignored: a token endpoint "MUST ignore unrecognized request parameters"
  // (RFC 6749 §3.2), and OAuth libraries send some (`audience`, `resource`) to every server.
  const { grant_type: grantType, scope, client_id: clientId, client_secret: clientSecret } = request;
  const client = await authenticateClient(ctx, clientId, clientSecret);
  if (grantType !== 'client_credentials') {
    throw new OAuthError(
      'unsupported_grant_type',
      `This server issues tokens for the client_credentials grant only, not '${grantType}'.`,
    );
  }
  const granted = grantedScopes(scope, client.scopes);
  const settings = tokenSettingsOf(ctx.settings);
  const now = unixSeconds(ctx.clock);
  const key = await currentSigningKey(ctx.db, ctx.secrets, now, settings);
  const text = scopeText(granted);
  const token = await new SignJWT({ client_id: client.id, scope: text })
    .setProtectedHeader({ alg: TOKEN_ALGORITHM, kid: key.kid, typ: ACCESS_TOKEN_TYPE })
    .setIssuer(settings.issuer)
    .setAudience(settings.issuer)
    .setSubject(client.id)
    .setJti(randomBase62(24))
    .setIssuedAt(now)
    .setNotBefore(now)
    .setExpirationTime(now + settings.ttlSeconds)
    .sign(key.privateKey);
  return { access_token: token, token_type: 'Bearer', expires_in: settings.ttlSeconds, scope: text };
}

/**
 * The public keys that verify the tokens. The key that signs is made first if there is none (or
 * it is due), so that it is published before it signs.
 */
export async function retrieveKeySet(ctx: RequestContext): Promise<Jwks> {
  const settings = tokenSettingsOf(ctx.settings);
  const now = unixSeconds(ctx.clock);
  await currentSigningKey(ctx.db, ctx.secrets, now, settings);
  return { keys: await publishedKeys(ctx.db, now, settings) };
}

/**
 * The client whose credentials these are; `invalid_client` (401) for none, an unknown client, a
 * deleted one, or a wrong secret.
 */
async function authenticateClient(ctx: RequestContext, clientId: string | undefined, secret: string | undefined) {
  if (clientId === undefined || secret === undefined) {
    throw new OAuthError(
      'invalid_client',
      'Authenticate the client: HTTP Basic with client_id:client_secret, or client_id and client_secret in the form.',
    );
  }
  const row = await findOAuthClient(ctx.db, clientId);
  // The hashes are compared even for an unknown client, so that a refusal does not tell which it was by its time.
  if (!secretMatches(secret, row?.secret_hash) || !row) {
    throw new OAuthError('invalid_client', 'Client authentication failed: unknown client, or wrong secret.');
  }
  return { id: row.id, scopes: row.scopes === null ? null : (JSON.parse(row.scopes) as Scope[]) };
}

/** The token's scopes: those asked for, each held by the client (else `invalid_scope`), or all it holds. */
function grantedScopes(asked: string | undefined, held: readonly Scope[] | null): ReadonlySet<Scope> {
  const holds = new Set(held ?? allScopes());
  if (asked === undefined) return holds;
  const names = scopeNames(asked);
  if (names.length === 0)
    throw new OAuthError('invalid_scope', 'scope names no scope; leave it out to get every scope of the client.');
  const unknown = names.find((name) => !isScope(name));
  if (unknown !== undefined) throw new OAuthError('invalid_scope', `Unknown scope: '${unknown}'.`);
  const notHeld = names.find((name) => !holds.has(name as Scope));
  if (notHeld !== undefined) throw new OAuthError('invalid_scope', `The client does not hold the scope ${notHeld}.`);
  return new Set(names as Scope[]);
}
