import type { Request, Response } from 'express';
import { ApiError } from '../domain/errors.js';
import { doorOf } from './door.js';
import { hasBody } from './request-guards.js';
import { requestIdOf } from './request-id.js';

/**
 * Gives a request `timeoutMs` to deliver its whole body, counted from the moment its headers
 * reached the app (`HTTP_BODY_TIMEOUT_SECONDS`). Node's own `requestTimeout` would answer a bare
 * 408 with no error envelope and no request id; this timer runs first (the server's
 * `requestTimeout` is set above it as a backstop, see server-timeouts.ts).
 *
 * When the time is up and the body has not all arrived:
 * - nothing answered yet: 408 `request_timeout` in the door's shape (`refusalBody`) with `Connection: close`, after which Node closes the connection; the body reader
 *   still waiting on the body then fails quietly (the response is already sent);
 * - already answered (a 401, 413 or 429 given before the body was read, whose remainder Node reads
 *   and discards to keep the connection): the connection is closed.
 * Requests without a body, or whose body is already in, cost one check.
 */
export function startBodyTimer(req: Request, res: Response, timeoutMs: number): void {
  if (req.complete || !hasBody(req)) return;
  const timer = setTimeout(() => bodyTimedOut(req, res, timeoutMs), timeoutMs);
  const stop = () => clearTimeout(timer);
  req.once('end', stop);
  req.once('close', stop);
}

function bodyTimedOut(req: Request, res: Response, timeoutMs: number): void {
  if (req.complete) return;
  if (res.headersSent) {
    req.socket.destroy();
    return;
  }
  const error = new ApiError(
    'request_timeout',
    `The request body did not arrive within ${timeoutMs / 1000} s of its headers; the connection is closed.`,
  );
  const requestId = requestIdOf(res);
  const payload = doorOf(req).refusalBody(error, requestId);
  // Written directly: no later step of the pipeline runs for this response (response validation
  // included, which would wait on the body like the rest).
  res.statusCode = error.status;
  res.setHeader('Connection', 'close');
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.end(JSON.stringify(payload));
}
