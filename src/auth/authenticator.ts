import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Request } from 'express';
import { LRUCache } from 'lru-cache';
import type { Queryable } from '../db/database.js';
import { systemClock, unixSeconds, type Clock } from '../domain/clock.js';
import type { SecretBox } from '../domain/secret-box.js';
import type { AccessTokenSettings, ExternalJwtIssuer } from './auth-settings.js';
import type { Grant } from '../operations/scopes.js';
import { DEFAULT_TOKEN_SETTINGS } from '../resources/oauth/token-settings.js';
import { findApiKeyByHash, recordApiKeyUse } from '../resources/accounts/accounts.repo.js';
import { hashApiKey } from '../resources/accounts/accounts.service.js';
import { createAccessTokenVerifier, looksLikeJwt } from './access-tokens.js';
import { checkWithinAllowance, type AuthFailureLimiter } from './auth-failures.js';
import { fail, grantOf, type AuthFailure, type AuthResult } from './auth-result.js';
import { createClientCertificateVerifier, isMutualTlsRequest, presentsClientCertificate } from './client-certificates.js';
import { createSignatureVerifier, isSignedRequest } from './message-signatures.js';

export type { AccountPrincipal, AuthFailure, AuthResult, CredentialKind, Principal } from './auth-result.js';

/** What the authenticator checks credentials against. */
export interface AuthenticatorDeps {
  db: Queryable;
  /** The digest of the operator's `user:password` (see `adminCredentialsDigest`). */
  adminDigest: Buffer;
  /** Failed attempts allowed per client address; left out, limits are off. */
  failures?: AuthFailureLimiter;
  clock?: Clock;
  /** Opens the stored secrets of signing keys. */
  secrets: SecretBox;
  /** The access tokens this server issues; default: issuer `payments-api`, 15 minutes, keys rotated every 30 days. */
  accessTokens?: AccessTokenSettings;
  /** An external issuer whose access tokens are accepted too. */
  externalJwt?: ExternalJwtIssuer;
  /** How long a found API key is trusted without asking the database again; default one second (the bound on revocation). */
  keyTrustMs?: number;
}

/**
 * Checks credentials for the security schemes of the spec, one credential per request, chosen by
 * what the request carries:
 *
 * 1. on the mutual-TLS listener, the connection's client certificate (and nothing else);
 * 2. a `Signature-Input` or `Signature` header: an HTTP message signature;
 * 3. `Authorization: Bearer <JWT>`: an access token;
 * 4. otherwise an API key, as `Bearer` or as the HTTP Basic user name.
 *
 * Keys are looked up by their hash; a found key is remembered in memory for a second, so that a
 * hot path costs neither a hash nor a query, and a revoked key is refused by every process within a
 * second of its revocation (a rolled one within a second of its expiry, read on `clock`). The
 * other credentials keep the same one-second bound in their own modules.
 *
 * The checks themselves only check. The doors authenticate through `limited`, the same checks held
 * to `failures` (the failed attempts allowed per client address; see auth-failures.ts): an address
 * over its allowance gets the 429 `ApiError` thrown, and a refused credential is counted. Without
 * `failures` (limits off), `limited` only checks too.
 */
