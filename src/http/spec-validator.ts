import type { NextFunction, Request, RequestHandler, Response } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import type { OpenApiRequestMetadata } from 'express-openapi-validator/dist/framework/types.js';
import type { Authenticator } from '../auth/authenticator.js';
import type { RouteOperation } from '../operations/routes.js';
import { loadSpec, rememberSpecValidated, specValidatedBefore } from '../operations/spec.js';
import { enforceDeclaredSecurity } from './declared-security.js';
import { createRouteMatcher } from './route-matcher.js';
import './request-state.js';
import { callSettledSteps, type ValidatorInstance } from './validator-settled-steps.js';
import { compileOperationsOverSharedComponents } from './validator-shared-components.js';
import { speedUpValidatorStartup } from './validator-startup.js';

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
 *
 * Its route lookup runs once per operation, not per request (see `lookUpOncePerOperation`), and
 * its steps stop waiting for the spec once it has loaded (validator-settled-steps.ts).
 */
export function specValidator(
  validateResponses: boolean,
  auth: Authenticator,
  routes: readonly RouteOperation[],
): RequestHandler[] {
  let middleware = validators.get(validateResponses);
  if (!middleware) {
    speedUpValidatorStartup();
    compileOperationsOverSharedComponents();
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
      validateSecurity: false,
    }) as unknown as RequestHandler[];
    // The instance that made these steps: the validator keeps the last one made there.
    const instance = (OpenApiValidator.middleware as unknown as { _oav: ValidatorInstance })._oav;
    middleware = [...callSettledSteps(instance, middleware), rememberSpecValidatedOnce()];
    validators.set(validateResponses, middleware);
  }
  const step = (name: string) => {
    const index = middleware.findIndex((handler) => handler.name === name);
    if (index < 0) throw new Error(`express-openapi-validator has no ${name} to take the place of`);
    return index;
  };
  const security = step('securityMiddleware');
  const metadata = step('metadataMiddleware');
  return middleware.map((handler, i) => {
    if (i === security) return enforceDeclaredSecurity(auth);
    if (i === metadata) return lookUpOncePerOperation(handler, routes);
    return handler;
  });
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

/** What the validator's match of an operation leaves on a request, less the request's own path parameters. */
type OperationMetadata = Omit<OpenApiRequestMetadata, 'pathParams'>;

/**
 * The validator's route lookup, once per operation: it scans every path of the spec with a regular
 * expression per request (and allocates a list of them), so its answer for an operation is kept,
 * keyed by the operation the one route matcher of this server finds, and reused with the request's
 * own path parameters, decoded as it decodes them. Kept only where the validator's match and this
 * one agree; anything else (a new operation, a path that is no operation, a malformed escape) goes
 * through the validator's lookup, which answers its 404, 405 or 400.
 */
function lookUpOncePerOperation(
  lookup: RequestHandler,
  routes: readonly RouteOperation[],
): RequestHandler {
  const match = createRouteMatcher(routes);
  const known = new Map<string, OperationMetadata>();
  return (req: Request, res: Response, next: NextFunction) => {
    const matched = match(req.method, req.path);
    const metadata = matched && known.get(matched.route.operationId);
    const pathParams = metadata && decodedParams(matched.pathParams);
    if (pathParams) {
      req.openapi = { ...metadata, pathParams } as OpenApiRequestMetadata;
      req.params = pathParams;
      return next();
    }
    return lookup(req, res, (error?: unknown) => {
      const found = req.openapi;
      if (
        error === undefined &&
        matched &&
        found?.schema.operationId === matched.route.operationId
      ) {
        const { pathParams: _own, ...operation } = found;
        known.set(matched.route.operationId, operation);
      }
      next(error);
    });
  };
}

/** Path parameters decoded as the validator decodes them; undefined for a malformed escape. */
function decodedParams(raw: Record<string, string>): Record<string, string> | undefined {
  const decoded: Record<string, string> = {};
  try {
    for (const name in raw) decoded[name] = decodeURIComponent(raw[name]);
  } catch {
    return undefined;
  }
  return decoded;
}
