import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { ApiError } from '../domain/errors.js';
import type {
  Handler,
  OperationId,
  OperationInput,
} from '../operations/operations.js';
import type { RouteOperation } from '../operations/routes.js';
import {
  runOperation,
  type OperationCall,
  type OperationDeps,
} from '../operations/run-operation.js';
import { preflightOf } from '../resources/handlers.js';
import './request-state.js';
import { requestContextFrom } from '../edge/request-context.js';
import { requestIdOf } from '../edge/request-id.js';
import { writeJson } from './write-json.js';

/**
 * The one place that turns HTTP into a handler call and a handler result into HTTP. Reads run on
 * the database; every change runs in one transaction (its events included); a POST with an
 * `Idempotency-Key` runs through the idempotency layer.
 */
export function bindOperation(
  route: RouteOperation,
  handler: Handler<OperationId>,
  deps: OperationDeps & { validateResponses: boolean },
): RequestHandler {
  const preflight = preflightOf(route.operationId);
  return async (req: Request, res: Response) => {
    // One value: a repeated Idempotency-Key was refused before (request-guards.ts). The validator
    // let the request through, so the principal its security asks for is here.
    const idempotencyKey = (req.headers['idempotency-key'] as string | undefined) ?? null;
    const ctx = requestContextFrom(req.principal, { requestId: requestIdOf(res), idempotencyKey }, deps);
    // The validator decoded the path parameters when it matched the operation.
    const path = req.openapi?.pathParams ?? {};
    const input = {
      path,
      query: req.query,
      body: req.body ?? {},
      ctx,
    } as unknown as OperationInput<OperationId>;
    const call: OperationCall = {
      operationId: route.operationId,
      method: route.method,
      path: req.path,
      preflight,
      idempotencyPrecheck: req.idempotencyPrecheck,
    };
    const { response, replayed } = await runOperation(deps, handler, input, call);
    if (replayed) res.setHeader('Idempotent-Replayed', 'true');
    // Validated responses go through `res.json`, which the validator watches.
    if (deps.validateResponses) return void res.status(response.status).json(response.body);
    // An answer already serialised (to be stored for its Idempotency-Key) is sent as that very text.
    writeJson(res, response.status, response.json ?? JSON.stringify(response.body));
  };
}

/**
 * Routes a validated request to its operation's bound handler in one lookup: the validator has
 * already matched the path to an operation (`req.openapi`), so Express need not match it again.
 */
export function dispatchOperations(bound: ReadonlyMap<string, RequestHandler>): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const operationId = req.openapi?.schema.operationId;
    const handler = operationId ? bound.get(operationId) : undefined;
    if (!handler)
      return next(
        new ApiError('url_not_found', `Unrecognized request URL (${req.method}: ${req.path}).`),
      );
    return handler(req, res, next);
  };
}
