/**
 * Limits failed authentications per client address, so that neither the admin password nor API
 * keys can be guessed at the speed of the network (a per-credential limit does not help there:
 * every guess is a new credential).
 *
 * Guarantees:
 * - Only refused credentials count: a request whose `Authorization` was checked and refused (a
 *   401), or could not be checked (a 503 while an identity provider is out: auth-result.ts). A request without `Authorization` is not a guess and is not counted; accepted
 *   credentials never are.
 * - Once an address has failed `points` times in the window, every authentication from it is
 *   refused with 429 `rate_limited` and `Retry-After` until the window ends, even with the right
 *   credentials: otherwise guessing would simply go on, the right guess being the one that passes.
 * - The count is one counter per address in the rate-limit store, shared by every API process
 *   on Postgres (db/rate-limit-store.ts). Every failure is an atomic increment, so the allowance
 *   holds across processes guess by guess. To spare the store a read on every request, an
 *   address found under its allowance is not read again for a second: a process that has not
 *   itself seen a failure from that address may accept its right credentials for up to a second
 *   after another process blocked it (a guess would still be counted, and refused).
 * - The address is the TCP peer's (`req.socket.remoteAddress`); behind N trusted reverse proxies
 *   (`TRUST_PROXY=N`), the N-th address from the right of `X-Forwarded-For`, the one the nearest
 *   trusted proxy saw (Express's `trust proxy` with a hop count). IPv6 addresses count by their
 *   /64, the block a single host is usually given.
 */
import type { IncomingMessage } from 'node:http';
import ipaddr from 'ipaddr.js';
import { LRUCache } from 'lru-cache';
import type { RateLimiterAbstract, RateLimiterRes } from 'rate-limiter-flexible';
import type { Database } from '../db/database.js';
import { createRateLimitStore, type RateLimitWindow } from '../db/rate-limit-store.js';
import { ApiError } from '../domain/errors.js';
import { UncheckableCredential } from './auth-result.js';

/** The store calls the limiter makes (see `createRateLimitStore`). */
export type FailureStore = Pick<RateLimiterAbstract, 'get' | 'penalty' | 'points' | 'duration'>;

/** How long an address found under its allowance is not looked up again. */
const UNDER_ALLOWANCE_FOR_MS = 1000;
/** Addresses remembered per process (blocked, or recently under their allowance). */
const REMEMBERED_ADDRESSES = 10_000;

/** The failed-authentication limiter of a process. */
export class AuthFailureLimiter {
  /** Address → when its block ends (ms since the epoch). */
  private readonly blockedUntil = new LRUCache<string, number>({ max: REMEMBERED_ADDRESSES });
  /** Addresses found under their allowance in the last second. */
  private readonly underAllowance = new LRUCache<string, true>({
    max: REMEMBERED_ADDRESSES,
    ttl: UNDER_ALLOWANCE_FOR_MS,
  });

  constructor(
    private readonly store: FailureStore,
    /** Reverse proxies in front of the server whose `X-Forwarded-For` entries are believed. */
    private readonly trustProxyHops = 0,
  ) {}

  /** The address a request's failures are counted against. */
  addressOf(req: IncomingMessage): string {
    return clientAddress(req, this.trustProxyHops);
  }

  /** The 429 to refuse `address` with while it is over its allowance; null when it may authenticate. */
  async refusal(address: string): Promise<ApiError | null> {
    const until = this.blockedUntil.get(address);
    if (until !== undefined) {
      if (until > Date.now()) return this.tooMany(until - Date.now());
      this.blockedUntil.delete(address);
    }
    if (this.underAllowance.has(address)) return null;
    const counted = await this.store.get(address);
    if (counted && this.spent(counted)) return this.block(address, counted.msBeforeNext);
    this.underAllowance.set(address, true);
    return null;
  }

  /** Counts one refused credential from `address` (blocking it here at once when that spends its allowance). */
  async recordFailure(address: string): Promise<void> {
    this.underAllowance.delete(address);
    const counted = await this.store.penalty(address, 1);
    if (this.spent(counted)) this.block(address, counted.msBeforeNext);
  }

  private spent(counted: RateLimiterRes): boolean {
    return counted.consumedPoints >= this.store.points;
  }

