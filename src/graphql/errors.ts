import { GraphQLError, type ExecutionResult } from 'graphql';
import { isApiError, type ApiError, type ErrorBody } from '../domain/errors.js';
import type { Logger } from '../logging/logger.js';
import { apiErrorExtensions } from '../operations/error-extensions.js';

/** An error envelope (a REST handler's error response, maybe replayed) as a GraphQL error. */
export function errorFromEnvelope(body: { error: ErrorBody }): GraphQLError {
  return new GraphQLError(body.error.message, { extensions: apiErrorExtensions(body.error) });
}

/** A thrown `ApiError` as a GraphQL error at the same place in the result. */
function fromApiError(error: GraphQLError, apiError: ApiError, requestId: string): GraphQLError {
  return new GraphQLError(apiError.message, {
    nodes: error.nodes,
    positions: error.positions,
    path: error.path,
    source: error.source,
    extensions: apiErrorExtensions(apiError.toBody(requestId)),
  });
}

/**
 * The errors of an executed operation, made safe to send: a service's `ApiError` keeps its REST
 * code; an error that already carries a code is left alone; input that does not fit the schema's
 * types is `BAD_USER_INPUT`; anything unexpected is masked as "Internal server error" and logged
 * with the request id, so that no driver message or stack ever leaves the server.
 */
export function safeExecutionResult(result: ExecutionResult, requestId: string, logger: Logger): ExecutionResult {
  if (!result.errors?.length) return result;
  const errors = result.errors.map((error) => {
    const original = error.originalError;
    if (isApiError(original)) return fromApiError(error, original, requestId);
    if (error.extensions.code) return error;
    // No data at all: the request failed before execution, as variables that do not fit their types.
    if (result.data === undefined) {
      return new GraphQLError(error.message, { nodes: error.nodes, extensions: { code: 'BAD_USER_INPUT' } });
    }
    // A GraphQLError thrown on purpose: located by graphql-js, with the thrower's extensions.
    if (original instanceof GraphQLError) return error;
    logger.error({ err: original ?? error, req_id: requestId, path: error.path }, 'GraphQL execution failed');
    return new GraphQLError('Internal server error', {
      nodes: error.nodes,
      path: error.path,
      extensions: { code: 'INTERNAL_SERVER_ERROR', requestId },
    });
  });
  return { ...result, errors };
}
