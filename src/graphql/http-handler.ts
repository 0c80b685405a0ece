import express, { Router, type ErrorRequestHandler, type RequestHandler } from 'express';
import { GraphQLError } from 'graphql';
import { createHandler } from 'graphql-http/lib/use/express';
import '../http/request-state.js';
import { CONTENT_DIGEST_MISMATCH, checkContentDigest, isContentDigestMismatch } from '../http/bodies.js';
import { requestContextFrom } from '../edge/request-context.js';
import { requestIdOf } from '../edge/request-id.js';
import { createGraphQLContext, type GraphQLContext, type GraphQLDeps } from './context.js';
import { safeExecutionResult } from './errors.js';
import { createDocumentChecker } from './document-checker.js';
import { DEFAULT_GRAPHQL_LIMITS, type GraphQLLimits } from './limits.js';
import { nulError } from '../domain/nul-guard.js';
import { findNulLiteral } from './nul-literals.js';
import { apiErrorResponse, createRequestParamsParser, graphQLErrorResponse } from './request-params.js';
import { graphQLSchema } from './schema.js';

export interface GraphQLHttpDeps extends GraphQLDeps {
  /** Accept only documents registered as trusted (`GRAPHQL_TRUSTED_DOCUMENTS_ONLY`). */
  trustedDocumentsOnly: boolean;
  limits?: GraphQLLimits;
}

/** The path of the GraphQL endpoint, for HTTP and WebSocket alike. */
export const GRAPHQL_PATH = '/graphql';

const ONE_MEGABYTE = 1024 * 1024;
/** As the door answers refused credentials (graphql-door.ts): the REST code as the reason. */
const DIGEST_MISMATCH_EXTENSIONS = { code: 'UNAUTHENTICATED', reason: 'signature_invalid' };

/**
 * `POST /graphql` and `GET /graphql` (queries only), served by graphql-http with the same API keys
 * as REST, which the edge checked before (graphql-door.ts). Before execution: the persisted document is looked up if the request names one, the
 * document is parsed within the token limit, validated, and held to the depth, cost and alias
 * limits (a 400 that says which); a string holding U+0000, in a literal or a variable, is a 400
 * `parameter_invalid` naming it, as in REST. Execution errors keep the REST error codes; unexpected ones are
 * masked and logged with the request id.
 */
export function createGraphQLRouter(deps: GraphQLHttpDeps): RequestHandler {
  const schema = graphQLSchema();
  const check = createDocumentChecker(deps.limits ?? DEFAULT_GRAPHQL_LIMITS);

  const graphql = createHandler<GraphQLContext>({
    schema,
    parseRequestParams: createRequestParamsParser({ db: deps.db, trustedDocumentsOnly: deps.trustedDocumentsOnly }),
    onSubscribe: (req, params) => {
      const verdict = check(params.query);
      if ('errors' in verdict) {
        if (!verdict.overLimit) return verdict.errors; // graphql-http picks the status by media type
        // A refusal by our limits is a 400 whatever the media type.
        return [
          JSON.stringify({ errors: verdict.errors.map((error) => error.toJSON()) }),
          { status: 400, statusText: 'Bad Request', headers: { 'content-type': 'application/json; charset=utf-8' } },
        ];
      }
      const { raw, context } = req;
      // Postgres refuses U+0000: in literals here; in variables, with the other request parameters.
      const nul = findNulLiteral(verdict.document, params.query);
      if (nul) return apiErrorResponse(nulError(nul), requestIdOf(context.res));
      return {
        schema,
        document: verdict.document,
        operationName: params.operationName,
        variableValues: params.variables,
        // The edge answered every request without valid credentials: a principal is here.
        contextValue: createGraphQLContext(
          deps,
          requestContextFrom(raw.principal!, {
            requestId: requestIdOf(context.res),
            idempotencyKey: raw.get('idempotency-key') ?? null,
          }, deps),
        ),
      };
    },
    onOperation: (req, _args, result) => safeExecutionResult(result, requestIdOf(req.context.res), deps.logger),
    // Errors of the request itself (not of the document): their messages are ours and safe.
    formatError: (error) =>
      error instanceof GraphQLError ? error : new GraphQLError(error.message, { extensions: { code: 'BAD_REQUEST' } }),
  });

  const router = Router();
  router.all(
    GRAPHQL_PATH,
    varyOnAccept,
    express.text({ type: () => true, limit: ONE_MEGABYTE, verify: checkContentDigest }),
    graphql,
  );
  router.use(GRAPHQL_PATH, bodyErrors);
  return router;
}

/** The same URL serves GraphiQL to browsers, so caches must key JSON answers on `Accept` too. */
const varyOnAccept: RequestHandler = (_req, res, next) => {
  res.vary('Accept');
  next();
};

/**
 * A body over 1 MB, one that does not match its signed Content-Digest (401), or one that cannot be
 * read, answered in GraphQL's shape.
 */
const bodyErrors: ErrorRequestHandler = (error: { type?: string; status?: number }, _req, res, next) => {
  if (res.headersSent) return next(error);
  const [body, init] = isContentDigestMismatch(error)
    ? graphQLErrorResponse(401, CONTENT_DIGEST_MISMATCH, 'UNAUTHENTICATED', {}, DIGEST_MISMATCH_EXTENSIONS)
    : error.type === 'entity.too.large'
      ? graphQLErrorResponse(413, 'The request body is larger than 1 MB.', 'request_too_large')
      : error.status && error.status < 500
        ? graphQLErrorResponse(400, 'The request body could not be read.', 'BAD_REQUEST')
        : [null, null];
  if (!init) return next(error);
  res.status(init.status).set(init.headers as Record<string, string>).send(body);
};