  private block(address: string, ms: number): ApiError {
    this.blockedUntil.set(address, Date.now() + ms);
    return this.tooMany(ms);
  }

  private tooMany(ms: number): ApiError {
    const retryAfter = Math.max(1, Math.ceil(ms / 1000));
    return new ApiError(
      'rate_limited',
      `Too many failed authentication attempts from your address: at most ${this.store.points} in ${this.store.duration} s. ` +
        `Retry after ${retryAfter} s.`,
      { headers: { 'Retry-After': String(retryAfter) } },
    );
  }
}

/** `AUTH_FAILURES_PER_MINUTE` and `AUTH_FAILURES_WINDOW_SECONDS` as an allowance per window. */
export type AuthFailureWindow = RateLimitWindow;

/** The limiter over the engine's shared store, or undefined when `window` is (limits off). */
export function createAuthFailureLimiter(
  db: Database,
  window: AuthFailureWindow | undefined,
  trustProxyHops = 0,
): AuthFailureLimiter | undefined {
  return (
    window && new AuthFailureLimiter(createRateLimitStore(db, window, 'authfail'), trustProxyHops)
  );
}

/**
 * A credential check held to `limiter`: an address over its allowance is refused (the 429
 * `ApiError` is thrown) before its credentials are looked at, and a refused credential (or one
 * that could not be checked: `UncheckableCredential`, thrown on) counts one failure. `presented` says whether the request carried credentials at all.
 */
export async function checkWithinAllowance<T extends { ok: boolean }>(
  limiter: AuthFailureLimiter | undefined,
  from: IncomingMessage,
  presented: boolean,
  check: () => Promise<T>,
): Promise<T> {
  if (!limiter) return check();
  const address = limiter.addressOf(from);
  const refusal = await limiter.refusal(address);
  if (refusal) throw refusal;
  let result: T;
  try {
    result = await check();
  } catch (error) {
    // A credential that could not be checked proves nothing: it counts as a guess would.
    if (error instanceof UncheckableCredential && presented) await limiter.recordFailure(address);
    throw error;
  }
  if (!result.ok && presented) await limiter.recordFailure(address);
  return result;
}

/**
 * The client's address: the TCP peer, or behind `trustProxyHops` trusted proxies the address the
 * nearest of them received the request from (taken from the right of `X-Forwarded-For`, which
 * each proxy appends to). IPv4-mapped IPv6 addresses are read as IPv4; IPv6 as its /64.
 */
export function clientAddress(req: IncomingMessage, trustProxyHops: number): string {
  let address = req.socket.remoteAddress ?? 'unknown';
  if (trustProxyHops > 0) {
    const forwarded = req.headers['x-forwarded-for'];
    const hops = (Array.isArray(forwarded) ? forwarded.join(',') : (forwarded ?? ''))
      .split(',')
      .map((hop) => hop.trim())
      .filter(Boolean);
    // Nearest first: the peer, then X-Forwarded-For from the right.
    const chain = [address, ...hops.reverse()];
    address = chain[Math.min(trustProxyHops, chain.length - 1)];
  }
  return addressKey(address);
}

/** Addresses already put in the form they are counted under: parsing one allocated 2 KB a request. */
const keysOfRecentAddresses = new Map<string, string>();
/** Beyond this many addresses the memo starts again, so that any number of clients holds it bounded. */
const RECENT_ADDRESSES = 1024;

/** The form an address is counted under: IPv4 as it is (IPv4-mapped IPv6 included), IPv6 as its /64. */
export function addressKey(address: string): string {
  let key = keysOfRecentAddresses.get(address);
  if (key === undefined) {
    if (keysOfRecentAddresses.size >= RECENT_ADDRESSES) keysOfRecentAddresses.clear();
    key = parsedAddressKey(address);
    keysOfRecentAddresses.set(address, key);
  }
  return key;
}

function parsedAddressKey(address: string): string {
  const bare = address.split('%')[0]; // without an IPv6 zone
  if (!ipaddr.isValid(bare)) return address;
  const parsed = ipaddr.process(bare);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const network = (parsed as ipaddr.IPv6).parts.slice(0, 4).map((part) => part.toString(16));
  return `${network.join(':')}::/64`;
}
