import type { RequestHandler } from 'express';
import type { Queryable } from '../db/database.js';
import { findReplay, idempotentPost, requestFingerprint, type IdempotencySettings } from '../operations/idempotency.js';
import './request-state.js';
import { requestIdOf } from '../edge/request-id.js';

export interface ReplayDeps extends IdempotencySettings {
  db: Queryable;
}

/**
 * The REST door's adapter over idempotency's replay stage (src/operations/idempotency.ts): an
 * exact repeat of a completed idempotent POST is answered from its stored response before request
 * validation, so that a client retrying (the common case after a timeout) costs no more than a
 * read. Anything else goes on down the pipeline with what the stage found left on the request
 * (`idempotencyPrecheck`), for the binder to hand to the operation.
 *
 * Mounted after the body reader, so the body compared is the one the handler would get, and
 * after the early authentication, whose principal names the account.
 */
export function replayIdempotentRequests(deps: ReplayDeps): RequestHandler {
  return async (req, res, next) => {
    const key = req.method === 'POST' ? req.headers['idempotency-key'] : undefined;
    // The principal that authenticateEarly (mounted before) found; none: refused credentials, or /admin.
    const principal = req.principal;
    if (typeof key !== 'string' || principal?.kind !== 'account') return next();
    const post = { key, accountId: principal.accountId, requestId: requestIdOf(res), path: req.path, body: req.body ?? {} };
    const request = idempotentPost(deps, post);
    // The operation, and so its scope, is known only once the validator has matched it: a key
    // restricted to some scopes takes the full path, where the scope is checked before any replay.
    // Its body is still fingerprinted here, as sent: the validator then fills in the spec's
    // defaults, and the same request must have the same fingerprint whatever the key's scopes.
    if (principal.grant !== 'all') {
      req.idempotencyPrecheck = { fingerprint: requestFingerprint(request), keyWasUnused: false };
      return next();
    }
    const { replay, precheck } = await findReplay(deps.db, request);
    if (!replay) {
      req.idempotencyPrecheck = precheck;
      return next();
    }
    res.setHeader('Idempotent-Replayed', 'true');
    res.status(replay.status).type('application/json').send(replay.json);
  };
}
