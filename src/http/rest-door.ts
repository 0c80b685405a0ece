import type { RequestHandler } from 'express';
import { refusal } from '../auth/auth-result.js';
import type { Authenticator } from '../auth/authenticator.js';
import type { Door } from '../edge/door.js';
import { hasBody } from '../edge/request-guards.js';
import { chain } from '../edge/step-chain.js';
import type { Handler, OperationId } from '../operations/operations.js';
import type { OperationDeps } from '../operations/run-operation.js';
import type { RouteOperation } from '../operations/routes.js';
import { handlers } from '../resources/handlers.js';
import { bindOperation, dispatchOperations } from './binder.js';
import { createBodyReader } from './bodies.js';
import { allowPublishableCrossOrigin } from './cross-origin.js';
import { replayIdempotentRequests } from './idempotent-replay.js';
import { prepareOAuthRequests } from './oauth-requests.js';
import { readRequestParameters } from './request-parameters.js';
import { specValidator } from './spec-validator.js';
import { cacheValidatorRoutePatterns } from './validator-route-cache.js';

/** The credentials each authenticated path takes (the spec's `security`: `/v1` an account's, `/admin` Basic). */
const API_PATHS = /^\/(?:v\d+|(admin))(?:\/|$)/;

export interface RestDoorDeps extends OperationDeps {
  auth: Authenticator;
  validateResponses: boolean;
}

/**
 * The REST door: every path the edge has no other door mounted at. Its steps, once the edge let a
 * request through: the body reader (JSON or form), the path and query read strictly, the
 * idempotent replay check, express-openapi-validator (its security step: declared-security.ts),
 * the token endpoint's preparation, and the dispatcher to the operation's bound handler. The
 * edge's refusals go to the one error mapper (`next(error)`), which app.ts installs after the edge.
 */
export function createRestDoor(deps: RestDoorDeps, routes: readonly RouteOperation[]): Door {
  cacheValidatorRoutePatterns();
  const bound = new Map(
    routes.map((route) => [
      route.operationId,
      bindOperation(route, handlers[route.operationId] as Handler<OperationId>, deps),
    ]),
  );
  const steps: Array<RequestHandler | RequestHandler[]> = [
    createBodyReader(routes),
    // Path and query strictly, like form bodies: NUL refused, `limit=1e1` refused (the validator would coerce it).
    readRequestParameters(routes),
    replayIdempotentRequests(deps),
    specValidator(deps.validateResponses, deps.auth, routes),
    // The token endpoint's HTTP Basic client credentials, allowance and headers (RFC 6749).
    prepareOAuthRequests(deps.auth.failures),
    dispatchOperations(bound),
  ];
  return {
    label: 'other',
    credentialsFor: (req) => {
      const api = API_PATHS.exec(req.path);
      return api ? (api[1] ? 'admin' : 'account') : null;
    },
    welcome: allowPublishableCrossOrigin(),
    refuse: (error, _req, _res, next) => next(error),
    // With a body: 401 at once, body unread. Without one there is nothing to wait for: the security
    // step answers the 401 with the operation matched (an unknown path stays a 404).
    refuseCredentials: (failure, req, _res, next) =>
      hasBody(req) ? next(refusal(failure)) : next(),
    refusalBody: (error, requestId) => ({ error: error.toBody(requestId) }),
    serve: chain(steps),
  };
}
