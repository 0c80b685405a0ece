/**
 * The edge: what every request passes, whichever door serves it. Its first step gives the request
 * its id and picks its door by the path it arrived on, once; every later step asks the door
 * (`doorOf`) instead of testing the path: which credentials to check, how to word a refusal.
 * The steps run in this order, as one layer of Express's router (step-chain.ts):
 *
 * 1. the request id and the door; the log line (at `info`);
 * 2. what answers before the API, given by the app (pages, probes, scrapes, request metrics, the
 *    request log);
 * 3. the checks that need no body: the body timer (408), the declared size (413), a repeated
 *    `Authorization` or `Idempotency-Key` (400); versioning (406, or the `/v1` rewrite);
 * 4. the door's welcome (REST: the CORS answer a browser's preflight gets, before authentication);
 * 5. authentication (401, or 429 from the failed-authentication limit), the per-credential rate
 *    limit (429);
 * 6. only then an `Expect: 100-continue` client is invited to send its body, and the door serves.
 */
import type { RequestHandler } from 'express';
import type { Authenticator } from '../auth/authenticator.js';
import type { Logger } from '../logging/logger.js';
import { authenticateEarly } from './authenticate-early.js';
import { doorOf, type Doors } from './door.js';
import { limitRequestsPerCredential, type RateLimiter } from './rate-limit.js';
import { giveRequestId } from './request-id.js';
import { inviteExpectedBody, oversizedBody, repeatedHeader } from './request-guards.js';
import { logRequests } from './request-logging.js';
import { startBodyTimer } from './request-timeouts.js';
import { chain } from './step-chain.js';
import { negotiateVersion } from './versioning.js';

export interface EdgeOptions {
  logger: Logger;
  auth: Authenticator;
  /** Undefined: no rate limits. */
  rateLimiter?: RateLimiter;
  /** How long a body may take to arrive after its headers (408). */
  bodyTimeoutMs: number;
  /** What answers before the API's checks, in order (pages, probes, scrapes, request metrics and logs). */
  front: ReadonlyArray<RequestHandler>;
  doors: Doors;
}

/** The edge's steps as one request handler, ending in the request's door. */
export function createEdge(options: EdgeOptions): RequestHandler {
  const steps: RequestHandler[] = [enterEdge(options.doors)];
  if (options.logger.isLevelEnabled('info')) steps.push(logRequests(options.logger));
  steps.push(...options.front);
  steps.push(guardRequests(options.bodyTimeoutMs));
  steps.push(negotiateVersion);
  steps.push(welcome);
  steps.push(authenticateEarly(options.auth));
  // Before bodies and validation, so a refused request costs one counter update and nothing more.
  if (options.rateLimiter) steps.push(limitRequestsPerCredential(options.rateLimiter));
  steps.push(enterDoor);
  return chain(steps);
}

/** The request id, and the door: the one mounted at the request's path, else the other one. */
function enterEdge({ mounted, otherwise }: Doors): RequestHandler {
  const byPath = new Map(Object.entries(mounted));
  return (req, res, next) => {
    giveRequestId(res);
    req.door = byPath.get(req.path) ?? otherwise;
    next();
  };
}

/** The checks that need no body, as one step; a refused request is answered in its door's shape. */
function guardRequests(bodyTimeoutMs: number): RequestHandler {
  return (req, res, next) => {
    startBodyTimer(req, res, bodyTimeoutMs);
    const refused = oversizedBody(req) ?? repeatedHeader(req);
    if (refused) return doorOf(req).refuse(refused, req, res, next);
    next();
  };
}

const welcome: RequestHandler = (req, res, next) => {
  const step = doorOf(req).welcome;
  return step ? step(req, res, next) : next();
};

/** Past every check that refuses a request unread: a waiting client is asked for its body. */
const enterDoor: RequestHandler = (req, res, next) => {
  inviteExpectedBody(req, res);
  return doorOf(req).serve(req, res, next);
};
