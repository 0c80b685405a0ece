/**
 * An external issuer's key set (`JWT_JWKS_URL`), held so that the identity provider's outage is
 * neither this server's fault nor its load:
 *
 * - The key list is fetched at most once per `minIntervalMs` (30 s), whatever the outcome: a
 *   provider that fails, refuses or hangs gets one request per interval, however many tokens
 *   naming new keys arrive. Requests that need it while a fetch runs wait for that one.
 * - A fetch is given `timeoutMs`; a provider that hangs costs a request at most that long.
 * - A `kid` among the keys held is used at once, even when the keys are older than `maxAgeMs`
 *   (they are then fetched again in the background) and while the provider is out: the keys an
 *   issuer published stay its keys when it is down.
 * - A `kid` not held: after a successful fetch it is a key the issuer does not publish (jose's
 *   `JWKSNoMatchingKey`, a refusal); when the last fetch failed the keys cannot be known, and the
 *   token cannot be checked: `UncheckableCredential`, a 503 with `Retry-After` until the next fetch.
 */
import { createLocalJWKSet, errors, type JWTVerifyGetKey, type JSONWebKeySet } from 'jose';
import type { Clock } from '../domain/clock.js';
import { UncheckableCredential } from './auth-result.js';

export interface RemoteKeySetOptions {
  url: URL;
  clock: Clock;
  /** How long a fetch may take, response body included. */
  timeoutMs: number;
  /** The least time between two fetches, whatever their outcome. */
  minIntervalMs?: number;
  /** Keys older than this are fetched again (in the background, within `minIntervalMs`). */
  maxAgeMs?: number;
}

/** At most one fetch per 30 s, whatever its outcome (jose's cooldown is 30 s too, but only after a success). */
const JWKS_MIN_INTERVAL_MS = 30_000;
const JWKS_MAX_AGE_MS = 10 * 60_000;

type LocalKeys = ReturnType<typeof createLocalJWKSet>;
type Key = Awaited<ReturnType<LocalKeys>>;

/** A key lookup for `jwtVerify` over the issuer's JWKS, fetched as the module header says. */
export function createRemoteKeySet(options: RemoteKeySetOptions): JWTVerifyGetKey {
  const keySet = new RemoteKeySet(options);
  return (header, token) => keySet.key(header, token);
}

class RemoteKeySet {
  private keys: LocalKeys | undefined;
  private fetchedAt = -Infinity;
  private attemptedAt = -Infinity;
  private lastFailure: unknown;
  private pending: Promise<void> | undefined;
  private readonly minIntervalMs: number;
  private readonly maxAgeMs: number;

  constructor(private readonly options: RemoteKeySetOptions) {
    this.minIntervalMs = options.minIntervalMs ?? JWKS_MIN_INTERVAL_MS;
    this.maxAgeMs = options.maxAgeMs ?? JWKS_MAX_AGE_MS;
  }

  async key(header: Parameters<LocalKeys>[0], token: Parameters<LocalKeys>[1]): Promise<Key> {
    if (this.keys && this.now() - this.fetchedAt >= this.maxAgeMs) void this.refresh();
    const key = (await this.held(header, token)) ?? (await this.refresh().then(() => this.held(header, token)));
    if (key) return key;
    if (!this.keys || this.lastFailure !== undefined) throw this.unavailable();
    throw new errors.JWKSNoMatchingKey();
  }

  /** Fetches the key list unless one was fetched (or tried) within the interval; never throws. */
  private refresh(): Promise<void> {
    if (this.pending) return this.pending;
    if (this.now() - this.attemptedAt < this.minIntervalMs) return Promise.resolve();
    this.attemptedAt = this.now();
    this.pending = fetchKeySet(this.options.url, this.options.timeoutMs)
      .then(createLocalJWKSet)
      .then(
        (fetched) => {
          this.keys = fetched;
          this.fetchedAt = this.now();
          this.lastFailure = undefined;
        },
        (error: unknown) => {
          this.lastFailure = error;
        },
      )
      .finally(() => {
        this.pending = undefined;
      });
    return this.pending;
  }

  /** The held key for the token, or undefined when no held key has its `kid`. */
  private async held(header: Parameters<LocalKeys>[0], token: Parameters<LocalKeys>[1]): Promise<Key | undefined> {
    if (!this.keys) return undefined;
    try {
      return await this.keys(header, token);
    } catch (error) {
      if (error instanceof errors.JWKSNoMatchingKey) return undefined;
      throw error;
    }
  }

  private unavailable(): UncheckableCredential {
    const retryAfterS = Math.max(1, Math.ceil((this.attemptedAt + this.minIntervalMs - this.now()) / 1000));
    return new UncheckableCredential(
      `The keys of the access token's issuer cannot be fetched now, so the token cannot be verified. Retry after ${retryAfterS} s.`,
      retryAfterS,
      this.lastFailure,
    );
  }

  private now(): number {
    return this.options.clock.nowMs();
  }
}

/** The JWKS at `url`: a 200 with a JSON key set, within `timeoutMs`; redirects are not followed. */
async function fetchKeySet(url: URL, timeoutMs: number): Promise<JSONWebKeySet> {
  const signal = AbortSignal.timeout(timeoutMs);
  const response = await fetch(url, {
    signal,
    redirect: 'manual',
    headers: { Accept: 'application/jwk-set+json, application/json' },
  });
  if (response.status !== 200) {
    await response.body?.cancel();
    throw new Error(`the JWKS answered HTTP ${response.status}`);
  }
  const jwks = (await response.json()) as JSONWebKeySet;
  if (!jwks || !Array.isArray(jwks.keys)) throw new Error('the JWKS is not a JSON Web Key Set');
  return jwks;
}
