import type { RequestHandler } from 'express';
import { isApiError } from '../domain/errors.js';
import type { AuthResult, Authenticator } from '../auth/authenticator.js';
import { doorOf } from './door.js';

/**
 * Authenticates requests before anything reads their body, so that a client without valid
 * credentials can neither make the server wait for a body nor have one parsed.
 *
 * - The door says which credentials a request takes (`credentialsFor`): an account's, of any kind
 *   (see the authenticator), or the operator's HTTP Basic, or none. They are checked through the
 *   authenticator's `limited` checks: an address over its failed-attempt allowance is refused
 *   with 429 here, in the door's shape, and every refused credential counts (auth-failures.ts).
 * - Refused credentials: the verdict is left on the request (`req.authFailure`) and the door
 *   answers them (`refuseCredentials`).
 * - Accepted credentials leave `req.principal`, which the door uses without a second lookup.
 */
export function authenticateEarly(auth: Authenticator): RequestHandler {
  return async (req, res, next) => {
    const door = doorOf(req);
    const asked = door.credentialsFor(req);
    if (!asked) return next();
    let result: AuthResult;
    try {
      result = await (asked === 'admin' ? auth.limited.adminBasic(req) : auth.limited.account(req));
    } catch (error) {
      if (!isApiError(error)) throw error;
      return door.refuse(error, req, res, next);
    }
    if (result.ok) {
      req.principal = result.principal;
      return next();
    }
    req.authFailure = result;
    door.refuseCredentials(result, req, res, next);
  };
}
