import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Request } from 'express';
import { LRUCache } from 'lru-cache';
import type { Queryable } from '../db/database.js';
import { systemClock, unixSeconds, type Clock } from '../domain/clock.js';
import type { ErrorCode } from '../domain/errors.js';
import type { Grant, Scope } from '../operations/scopes.js';
import { findApiKeyByHash } from '../resources/accounts/accounts.repo.js';
import { hashApiKey } from '../resources/accounts/accounts.service.js';
import { checkWithinAllowance, type AuthFailureLimiter } from './auth-failures.js';

/** Who made the request: an account (API key, with what it may do) or the operator (HTTP Basic on /admin). */
export type Principal = { kind: 'account'; accountId: string; grant: Grant } | { kind: 'admin' };

export type AuthResult = { ok: true; principal: Principal } | AuthFailure;

/** Why credentials were refused: the error code and message the client gets with its 401. */
export interface AuthFailure {
  ok: false;
  code: ErrorCode;
  message: string;
}

/**
 * Checks credentials for the security schemes of the spec. Keys are looked up by their hash; a
 * found key is remembered in memory for a second, so that a hot path costs neither a hash nor a
 * query, and a revoked key is refused by every process within a second of its revocation (a
 * rolled one within a second of its expiry, read on `clock`).
 *
 * `apiKey`, `bearer` and `adminBasic` only check. The doors authenticate through `limited`, the
 * same checks held to `failures` (the failed attempts allowed per client address; see
 * auth-failures.ts): an address over its allowance gets the 429 `ApiError` thrown, and a refused
 * credential is counted. Without `failures` (limits off), `limited` only checks too.
 */
export function createAuthenticator(db: Queryable, adminDigest: Buffer, failures?: AuthFailureLimiter, clock: Clock = systemClock) {
  const keys = new LRUCache<string, { accountId: string; grant: Grant }>({ max: 10_000, ttl: KEY_CACHE_MS });

  /**
   * The value of an `Authorization` header (HTTP, or a WebSocket's `connection_init` payload):
   * `Bearer <key>`, or `Basic` with the key as the user name and an empty password (`curl -u key:`).
   */
  const bearer = async (authorization: string | undefined): Promise<AuthResult> => {
    const apiKey = apiKeyIn(authorization);
    if (typeof apiKey !== 'string') return apiKey;
    let key = keys.get(apiKey);
    if (!key) {
      const row = await findApiKeyByHash(db, hashApiKey(apiKey), unixSeconds(clock));
      if (!row) return fail('api_key_invalid', `Invalid API key provided: ${redact(apiKey)}`);
      key = { accountId: row.account_id, grant: row.scopes === null ? 'all' : new Set(JSON.parse(row.scopes) as Scope[]) };
      keys.set(apiKey, key);
    }
    return { ok: true, principal: { kind: 'account', ...key } };
  };

  /** `Authorization: Basic …` with the operator's credentials, compared in constant time. */
  const adminBasic = async (req: IncomingMessage): Promise<AuthResult> => {
    const match = /^Basic\s+(\S+)$/i.exec(req.headers.authorization ?? '');
    if (!match) return unusableCredentials('adminBasic', req.headers.authorization);
    const given = digest(Buffer.from(match[1], 'base64').toString('utf8'));
    if (!timingSafeEqual(given, adminDigest)) return fail('admin_credentials_invalid', 'Invalid admin credentials.');
    return { ok: true, principal: { kind: 'admin' } };
  };

  return {
    /** `Authorization: Bearer sk_test_…` (or the key as the HTTP Basic user name) on an HTTP request. */
    apiKey: (req: Request): Promise<AuthResult> => bearer(req.headers.authorization),
    bearer,
    adminBasic: (req: Request): Promise<AuthResult> => adminBasic(req),
    /** The limiter of failed attempts per client address, when limits are on. */
    failures,
    /** The same checks, held to the failed-attempt allowance of the request's address (may throw a 429 `ApiError`). */
    limited: {
      apiKey: (req: Request): Promise<AuthResult> =>
        checkWithinAllowance(failures, req, !!req.headers.authorization, () => bearer(req.headers.authorization)),
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

/**
 * The API key an `Authorization` header carries, or why it carries none: `Bearer <key>`, or HTTP
 * Basic with the key as the user name and an empty password (what `curl -u sk_test_…:` sends).
 */
function apiKeyIn(authorization: string | undefined): string | AuthFailure {
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

function fail(code: ErrorCode, message: string): AuthFailure {
  return { ok: false, code, message };
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
