import type { Response } from 'express';
import type { AuthFailure } from '../auth/authenticator.js';
import type { Door } from '../edge/door.js';
import { requestIdOf } from '../edge/request-id.js';
import type { ApiError } from '../domain/errors.js';
import { apiErrorExtensions } from '../operations/error-extensions.js';
import { createGraphQLRouter, type GraphQLHttpDeps } from './http-handler.js';

export { GRAPHQL_PATH } from './http-handler.js';

/**
 * The GraphQL door as the edge sees it: every request takes an account's credential, and the
 * edge's refusals are written in GraphQL's `{"errors": […]}` shape with the REST status, headers
 * and code (plain JSON, like the handler's other refusals before execution).
 */
export function createGraphQLDoor(deps: GraphQLHttpDeps): Door {
  return {
    label: 'graphql',
    credentialsFor: () => 'account',
    refuse: (error, _req, res) => {
      for (const [name, value] of Object.entries(error.details.headers ?? {}))
        res.setHeader(name, value);
      res
        .status(error.status)
        .type('application/json')
        .send(JSON.stringify(graphQLRefusal(error, requestIdOf(res))));
    },
    refuseCredentials: (failure, _req, res) => unauthenticated(res, failure),
    refusalBody: graphQLRefusal,
    serve: createGraphQLRouter(deps),
  };
}

/** An `ApiError` in GraphQL's shape: `{"errors": [{message, extensions}]}` carrying the REST code. */
function graphQLRefusal(error: ApiError, requestId: string): { errors: object[] } {
  return {
    errors: [{ message: error.message, extensions: apiErrorExtensions(error.toBody(requestId)) }],
  };
}

/** Refused credentials: 401 `UNAUTHENTICATED`, with the REST code as the reason, body unread. */
function unauthenticated(res: Response, failure: AuthFailure): void {
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
