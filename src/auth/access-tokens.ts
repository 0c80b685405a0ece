/**
 * Access tokens (JWT) as RFC 8725 (JWT Best Current Practices) asks them to be checked: one
 * allow-list of asymmetric algorithms (so `alg: none`, and an HMAC "signed" with a public key, are
 * refused before any key is looked at), the issuer, the audience, `exp` and `nbf` always, with 30 s
 * of clock skew, read on the server's clock.
 *
 * - This server's own tokens (`iss` = `OAUTH_ISSUER`): ES256, `typ: at+jwt` (RFC 9068), the key
 *   named by `kid` in `token_signing_keys`. The OAuth client must still exist: a process trusts a
 *   found client for a second, so every process refuses a deleted client's tokens within a second
 *   of its deletion. The token may do what both it and its client may: narrowing a client
 *   narrows the tokens it already holds.
 * - An external issuer's (`iss` = `JWT_ISSUER`, when configured): RS256, PS256, ES256 or EdDSA,
 *   keys from `JWT_JWKS_URL` (fetched when a `kid` is new, at most once per 30 s whatever the
 *   outcome: remote-key-set.ts), `aud` =
 *   `JWT_AUDIENCE`. The claim `account_id` names the account, which must exist; the scopes are
 *   `scope` (space-separated) or `scp` (an array), names this API does not know being ignored. A
 *   token with neither may do nothing that needs a scope.
 *
 * A refusal is `access_token_invalid` with an RFC 6750 challenge saying why. An outage is not a
 * refusal: the issuer's JWKS out is a 503 with `Retry-After` (`UncheckableCredential`), a
 * database's is thrown and answered as the server's failure.
 */
import {
  decodeJwt,
  decodeProtectedHeader,
  errors,
  jwtVerify,
  type CryptoKey,
  type JWTPayload,
  type JWTVerifyGetKey,
} from 'jose';
import { LRUCache } from 'lru-cache';
import type { Queryable } from '../db/database.js';
import type { Clock } from '../domain/clock.js';
import type { Grant, Scope } from '../operations/scopes.js';
import { findAccount } from '../resources/accounts/api-keys.repo.js';
import { ACCESS_TOKEN_TYPE } from '../resources/oauth/access-tokens.service.js';
import { findOAuthClient } from '../resources/oauth/oauth-clients.repo.js';
import { isScope, scopeNames } from '../resources/oauth/oauth-scopes.js';
import { findPublicKey, TOKEN_ALGORITHM, TOKEN_CLOCK_TOLERANCE_S } from '../resources/oauth/token-signing-keys.js';
import { DEFAULT_JWKS_TIMEOUT_MS, type AccessTokenSettings, type ExternalJwtIssuer } from './auth-settings.js';
import { fail, type AuthResult } from './auth-result.js';
import { createRemoteKeySet } from './remote-key-set.js';

/** Verifies access tokens (JWT): this server's own, and an external issuer's when one is configured. */
export interface AccessTokenVerifier {
  verify(token: string): Promise<AuthResult>;
}

export interface AccessTokenDeps {
  db: Queryable;
  clock: Clock;
  settings: AccessTokenSettings;
  external: ExternalJwtIssuer | undefined;
}

/** A bearer credential shaped as a JWS compact serialization (three base64url parts), rather than an API key. */
export function looksLikeJwt(token: string): boolean {
  return /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(token);
}

/** The asymmetric algorithms accepted from an external issuer. */
const EXTERNAL_ALGORITHMS = ['RS256', 'PS256', 'ES256', 'EdDSA'];

/** How long a found client or account is trusted without asking the database again: the bound on deletion. */
const TRUST_MS = 1000;

/** How long a `kid` found in no row is not looked up again. */
const UNKNOWN_KID_MS = 1000;

export function createAccessTokenVerifier(deps: AccessTokenDeps): AccessTokenVerifier {
  const own = ownTokenVerifier(deps);
  const { external } = deps;
  const fromExternal = external && externalTokenVerifier(deps, external);
  return {
    async verify(token) {
      let issuer: unknown;
      try {
        issuer = decodeJwt(token).iss;
      } catch {
        return refused('The access token is not a well-formed JWT.');
      }
      if (issuer === deps.settings.issuer) return own(token);
      if (fromExternal && issuer === external.issuer) return fromExternal(token);
      return refused('The access token was issued by an issuer this server does not accept.');
    },
  };
}

