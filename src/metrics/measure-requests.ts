import type { Request, RequestHandler, Response } from 'express';
import { doorOf } from '../edge/door.js';
import '../http/request-state.js';
import type { RequestMetrics } from './request-metrics.js';

/**
 * Counts and times every request that reaches it, once its response is finished. It runs on the
 * hot path, so it does the least it can: a clock read and a listener that is one shared function
 * (no closure per request); the labels are strings the request already holds. A request whose
 * client went away before the response was sent is not counted (no `finish`).
 */
export function measureRequests(metrics: RequestMetrics): RequestHandler {
  function onFinish(this: Response): void {
    const req = this.req;
    const seconds = (performance.now() - (this.locals.metricsStartedAt as number)) / 1000;
    metrics.record(operationOf(req), req.method, this.statusCode, seconds);
  }
  return (_req, res, next) => {
    res.locals.metricsStartedAt = performance.now();
    res.on('finish', onFinish);
    next();
  };
}

/**
 * The operation label: the spec's operationId once the validator matched one (a 400 or 401 of an
 * operation included), else the door's: `graphql`, or `other` for what matched nothing (404, 405,
 * a 429 refused before matching). Never the URL, which holds ids.
 */
function operationOf(req: Request): string {
  const operationId = req.openapi?.schema.operationId;
  if (operationId) return operationId;
  return doorOf(req).label;
}
