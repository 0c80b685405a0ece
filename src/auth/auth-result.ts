import { ApiError, type ErrorCode } from '../domain/errors.js';
import type { Grant, Scope } from '../operations/scopes.js';

/** The kinds of credential an account authenticates with; each answers to its security schemes in the spec. */
export type CredentialKind = 'api_key' | 'publishable_key' | 'access_token' | 'signature' | 'client_certificate';

/**
 * Who made the request: an account (with the kind of credential it used and what that credential
 * may do) or the operator (HTTP Basic on /admin).
 */
export type Principal = AccountPrincipal | { kind: 'admin' };

/** An account, authenticated by one of its credentials. */
export interface AccountPrincipal {
  kind: 'account';
  accountId: string;
  /** What the credential may do. */
  grant: Grant;
  credential: CredentialKind;
  /**
   * The credential's own id (the API key's, the OAuth client's, the signing key's, the
   * certificate's): requests are counted against it, whatever token or signature each carries.
   */
  credentialId?: string;
}

export type AuthResult = { ok: true; principal: Principal } | AuthFailure;

/** Why credentials were refused: the error code and message the client gets with its 401. */
export interface AuthFailure {
  ok: false;
  code: ErrorCode;
  message: string;
  /** A `WWW-Authenticate` challenge to send with the 401, when the scheme defines one (RFC 6750 for tokens). */
  challenge?: string;
}

export function fail(code: ErrorCode, message: string, challenge?: string): AuthFailure {
  return challenge === undefined ? { ok: false, code, message } : { ok: false, code, message, challenge };
}

/** An account's principal for a credential whose scopes are stored as a JSON array (NULL: every scope). */
export function accountPrincipal(accountId: string, scopes: string | null, credential: CredentialKind, credentialId?: string): AccountPrincipal {
  return { kind: 'account', accountId, grant: grantOf(scopes), credential, credentialId };
}

/** The grant of stored scopes: a JSON array of scope names, or NULL for every scope. */
export function grantOf(scopes: string | null): Grant {
  return scopes === null ? 'all' : new Set(JSON.parse(scopes) as Scope[]);
}

/** The 401 a refused credential answers, with its scheme's `WWW-Authenticate` challenge when it has one. */
export function refusal(failure: AuthFailure): ApiError {
  const headers = failure.challenge === undefined ? undefined : { 'WWW-Authenticate': failure.challenge };
  return new ApiError(failure.code, failure.message, { headers });
}

/**
 * A credential that could not be checked because a service it depends on is out (the identity
 * provider whose keys verify an access token): 503 `service_unavailable` with `Retry-After`. It
 * proves nothing, so it counts as a failed authentication of its address, as a refusal does.
 */
export class UncheckableCredential extends ApiError {
  constructor(message: string, retryAfterS: number, cause?: unknown) {
    super('service_unavailable', message, { headers: { 'Retry-After': String(retryAfterS) } });
    // For the log line of the 503; the client sees only the message.
    this.cause = cause;
  }
}
