import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Database } from '../db/database.js';
import type { ServiceSettings } from '../config.js';
import type { Clock } from '../domain/clock.js';
import { ApiError } from '../domain/errors.js';
import './request-state.js';
import { preflightOf } from './handlers.js';
import { runIdempotent, type KeyPrecheck, type StoredResponse } from './idempotency.js';
import type { Handler, OperationId, OperationInput, RequestContext } from './operations.js';
import { requestIdOf } from './request-id.js';
import type { RouteOperation } from './routes.js';

export interface BinderDeps {
  db: Database;
  clock: Clock;
  settings: ServiceSettings;
  idempotencyTtlSeconds: number;
}

/**
 * The one place that turns HTTP into a handler call and a handler result into HTTP. Reads run on
 * the database; every change runs in one transaction (its events included); a POST with an
 * `Idempotency-Key` runs through the idempotency layer.
 */
export function bindOperation(route: RouteOperation, handler: Handler<OperationId>, deps: BinderDeps): RequestHandler {
  return async (req: Request, res: Response) => {
    const principal = req.principal;
    const idempotencyKey = req.get('idempotency-key') ?? null;
    const ctx: RequestContext = {
      accountId: principal?.kind === 'account' ? principal.accountId : 'admin',
      requestId: requestIdOf(res),
      idempotencyKey,
      db: deps.db,
      clock: deps.clock,
      settings: deps.settings,
    };
    // The validator decoded the path parameters when it matched the operation.
    const path = req.openapi?.pathParams ?? {};
    const input = { path, query: req.query, body: req.body ?? {}, ctx } as unknown as OperationInput<OperationId>;
    const call = { operationId: route.operationId, method: route.method, path: req.path, idempotencyPrecheck: req.idempotencyPrecheck };
    const { response, replayed } = await runOperation(deps, handler, input, call);
    if (replayed) res.setHeader('Idempotent-Replayed', 'true');
    send(res, response);
  };
}

/** Where an operation is being called: which operation, its method, and the path a stored idempotent response is bound to. */
export interface OperationCall {
  operationId: OperationId;
  method: RouteOperation['method'];
  path: string;
  /** What the REST door's replay check already found for the `Idempotency-Key`. */
  idempotencyPrecheck?: KeyPrecheck;
}

/**
 * Runs one operation as both doors (REST and GraphQL) must: a read on the database; a change in
 * one transaction, its events included; a POST with an `Idempotency-Key` through the idempotency
 * layer, which may answer with the stored response instead (`replayed`).
 */
export async function runOperation(
  deps: BinderDeps,
  handler: Handler<OperationId>,
  input: OperationInput<OperationId>,
  call: OperationCall,
): Promise<{ response: StoredResponse; replayed: boolean }> {
  const { ctx } = input;
  if (call.method === 'get') return { response: await handler(input), replayed: false };
  // Before the transaction, so that what it waits on (DNS) holds no lock and no connection.
  await preflightOf(call.operationId)?.(input);
  const execute = (tx: RequestContext['db']) => handler({ ...input, ctx: { ...ctx, db: tx } });
  if (call.method === 'post' && ctx.idempotencyKey) {
    return runIdempotent(
      deps.db,
      {
        accountId: ctx.accountId,
        key: ctx.idempotencyKey,
        requestId: ctx.requestId,
        method: 'POST',
        path: call.path,
        body: input.body,
        nowMs: deps.clock.nowMs(),
        ttlSeconds: deps.idempotencyTtlSeconds,
      },
      execute,
      call.idempotencyPrecheck,
    );
  }
  return { response: await deps.db.transaction(execute), replayed: false };
}

function send(res: Response, result: { status: number; body: unknown }): void {
  res.status(result.status).json(result.body);
}

/**
 * Routes a validated request to its operation's bound handler in one lookup: the validator has
 * already matched the path to an operation (`req.openapi`), so Express need not match it again.
 */
export function dispatchOperations(bound: ReadonlyMap<string, RequestHandler>): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const operationId = req.openapi?.schema.operationId;
    const handler = operationId ? bound.get(operationId) : undefined;
    if (!handler) return next(new ApiError('url_not_found', `Unrecognized request URL (${req.method}: ${req.path}).`));
    return handler(req, res, next);
  };
}