/** This server's tokens: signed by a key of `token_signing_keys`, for a client that still exists. */
function ownTokenVerifier({ db, clock, settings }: AccessTokenDeps): (token: string) => Promise<AuthResult> {
  const keys = ownKeys(db);
  const clients = new LRUCache<string, { accountId: string; scopes: ReadonlySet<Scope> | 'all' } | false>({
    max: 10_000,
    ttl: TRUST_MS,
  });
  const clientOf = async (id: string) => {
    let found = clients.get(id);
    if (found === undefined) {
      const row = await findOAuthClient(db, id);
      found = row
        ? {
            accountId: row.account_id,
            scopes: row.scopes === null ? 'all' : new Set(JSON.parse(row.scopes) as Scope[]),
          }
        : false;
      clients.set(id, found);
    }
    return found;
  };
  // A token whose signature verified once is not verified again while it is valid: the signature
  // check (ES256) would cost more than the rest of a small request. Its times are still read on
  // every use, and its client looked up at most a second ago.
  const verifiedTokens = new LRUCache<string, JWTPayload>({ max: 10_000 });
  return async (token) => {
    let claims = verifiedTokens.get(token);
    if (claims && !withinValidity(claims, clock)) {
      verifiedTokens.delete(token);
      claims = undefined;
    }
    if (!claims) {
      const verified = await verifiedClaims(token, keys, {
        algorithms: [TOKEN_ALGORITHM],
        issuer: settings.issuer,
        audience: settings.issuer,
        typ: ACCESS_TOKEN_TYPE,
        requiredClaims: ['exp', 'nbf', 'iat', 'jti', 'sub', 'client_id', 'scope'],
        clockTolerance: TOKEN_CLOCK_TOLERANCE_S,
        currentDate: new Date(clock.nowMs()),
      });
      if (!verified.ok) return verified.failure;
      claims = verified.claims;
      verifiedTokens.set(token, claims);
    }
    const { sub, client_id: clientId, scope } = claims;
    if (typeof clientId !== 'string' || sub !== clientId || typeof scope !== 'string')
      return refused('The access token is malformed.');
    const client = await clientOf(clientId);
    if (!client) return refused('The OAuth client this access token was issued to no longer exists.');
    const scopes = knownScopes(scopeNames(scope));
    const grant: Grant = client.scopes === 'all' ? scopes : intersection(scopes, client.scopes);
    return {
      ok: true,
      principal: { kind: 'account', accountId: client.accountId, grant, credential: 'access_token', credentialId: clientId },
    };
  };
}

/**
 * This server's public keys by `kid`, imported once. A `kid` that no row has is looked up again
 * only after a second: a token naming a random one costs at most a lookup a second per name, and
 * counts as a failed authentication of its sender (auth-failures.ts) like any refused token.
 */
function ownKeys(db: Queryable): JWTVerifyGetKey {
  const known = new LRUCache<string, CryptoKey>({ max: 256 });
  const unknown = new LRUCache<string, true>({ max: 10_000, ttl: UNKNOWN_KID_MS });
  return async ({ kid }) => {
    if (typeof kid !== 'string') throw new UnknownKey('The access token names no signing key (kid).');
    let key = known.get(kid);
    if (!key && !unknown.has(kid)) {
      key = await findPublicKey(db, kid);
      if (key) known.set(kid, key);
      else unknown.set(kid, true);
    }
    if (!key) throw new UnknownKey('The access token was signed with a key this server does not know (kid).');
    return key;
  };
}

/** An external issuer's tokens: keys from its JWKS, the account in `account_id`. */
function externalTokenVerifier(
  { db, clock }: AccessTokenDeps,
  external: ExternalJwtIssuer,
): (token: string) => Promise<AuthResult> {
  const keys = createRemoteKeySet({ url: external.jwksUrl, clock, timeoutMs: external.jwksTimeoutMs ?? DEFAULT_JWKS_TIMEOUT_MS });
  const accounts = new LRUCache<string, boolean>({ max: 10_000, ttl: TRUST_MS });
  const accountExists = async (id: string) => {
    let found = accounts.get(id);
    if (found === undefined) {
      found = (await findAccount(db, id)) !== undefined;
      accounts.set(id, found);
    }
    return found;
  };
  return async (token) => {
    const verified = await verifiedClaims(token, keys, {
      algorithms: EXTERNAL_ALGORITHMS,
      issuer: external.issuer,
      audience: external.audience,
      requiredClaims: ['exp'],
      clockTolerance: TOKEN_CLOCK_TOLERANCE_S,
      currentDate: new Date(clock.nowMs()),
    });
    if (!verified.ok) return verified.failure;
    const { account_id: accountId, scope, scp } = verified.claims;
    if (typeof accountId !== 'string') return refused('The access token names no account (claim account_id).');
    if (!(await accountExists(accountId))) return refused('The account the access token names does not exist.');
    const names =
      typeof scope === 'string'
        ? scopeNames(scope)
        : Array.isArray(scp)
          ? scp.filter((name: unknown) => typeof name === 'string')
          : [];
    return {
      ok: true,
      principal: {
        kind: 'account',
        accountId,
        grant: knownScopes(names),
        credential: 'access_token',
        credentialId: typeof verified.claims.sub === 'string' ? `${external.issuer} ${verified.claims.sub}` : undefined,
      },
    };
  };
}

