import type { Request, RequestHandler } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import type { Authenticator } from '../auth/authenticator.js';
import { loadSpec, rememberSpecValidated, specValidatedBefore } from '../operations/spec.js';
import { securityHandler } from './authenticate-early.js';
import { speedUpValidatorStartup } from './validator-startup.js';

/** The validators made in this process, by whether they check responses too. */
const validators = new Map<boolean, RequestHandler[]>();

/**
 * express-openapi-validator over the spec: every request (and, when asked, every response) is
 * checked against it, and the operation it matched is left on the request (`req.openapi`).
 *
 * Made once per process and shared by every app built in it: the validator compiles a schema the
 * first time an operation is called, which costs a hundred milliseconds and more per operation, so
 * an app built afresh (each test's server) would pay it again. Nothing in it belongs to one app:
 * the security step asks the authenticator of the app that serves the request (`app.locals`).
 */
export function specValidator(validateResponses: boolean): RequestHandler[] {
  let middleware = validators.get(validateResponses);
  if (!middleware) {
    speedUpValidatorStartup();
    middleware = OpenApiValidator.middleware({
      apiSpec: structuredClone(loadSpec()) as never,
      // The spec is checked against the OpenAPI schema once per text: an unchanged spec passed before.
      validateApiSpec: !specValidatedBefore(),
      validateRequests: {
        allowUnknownQueryParameters: false,
        coerceTypes: false,
        removeAdditional: false,
      },
      validateResponses: validateResponses ? { removeAdditional: false } : false,
      validateFormats: true,
      // Match on the URL after versioning rewrote it (Accept: application/vnd.api.v1+json).
      useRequestUrl: true,
      validateSecurity: {
        handlers: {
          // authenticateEarly has checked the credentials: its verdict is reused. Each scheme
          // passes for the kind of credential it stands for.
          apiKey: securityHandler(['api_key'], (req) => authenticatorOf(req).account(req)),
          // A publishable key as the Basic user name too (`curl -u pk_test_…:`): the scheme `publishableKey`
          // is a bearer one, and runOperation holds the key to its operations whatever the scheme.
          apiKeyBasic: securityHandler(['api_key', 'publishable_key'], (req) =>
            authenticatorOf(req).account(req),
          ),
          publishableKey: securityHandler(['publishable_key'], (req) =>
            authenticatorOf(req).account(req),
          ),
          oauth2: securityHandler(['access_token'], (req) => authenticatorOf(req).account(req)),
          httpSignature: securityHandler(['signature'], (req) => authenticatorOf(req).account(req)),
          mutualTLS: securityHandler(['client_certificate'], (req) =>
            authenticatorOf(req).account(req),
          ),
          adminBasic: securityHandler('admin', (req) => authenticatorOf(req).adminBasic(req)),
          // The token endpoint checks its client's credentials itself, to answer in RFC 6749's shape.
          oauthClientBasic: async () => true,
        },
      },
    }) as unknown as RequestHandler[];
    middleware = [...middleware, rememberSpecValidatedOnce()];
    validators.set(validateResponses, middleware);
  }
  return middleware;
}

/**
 * A request past the validator proves that the validator loaded the spec, which it does only
 * after the spec passed its check: the first one records that for later starts.
 */
function rememberSpecValidatedOnce(): RequestHandler {
  let remembered = false;
  return (_req, _res, next) => {
    if (!remembered) {
      remembered = true;
      rememberSpecValidated();
    }
    next();
  };
}

/** Where `createApp` leaves the app's authenticator for the shared validator's security step. */
export function setAppAuthenticator(
  app: { locals: Record<string, unknown> },
  auth: Authenticator,
): void {
  app.locals.authenticator = auth;
}

function authenticatorOf(req: Request): Authenticator {
  return req.app.locals.authenticator as Authenticator;
}
