import type { RequestHandler } from 'express';
import type { Queryable } from '../db/database.js';
import type { Clock } from '../domain/clock.js';
import { findReplay } from '../operations/idempotency.js';
import './request-state.js';
import { requestIdOf } from './request-id.js';

export interface ReplayDeps {
  db: Queryable;
  clock: Clock;
  idempotencyTtlSeconds: number;
}

/**
 * Answers a repeated idempotent POST from its stored response before request validation, so that a
 * client retrying (the common case after a timeout) costs no more than a read. Only an exact
 * repeat qualifies: same account, key, path and body as a request that completed. Anything else
 * (a first request, one still running, another body, bad credentials) goes on down the pipeline,
 * where validation and the idempotency layer decide it in full; what was found is left on the
 * request (the fingerprint, and whether the key was unused), so that it is not looked up twice.
 *
 * Mounted after the body reader: the body it compares is the one the handler would get.
 */
export function replayIdempotentRequests(deps: ReplayDeps): RequestHandler {
  return async (req, res, next) => {
    const key = req.method === 'POST' ? req.headers['idempotency-key'] : undefined;
    // The principal that authenticateEarly (mounted before) found; none: refused credentials, or /admin.
    const principal = req.principal;
    if (typeof key !== 'string' || principal?.kind !== 'account') return next();
    const { replay, precheck } = await findReplay(deps.db, {
      accountId: principal.accountId,
      key,
      requestId: requestIdOf(res),
      method: 'POST',
      path: req.path,
      body: req.body ?? {},
      nowMs: deps.clock.nowMs(),
      ttlSeconds: deps.idempotencyTtlSeconds,
    });
    if (!replay) {
      req.idempotencyPrecheck = precheck;
      return next();
    }
    res.setHeader('Idempotent-Replayed', 'true');
    res.status(replay.status).type('application/json').send(replay.json);
  };
}
