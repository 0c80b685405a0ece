import type { Request, RequestHandler } from 'express';
import type { AuthFailureLimiter } from '../auth/auth-failures.js';
import { OAuthError } from '../resources/oauth/oauth-error.js';

/** The token endpoint (RFC 6749 §3.2) and the key set that verifies its tokens. */
export const TOKEN_PATH = '/oauth/token';
export const JWKS_PATH = '/.well-known/jwks.json';

/**
 * How long the key set may be cached. A key is published from the moment it is made (a token
 * request or a key set read makes it), and verifiers that cache the set learn a new key only when
 * their copy expires, unless they fetch again on an unknown `kid` as jose's remote key set does.
 * A minute bounds that wait for the others, at a cost of one small read a minute per verifier.
 * (An old key stays published for its tokens' lifetime, so a stale copy never lacks it.)
 */
export const JWKS_CACHE_CONTROL = 'public, max-age=60';

/**
 * What HTTP adds to the token endpoint and the key set, mounted after the validator (the body is
 * read and valid) and before the handlers.
 *
 * On `POST /oauth/token`:
 * - `Cache-Control: no-store` on every answer (RFC 6749 §5.1); errors get it in oauth-errors.ts.
 * - The failed-authentication allowance of the client's address (auth-failures.ts): an address
 *   over it is refused (429) before its client credentials are looked at; oauth-errors.ts counts
 *   each `invalid_client`.
 * - Client credentials sent by HTTP Basic (RFC 6749 §2.3.1: `client_id:client_secret`, each
 *   form-URL-encoded) are handed to the handler as the form's `client_id` and `client_secret`,
 *   the one place it reads them. Both ways at once is `invalid_request` (§2.3); another
 *   `Authorization` scheme, or Basic that does not decode, is `invalid_client`.
 * - `Idempotency-Key` is ignored (the operation does not declare it): a stored token would be
 *   answered to whoever repeats the key and the body, and a Basic-authenticated body holds no secret.
 *
 * On `GET /.well-known/jwks.json`: `Cache-Control` (JWKS_CACHE_CONTROL); oauth-errors.ts removes
 * it from an error.
 */
export function prepareOAuthRequests(failures: AuthFailureLimiter | undefined): RequestHandler {
  return async (req, res, next) => {
    if (req.path === JWKS_PATH && req.method === 'GET') res.setHeader('Cache-Control', JWKS_CACHE_CONTROL);
    if (req.path !== TOKEN_PATH || req.method !== 'POST') return next();
    res.setHeader('Cache-Control', 'no-store');
    const refusal = failures && (await failures.refusal(failures.addressOf(req)));
    if (refusal) return next(refusal);
    delete req.headers['idempotency-key'];
    if (req.headers.authorization !== undefined) req.body = { ...req.body, ...basicClientCredentials(req) };
    next();
  };
}

/** The client id and secret of a token request's `Authorization: Basic` header. */
function basicClientCredentials(req: Request): { client_id: string; client_secret: string } {
  const basic = /^Basic\s+([A-Za-z0-9+/]+={0,2})$/i.exec(req.headers.authorization ?? '');
  if (!basic) {
    throw new OAuthError(
      'invalid_client',
      'Authenticate the client with HTTP Basic (client_id:client_secret), or with client_id and ' +
        'client_secret in the form.',
    );
  }
  const body = (req.body ?? {}) as { client_id?: unknown; client_secret?: unknown };
  if (body.client_id !== undefined || body.client_secret !== undefined) {
    throw new OAuthError(
      'invalid_request',
      'Send the client credentials one way: by HTTP Basic or in the form, not both.',
    );
  }
  const decoded = Buffer.from(basic[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  const id = colon < 0 ? undefined : formDecoded(decoded.slice(0, colon));
  const secret = colon < 0 ? undefined : formDecoded(decoded.slice(colon + 1));
  if (!id || secret === undefined)
    throw new OAuthError('invalid_client', 'The HTTP Basic credentials are not client_id:client_secret.');
  return { client_id: id, client_secret: secret };
}

/** A form-URL-encoded value decoded (`+` is a space); undefined for a malformed escape. */
function formDecoded(text: string): string | undefined {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return undefined;
  }
}
