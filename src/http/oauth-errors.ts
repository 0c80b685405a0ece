import type { ErrorRequestHandler, Request } from 'express';
import type { AuthFailureLimiter } from '../auth/auth-failures.js';
import { isOAuthError, OAuthError } from '../resources/oauth/oauth-error.js';
import { toApiError } from './error-mapper.js';
import { JWKS_PATH, TOKEN_PATH } from './oauth-requests.js';

/**
 * The errors of `POST /oauth/token` in RFC 6749 §5.2's shape, `{error, error_description}` with
 * `Cache-Control: no-store`, whatever refused the request: the handler (an `OAuthError`), or an
 * earlier step (a missing `grant_type`, an unknown field, a JSON body or another media type, an
 * oversized body: all `invalid_request`, 400). `invalid_client` is a 401 with a Basic challenge
 * and counts as a failed authentication of the client's address when credentials were sent.
 * A 429 and a server failure keep the API's error envelope, as the spec declares them.
 *
 * Mounted before the one error mapper, which answers everything this leaves (other paths too).
 */
export function answerOAuthErrors(failures: AuthFailureLimiter | undefined): ErrorRequestHandler {
  return async (error: unknown, req, res, next) => {
    if (req.path === JWKS_PATH) res.removeHeader('Cache-Control');
    if (req.path !== TOKEN_PATH || req.method !== 'POST') return next(error);
    res.setHeader('Cache-Control', 'no-store');
    const refusal = oauthErrorOf(error, req);
    if (!refusal || res.headersSent) return next(error);
    try {
      if (refusal.code === 'invalid_client' && failures && credentialsSent(req)) {
        await failures.recordFailure(failures.addressOf(req));
      }
    } catch (storeFailure) {
      return next(storeFailure);
    }
    // RFC 6749 §5.2 asks for the challenge of the scheme the client used; RFC 9110 §15.5.2 for one on every 401.
    if (refusal.status === 401) res.setHeader('WWW-Authenticate', 'Basic realm="oauth"');
    res.status(refusal.status).json(refusal.toBody());
  };
}

/** The RFC 6749 error for what was thrown, or undefined for an error the envelope answers (429, 5xx). */
function oauthErrorOf(error: unknown, req: Request): OAuthError | undefined {
  if (isOAuthError(error)) return error;
  const apiError = toApiError(error, req);
  if (apiError.status === 429 || apiError.status >= 500) return undefined;
  if (apiError.status === 401) return new OAuthError('invalid_client', apiError.message);
  if (apiError.code === 'unsupported_media_type') {
    return new OAuthError(
      'invalid_request',
      'Send the token request form-encoded (application/x-www-form-urlencoded, RFC 6749 §4.4.2).',
    );
  }
  return new OAuthError('invalid_request', apiError.message);
}

/** Whether the request carried client credentials at all (a request without any is not a guess). */
function credentialsSent(req: Request): boolean {
  const body = (req.body ?? {}) as { client_id?: unknown; client_secret?: unknown };
  return req.headers.authorization !== undefined || body.client_id !== undefined || body.client_secret !== undefined;
}
