import type { RequestHandler } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import type { Authenticator } from '../auth/authenticator.js';
import { loadSpec } from '../operations/spec.js';
import { enforceDeclaredSecurity } from './declared-security.js';

/** The validators made in this process, by whether they check responses too. */
const validators = new Map<boolean, RequestHandler[]>();

/**
 * express-openapi-validator over the spec: every request (and, when asked, every response) is
 * checked against it, and the operation it matched is left on the request (`req.openapi`). Its
 * security step is this app's `enforceDeclaredSecurity`, in the same place (after the match,
 * before the parameters): the credential was decided once, by authenticateEarly, and the
 * validator's own step would try every declared scheme against the headers again
 * (test/contract/declared-security.test.ts proves every operation's `security` enforced).
 *
 * Made once per process and shared by every app built in it: the validator compiles a schema the
 * first time an operation is called, which costs a hundred milliseconds and more per operation, so
 * an app built afresh (each test's server) would pay it again.
 */
export function specValidator(validateResponses: boolean, auth: Authenticator): RequestHandler[] {
  let middleware = validators.get(validateResponses);
  if (!middleware) {
    middleware = OpenApiValidator.middleware({
      apiSpec: structuredClone(loadSpec()) as never,
      validateApiSpec: true,
      validateRequests: {
        allowUnknownQueryParameters: false,
        coerceTypes: false,
        removeAdditional: false,
      },
      validateResponses: validateResponses ? { removeAdditional: false } : false,
      validateFormats: true,
      // Match on the URL after versioning rewrote it (Accept: application/vnd.api.v1+json).
      useRequestUrl: true,
      validateSecurity: false,
    }) as unknown as RequestHandler[];
    validators.set(validateResponses, middleware);
  }
  const step = middleware.findIndex((handler) => handler.name === 'securityMiddleware');
  if (step < 0)
    throw new Error('express-openapi-validator has no security step to take the place of');
  return middleware.map((handler, i) => (i === step ? enforceDeclaredSecurity(auth) : handler));
}
