import type { RequestHandler, Response } from 'express';
import { unixSeconds, type Clock } from '../domain/clock.js';
import type { RequestLogBuffer } from '../resources/request-logs/request-log-buffer.js';
import { isLoggedMethod } from '../resources/request-logs/request-logs.mapper.js';
import './request-state.js';
import { requestIdOf } from './request-id.js';

/** The spec's `RequestLog.path` and `idempotency_key` limits: longer values are cut to fit. */
const MAX_PATH = 2048;
const MAX_IDEMPOTENCY_KEY = 255;

/** The list's own path (after versioning by `Accept`), whose reads are not logged. */
const REQUEST_LOGS_PATH = /^\/v1\/request_logs\/?$/;

/**
 * Records every answered request of an account in the request log (`GET /v1/request_logs`): its
 * method, its path as sent (without the query; `/customers` as sent, when versioned by `Accept`),
 * its status, its id, its `Idempotency-Key`, and how long it took.
 *
 * Install it after the pages, probes and scrapes, which never have an account, and before the
 * checks and the authentication, so that the duration covers them: what it records is decided
 * when the answer ends, once the request's principal is known. Not recorded: requests without an
 * account's accepted credential (refused credentials, the operator's HTTP Basic, pages), and
 * reads of the request log itself, so that following it adds nothing to it.
 *
 * Each request is recorded once: when its answer is finished, or, when the client went away
 * first, with the status the server gave it all the same (at once when the server had already
 * ended its answer, else when it ends it; Node emits no `finish` for an answer to a closed
 * connection). Hot path: a clock read and two listeners that are shared functions, no closure per
 * request.
 */
export function recordRequestLogs(buffer: RequestLogBuffer, clock: Clock): RequestHandler {
  function onEnded(this: Response): void {
    record(this, buffer, clock);
  }
  // After `finish` (the usual order) this finds the request recorded. Without one, the client went
  // away: the answer was ended (written to a closed connection), or it is still to come, and
  // `prefinish` is emitted when the server ends it, connection or not. (`writableFinished` cannot
  // tell: it turns true once the connection is gone.)
  function onClose(this: Response): void {
    if (this.writableEnded) record(this, buffer, clock);
    else this.once('prefinish', onEnded);
  }
  return (_req, res, next) => {
    res.locals.requestLogStartedAt = performance.now();
    res.on('finish', onEnded);
    res.on('close', onClose);
    next();
  };
}

function record(res: Response, buffer: RequestLogBuffer, clock: Clock): void {
  const req = res.req;
  const principal = req.principal;
  if (principal?.kind !== 'account' || res.locals.requestLogged === true) return;
  if ((req.method === 'GET' || req.method === 'HEAD') && REQUEST_LOGS_PATH.test(req.path)) return;
  if (!isLoggedMethod(req.method)) return;
  res.locals.requestLogged = true;
  const key = req.get('Idempotency-Key');
  buffer.record({
    id: requestIdOf(res),
    account_id: principal.accountId,
    created: unixSeconds(clock),
    method: req.method,
    path: pathAsSent(req.originalUrl).slice(0, MAX_PATH),
    status: res.statusCode,
    duration_ms: Math.max(0, performance.now() - (res.locals.requestLogStartedAt as number)),
    // A key too long for the spec was refused (400); the log still shows which one was sent.
    idempotency_key: key === undefined ? null : key.slice(0, MAX_IDEMPOTENCY_KEY),
  });
}

/** The path of the request line, without its query string. */
function pathAsSent(url: string): string {
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}
