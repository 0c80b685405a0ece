/**
 * Rate limits per credential (docs/conventions.md#rate-limits), in front of body parsing, validation and idempotency.
 *
 * - The counter is keyed by the credential: an API key, an OAuth client (whatever access token it
 *   sends), a signing key or a client certificate, by its id (see `rateLimitKey`); a raw key never
 *   reaches the store.
 * - Only accepted credentials are counted (the step before authenticated the request): requests
 *   without credentials or with refused ones get their 401 without touching this
 *   allowance. Guessing is limited per client address instead, by the failed-authentication
 *   limit (auth-failures.ts), which counts every refused credential whatever its value.
 * - Only an account's requests are limited: those the door authenticated with an account's
 *   credential (REST's `/v1/…`, GraphQL). Health checks, docs and `/admin` never are. Over
 *   WebSocket, each `connection_init` and each subscription counts as one request of its key
 *   (see `countRequest` and graphql/subscriptions.ts).
 * - Every counted response carries `RateLimit-Limit`, `RateLimit-Remaining`, `RateLimit-Reset`
 *   and `RateLimit-Policy`; a refused one is a 429 with `Retry-After`, in the door's shape (REST's
 *   error envelope, GraphQL's `{"errors": […]}`).
 * - A refusal happens before the idempotency layer, so a 429 is never stored as a key's response:
 *   the client's retry with the same `Idempotency-Key` runs the request.
 */
import { createHash } from 'node:crypto';
import type { RequestHandler, Response } from 'express';
import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { AccountPrincipal } from '../auth/authenticator.js';
import { ApiError } from '../domain/errors.js';
import { doorOf } from './door.js';

/** Counts requests per key over a window, shared by every API process (see `createRequestRateLimiter`). */
export type RateLimiter = Pick<RateLimiterAbstract, 'consume' | 'points' | 'duration'>;

/** Counts each API request against its credential's allowance and refuses it with 429 once spent. */
export function limitRequestsPerCredential(limiter: RateLimiter): RequestHandler {
  return async (req, res, next) => {
    const principal = req.principal;
    if (principal?.kind !== 'account') return next();
    let outcome: RateLimiterRes;
    try {
      outcome = await limiter.consume(rateLimitKey(principal, req.headers.authorization));
    } catch (rejection) {
      // The limiter rejects with a RateLimiterRes when the allowance is spent, with an Error when it failed.
      if (!(rejection instanceof RateLimiterRes)) return next(rejection);
      setRateLimitHeaders(res, limiter, rejection);
      return doorOf(req).refuse(tooManyRequests(limiter, rejection), req, res, next);
    }
    setRateLimitHeaders(res, limiter, outcome);
    next();
  };
}

/**
 * Counts one request of a credential that is not an HTTP request (a WebSocket connection or
 * subscription): null when allowed, else the 429 `rate_limited` error to refuse it with. A
 * failure of the store is thrown.
 */
export async function countRequest(limiter: RateLimiter, key: string): Promise<ApiError | null> {
  try {
    await limiter.consume(key);
    return null;
  } catch (rejection) {
    if (!(rejection instanceof RateLimiterRes)) throw rejection;
    return tooManyRequests(limiter, rejection);
  }
}

/**
 * The store's key for an accepted credential: its kind and id, so that an OAuth client's every
 * token, or a signing key's every signature, shares one allowance; without an id, a digest of the
 * `Authorization` value (short, fixed-length, and not to be turned back into the credential).
 */
export function rateLimitKey(principal: AccountPrincipal, authorization: string | undefined): string {
  if (principal.credentialId) return `${principal.credential}:${principal.credentialId}`;
  return createHash('sha256').update(authorization ?? principal.accountId).digest('base64url');
}

/** Seconds until the window ends, rounded up: a client that waits this long finds a new allowance. */
function secondsUntilReset(outcome: RateLimiterRes): number {
  return Math.max(0, Math.ceil(outcome.msBeforeNext / 1000));
}

/** The RateLimit header fields of draft-ietf-httpapi-ratelimit-headers (delta-seconds reset). */
function setRateLimitHeaders(res: Response, limiter: RateLimiter, outcome: RateLimiterRes): void {
  res.setHeader('RateLimit-Limit', String(limiter.points));
  res.setHeader('RateLimit-Remaining', String(outcome.remainingPoints));
  res.setHeader('RateLimit-Reset', String(secondsUntilReset(outcome)));
  res.setHeader('RateLimit-Policy', `${limiter.points};w=${limiter.duration}`);
}

function tooManyRequests(limiter: RateLimiter, outcome: RateLimiterRes): ApiError {
  const retryAfter = Math.max(1, secondsUntilReset(outcome));
  const per = limiter.duration === 1 ? 'second' : `${limiter.duration} seconds`;
  return new ApiError(
    'rate_limited',
    `Too many requests with this credential: the limit is ${limiter.points} per ${per}. Retry after ${retryAfter} s.`,
    { headers: { 'Retry-After': String(retryAfter) } },
  );
}