export function createAuthenticator(deps: AuthenticatorDeps) {
  const { db, adminDigest, failures } = deps;
  const clock = deps.clock ?? systemClock;
  const keys = new LRUCache<string, { accountId: string; grant: Grant; credentialId: string; publishable: boolean }>({ max: 10_000, ttl: deps.keyTrustMs ?? KEY_CACHE_MS });
  const accessTokens = createAccessTokenVerifier({ db, clock, settings: deps.accessTokens ?? DEFAULT_TOKEN_SETTINGS, external: deps.externalJwt });
  const signatures = createSignatureVerifier({ db, clock, secrets: deps.secrets });
  const certificates = createClientCertificateVerifier({ db, clock });

  const apiKey = async (key: string): Promise<AuthResult> => {
    let found = keys.get(key);
    if (!found) {
      const now = unixSeconds(clock);
      const row = await findApiKeyByHash(db, hashApiKey(key), now);
      if (!row) return fail('api_key_invalid', `Invalid API key provided: ${redact(key)}`);
      const publishable = row.publishable_key !== null;
      found = { accountId: row.account_id, grant: publishable ? 'publishable' : grantOf(row.scopes), credentialId: row.id, publishable };
      keys.set(key, found);
      // The key's row is read at most once a second per process; its `last_used` is written at
      // most once a minute, so that a busy key costs no write per request.
      if (row.last_used === null || row.last_used <= now - LAST_USED_RESOLUTION_S) void recordApiKeyUse(db, row.id, now).catch(() => {});
    }
    const { publishable, ...principal } = found;
    return { ok: true, principal: { kind: 'account', ...principal, credential: publishable ? 'publishable_key' : 'api_key' } };
  };

  /**
   * The value of an `Authorization` header (HTTP, or a WebSocket's `connection_init` payload):
   * `Bearer <access token>`, `Bearer <API key>`, or `Basic` with the key as the user name and an
   * empty password (`curl -u key:`).
   */
  const bearer = async (authorization: string | undefined): Promise<AuthResult> => {
    const credential = credentialIn(authorization);
    if (typeof credential !== 'string') return credential;
    return looksLikeJwt(credential) ? accessTokens.verify(credential) : apiKey(credential);
  };

  /** An account's credential on an HTTP request, whichever kind it is. */
  const account = (req: Request): Promise<AuthResult> => {
    if (isMutualTlsRequest(req)) return certificates.verify(req);
    if (isSignedRequest(req)) return signatures.verify(req);
    return bearer(req.headers.authorization);
  };

  /** `Authorization: Basic …` with the operator's credentials, compared in constant time. */
  const adminBasic = async (req: IncomingMessage): Promise<AuthResult> => {
    const match = /^Basic\s+(\S+)$/i.exec(req.headers.authorization ?? '');
    if (!match) return unusableCredentials('adminBasic', req.headers.authorization);
    const given = digest(Buffer.from(match[1], 'base64').toString('utf8'));
    if (!timingSafeEqual(given, adminDigest)) return fail('admin_credentials_invalid', 'Invalid admin credentials.');
    return { ok: true, principal: { kind: 'admin' } };
  };

  /** Whether a request carries an account credential at all (one that is not there is not a failed guess). */
  const presented = (req: Request): boolean => !!req.headers.authorization || isSignedRequest(req) || presentsClientCertificate(req);

  return {
    /** An account's credential on an HTTP request: client certificate, message signature, access token or API key. */
    account,
    bearer,
    adminBasic: (req: Request): Promise<AuthResult> => adminBasic(req),
    /** The limiter of failed attempts per client address, when limits are on. */
    failures,
    /** The same checks, held to the failed-attempt allowance of the request's address (may throw a 429 `ApiError`). */
    limited: {
      account: (req: Request): Promise<AuthResult> => checkWithinAllowance(failures, req, presented(req), () => account(req)),
      /** A bearer credential sent in another way than the request's header (a WebSocket's `connection_init`). */
      bearer: (authorization: string | undefined, from: IncomingMessage): Promise<AuthResult> =>
        checkWithinAllowance(failures, from, !!authorization, () => bearer(authorization)),
      adminBasic: (req: Request): Promise<AuthResult> =>
        checkWithinAllowance(failures, req, !!req.headers.authorization, () => adminBasic(req)),
    },
  };
}

export type Authenticator = ReturnType<typeof createAuthenticator>;

/** How long a found key is trusted without asking the database again: the bound on revocation. */
const KEY_CACHE_MS = 1000;

/** `last_used` is kept to the minute: a key's row is written at most once a minute. */
const LAST_USED_RESOLUTION_S = 60;



/**
 * The credential an `Authorization` header carries, or why it carries none: `Bearer <token or key>`,
 * or HTTP Basic with the key as the user name and an empty password (what `curl -u sk_test_…:` sends).
 */
function credentialIn(authorization: string | undefined): string | AuthFailure {
  const bearer = /^Bearer\s+(\S+)$/i.exec(authorization ?? '');
  if (bearer) return bearer[1];
  const basic = /^Basic\s+(\S+)$/i.exec(authorization ?? '');
  if (!basic) return unusableCredentials('apiKey', authorization);
  const decoded = Buffer.from(basic[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  const [user, password] = colon < 0 ? [decoded, ''] : [decoded.slice(0, colon), decoded.slice(colon + 1)];
  if (user === '' || password !== '') {
    return fail('api_key_invalid', 'With HTTP Basic, send your API key as the user name and leave the password empty (`curl -u sk_test_…:`).');
  }
  return user;
}

/** The spec's security schemes that this module checks. */
export type SchemeName = 'apiKey' | 'adminBasic';

/**
 * The failure for an `Authorization` header that cannot hold the scheme's credentials at all
 * (absent, or of another scheme). Exported for the error mapper: the validator turns such a
 * header away before it calls the authenticator, and the client must still learn what was wrong.
 */
export function unusableCredentials(scheme: SchemeName, header: string | undefined): AuthFailure {
  if (scheme === 'adminBasic') return fail('admin_credentials_invalid', 'This endpoint needs the admin credentials (HTTP Basic).');
  if (!header) return fail('api_key_missing', 'You did not provide an API key. Send it as `Authorization: Bearer sk_test_…`.');
  return fail('api_key_invalid', 'Send your API key as `Authorization: Bearer sk_test_…` (or as the HTTP Basic user name).');
}

/** The SHA-256 of `user:password`, the form in which admin credentials are kept and compared. */
export function adminCredentialsDigest(userColonPassword: string): Buffer {
  return digest(userColonPassword);
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/** Shows only the start and end of a wrong key, as payment APIs do. */
function redact(key: string): string {
  return key.length <= 12 ? '***' : `${key.slice(0, 8)}${'*'.repeat(Math.min(key.length - 12, 20))}${key.slice(-4)}`;
}
