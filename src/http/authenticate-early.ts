import type { RequestHandler, Response } from 'express';
import { isApiError } from '../domain/errors.js';
import type { AuthResult, Authenticator } from '../auth/authenticator.js';
import { refusal } from '../auth/auth-result.js';
import { hasBody } from './request-guards.js';
import './request-state.js';
import { refuse } from './refusals.js';

/** The credentials each authenticated path takes (the spec's `security`: `/v1` an account's, `/admin` Basic). */
const API_PATHS = /^\/(?:v\d+|(admin))(?:\/|$)/;

/**
 * Authenticates API requests before anything reads their body, so that a client without valid
 * credentials can neither make the server wait for a body nor have one parsed.
 *
 * - `/v1/…` and `/graphql` (an account's credential, of any kind: see the authenticator), and
 *   `/admin/…` (admin HTTP Basic), through the
 *   authenticator's `limited` checks: an address over its failed-attempt allowance is refused
 *   with 429 here, and every refused credential counts (auth-failures.ts).
 * - Refused credentials on a request that carries a body: 401 at once, body unread. On
 *   `/graphql`: 401 at once in GraphQL's shape, as its handler would. On a request without a body
 *   there is nothing to wait for: the verdict is left on the request and the security step
 *   (declared-security.ts) answers the 401 with the operation matched (an unknown path stays a 404).
 * - Accepted credentials leave `req.principal`, which the security step and the handlers use
 *   without a second lookup.
 */
export function authenticateEarly(auth: Authenticator): RequestHandler {
  return async (req, res, next) => {
    const graphql = req.path === '/graphql';
    const api = graphql ? null : API_PATHS.exec(req.path);
    if (!graphql && !api) return next();
    let result: AuthResult;
    try {
      result = await (api?.[1] ? auth.limited.adminBasic(req) : auth.limited.account(req));
    } catch (error) {
      if (!isApiError(error)) throw error;
      return refuse(req, res, next, error);
    }
    if (result.ok) {
      req.principal = result.principal;
      return next();
    }
    req.authFailure = result;
    if (graphql) return unauthenticatedGraphQL(res, result);
    if (!hasBody(req)) return next();
    next(refusal(result));
  };
}

/** The GraphQL handler's own 401: `UNAUTHENTICATED`, with the REST code as the reason. */
function unauthenticatedGraphQL(res: Response, failure: Extract<AuthResult, { ok: false }>): void {
  const body = {
    errors: [
      { message: failure.message, extensions: { code: 'UNAUTHENTICATED', reason: failure.code } },
    ],
  };
  res
    .status(401)
    .set('WWW-Authenticate', failure.challenge ?? 'Bearer')
    .type('application/json')
    .send(JSON.stringify(body));
}