/** Whether a verified token's `nbf` and `exp` still hold at the clock's time (with the skew allowed). */
function withinValidity(claims: JWTPayload, clock: Clock): boolean {
  const now = clock.nowMs() / 1000;
  return (claims.nbf ?? 0) <= now + TOKEN_CLOCK_TOLERANCE_S && (claims.exp ?? 0) > now - TOKEN_CLOCK_TOLERANCE_S;
}

type Verified = { ok: true; claims: JWTPayload } | { ok: false; failure: AuthResult };

/** The token's claims once its signature and claims are verified, or the refusal saying why they are not. */
async function verifiedClaims(
  token: string,
  keys: JWTVerifyGetKey,
  options: Parameters<typeof jwtVerify>[2],
): Promise<Verified> {
  try {
    const { payload } = await jwtVerify(token, keys, options);
    return { ok: true, claims: payload };
  } catch (error) {
    const why = whyRefused(error, token);
    if (why === undefined) throw error;
    return { ok: false, failure: refused(why) };
  }
}

/** Thrown by the key lookup for a `kid` that names no key. */
class UnknownKey extends Error {}

/**
 * What a verification error says to the client; undefined for one that is no fault of the token (a
 * database or network failure).
 */
function whyRefused(error: unknown, token: string): string | undefined {
  if (error instanceof UnknownKey) return error.message;
  if (error instanceof errors.JWKSNoMatchingKey)
    return 'The access token was signed with a key its issuer does not publish (kid).';
  if (error instanceof errors.JWKSMultipleMatchingKeys)
    return 'The access token names no single key of its issuer (kid).';
  if (error instanceof errors.JWTExpired) return 'The access token has expired.';
  if (error instanceof errors.JWTClaimValidationFailed) return claimRefusal(error);
  if (error instanceof errors.JOSEAlgNotAllowed)
    return `The access token's algorithm (${algorithmOf(token)}) is not accepted.`;
  if (error instanceof errors.JWSSignatureVerificationFailed)
    return 'The access token signature does not verify: it was altered, or signed with another key.';
  if (
    error instanceof errors.JWSInvalid ||
    error instanceof errors.JWTInvalid ||
    error instanceof errors.JOSENotSupported
  ) {
    return 'The access token is malformed.';
  }
  return undefined;
}

function claimRefusal(error: InstanceType<typeof errors.JWTClaimValidationFailed>): string {
  if (error.reason === 'missing') return `The access token lacks the ${error.claim} claim.`;
  switch (error.claim) {
    case 'nbf':
      return 'The access token is not valid yet (nbf).';
    case 'iss':
      return 'The access token was issued by an issuer this server does not accept.';
    case 'aud':
      return 'The access token is meant for another audience (aud).';
    case 'typ':
      return `The token is not an access token (typ ${ACCESS_TOKEN_TYPE}).`;
    default:
      return `The access token's ${error.claim} claim is invalid.`;
  }
}

function algorithmOf(token: string): string {
  try {
    return String(decodeProtectedHeader(token).alg ?? 'none');
  } catch {
    return 'unknown';
  }
}

/** The names that are scopes of this API (others are ignored), as a grant. */
function knownScopes(names: readonly string[]): ReadonlySet<Scope> {
  return new Set(names.filter(isScope));
}

function intersection(scopes: ReadonlySet<Scope>, held: ReadonlySet<Scope>): ReadonlySet<Scope> {
  return new Set([...scopes].filter((scope) => held.has(scope)));
}

/**
 * A refused token: 401 `access_token_invalid`, with RFC 6750's challenge (§3), whose
 * `error_description` may hold printable ASCII other than `"` and `\` only.
 */
function refused(message: string): AuthResult {
  const description = message.replace(/[^\x20-\x7e]|["\\]/g, "'").slice(0, 200);
  return fail('access_token_invalid', message, `Bearer error="invalid_token", error_description="${description}"`);
}
